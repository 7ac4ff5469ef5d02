import test from 'ava';
import { randomBytes } from 'node:crypto';
import { Duplex } from 'node:stream';
import { ETH_68, ISTANBUL_100 } from './capabilities.ts';
import { DisconnectReason } from './disconnect-reasons.ts';
import { nodeIdFromPrivateKey } from './node-identity.ts';
import { MAX_FRAME_SIZE_FIELD } from './frame-codec.ts';
import { decodeDisconnect, EMPTY_LIST, encodeHello, MAX_HELLO_DATA_BYTES, P2pCode } from './p2p-messages.ts';
import { MAX_FRAME_BYTES_BEFORE_HELLO, RlpxConnection, type RlpxClose, type RlpxConnectionOptions, type RlpxReady } from './rlpx-connection.ts';
import { duplexPair, key, ManualTimers, RawPeer, socketPair, within } from './rlpx-test-kit.ts';
import type { WireMessage } from '../../runtime/ports.ts';

const keyA = key(0x11);
const keyB = key(0x22);
const idA = nodeIdFromPrivateKey(keyA);
const idB = nodeIdFromPrivateKey(keyB);
const base = { clientId: 'qbft-lab/test', capabilities: [ETH_68, ISTANBUL_100], listenPort: 30303, secureRandom: (n: number) => new Uint8Array(randomBytes(n)) } as const;

function closed(conn: RlpxConnection): Promise<RlpxClose> {
  return new Promise((resolve) => conn.once('close', resolve));
}
function ready(conn: RlpxConnection): Promise<RlpxReady> {
  return new Promise((resolve, reject) => {
    conn.once('ready', resolve);
    conn.once('close', (c) => reject(new Error(`closed before ready: ${c.detail}`)));
  });
}
function nextMessage(conn: RlpxConnection): Promise<WireMessage> {
  return new Promise((resolve) => conn.once('message', resolve));
}

async function connectedPair(optsA: Partial<RlpxConnectionOptions> = {}, optsB: Partial<RlpxConnectionOptions> = {}) {
  const pair = await socketPair();
  const a = new RlpxConnection({ ...base, socket: pair.client, role: 'initiator', nodeKey: keyA, remoteNodeId: idB, ...optsA });
  const b = new RlpxConnection({ ...base, socket: pair.server, role: 'recipient', nodeKey: keyB, ...optsB });
  return { a, b, pair };
}

/** Our connection as recipient, facing a raw peer that dials it. */
async function rawDialsUs(opts: Partial<RlpxConnectionOptions> = {}) {
  const pair = await socketPair();
  const conn = new RlpxConnection({ ...base, socket: pair.server, role: 'recipient', nodeKey: keyB, ...opts });
  const raw = new RawPeer(pair.client, keyA);
  const closing = closed(conn);
  await raw.initiate(idB);
  await raw.waitFrame((f) => f.messageId === P2pCode.Hello);
  return { conn, raw, pair, closing };
}

async function expectDisconnect(t: import('ava').ExecutionContext, raw: RawPeer, closing: Promise<RlpxClose>, reason: number) {
  const info = await closing;
  t.is(info.reason, reason, info.detail);
  t.is(info.initiatedBy, 'local');
  const frame = await raw.waitFrame((f) => f.messageId === P2pCode.Disconnect);
  t.is(decodeDisconnect(frame.data), reason);
  await raw.closed;
  return info;
}

test('two connections handshake, exchange Hellos, multiplex messages both ways and disconnect', async (t) => {
  const { a, b, pair } = await connectedPair();
  t.teardown(pair.close);
  const [ra, rb] = await Promise.all([ready(a), ready(b)]);
  t.deepEqual(ra.remoteNodeId, idB);
  t.deepEqual(rb.remoteNodeId, idA);
  t.deepEqual(b.remoteNodeId, idA);
  t.true(ra.snappy && rb.snappy);
  t.is(ra.remoteHello.clientId, 'qbft-lab/test');
  t.is(ra.remoteHello.listenPort, 30303);
  t.deepEqual(
    ra.sharedCapabilities.map((c) => [c.name, c.version, c.offset]),
    [
      ['eth', 68, 0x10],
      ['istanbul', 100, 0x21],
    ],
  );

  const commit = new Uint8Array(randomBytes(300));
  const gotAtB = nextMessage(b);
  t.true(a.send('istanbul', 0x14, commit));
  t.deepEqual(await gotAtB, { protocol: 'istanbul', code: 0x14, data: commit });

  const big = new Uint8Array(randomBytes(1024 * 1024));
  const gotAtA = nextMessage(a);
  t.true(b.send('eth', 0x00, big));
  t.deepEqual(await gotAtA, { protocol: 'eth', code: 0, data: big });

  t.throws(() => a.send('istanbul', 22, commit), { instanceOf: RangeError });
  t.throws(() => a.send('eth', 1, new Uint8Array(16 * 1024 * 1024 + 1)), { instanceOf: RangeError });
  // Incompressible data at the limit grows under Snappy past it.
  t.throws(() => a.send('eth', 1, new Uint8Array(randomBytes(16 * 1024 * 1024))), { instanceOf: RangeError });
  t.throws(() => a.send('eth', -1, commit), { instanceOf: RangeError });

  const [ca, cb] = [closed(a), closed(b)];
  a.disconnect(DisconnectReason.CLIENT_QUITTING);
  t.false(a.send('istanbul', 0x12, commit), 'no sending after disconnect');
  t.like(await ca, { reason: 0x08, initiatedBy: 'local', wasReady: true, reasonText: 'client quitting (0x08)' });
  t.like(await cb, { reason: 0x08, initiatedBy: 'remote', wasReady: true });
});

test('Pings are sent on the interval and answered; a missing Pong disconnects with TIMEOUT', async (t) => {
  const timers = new ManualTimers();
  const { conn, raw, pair, closing } = await rawDialsUs({ timers, pingIntervalMs: 1000 });
  t.teardown(pair.close);
  const isReady = ready(conn);
  raw.sendHello();
  await isReady;
  raw.snappy = true;
  // Our connection answers a Ping with a Pong.
  raw.sendFrame(P2pCode.Ping, EMPTY_LIST, true);
  await raw.waitFrame((f) => f.messageId === P2pCode.Pong);
  // First interval: a Ping goes out; answered, so the second interval sends another.
  timers.advance(1000);
  await raw.waitFrame((f) => f.messageId === P2pCode.Ping);
  raw.sendFrame(P2pCode.Pong, EMPTY_LIST, true);
  await new Promise((r) => setTimeout(r, 50));
  timers.advance(1000);
  t.false(conn.isClosed);
  await raw.waitFrame((f) => f.messageId === P2pCode.Ping && raw.frames.filter((x) => x.messageId === P2pCode.Ping).length === 2);
  // Not answered this time: the next interval disconnects.
  timers.advance(1000);
  const info = await expectDisconnect(t, raw, closing, DisconnectReason.TIMEOUT);
  t.regex(info.detail, /no Pong/);
  t.is(timers.pendingCount, 0, 'every timer is cancelled once closed');
});

test('the handshake must finish in time', async (t) => {
  const timers = new ManualTimers();
  const pair = await socketPair();
  t.teardown(pair.close);
  const conn = new RlpxConnection({ ...base, socket: pair.server, role: 'recipient', nodeKey: keyB, timers, handshakeTimeoutMs: 5000 });
  const closing = closed(conn);
  timers.advance(5000);
  t.like(await closing, { reason: DisconnectReason.TIMEOUT, initiatedBy: 'local', wasReady: false });
});

test('a peer that never sends Hello is dropped when the handshake timeout expires', async (t) => {
  const timers = new ManualTimers();
  const { raw, pair, closing } = await rawDialsUs({ timers, handshakeTimeoutMs: 5000 });
  t.teardown(pair.close);
  timers.advance(5000);
  await expectDisconnect(t, raw, closing, DisconnectReason.TIMEOUT);
});

test('no shared capability: USELESS_PEER on both sides', async (t) => {
  const { a, b, pair } = await connectedPair({ capabilities: [ETH_68] }, { capabilities: [ISTANBUL_100] });
  t.teardown(pair.close);
  const [ca, cb] = await Promise.all([closed(a), closed(b)]);
  t.is(ca.reason, DisconnectReason.USELESS_PEER);
  t.is(cb.reason, DisconnectReason.USELESS_PEER);
  t.false(ca.wasReady);
});

test('connecting to ourselves: LOCAL_IDENTITY', async (t) => {
  const pair = await socketPair();
  t.teardown(pair.close);
  const a = new RlpxConnection({ ...base, socket: pair.client, role: 'initiator', nodeKey: keyA, remoteNodeId: idA });
  const b = new RlpxConnection({ ...base, socket: pair.server, role: 'recipient', nodeKey: keyA });
  const [ca, cb] = await Promise.all([closed(a), closed(b)]);
  t.is(ca.reason, DisconnectReason.LOCAL_IDENTITY);
  t.is(cb.reason, DisconnectReason.LOCAL_IDENTITY);
});

for (const [name, hello, reason] of [
  ['a Hello with another node id: UNEXPECTED_ID', { nodeId: nodeIdFromPrivateKey(key(0x33)) }, DisconnectReason.UNEXPECTED_ID],
  ['a Hello with a zero node id: NULL_NODE_ID', { nodeId: new Uint8Array(64) }, DisconnectReason.NULL_NODE_ID],
  ['a Hello with a short node id: NULL_NODE_ID', { nodeId: new Uint8Array(33).fill(2) }, DisconnectReason.NULL_NODE_ID],
  ['a Hello with p2p version 3: INCOMPATIBLE_P2P_PROTOCOL_VERSION', { protocolVersion: 3 }, DisconnectReason.INCOMPATIBLE_P2P_PROTOCOL_VERSION],
] as const) {
  test(name, async (t) => {
    const { raw, pair, closing } = await rawDialsUs();
    t.teardown(pair.close);
    raw.snappy = (hello as { protocolVersion?: number }).protocolVersion === undefined;
    raw.sendHello(hello);
    await expectDisconnect(t, raw, closing, reason);
  });
}

test('a p2p v4 peer gets uncompressed messages', async (t) => {
  const { conn, raw, pair } = await rawDialsUs();
  t.teardown(pair.close);
  const isReady = ready(conn);
  raw.sendHello({ protocolVersion: 4 });
  t.false((await isReady).snappy);
  const data = Uint8Array.of(0xc3, 1, 2, 3);
  conn.send('istanbul', 0x12, data);
  const f = await raw.waitFrame((x) => x.messageId === 0x10 + 0x12);
  t.deepEqual(f.data, data);
  const got = nextMessage(conn);
  raw.sendFrame(0x10 + 0x13, data);
  t.deepEqual(await got, { protocol: 'istanbul', code: 0x13, data });
});

test('a message before Hello is a breach of protocol (Disconnect sent uncompressed)', async (t) => {
  const { raw, pair, closing } = await rawDialsUs();
  t.teardown(pair.close);
  raw.sendFrame(0x10 + 0x12, Uint8Array.of(0xc0));
  const info = await expectDisconnect(t, raw, closing, DisconnectReason.BREACH_OF_PROTOCOL);
  t.regex(info.detail, /before Hello/);
});

const hostileAfterHello: [string, (raw: RawPeer) => void, RegExp][] = [
  [
    'a bad frame MAC',
    (raw) => {
      const bytes = raw.frameBytes(0x10 + 0x12, Uint8Array.of(0xc0), true);
      bytes[bytes.length - 1] ^= 1;
      raw.socket.write(bytes);
    },
    /frame MAC/,
  ],
  [
    'a bad header MAC',
    (raw) => {
      const bytes = raw.frameBytes(0x10 + 0x12, Uint8Array.of(0xc0), true);
      bytes[20] ^= 1;
      raw.socket.write(bytes);
    },
    /header MAC/,
  ],
  ['an unknown capability message id', (raw) => raw.sendFrame(0x10 + 22, Uint8Array.of(0xc0), true), /no shared capability/],
  ['an unknown p2p message id', (raw) => raw.sendFrame(0x05, Uint8Array.of(0xc0), true), /unknown p2p message id/],
  ['a second Hello', (raw) => raw.sendHello(), /second Hello/],
  ['data that is not Snappy', (raw) => raw.sendFrame(0x10 + 0x12, Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff), false), /preamble|Snappy|stream/],
  ['a Snappy length over the limit', (raw) => raw.sendFrame(0x10 + 0x12, Uint8Array.of(0x81, 0x80, 0x80, 0x08), false), /exceeds the limit/],
  ['a frame over the size limit', (raw) => raw.sendFrame(0x10 + 0x12, new Uint8Array(randomBytes(5000)), true), /exceeds the limit/],
  ['a malformed message id', (raw) => raw.sendFrameData(Uint8Array.of(0x85, 1, 2, 3, 4, 5, 0xc0)), /message id/],
  ['a non-canonical message id', (raw) => raw.sendFrameData(Uint8Array.of(0x81, 0x12, 0xc0)), /non-canonical/],
];

for (const [name, misbehave, detail] of hostileAfterHello) {
  test(`after Hello, ${name} is a breach of protocol`, async (t) => {
    const { conn, raw, pair, closing } = await rawDialsUs({ maxMessageBytes: 4096 });
    t.teardown(pair.close);
    const isReady = ready(conn);
    raw.sendHello();
    await isReady;
    raw.snappy = true;
    misbehave(raw);
    const info = await expectDisconnect(t, raw, closing, DisconnectReason.BREACH_OF_PROTOCOL);
    t.regex(info.detail, detail);
    t.true(info.wasReady);
  });
}

test('a malformed Hello is a breach of protocol', async (t) => {
  const { raw, pair, closing } = await rawDialsUs();
  t.teardown(pair.close);
  raw.sendFrame(P2pCode.Hello, Uint8Array.of(0xc2, 0x05, 0x80));
  await expectDisconnect(t, raw, closing, DisconnectReason.BREACH_OF_PROTOCOL);
});

test('garbage instead of an auth closes the socket without an exception', async (t) => {
  const pair = await socketPair();
  t.teardown(pair.close);
  const conn = new RlpxConnection({ ...base, socket: pair.server, role: 'recipient', nodeKey: keyB });
  const closing = closed(conn);
  pair.client.on('error', () => {});
  pair.client.write(Uint8Array.of(0x01, 0x80, ...randomBytes(500)));
  const info = await closing;
  t.like(info, { reason: DisconnectReason.BREACH_OF_PROTOCOL, initiatedBy: 'local', wasReady: false });
  t.regex(info.detail, /handshake failed/);
});

test('a legacy (pre-EIP-8) auth is answered with a legacy ack and the session works', async (t) => {
  const pair = await socketPair();
  t.teardown(pair.close);
  const conn = new RlpxConnection({ ...base, socket: pair.server, role: 'recipient', nodeKey: keyB });
  const raw = new RawPeer(pair.client, keyA);
  const isReady = ready(conn);
  await raw.initiate(idB, 'legacy');
  raw.sendHello();
  await isReady;
  raw.snappy = true;
  conn.send('istanbul', 0x15, Uint8Array.of(0xc1, 0x07));
  t.deepEqual((await raw.waitFrame((f) => f.messageId === 0x10 + 0x15)).data, Uint8Array.of(0xc1, 0x07));
});

test('our initiator completes a handshake with a raw recipient and reads a peer Disconnect', async (t) => {
  const pair = await socketPair();
  t.teardown(pair.close);
  const conn = new RlpxConnection({ ...base, socket: pair.client, role: 'initiator', nodeKey: keyA, remoteNodeId: idB });
  const raw = new RawPeer(pair.server, keyB);
  const isReady = ready(conn);
  const closing = closed(conn);
  await raw.accept();
  raw.sendHello({ capabilities: [{ name: 'eth', version: 68 }] });
  const info = await isReady;
  t.deepEqual(info.sharedCapabilities.map((c) => c.name), ['eth']);
  t.false(conn.send('istanbul', 0x12, Uint8Array.of(0xc0)), 'istanbul is not shared');
  raw.sendFrame(P2pCode.Disconnect, Uint8Array.of(0xc1, DisconnectReason.TOO_MANY_PEERS), true);
  t.like(await closing, { reason: DisconnectReason.TOO_MANY_PEERS, initiatedBy: 'remote', wasReady: true });
});

test('a listener that throws disconnects with SUBPROTOCOL_TRIGGERED instead of escaping', async (t) => {
  const { a, b, pair } = await connectedPair();
  t.teardown(pair.close);
  await Promise.all([ready(a), ready(b)]);
  b.on('message', () => {
    throw new Error('consumer bug');
  });
  const cb = closed(b);
  a.send('istanbul', 0x12, Uint8Array.of(0xc0));
  const info = await cb;
  t.is(info.reason, DisconnectReason.SUBPROTOCOL_TRIGGERED);
  t.regex(info.detail, /consumer bug/);
});

test('the write buffer is bounded: a peer that stops reading is dropped with TCP_SUBSYSTEM_ERROR', async (t) => {
  const [endA, endB] = duplexPair();
  const timers = new ManualTimers();
  const a = new RlpxConnection({ ...base, socket: endA, role: 'initiator', nodeKey: keyA, remoteNodeId: idB, maxWriteBufferBytes: 64 * 1024, timers });
  const b = new RlpxConnection({ ...base, socket: endB, role: 'recipient', nodeKey: keyB, timers });
  await Promise.all([ready(a), ready(b)]);
  const closing = closed(a);
  endA.stalled = true;
  const chunk = new Uint8Array(randomBytes(10_000));
  let sent = 0;
  while (a.send('istanbul', 0x12, chunk)) sent++;
  t.true(sent >= 5 && sent <= 7, `sent ${sent}`);
  t.true(endA.writableLength <= 64 * 1024);
  const info = await closing;
  t.like(info, { reason: DisconnectReason.TCP_SUBSYSTEM_ERROR, initiatedBy: 'local', wasReady: true });
  t.regex(info.detail, /not reading/);
  t.true(endA.destroyed);
  b.disconnect();
});

/** A stream whose writes never complete. */
class StalledDuplex extends Duplex {
  _read(): void {}
  _write(_chunk: unknown, _enc: BufferEncoding, _callback: (error?: Error | null) => void): void {}
}

test('constructor rejects bad keys and a missing remote id', (t) => {
  const socket = new StalledDuplex();
  t.throws(() => new RlpxConnection({ ...base, socket, role: 'initiator', nodeKey: keyA }), { message: /remoteNodeId/ });
  t.throws(() => new RlpxConnection({ ...base, socket, role: 'recipient', nodeKey: new Uint8Array(32) }), { message: /nodeKey/ });
  t.throws(() => new RlpxConnection({ ...base, socket, role: 'recipient', nodeKey: keyA, capabilities: [] }));
});


/** Waits for `condition`, failing once a generous bound has passed without it. */
async function until(condition: () => boolean, what: string, boundMs = 20_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${boundMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Hello message data of exactly `bytes` bytes, by padding the client id. */
function helloOfSize(raw: RawPeer, bytes: number): Uint8Array {
  const hello = (clientId: string) => encodeHello({ protocolVersion: 5, clientId, capabilities: [{ name: 'istanbul', version: 100 }], listenPort: 0, nodeId: raw.nodeId });
  const overhead = hello('').length + 3;
  const data = hello('x'.repeat(bytes - overhead));
  if (data.length !== bytes) throw new Error(`could not build a Hello of ${bytes} bytes (got ${data.length})`);
  return data;
}

test('before Hello, a header declaring a 16 MiB frame closes the socket at once: no Disconnect, none of its body buffered', async (t) => {
  const { conn, raw, pair, closing } = await rawDialsUs({ handshakeTimeoutMs: 120_000 });
  t.teardown(pair.close);
  raw.sendFrameHeader(MAX_FRAME_SIZE_FIELD, 1024 * 1024);
  const info = await within(closing, 'the connection closing on the oversize header');
  t.like(info, { reason: DisconnectReason.BREACH_OF_PROTOCOL, initiatedBy: 'local', wasReady: false });
  t.regex(info.detail, /before Hello.*16777215 bytes exceeds the limit of 2049/);
  await raw.closed;
  t.false(raw.frames.some((f) => f.messageId === P2pCode.Disconnect), 'Besu sends no Disconnect here either');
  t.is(conn.bufferedBytes, 0);
});

test('a Hello of 2048 bytes (Besu\'s limit) is read, and a 100 KiB message in the same write after it too', async (t) => {
  const { conn, raw, pair } = await rawDialsUs();
  t.teardown(pair.close);
  const isReady = ready(conn);
  const got = nextMessage(conn);
  const data = new Uint8Array(randomBytes(100 * 1024));
  const hello = raw.frameBytes(P2pCode.Hello, helloOfSize(raw, MAX_HELLO_DATA_BYTES));
  const message = raw.frameBytes(0x10 + 0x12, data, true);
  const both = new Uint8Array(hello.length + message.length);
  both.set(hello);
  both.set(message, hello.length);
  raw.socket.write(both);
  t.true((await isReady).remoteHello.clientId.length > 1900);
  t.deepEqual(await got, { protocol: 'istanbul', code: 0x12, data });
  t.is(MAX_FRAME_BYTES_BEFORE_HELLO, 2049);
});

test('a Hello of 2049 bytes closes the socket without Disconnect, as Besu', async (t) => {
  const { raw, pair, closing } = await rawDialsUs();
  t.teardown(pair.close);
  raw.sendFrame(P2pCode.Hello, helloOfSize(raw, MAX_HELLO_DATA_BYTES + 1));
  const info = await within(closing, 'the connection closing on the oversize Hello');
  t.like(info, { reason: DisconnectReason.BREACH_OF_PROTOCOL, initiatedBy: 'local', wasReady: false });
  await raw.closed;
  t.false(raw.frames.some((f) => f.messageId === P2pCode.Disconnect));
});

test('a closed connection holds none of the bytes it had buffered: a partial frame after Hello', async (t) => {
  const { conn, raw, pair, closing } = await rawDialsUs();
  t.teardown(pair.close);
  const isReady = ready(conn);
  raw.sendHello();
  await isReady;
  raw.sendFrameHeader(1024 * 1024, 500 * 1024);
  await until(() => conn.bufferedBytes >= 500 * 1024, 'the partial frame being buffered');
  conn.disconnect(DisconnectReason.CLIENT_QUITTING);
  await closing;
  t.is(conn.bufferedBytes, 0);
});

test('a closed connection holds none of the bytes it had buffered: a partial auth', async (t) => {
  const timers = new ManualTimers();
  const pair = await socketPair();
  t.teardown(pair.close);
  const conn = new RlpxConnection({ ...base, socket: pair.server, role: 'recipient', nodeKey: keyB, timers, handshakeTimeoutMs: 5000 });
  const closing = closed(conn);
  // An EIP-8 size prefix of 60,000 bytes and only part of the packet.
  pair.client.write(Uint8Array.of(0xea, 0x60, ...randomBytes(30_000)));
  await until(() => conn.bufferedBytes === 30_002, 'the partial auth being buffered');
  timers.advance(5000);
  t.like(await closing, { reason: DisconnectReason.TIMEOUT, wasReady: false });
  t.is(conn.bufferedBytes, 0);
});
