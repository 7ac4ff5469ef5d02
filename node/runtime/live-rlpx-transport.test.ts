import test from 'ava';
import { connect, type Socket } from 'node:net';
import { bytesToHex, hexToBytes } from '../crypto/bytes.ts';
import { DisconnectReason } from '../p2p/rlpx/disconnect-reasons.ts';
import { MAX_FRAME_SIZE_FIELD } from '../p2p/rlpx/frame-codec.ts';
import { decodeDisconnect, P2pCode } from '../p2p/rlpx/p2p-messages.ts';
import { RawPeer, within } from '../p2p/rlpx/rlpx-test-kit.ts';
import { privateKeyToAddress } from '../crypto/secp256k1.ts';
import { RlpxTransport, type RlpxTransportOptions } from './live-rlpx-transport.ts';
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

async function start(n: number, opts: Omit<Partial<RlpxTransportOptions>, 'nodeKey'> & { log?: TransportLog } = {}): Promise<{ t: RlpxTransport; seen: Seen }> {
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

function tcp(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** A scripted peer that dialled `to` and finished auth/ack; it has not sent Hello yet. */
async function rawInbound(to: RlpxTransport, n: number): Promise<RawPeer> {
  const raw = new RawPeer(await tcp(to.port), key(n));
  await raw.initiate(hexToBytes(`0x${to.localId}`));
  return raw;
}

/** The raw peer's Hello; from then on what it receives is Snappy-compressed. */
function sendHello(raw: RawPeer): void {
  raw.sendHello();
  raw.snappy = true;
}

function disconnectReason(raw: RawPeer): number | undefined {
  const frame = raw.frames.find((f) => f.messageId === P2pCode.Disconnect);
  return frame && decodeDisconnect(frame.data);
}


test('at most maxPendingInbound connections wait in the handshake; one more is closed before any byte is read', async (t) => {
  const a = await start(40, { maxPendingInbound: 3 });
  const b = await start(41);
  const sockets: Socket[] = [];
  try {
    let closedByNode = 0;
    for (let i = 0; i < 5; i++) {
      const socket = await tcp(a.t.port);
      socket.on('error', () => {});
      socket.once('close', () => closedByNode++);
      sockets.push(socket);
    }
    await until(() => a.t.stats.pendingRefused === 2 && closedByNode === 2, 20_000);
    t.is(a.t.stats.accepted, 3);
    t.is(a.t.pendingHandshakes, 3);
    // A pending connection that goes frees its place.
    const open = sockets.filter((s) => !s.destroyed && s.readyState === 'open');
    t.is(open.length, 3);
    open[0]!.destroy();
    await until(() => a.t.pendingHandshakes === 2, 20_000);
    sockets.push(await tcp(a.t.port));
    await until(() => a.t.stats.accepted === 4 && a.t.pendingHandshakes === 3, 20_000);
    // A connection that completes its Hello leaves the count.
    for (const s of sockets) s.destroy();
    await until(() => a.t.pendingHandshakes === 0, 20_000);
    b.t.connectTo(a.t.enode());
    await until(() => a.t.peers().length === 1, 20_000);
    t.is(a.t.pendingHandshakes, 0);
  } finally {
    for (const s of sockets) s.destroy();
    await Promise.all([a.t.close(), b.t.close()]);
  }
});

test('30 connections declaring 16 MiB frames before Hello are each dropped at the header and leave nothing buffered', async (t) => {
  // A long handshake timeout: only the frame cap can drop them within the bound below.
  const a = await start(42, { handshakeTimeoutMs: 600_000 });
  try {
    const raws = await Promise.all(Array.from({ length: 30 }, (_, i) => rawInbound(a.t, 100 + i)));
    for (const raw of raws) raw.sendFrameHeader(MAX_FRAME_SIZE_FIELD, 256 * 1024);
    await within(Promise.all(raws.map((raw) => raw.closed)), 'all 30 connections dropped');
    await until(() => a.t.pendingHandshakes === 0, 20_000);
    t.is(a.t.bufferedBytes(), 0);
    t.deepEqual(a.t.peers(), []);
    t.true(raws.every((raw) => disconnectReason(raw) === undefined), 'dropped without Disconnect, as Besu');
  } finally {
    await a.t.close();
  }
});

test('inbound share (60% of --max-peers 5 = 3): inbound peers may fill free slots; at full an outbound peer displaces an inbound one with TOO_MANY_PEERS', async (t) => {
  const a = await start(43, { maxPeers: 5, maxRemotelyInitiatedPeers: 3, pingIntervalMs: 600_000 });
  const outbound = await Promise.all([start(44), start(45), start(46)]);
  const raws: RawPeer[] = [];
  try {
    for (let i = 0; i < 5; i++) {
      const raw = await rawInbound(a.t, 60 + i);
      sendHello(raw);
      raws.push(raw);
      await until(() => a.t.peers().length === i + 1, 20_000);
    }
    // All slots taken: a sixth inbound peer is refused after its Hello.
    const sixth = await rawInbound(a.t, 70);
    sendHello(sixth);
    await within(sixth.closed, 'the sixth inbound peer refused');
    t.is(disconnectReason(sixth), DisconnectReason.TOO_MANY_PEERS);
    // Five inbound is more than the share of three: an outbound peer still gets in, twice.
    for (const [i, peer] of outbound.slice(0, 2).entries()) {
      a.t.connectTo(peer.t.enode());
      await until(() => a.t.peers().includes(peer.t.localId) && raws.filter((r) => disconnectReason(r) !== undefined).length === i + 1, 20_000);
    }
    const displaced = raws.filter((r) => disconnectReason(r) !== undefined);
    t.deepEqual(displaced.map(disconnectReason), [DisconnectReason.TOO_MANY_PEERS, DisconnectReason.TOO_MANY_PEERS]);
    await until(() => a.t.peers().length === 5, 20_000);
    t.is(a.t.peers().filter((p) => a.t.peerInfo(p)?.inbound).length, 3);
    t.is(a.t.stats.displaced, 2);
    // Three inbound is the share: at full, a third discovered peer is not dialled.
    const dialled = a.t.stats.dialled;
    a.t.connectTo(outbound[2]!.t.enode());
    t.is(a.t.stats.dialled, dialled);
  } finally {
    for (const raw of raws) raw.socket.destroy();
    await Promise.all([a.t.close(), ...outbound.map((o) => o.t.close())]);
  }
});

test('without the inbound share (--remote-connections-limit-enabled=false) a full node dials nobody new, but a maintained peer displaces an inbound one', async (t) => {
  const a = await start(47, { maxPeers: 2, maxRemotelyInitiatedPeers: 2, pingIntervalMs: 600_000 });
  const b = await start(48);
  const c = await start(49);
  const raws: RawPeer[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      const raw = await rawInbound(a.t, 80 + i);
      sendHello(raw);
      raws.push(raw);
      await until(() => a.t.peers().length === i + 1, 20_000);
    }
    const dialled = a.t.stats.dialled;
    a.t.connectTo(b.t.enode());
    t.is(a.t.stats.dialled, dialled, 'full, and no share to reclaim');
    a.t.addPeer(c.t.enode());
    await until(() => a.t.peers().includes(c.t.localId) && raws.some((r) => disconnectReason(r) !== undefined), 20_000);
    t.is(raws.map(disconnectReason).filter((r) => r !== undefined)[0], DisconnectReason.TOO_MANY_PEERS);
    await until(() => a.t.peers().length === 2, 20_000);
  } finally {
    for (const raw of raws) raw.socket.destroy();
    await Promise.all([a.t.close(), b.t.close(), c.t.close()]);
  }
});
