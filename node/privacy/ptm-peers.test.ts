/**
 * A privacy key maps to a peer only once the peer proves it holds the key's private half. A peer
 * claiming a member's public key (which anyone can read) is refused and gets nothing, whoever
 * connected first; with the proof planted off, the same run hands it the member's messages (the
 * hijack). Relayed and replayed proofs are refused, and so are hostile handshakes; what an
 * unproven peer may send is bounded.
 */
import test from 'ava';
import { randomBytes } from '@noble/ciphers/utils.js';
import type { PeerId, Transport, WireMessage } from '../runtime/ports.ts';
import { keccak256 } from '../crypto/keccak.ts';
import type { PrivateTransactionManager, PtmMessage } from './private-tx-manager.ts';
import { PtmPeers, type PtmPeersOptions } from './ptm-peers.ts';
import { decodePtmMessage, encodePtmMessage, type PtmWireMessage } from './ptm-wire.ts';
import { keyPairOf, type PrivacyKeyPair } from './ptm-crypto.ts';

const pairOf = (name: string): PrivacyKeyPair => keyPairOf(keccak256(new TextEncoder().encode(`peers test ${name}`)));
const [PA, PB, PE] = ['a', 'b', 'e'].map(pairOf) as [PrivacyKeyPair, PrivacyKeyPair, PrivacyKeyPair];
const DELETE: PtmMessage = { kind: 'delete-group', privacyGroupId: Buffer.alloc(32, 7).toString('base64') };

type Handler = (from: PeerId, code: number, data: Uint8Array) => void;

/** Peers on an in-memory wire; messages wait until `pump`, which can deliver them newest first. */
class Hub {
  readonly wire: Array<{ from: PeerId; to: PeerId; message: WireMessage }> = [];
  readonly log: Array<{ from: PeerId; to: PeerId; message: PtmWireMessage }> = [];
  private readonly handlers = new Map<PeerId, Handler>();
  private readonly links = new Set<string>();

  transport(id: PeerId): Transport {
    return {
      localId: id,
      peers: () => [...this.handlers.keys()].filter((p) => this.linked(id, p)).sort(),
      send: (to, message) => {
        this.wire.push({ from: id, to, message });
        this.log.push({ from: id, to, message: decodePtmMessage(message.code, message.data)! });
      },
      setHandlers: () => {},
    };
  }

  node(id: PeerId, keys: PrivacyKeyPair, options: Partial<PtmPeersOptions> = {}) {
    const received: Array<[string, PtmMessage]> = [];
    const refused: string[] = [];
    const peers = new PtmPeers(this.transport(id), keys, randomBytes, { ...options, onRefused: (peer, reason) => void refused.push(`${peer}: ${reason}`) });
    peers.attach({ onMessage: (from: string, m: PtmMessage) => void received.push([from, m]) } as unknown as PrivateTransactionManager);
    this.handlers.set(id, (from, code, data) => peers.onMessage(from, code, data));
    return { peers, received, refused, id };
  }

  /** A peer driven by hand: it records what it is sent. */
  raw(id: PeerId) {
    const inbox: PtmWireMessage[] = [];
    this.handlers.set(id, (_from, code, data) => void inbox.push(decodePtmMessage(code, data)!));
    const send = (to: PeerId, m: PtmWireMessage) => this.wire.push({ from: id, to, message: { protocol: 'ptm', ...encodePtmMessage(m) } });
    return { inbox, send, id };
  }

  connect(a: { id: PeerId; peers?: PtmPeers }, b: { id: PeerId; peers?: PtmPeers }): void {
    this.links.add([a.id, b.id].sort().join('|'));
    a.peers?.onPeerConnected(b.id);
    b.peers?.onPeerConnected(a.id);
  }

  disconnect(a: { id: PeerId; peers?: PtmPeers }, b: { id: PeerId; peers?: PtmPeers }): void {
    this.links.delete([a.id, b.id].sort().join('|'));
    a.peers?.onPeerDisconnected(b.id);
    b.peers?.onPeerDisconnected(a.id);
  }

  pump(order: 'oldest-first' | 'newest-first' = 'oldest-first'): void {
    while (this.wire.length > 0) {
      const { from, to, message } = order === 'oldest-first' ? this.wire.shift()! : this.wire.pop()!;
      if (this.linked(from, to)) this.handlers.get(to)?.(from, message.code, message.data);
    }
  }

  private linked(a: PeerId, b: PeerId): boolean {
    return this.links.has([a, b].sort().join('|'));
  }
}

for (const order of ['oldest-first', 'newest-first'] as const)
  test(`two peers prove their keys to each other (messages delivered ${order}) and then talk`, (t) => {
    const hub = new Hub();
    const a = hub.node('a', PA);
    const b = hub.node('b', PB);
    hub.connect(a, b);
    b.peers.send(PA.publicKey, DELETE);
    hub.pump(order);
    t.is(a.peers.keyOf('b'), PB.publicKey);
    t.is(b.peers.keyOf('a'), PA.publicKey);
    t.true(a.peers.reachable(PB.publicKey));
    t.deepEqual(a.received, [[PB.publicKey, DELETE]], 'the message queued before the proof arrives once, from the proven key');
    t.deepEqual([...a.refused, ...b.refused], []);
  });

/**
 * The hijack: E runs with B's public key (and its own private key). A meets E before B, as after
 * a restart of A while B was away. Returns what A did with B's messages.
 */
function hijack(plantSkipKeyProof: boolean) {
  const hub = new Hub();
  const a = hub.node('a', PA, { skipKeyProof: plantSkipKeyProof });
  const b = hub.node('b', PB);
  const e = hub.node('e', { publicKey: PB.publicKey, privateKey: PE.privateKey });
  hub.connect(a, e);
  hub.pump();
  a.peers.send(PB.publicKey, DELETE);
  hub.connect(a, b);
  hub.pump();
  a.peers.send(PB.publicKey, DELETE);
  hub.pump();
  const toE = hub.log.filter((m) => m.from === 'a' && m.to === 'e' && m.message.kind === 'delete-group').length;
  const toB = hub.log.filter((m) => m.from === 'a' && m.to === 'b' && m.message.kind === 'delete-group').length;
  return { toE, toB, holder: a.peers.keyOf('e') ? 'e' : a.peers.keyOf('b') ? 'b' : undefined, refused: a.refused };
}

test('a peer claiming a key it does not hold is refused and gets nothing; the holder gets the key and what waited for it', (t) => {
  const r = hijack(false);
  t.is(r.holder, 'b');
  t.is(r.toE, 0, 'nothing for B reaches E');
  t.is(r.toB, 2, 'both messages reach B (the first waited for its proof)');
  t.deepEqual(r.refused, [`e: does not prove it holds privacy key ${PB.publicKey} (its proof does not hold)`]);
});

test('planted: without the key proof the same run hands B\'s key and messages to E (the hijack the proof stops)', (t) => {
  const r = hijack(true);
  t.is(r.holder, 'e');
  t.is(r.toE, 2);
  t.is(r.toB, 0, 'the real member is cut out');
  t.deepEqual(r.refused, [`b: proved privacy key ${PB.publicKey}, which connected peer e proved first`]);
});

test("a relayed proof is refused: E passes A's challenge to B and B's proof back to A", (t) => {
  const hub = new Hub();
  const a = hub.node('a', PA);
  const b = hub.node('b', PB);
  const e = hub.raw('e');
  hub.connect(a, e);
  hub.connect(b, e);
  hub.pump();
  const helloA = e.inbox.find((m) => m.kind === 'hello' && m.publicKey === PA.publicKey) as Extract<PtmWireMessage, { kind: 'hello' }>;
  // To B, E claims A's key with A's challenge; to A, B's key.
  e.send('b', { kind: 'hello', publicKey: PA.publicKey, challenge: helloA.challenge });
  e.send('a', { kind: 'hello', publicKey: PB.publicKey, challenge: randomBytes(32) });
  hub.pump();
  const proofFromB = e.inbox.filter((m) => m.kind === 'proof').at(-1) as Extract<PtmWireMessage, { kind: 'proof' }>;
  t.truthy(proofFromB, 'B answered the relayed challenge');
  e.send('a', proofFromB);
  hub.pump();
  t.is(a.peers.keyOf('e'), undefined);
  t.false(a.peers.reachable(PB.publicKey));
  t.true(a.refused.some((r) => r.startsWith(`e: does not prove it holds privacy key ${PB.publicKey}`)));
});

test('a proof over an earlier connection\'s challenge is refused on a new connection', (t) => {
  const hub = new Hub();
  const a = hub.node('a', PA);
  const b = hub.node('b', PB);
  hub.connect(a, b);
  hub.pump();
  const oldProof = hub.log.filter((m) => m.from === 'b' && m.message.kind === 'proof').at(-1)!.message;
  hub.disconnect(a, b);
  // B's node id reconnects, but what speaks for it only replays (no key to answer the new challenge).
  const replayer = hub.raw('b');
  hub.connect(a, replayer);
  replayer.send('a', { kind: 'hello', publicKey: PB.publicKey, challenge: randomBytes(32) });
  replayer.send('a', oldProof);
  hub.pump();
  t.is(a.peers.keyOf('b'), undefined);
  t.true(a.refused.some((r) => r.includes('does not prove it holds privacy key')));
});

test('hostile handshakes are refused with their reason: own key, a key of small order, key after key, malformed', (t) => {
  const hub = new Hub();
  const a = hub.node('a', PA, { maxClaimsPerConnection: 2 });
  const x = hub.raw('x');
  hub.connect(a, x);
  x.send('a', { kind: 'hello', publicKey: PA.publicKey, challenge: randomBytes(32) });
  x.send('a', { kind: 'hello', publicKey: Buffer.alloc(32).toString('base64'), challenge: randomBytes(32) });
  for (const name of ['k1', 'k2', 'k3']) x.send('a', { kind: 'hello', publicKey: pairOf(name).publicKey, challenge: randomBytes(32) });
  hub.wire.push({ from: 'x', to: 'a', message: { protocol: 'ptm', code: 0, data: Uint8Array.of(0xc1, 0x80) } });
  hub.wire.push({ from: 'x', to: 'a', message: { protocol: 'ptm', code: 9, data: Uint8Array.of(0xc0) } });
  hub.pump();
  t.deepEqual(
    a.refused.map((r) => r.replace(/ \(.*\)$| [A-Za-z0-9+/]{43}=/g, '')),
    ["x: claims this node's own privacy key", 'x: claims, a key of small order', 'x: claims, more than 2 privacy keys on one connection', 'x: malformed ptm message', 'x: malformed ptm message'],
  );
  t.is(a.peers.keyOf('x'), undefined);
});

test('what an unproven peer sends is bounded, then refused', (t) => {
  const hub = new Hub();
  const a = hub.node('a', PA, { maxEarlyMessages: 3 });
  const x = hub.raw('x');
  hub.connect(a, x);
  for (let i = 0; i < 5; i++) x.send('a', DELETE);
  hub.pump();
  t.is(a.refused.length, 2);
  t.regex(a.refused[0]!, /delete-group before proving its privacy key, over the 3 messages/);
  t.deepEqual(a.received, []);
});

test('a message from a peer that is not connected opens no handshake', (t) => {
  const hub = new Hub();
  const a = hub.node('a', PA);
  const x = hub.raw('x');
  x.send('a', DELETE);
  hub.connect(a, x);
  hub.disconnect(a, x);
  hub.wire.length = 0;
  (hub as unknown as { handlers: Map<PeerId, Handler> }).handlers.get('a')!('x', encodePtmMessage(DELETE).code, encodePtmMessage(DELETE).data);
  t.deepEqual(hub.wire, [], 'no Hello to a peer that is gone');
});

test('two peers holding one key: the first keeps it while connected; when it leaves the other, which proved it, takes it', (t) => {
  const hub = new Hub();
  const a = hub.node('a', PA);
  const b = hub.node('b', PB);
  const copy = hub.node('b-copy', PB);
  hub.connect(a, b);
  hub.pump();
  hub.connect(a, copy);
  hub.pump();
  t.is(a.peers.keyOf('b'), PB.publicKey);
  t.is(a.peers.keyOf('b-copy'), undefined);
  t.deepEqual(a.refused, [`b-copy: proved privacy key ${PB.publicKey}, which connected peer b proved first`]);
  hub.disconnect(a, b);
  t.is(a.peers.keyOf('b-copy'), PB.publicKey);
  a.peers.send(PB.publicKey, DELETE);
  hub.pump();
  t.deepEqual(copy.received, [[PA.publicKey, DELETE]]);
});
