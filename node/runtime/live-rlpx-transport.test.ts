import test from 'ava';
import { bytesToHex } from '../crypto/bytes.ts';
import { privateKeyToAddress } from '../crypto/secp256k1.ts';
import { RlpxTransport } from './live-rlpx-transport.ts';
import type { PeerId, WireMessage } from './ports.ts';

const key = (n: number): Uint8Array => {
  const k = new Uint8Array(32);
  k[31] = n;
  k[0] = 0x10;
  return k;
};

interface Seen {
  events: string[];
  messages: Array<{ from: PeerId; message: WireMessage }>;
}

type TransportLog = NonNullable<ConstructorParameters<typeof RlpxTransport>[0]['log']>;

async function start(n: number, opts: { maintained?: string[]; maxPeers?: number; log?: TransportLog; nodePermissioning?: ConstructorParameters<typeof RlpxTransport>[0]['nodePermissioning'] } = {}): Promise<{ t: RlpxTransport; seen: Seen }> {
  const t = new RlpxTransport({ nodeKey: key(n), listenHost: '127.0.0.1', listenPort: 0, advertisedHost: '127.0.0.1', clientId: `test/${n}`, redialIntervalMs: 100, ...opts });
  const seen: Seen = { events: [], messages: [] };
  t.setHandlers({
    onMessage: (from, message) => void seen.messages.push({ from, message }),
    onPeerConnected: (p) => void seen.events.push(`up:${p.slice(0, 8)}`),
    onPeerDisconnected: (p) => void seen.events.push(`down:${p.slice(0, 8)}`),
  });
  await t.listen();
  return { t, seen };
}

async function until(what: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('a dialled peer connects both ways; messages arrive whole; addresses are the node keys\' addresses', async (t) => {
  const a = await start(1);
  const b = await start(2, { maintained: [] });
  try {
    t.true(b.t.addPeer(a.t.enode()));
    t.false(b.t.addPeer(a.t.enode()), 'already maintained');
    await until(() => a.t.peers().length === 1 && b.t.peers().length === 1);
    t.deepEqual(a.t.peers(), [b.t.localId]);
    t.is(a.t.addressOfPeer(b.t.localId), privateKeyToAddress(key(2)).toLowerCase());
    t.is(b.t.peerForAddress(privateKeyToAddress(key(1))), a.t.localId);
    t.deepEqual(a.t.peerInfo(b.t.localId)?.capabilities, ['eth/68', 'istanbul/100']);
    t.true(a.t.peerInfo(b.t.localId)?.inbound);
    const data = Uint8Array.from({ length: 3000 }, (_, i) => i % 251);
    a.t.send(b.t.localId, { protocol: 'istanbul', code: 0x12, data });
    b.t.send(a.t.localId, { protocol: 'eth', code: 0x03, data: Uint8Array.of(0xc0) });
    await until(() => a.seen.messages.length === 1 && b.seen.messages.length === 1);
    t.is(b.seen.messages[0]!.from, a.t.localId);
    t.is(b.seen.messages[0]!.message.code, 0x12);
    t.is(bytesToHex(b.seen.messages[0]!.message.data), bytesToHex(data));
    t.deepEqual(a.seen.messages[0]!.message, { protocol: 'eth', code: 0x03, data: Uint8Array.of(0xc0) });
    t.deepEqual(a.seen.events, [`up:${b.t.localId.slice(0, 8)}`]);
  } finally {
    await Promise.all([a.t.close(), b.t.close()]);
  }
});

test('two nodes dialling each other at once keep one connection, the same one on both sides', async (t) => {
  const a = await start(3);
  const b = await start(4);
  try {
    a.t.addPeer(b.t.enode());
    b.t.addPeer(a.t.enode());
    await until(() => a.t.peers().length === 1 && b.t.peers().length === 1);
    await new Promise((r) => setTimeout(r, 400));
    t.is(a.t.peers().length, 1);
    t.is(b.t.peers().length, 1);
    // The kept connection is the one dialled by the smaller id, so exactly one side sees it inbound.
    t.not(a.t.peerInfo(b.t.localId)?.inbound, b.t.peerInfo(a.t.localId)?.inbound);
    t.is(a.t.peerInfo(b.t.localId)?.inbound, a.t.localId < b.t.localId ? false : true);
    // Connect events are never repeated for the same peer.
    t.deepEqual(a.seen.events, [`up:${b.t.localId.slice(0, 8)}`]);
    a.t.send(b.t.localId, { protocol: 'istanbul', code: 0x13, data: Uint8Array.of(1) });
    await until(() => b.seen.messages.length === 1);
  } finally {
    await Promise.all([a.t.close(), b.t.close()]);
  }
});

test('--max-peers refuses a peer that is not maintained; a removed peer is disconnected and not re-dialled', async (t) => {
  const a = await start(5, { maxPeers: 1 });
  const b = await start(6);
  const c = await start(7);
  try {
    b.t.connectTo(a.t.enode());
    await until(() => a.t.peers().length === 1);
    c.t.connectTo(a.t.enode());
    await until(() => a.t.stats.refused === 1);
    t.deepEqual(a.t.peers(), [b.t.localId]);
    // c completes the Hello exchange and then gets TOO_MANY_PEERS.
    await until(() => c.t.peers().length === 0);
    t.true(a.t.removePeer(b.t.enode()) === false, 'b was not maintained by a');
    b.t.addPeer(a.t.enode());
    t.true(b.t.removePeer(a.t.enode()));
    await until(() => b.t.peers().length === 0 && a.t.peers().length === 0);
    await new Promise((r) => setTimeout(r, 300));
    t.deepEqual(b.t.peers(), [], 'not re-dialled after removal');
    t.true(b.seen.events.at(-1)!.startsWith('down:'));
  } finally {
    await Promise.all([a.t.close(), b.t.close(), c.t.close()]);
  }
});

test('a maintained peer that goes away is re-dialled when it comes back', async (t) => {
  const a = await start(8);
  const port = a.t.port;
  const enode = a.t.enode();
  const b = await start(9, { maintained: [enode] });
  try {
    await until(() => b.t.peers().length === 1);
    await a.t.close();
    await until(() => b.t.peers().length === 0);
    const again = new RlpxTransport({ nodeKey: key(8), listenHost: '127.0.0.1', listenPort: port, advertisedHost: '127.0.0.1', clientId: 'test/8b' });
    again.setHandlers({ onMessage: () => {}, onPeerConnected: () => {}, onPeerDisconnected: () => {} });
    await again.listen();
    try {
      await until(() => b.t.peers().length === 1);
      t.is(b.t.peerInfo(again.localId)?.clientId, 'test/8b');
    } finally {
      await again.close();
    }
  } finally {
    await b.t.close();
  }
});

test('disconnect(peer, subprotocol-triggered) sends Disconnect 0x10; both sides see the peer go; unknown peers are ignored', async (t) => {
  const closes: Array<Record<string, unknown>> = [];
  const a = await start(10);
  const b = await start(11, { log: (_level, message, fields) => void (message === 'peer disconnected' && closes.push(fields ?? {})) });
  try {
    b.t.connectTo(a.t.enode());
    await until(() => a.t.peers().length === 1 && b.t.peers().length === 1);
    a.t.disconnect('00'.repeat(64), 'subprotocol-triggered');
    a.t.disconnect(b.t.localId, 'subprotocol-triggered');
    await until(() => a.t.peers().length === 0 && b.t.peers().length === 0 && closes.length === 1);
    t.like(closes[0], { reason: 'subprotocol-specific reason (0x10)', by: 'remote' });
    await until(() => a.seen.events.length === 2 && b.seen.events.length === 2);
    t.deepEqual(a.seen.events, [`up:${b.t.localId.slice(0, 8)}`, `down:${b.t.localId.slice(0, 8)}`]);
    t.deepEqual(b.seen.events, [`up:${a.t.localId.slice(0, 8)}`, `down:${a.t.localId.slice(0, 8)}`]);
  } finally {
    await Promise.all([a.t.close(), b.t.close()]);
  }
});

test('nodes allowlist: a peer off the list is refused after its Hello and never dialled; a listed one connects; removing it disconnects it', async (t) => {
  const { NodeAllowlist } = await import('../permissioning/node-allowlist.ts');
  const { MemoryAllowlistStore } = await import('../permissioning/allowlist-store.ts');
  const { parseAllowlistEnode } = await import('../permissioning/allowlist-enode.ts');
  const { nodeIdFromPrivateKey } = await import('../p2p/rlpx/node-identity.ts');
  const store = new MemoryAllowlistStore();
  const allowlist = new NodeAllowlist(store, { localNodeId: bytesToHex(nodeIdFromPrivateKey(key(12))).slice(2) });
  const outsiderCloses: Array<Record<string, unknown>> = [];
  const a = await start(12, { nodePermissioning: allowlist });
  const outsider = await start(13, { log: (_level, message, fields) => void (message === 'peer disconnected' && outsiderCloses.push(fields ?? {})) });
  const member = await start(14);
  try {
    allowlist.load([parseAllowlistEnode(member.t.enode())]);
    store.values = allowlist.entries();
    outsider.t.connectTo(a.t.enode());
    await until(() => a.t.stats.notPermitted === 1 && outsiderCloses.length === 1);
    t.deepEqual(a.t.peers(), []);
    t.deepEqual(a.seen.events, [], 'the node never hears of a refused peer');
    t.like(outsiderCloses[0], { reason: 'disconnect requested (0x00)', by: 'remote' });
    member.t.connectTo(a.t.enode());
    await until(() => a.t.peers().length === 1 && member.t.peers().length === 1);
    t.deepEqual(a.t.peers(), [member.t.localId]);
    // Dialling out: a peer off the list is not even dialled.
    const dialled = a.t.stats.dialled;
    t.true(a.t.addPeer(outsider.t.enode()));
    await new Promise((r) => setTimeout(r, 300));
    t.is(a.t.stats.dialled, dialled);
    t.deepEqual(a.t.peers(), [member.t.localId]);
    // Removing the member from the list disconnects it at once.
    t.like(allowlist.remove([member.t.enode()]), { result: 'SUCCESS' });
    await until(() => a.t.peers().length === 0 && member.t.peers().length === 0);
    // Listed again, the maintained outsider is dialled by the redial loop and stays.
    t.like(allowlist.add([outsider.t.enode()]), { result: 'SUCCESS' });
    await until(() => a.t.peers().length === 1 && outsider.t.peers().length === 1);
    t.deepEqual(a.t.peers(), [outsider.t.localId]);
    t.false(a.t.peerInfo(outsider.t.localId)?.inbound);
  } finally {
    await Promise.all([a.t.close(), outsider.t.close(), member.t.close()]);
  }
});
