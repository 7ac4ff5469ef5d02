/**
 * Carries a private transaction manager's messages over the node's transport: each node announces
 * its privacy key to every peer it connects to, and a message for a key goes to the peer that
 * announced it. The first peer (by its transport identity: the RLPx node id, the simulated node's
 * name) to announce a key owns it for the node's lifetime: another peer announcing the same key
 * is ignored, and a peer announces one key only. Only the owner speaks for a key: the manager is
 * told which key a message came from. A key whose owner is not connected is unreachable (the
 * manager refuses to send to it); messages already sent to it wait for its owner to reconnect (at
 * most `maxPendingPerKey` per key and `maxPendingKeys` keys).
 */
import type { PeerId, Transport } from '../runtime/ports.ts';
import type { PrivateTransactionManager, PtmMessage, PtmNetwork } from './private-tx-manager.ts';
import { decodePtmMessage, encodePtmMessage, type PtmWireMessage } from './ptm-wire.ts';

export class PtmPeers implements PtmNetwork {
  /** Who owns each key (first announcer), and which owners are connected now. */
  private readonly keyOfPeer = new Map<PeerId, string>();
  private readonly peerOfKey = new Map<string, PeerId>();
  private readonly connected = new Set<PeerId>();
  private readonly pending = new Map<string, PtmMessage[]>();
  private manager?: PrivateTransactionManager;

  constructor(
    private readonly transport: Transport,
    private readonly ownKey: string,
    private readonly limits = { maxPendingPerKey: 1024, maxPendingKeys: 256 },
  ) {}

  attach(manager: PrivateTransactionManager): void {
    this.manager = manager;
  }

  reachable(key: string): boolean {
    const peer = this.peerOfKey.get(key);
    return peer !== undefined && this.connected.has(peer);
  }

  send(toKey: string, message: PtmMessage): void {
    const peer = this.peerOfKey.get(toKey);
    if (peer !== undefined && this.connected.has(peer)) {
      this.transmit(peer, message);
      return;
    }
    let queue = this.pending.get(toKey);
    if (!queue) {
      if (this.pending.size >= this.limits.maxPendingKeys) return;
      queue = [];
      this.pending.set(toKey, queue);
    }
    if (queue.length < this.limits.maxPendingPerKey) queue.push(message);
  }

  onPeerConnected(peer: PeerId): void {
    this.connected.add(peer);
    this.transmit(peer, { kind: 'announce', publicKey: this.ownKey });
    const key = this.keyOfPeer.get(peer);
    if (key !== undefined) this.flush(key, peer);
  }

  onPeerDisconnected(peer: PeerId): void {
    this.connected.delete(peer);
  }

  onMessage(peer: PeerId, code: number, data: Uint8Array): void {
    const message = decodePtmMessage(code, data);
    if (!message) return;
    if (message.kind === 'announce') {
      if (message.publicKey === this.ownKey) return;
      const ownedByPeer = this.keyOfPeer.get(peer);
      const owner = this.peerOfKey.get(message.publicKey);
      if ((ownedByPeer !== undefined && ownedByPeer !== message.publicKey) || (owner !== undefined && owner !== peer)) return;
      this.keyOfPeer.set(peer, message.publicKey);
      this.peerOfKey.set(message.publicKey, peer);
      this.connected.add(peer);
      this.flush(message.publicKey, peer);
      return;
    }
    const from = this.keyOfPeer.get(peer);
    if (from !== undefined) this.manager?.onMessage(from, message);
  }

  private flush(key: string, peer: PeerId): void {
    const queued = this.pending.get(key);
    this.pending.delete(key);
    for (const m of queued ?? []) this.transmit(peer, m);
  }

  /** The privacy key a peer announced. */
  keyOf(peer: PeerId): string | undefined {
    return this.keyOfPeer.get(peer);
  }

  private transmit(peer: PeerId, message: PtmWireMessage): void {
    const { code, data } = encodePtmMessage(message);
    this.transport.send(peer, { protocol: 'ptm', code, data });
  }
}
