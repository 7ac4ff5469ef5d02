/**
 * The live endpoints against hostile clients: slow-loris connections (a request head, or an
 * upgrade, or half a JSON value, then nothing), bodies over the limit, frames over the limit.
 * Each guard is also shown turned off (the option set to 0), to show that the test notices.
 */
import anyTest from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { Dispatcher } from '../dispatcher.ts';
import { MethodRegistry } from '../registry.ts';
import { startGraphqlHttp, type GraphqlHttpOptions } from './graphql-http.ts';
import { DEFAULT_MAX_REQUEST_BYTES, startHttpRpc, type HttpRpcOptions } from './http.ts';
import { IPC_PARSE_ERROR, startIpcRpc, type IpcRpcOptions } from './ipc.ts';
import type { HttpTimeouts } from './timeouts.ts';
import { startWsRpc, type WsRpcOptions } from './ws.ts';

// One at a time: these tests measure timers, and 80-connection floods would slow each other.
const test = anyTest.serial;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** A bound for what must happen: generous, since a loaded machine stretches real timers. */
const GENEROUS_MS = 30_000;

/** Polls `condition` until it holds or `ms` pass; whether it holds at the end. */
async function until(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await sleep(10);
  return condition();
}

const SHORT: Partial<HttpTimeouts> = { headersTimeoutMs: 800, requestTimeoutMs: 1200 };
const OFF: Partial<HttpTimeouts> = { headersTimeoutMs: 0, requestTimeoutMs: 0 };
const MAX_CONNECTIONS = 80;
const BLOCK_NUMBER = '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}';

function dispatcher(transport: 'http' | 'ws' | 'ipc'): Dispatcher {
  const registry = new MethodRegistry();
  registry.registerAll([{ name: 'eth_blockNumber', group: 'ETH', handler: () => '0x10' }]);
  return new Dispatcher({ registry, enabledApis: new Set(['ETH']), maxBatchSize: transport === 'http' ? 1024 : 0, transport });
}

/** A raw stream client: keeps what it receives, knows when the server has closed. */
class RawClient {
  received = Buffer.alloc(0);
  closed = false;
  private constructor(readonly socket: Socket) {
    socket.on('data', (d: Buffer) => {
      // Keep the start only (a refusal's status line), however much arrives.
      if (this.received.length < 4096) this.received = Buffer.concat([this.received, d]);
    });
    socket.on('close', () => (this.closed = true));
    socket.on('error', () => {});
  }

  static async open(target: number | string): Promise<RawClient> {
    const socket = typeof target === 'number' ? connect(target, '127.0.0.1') : connect(target);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('error', reject);
    });
    return new RawClient(socket);
  }

  text(): string {
    return this.received.toString('latin1');
  }

  until(condition: () => boolean, ms: number): Promise<boolean> {
    return until(condition, ms);
  }

  closedWithin(ms: number): Promise<boolean> {
    return this.until(() => this.closed, ms);
  }
}

/** `count` connections, each sent `first`; with a `socketCount`, returns once the server counts them all. */
async function openMany(server: { port: number; socketCount?: () => number }, count: number, first: string | Buffer): Promise<RawClient[]> {
  const clients = await Promise.all(Array.from({ length: count }, () => RawClient.open(server.port)));
  for (const c of clients) c.socket.write(first);
  const { socketCount } = server;
  if (socketCount) await until(() => socketCount() >= count, GENEROUS_MS);
  return clients;
}

/** One JSON-RPC POST on a new connection: the response text, or 'refused' when the server closes without answering. */
async function normalPost(port: number, body = BLOCK_NUMBER, path = '/'): Promise<string> {
  const c = await RawClient.open(port);
  c.socket.write(`POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  await c.until(() => c.closed || /\r\n\r\n[^]*\}/.test(c.text()), GENEROUS_MS);
  c.socket.destroy();
  return c.text() === '' ? 'refused' : c.text();
}

async function httpServer(t: { teardown(f: () => Promise<void>): void }, opts: Partial<HttpRpcOptions>) {
  const server = await startHttpRpc({ host: '127.0.0.1', port: 0, dispatcher: dispatcher('http'), maxActiveConnections: MAX_CONNECTIONS, ...opts });
  t.teardown(() => server.close());
  return server;
}

// A head, then one byte of a body that never comes: the fast path's own request (Content-Length)
// and one it hands to node:http (chunked).
const SLOW_HEADS: Array<[string, string]> = [
  ['fast path', 'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 64\r\n\r\n{'],
  ['node:http', 'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n{'],
];

for (const [route, slowHead] of SLOW_HEADS) {
  test(`HTTP (${route}): ${MAX_CONNECTIONS} stalled requests get 408 and go after the request timeout, then a normal client is served`, async (t) => {
    const s = await httpServer(t, { timeouts: SHORT });
    const slow = await openMany(s, MAX_CONNECTIONS, slowHead);
    t.is(await normalPost(s.port), 'refused', 'all connections are taken meanwhile');
    for (const c of slow) t.true(await c.closedWithin(GENEROUS_MS));
    t.true(slow.every((c) => c.text().startsWith('HTTP/1.1 408 Request Timeout')));
    t.regex(await normalPost(s.port), /^HTTP\/1\.1 200 OK[^]*"result":"0x10"/);
  });

  test(`HTTP (${route}), guard off: the stalled requests keep every connection and the normal client is refused`, async (t) => {
    const s = await httpServer(t, { timeouts: OFF });
    const slow = await openMany(s, MAX_CONNECTIONS, slowHead);
    await sleep(1000);
    t.true(slow.every((c) => !c.closed));
    t.is(await normalPost(s.port), 'refused');
  });
}

test('HTTP: trickling a head byte by byte does not extend the head timeout; a silent connection goes too', async (t) => {
  const s = await httpServer(t, { timeouts: { headersTimeoutMs: 300, requestTimeoutMs: 400, keepAliveTimeoutMs: 5000 } });
  const trickler = await RawClient.open(s.port);
  const silent = await RawClient.open(s.port);
  const head = 'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n';
  const started = Date.now();
  for (let i = 0; !trickler.closed && Date.now() - started < 5000; i++) {
    trickler.socket.write(head[i % head.length]!);
    await sleep(20);
  }
  t.true(trickler.closed);
  t.true(Date.now() - started < 2500, `closed after ${Date.now() - started} ms`);
  t.true(trickler.text().startsWith('HTTP/1.1 408'));
  t.true(await silent.closedWithin(GENEROUS_MS));
});

test('HTTP body limit: Besu\'s default is 128 MiB; a larger Content-Length is refused 413 before any of the body is sent', async (t) => {
  t.is(DEFAULT_MAX_REQUEST_BYTES, 128 * 1024 * 1024);
  const s = await httpServer(t, {});
  const c = await RawClient.open(s.port);
  c.socket.write(`POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${DEFAULT_MAX_REQUEST_BYTES + 1}\r\n\r\n`);
  t.true(await c.closedWithin(GENEROUS_MS));
  t.regex(c.text(), /^HTTP\/1\.1 413 Request Entity Too Large\r\n[^]*\r\n\r\nRequest Entity Too Large$/);
});

const FIVE_MIB = 5 * 1024 * 1024;
const SIX_MIB = 6 * 1024 * 1024;

test('HTTP body limit 5 MiB: a 6 MiB Content-Length is refused (413) before any of the body is sent, and the connection ends', async (t) => {
  const s = await httpServer(t, { maxRequestBytes: FIVE_MIB });
  const c = await RawClient.open(s.port);
  c.socket.write(`POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${SIX_MIB}\r\n\r\n`);
  t.true(await c.until(() => c.text().includes('Request Entity Too Large'), GENEROUS_MS), 'answered with no body sent');
  t.true(await c.closedWithin(GENEROUS_MS));
  t.true(c.text().startsWith('HTTP/1.1 413'));
  t.regex(await normalPost(s.port), /"result":"0x10"/);
});

/**
 * Streams a chunked body in 64 KiB chunks, waiting for the socket to drain, until the server
 * closes or `maxBytes` are written; returns how much was written and what came back.
 */
async function streamChunked(port: number, path: string, maxBytes: number): Promise<{ written: number; text: string }> {
  const c = await RawClient.open(port);
  c.socket.write(`POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
  let written = 0;
  while (!c.closed && written < maxBytes) {
    const flushed = c.socket.write(frame);
    written += chunk.length;
    if (!flushed) await Promise.race([new Promise((r) => c.socket.once('drain', r)), c.until(() => c.closed, GENEROUS_MS)]);
  }
  await c.closedWithin(GENEROUS_MS);
  c.socket.destroy();
  return { written, text: c.text() };
}

test('HTTP body limit 5 MiB: a chunked body is refused 413 once past it and the connection closes; the server reads no further', async (t) => {
  const s = await httpServer(t, { maxRequestBytes: FIVE_MIB });
  // A client that would send 64 MiB is cut off a little past 5 MiB (plus what the sockets buffer):
  // the server keeps at most the limit, and reads nothing after it.
  const { written, text } = await streamChunked(s.port, '/', 64 * 1024 * 1024);
  t.log(`client wrote ${(written / 1024 / 1024).toFixed(1)} MiB before the server closed`);
  t.true(text.startsWith('HTTP/1.1 413'), text.slice(0, 40));
  t.true(written < 32 * 1024 * 1024, `wrote ${written} bytes`);
  t.regex(await normalPost(s.port), /"result":"0x10"/);
});

async function graphqlServer(t: { teardown(f: () => Promise<void>): void }, opts: Partial<GraphqlHttpOptions> = {}) {
  const handled: string[] = [];
  const server = await startGraphqlHttp({
    host: '127.0.0.1',
    port: 0,
    hostAllowlist: ['localhost', '127.0.0.1'],
    handle: async (request) => {
      handled.push(request.body ?? '');
      return { status: 200, body: '{"data":{"chainID":"0x539"}}', contentType: 'application/json; charset=utf-8' };
    },
    ...opts,
  });
  t.teardown(() => server.close());
  return { server, handled };
}

const GRAPHQL_SLOW_HEAD = 'POST /graphql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/graphql\r\nContent-Length: 64\r\n\r\n{';

test(`GraphQL: ${MAX_CONNECTIONS} stalled requests get 408 and go after the request timeout; others are served meanwhile`, async (t) => {
  const { server } = await graphqlServer(t, { timeouts: SHORT });
  const slow = await openMany(server, MAX_CONNECTIONS, GRAPHQL_SLOW_HEAD);
  t.regex(await normalPost(server.port, '{ chainID }', '/graphql'), /^HTTP\/1\.1 200 OK[^]*0x539/);
  for (const c of slow) t.true(await c.closedWithin(GENEROUS_MS));
  t.true(slow.every((c) => c.text().startsWith('HTTP/1.1 408')));
});

test('GraphQL, guard off: the stalled requests keep their connections', async (t) => {
  const { server } = await graphqlServer(t, { timeouts: OFF });
  const slow = await openMany(server, MAX_CONNECTIONS, GRAPHQL_SLOW_HEAD);
  await sleep(1000);
  t.true(slow.every((c) => !c.closed));
});

test('GraphQL body limit (Vert.x BodyHandler default, 10 MiB): over it 413 before the body, and a chunked one cut off', async (t) => {
  const { server, handled } = await graphqlServer(t);
  const c = await RawClient.open(server.port);
  c.socket.write(`POST /graphql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/graphql\r\nContent-Length: ${10 * 1024 * 1024 + 1}\r\n\r\n`);
  t.true(await c.closedWithin(GENEROUS_MS));
  t.regex(c.text(), /^HTTP\/1\.1 413[^]*\r\n\r\nRequest Entity Too Large$/);
  const { written, text } = await streamChunked(server.port, '/graphql', 64 * 1024 * 1024);
  t.log(`client wrote ${(written / 1024 / 1024).toFixed(1)} MiB before the server closed`);
  t.true(text.startsWith('HTTP/1.1 413'), text.slice(0, 40));
  t.true(written < 40 * 1024 * 1024, `wrote ${written} bytes`);
  t.deepEqual(handled, []);
});

async function wsServer(t: { teardown(f: () => Promise<void>): void }, opts: Partial<WsRpcOptions>) {
  const server = await startWsRpc({ host: '127.0.0.1', port: 0, dispatcher: dispatcher('ws'), maxActiveConnections: MAX_CONNECTIONS, ...opts });
  t.teardown(() => server.close());
  return server;
}

/** A WebSocket client's answer to eth_blockNumber, or 'refused'. */
async function normalWs(port: number): Promise<string> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}`);
  try {
    return await new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve('timeout'), 3000);
      ws.on('open', () => ws.send(BLOCK_NUMBER));
      ws.on('message', (d) => {
        clearTimeout(timer);
        resolve(d.toString());
      });
      ws.on('error', () => {});
      ws.on('close', () => {
        clearTimeout(timer);
        resolve('refused');
      });
    });
  } finally {
    ws.terminate();
  }
}

const UPGRADE_HEAD = 'GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n';

test(`WebSocket: ${MAX_CONNECTIONS} half-sent upgrade requests get 408 and go after the head timeout, then a client connects`, async (t) => {
  const s = await wsServer(t, { timeouts: SHORT });
  const slow = await openMany(s, MAX_CONNECTIONS, UPGRADE_HEAD.slice(0, 40));
  t.is(await normalWs(s.port), 'refused');
  for (const c of slow) t.true(await c.closedWithin(GENEROUS_MS));
  t.true(slow.every((c) => c.text().startsWith('HTTP/1.1 408')));
  t.is(await normalWs(s.port), '{"jsonrpc":"2.0","id":1,"result":"0x10"}');
});

test('WebSocket, guard off: the half-sent upgrades keep every connection', async (t) => {
  const s = await wsServer(t, { timeouts: OFF });
  const slow = await openMany(s, MAX_CONNECTIONS, UPGRADE_HEAD.slice(0, 40));
  await sleep(1000);
  t.true(slow.every((c) => !c.closed));
  t.is(await normalWs(s.port), 'refused');
});

/** Opens a raw WebSocket (handshake done) and sends `bytes`. */
async function rawWs(port: number, bytes: Buffer): Promise<RawClient> {
  const c = await RawClient.open(port);
  c.socket.write(UPGRADE_HEAD);
  if (!(await c.until(() => c.text().includes('\r\n\r\n'), GENEROUS_MS)) || !c.text().startsWith('HTTP/1.1 101')) throw new Error(`no upgrade: ${c.text()}`);
  c.received = Buffer.alloc(0);
  c.socket.write(bytes);
  return c;
}

const MASK = Buffer.from([1, 2, 3, 4]);
/** A masked text frame header announcing `length` payload bytes (client frames are masked). */
function frameHeader(length: number): Buffer {
  if (length < 126) return Buffer.concat([Buffer.from([0x81, 0x80 | length]), MASK]);
  const head = Buffer.alloc(10);
  head[0] = 0x81;
  head[1] = 0x80 | 127;
  head.writeBigUInt64BE(BigInt(length), 2);
  return Buffer.concat([head, MASK]);
}

for (const [label, heartbeatIntervalMs] of [['stalled', 100], ['guard off: stays', 0]] as const) {
  test(`WebSocket: a frame started and never finished (its pongs would be payload) — ${label}`, async (t) => {
    const s = await wsServer(t, { heartbeatIntervalMs });
    const c = await rawWs(s.port, Buffer.concat([frameHeader(100), Buffer.from('{')]));
    const closed = await c.closedWithin(heartbeatIntervalMs > 0 ? GENEROUS_MS : 1500);
    if (heartbeatIntervalMs > 0) t.true(closed, 'ended for not answering the ping');
    else t.false(closed);
    t.is(s.connectionCount(), closed ? 0 : 1);
  });
}

test('WebSocket: a client that answers pings keeps its idle connection (past the HTTP timers too)', async (t) => {
  const s = await wsServer(t, { heartbeatIntervalMs: 200, timeouts: { headersTimeoutMs: 100, requestTimeoutMs: 200, keepAliveTimeoutMs: 100 } });
  const ws = new WebSocket(`ws://127.0.0.1:${s.port}`);
  t.teardown(() => ws.terminate());
  await new Promise((r) => ws.once('open', r));
  let pings = 0;
  ws.on('ping', () => pings++);
  await sleep(1000);
  t.true(pings >= 3, `${pings} pings`);
  t.is(ws.readyState, WebSocket.OPEN);
  const answer = new Promise<string>((r) => ws.once('message', (d) => r(d.toString())));
  ws.send(BLOCK_NUMBER);
  t.is(await answer, '{"jsonrpc":"2.0","id":1,"result":"0x10"}');
});

test('WebSocket: a frame announcing more than the 1 MiB max frame size is closed 1009 before its payload is sent', async (t) => {
  const s = await wsServer(t, {});
  const c = await rawWs(s.port, frameHeader(2 * 1024 * 1024));
  t.true(await c.closedWithin(GENEROUS_MS));
  // Close frame: 0x88, length, code 1009 (0x03f1), Netty's reason.
  t.is(c.received[0], 0x88);
  t.is(c.received.readUInt16BE(2), 1009);
  t.is(c.received.subarray(4).toString('utf8'), `Max frame length of ${1024 * 1024} has been exceeded.`);
});

async function ipcServer(t: { teardown(f: () => Promise<void>): void }, opts: Partial<IpcRpcOptions>) {
  const dir = await mkdtemp(join(tmpdir(), 'qbft-ipc-hostile-'));
  const path = join(dir, 'besu.ipc');
  const server = await startIpcRpc({ path, dispatcher: dispatcher('ipc'), ...opts });
  t.teardown(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { server, path };
}

test('IPC: half a JSON value, then nothing (or a trickle): -32700 and the connection closes after the timeout', async (t) => {
  const { server, path } = await ipcServer(t, { partialRequestTimeoutMs: 500 });
  const stalled = await RawClient.open(path);
  stalled.socket.write('{"jsonrpc":"2.0","id":1,"method":');
  const trickler = await RawClient.open(path);
  trickler.socket.write('[');
  const started = Date.now();
  const trickle = setInterval(() => trickler.socket.write(' '), 20);
  t.teardown(() => clearInterval(trickle));
  // Values completed in time are answered, and their connection stays.
  const healthy = await RawClient.open(path);
  healthy.socket.write(BLOCK_NUMBER + '\n' + BLOCK_NUMBER.slice(0, 10));
  await sleep(100);
  healthy.socket.write(BLOCK_NUMBER.slice(10) + '\n');
  t.true(await stalled.closedWithin(GENEROUS_MS));
  t.true(await trickler.closedWithin(GENEROUS_MS));
  t.true(Date.now() - started < 2500, `closed after ${Date.now() - started} ms`);
  t.is(stalled.text(), IPC_PARSE_ERROR + '\n');
  t.true(await healthy.until(() => healthy.text().split('\n').length === 3, GENEROUS_MS), healthy.text());
  t.false(healthy.closed);
  t.is(server.connectionCount(), 1);
});

test('IPC, guard off: half a JSON value keeps its connection', async (t) => {
  const { path } = await ipcServer(t, { partialRequestTimeoutMs: 0 });
  const stalled = await RawClient.open(path);
  stalled.socket.write('{"jsonrpc":"2.0","id":1,"method":');
  t.false(await stalled.closedWithin(700));
});
