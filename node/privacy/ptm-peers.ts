/**
 * Carries a private transaction manager's messages over the node's transport. A peer's privacy key
 * is taken only once the peer proves it holds the key's private half: on each connection both
 * sides send Hello (the key they claim and a fresh challenge) and answer the other's Hello with a
 * Proof over its challenge (ptm-crypto.ts); a key maps to a peer (its transport identity: the
 * RLPx node id, the simulated node's name) only after its proof holds. A peer claiming a key it
 * does not hold (a member's public key, which anyone can read) gets nothing: it is never mapped,
 * and the real holder still is, whoever connected first.
 *
 * A proven key stays with its peer while that peer is connected (two peers proving one key, an
 * operator's copy, do not take it from each other); when it is gone, another connected peer that
 * proved the key, or the next to prove it, takes it. Only the peer holding a key speaks for it:
 * the manager is told which key a message came from. Messages a peer sends before its proof
 * holds (the network may reorder) wait for it, bounded (`maxEarlyMessages`, `maxEarlyBytes`). A
 * key whose holder is not connected is unreachable (the manager refuses to send to it); messages
 * already sent to it wait for it (at most `maxPendingPerKey` per key and `maxPendingKeys` keys).
 *
 * Everything refused from a peer is reported with its reason (`onRefused`).
 */
import type { PeerId, Transport } from '../runtime/ports.ts';
import type { PrivateTransactionManager, PtmMessage, PtmNetwork } from './private-tx-manager.ts';
import { fromBase64 } from './private-transaction.ts';
import { boxKey, CHALLENGE_BYTES, keyProof, proofHolds, type PrivacyKeyPair, type RandomBytes } from './ptm-crypto.ts';
import { decodePtmMessage, encodePtmMessage, type PtmWireMessage } from './ptm-wire.ts';

export interface PtmPeersOptions {
  maxPendingPerKey: number;
  maxPendingKeys: number;
  maxEarlyMessages: number;
  maxEarlyBytes: number;
  /** A peer may change the key it claims this often per connection (each claim costs an X25519). */
  maxClaimsPerConnection: number;
  /** Planted defect, for the tests that show the proof matters: a claimed key is taken without its proof. */
  skipKeyProof: boolean;
  onRefused?(peer: PeerId, reason: string): void;
}

export const DEFAULT_PTM_PEERS_OPTIONS: PtmPeersOptions = {
  maxPendingPerKey: 1024,
  maxPendingKeys: 256,
  maxEarlyMessages: 64,
  maxEarlyBytes: 4 * 1024 * 1024,
  maxClaimsPerConnection: 4,
  skipKeyProof: false,
};

/** One connection's handshake. */
interface Session {
  /** Ours, sent in our Hello: the peer's proof must cover it. */
  challenge: Uint8Array;
  claimedKey?: string;
  claims: number;
  /** The box key of our key and the claimed one. */
  sharedKey?: Uint8Array;
  /** Its proof held. */
  verified: boolean;
  /** It holds the claimed key here (verified, and no other connected peer held it first). */
  proven: boolean;
  /** A proof that came before the peer's Hello. */
  earlyProof?: Uint8Array;
  early: Array<{ message: PtmMessage; size: number }>;
  earlyBytes: number;
}

export class PtmPeers implements PtmNetwork {
  private readonly sessions = new Map<PeerId, Session>();
  /** The peer that last proved each key. */
  private readonly peerOfKey = new Map<string, PeerId>();
  private readonly pending = new Map<string, PtmMessage[]>();
  private readonly options: PtmPeersOptions;
  private manager?: PrivateTransactionManager;

  constructor(
    private readonly transport: Transport,
    private readonly keys: PrivacyKeyPair,
    private readonly random: RandomBytes,
    options: Partial<PtmPeersOptions> = {},
  ) {
    this.options = { ...DEFAULT_PTM_PEERS_OPTIONS, ...options };
  }

  attach(manager: PrivateTransactionManager): void {
    this.manager = manager;
  }

  reachable(key: string): boolean {
    const peer = this.peerOfKey.get(key);
    return peer !== undefined && this.holds(peer, key);
  }

  send(toKey: string, message: PtmMessage): void {
    const peer = this.peerOfKey.get(toKey);
    if (peer !== undefined && this.holds(peer, toKey)) {
      this.transmit(peer, message);
      return;
    }
    let queue = this.pending.get(toKey);
    if (!queue) {
      if (this.pending.size >= this.options.maxPendingKeys) return;
      queue = [];
      this.pending.set(toKey, queue);
    }
    if (queue.length < this.options.maxPendingPerKey) queue.push(message);
  }

  /** Starts the handshake; a peer reported connected again keeps its handshake (and hears our Hello again). */
  onPeerConnected(peer: PeerId): void {
    const session = this.sessions.get(peer) ?? this.open(peer);
    this.greet(peer, session);
  }

  /** A key the departed peer held goes to another connected peer that proved it, if any. */
  onPeerDisconnected(peer: PeerId): void {
    const session = this.sessions.get(peer);
    this.sessions.delete(peer);
    if (!session?.proven) return;
    for (const [other, s] of this.sessions) if (s.verified && s.claimedKey === session.claimedKey) return this.bind(other, s);
  }

  onMessage(peer: PeerId, code: number, data: Uint8Array): void {
    const message = decodePtmMessage(code, data);
    if (!message) return this.refuse(peer, `malformed ptm message (code ${code}, ${data.length} bytes)`);
    const session = this.sessions.get(peer) ?? (this.transport.peers().includes(peer) ? this.greet(peer, this.open(peer)) : undefined);
    if (!session) return;
    if (message.kind === 'hello') return this.onHello(peer, session, message.publicKey, message.challenge);
    if (message.kind === 'proof') return this.onProof(peer, session, message.mac);
    if (session.proven) return this.deliver(peer, session.claimedKey!, message);
    if (session.early.length >= this.options.maxEarlyMessages || session.earlyBytes + data.length > this.options.maxEarlyBytes)
      return this.refuse(peer, `${message.kind} before proving its privacy key, over the ${this.options.maxEarlyMessages} messages or ${this.options.maxEarlyBytes} bytes kept for it`);
    session.early.push({ message, size: data.length });
    session.earlyBytes += data.length;
  }

  /** The privacy key a connected peer proved. */
  keyOf(peer: PeerId): string | undefined {
    const session = this.sessions.get(peer);
    return session?.proven ? session.claimedKey : undefined;
  }

  private onHello(peer: PeerId, session: Session, key: string, challenge: Uint8Array): void {
    if (key === this.keys.publicKey) return this.refuse(peer, `claims this node's own privacy key ${key}`);
    if (session.claimedKey !== key) {
      if (session.claims >= this.options.maxClaimsPerConnection) return this.refuse(peer, `claims ${key}, more than ${this.options.maxClaimsPerConnection} privacy keys on one connection`);
      const sharedKey = boxKey(this.keys.privateKey, fromBase64(key)!);
      if (!sharedKey) return this.refuse(peer, `claims ${key}, a key of small order (not a usable X25519 key)`);
      this.unbind(peer, session);
      session.claims++;
      Object.assign(session, { claimedKey: key, sharedKey, verified: false, proven: false });
    }
    this.transmit(peer, { kind: 'proof', mac: keyProof(session.sharedKey!, challenge, this.parties(peer, key, 'us')) });
    if (this.options.skipKeyProof) {
      session.verified = true;
      return this.bind(peer, session);
    }
    const early = session.earlyProof;
    session.earlyProof = undefined;
    if (early) this.onProof(peer, session, early);
  }

  private onProof(peer: PeerId, session: Session, mac: Uint8Array): void {
    if (session.verified || this.options.skipKeyProof) return;
    if (session.claimedKey === undefined) {
      session.earlyProof = mac;
      return;
    }
    const expected = keyProof(session.sharedKey!, session.challenge, this.parties(peer, session.claimedKey, 'them'));
    if (!proofHolds(expected, mac)) return this.refuse(peer, `does not prove it holds privacy key ${session.claimedKey} (its proof does not hold)`);
    session.verified = true;
    this.bind(peer, session);
  }

  private bind(peer: PeerId, session: Session): void {
    const key = session.claimedKey!;
    const holder = this.peerOfKey.get(key);
    if (holder !== undefined && holder !== peer && this.holds(holder, key)) return this.refuse(peer, `proved privacy key ${key}, which connected peer ${holder} proved first`);
    session.proven = true;
    this.peerOfKey.set(key, peer);
    const early = session.early;
    session.early = [];
    session.earlyBytes = 0;
    for (const { message } of early) this.deliver(peer, key, message);
    const queued = this.pending.get(key);
    this.pending.delete(key);
    for (const m of queued ?? []) this.transmit(peer, m);
  }

  private unbind(peer: PeerId, session: Session): void {
    if (session.claimedKey !== undefined && this.peerOfKey.get(session.claimedKey) === peer) this.peerOfKey.delete(session.claimedKey);
    session.proven = false;
  }

  private deliver(peer: PeerId, fromKey: string, message: PtmMessage): void {
    const refused = this.manager?.onMessage(fromKey, message);
    if (refused) this.refuse(peer, refused);
  }

  private holds(peer: PeerId, key: string): boolean {
    const session = this.sessions.get(peer);
    return session !== undefined && session.proven && session.claimedKey === key;
  }

  private parties(peer: PeerId, peerKey: string, prover: 'us' | 'them') {
    const us = { key: fromBase64(this.keys.publicKey)!, id: this.transport.localId };
    const them = { key: fromBase64(peerKey)!, id: peer };
    const [p, v] = prover === 'us' ? [us, them] : [them, us];
    return { proverKey: p.key, proverId: p.id, verifierKey: v.key, verifierId: v.id };
  }

  private open(peer: PeerId): Session {
    const session: Session = { challenge: this.random(CHALLENGE_BYTES), claims: 0, verified: false, proven: false, early: [], earlyBytes: 0 };
    this.sessions.set(peer, session);
    return session;
  }

  private greet(peer: PeerId, session: Session): Session {
    this.transmit(peer, { kind: 'hello', publicKey: this.keys.publicKey, challenge: session.challenge });
    return session;
  }

  private refuse(peer: PeerId, reason: string): void {
    this.options.onRefused?.(peer, reason);
  }

  private transmit(peer: PeerId, message: PtmWireMessage): void {
    const { code, data } = encodePtmMessage(message);
    this.transport.send(peer, { protocol: 'ptm', code, data });
  }
}
