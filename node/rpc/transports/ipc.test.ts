import test from 'ava';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Dispatcher } from '../dispatcher.ts';
import { MethodRegistry } from '../registry.ts';
import { IPC_PARSE_ERROR, JsonStreamFramer, startIpcRpc, type IpcRpcOptions, type IpcRpcServer } from './ipc.ts';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function tinyDispatcher(): Dispatcher {
  const registry = new MethodRegistry();
  registry.registerAll([
    { name: 'web3_clientVersion', group: 'WEB3', handler: () => 'qbft-lab/test' },
    { name: 'test_echo', group: 'ETH', handler: (p) => p },
    {
      name: 'test_sleep',
      group: 'ETH',
      handler: async (p) => {
        await sleep(Number(p[0]));
        return p[0];
      },
    },
    { name: 'test_ctx', group: 'ETH', handler: (_p, ctx) => ({ transport: ctx.transport, connectionId: ctx.connectionId ?? null }) },
    {
      name: 'eth_subscribe',
      group: 'ETH',
      connectionOnly: true,
      handler: (_p, ctx) => {
        setTimeout(() => ctx.notify!('0xa', { n: 1 }), 10);
        return '0xa';
      },
    },
  ]);
  return new Dispatcher({ registry, enabledApis: new Set(['ETH', 'NET', 'WEB3']), maxBatchSize: 0, transport: 'ipc' });
}

async function withServer(t: { teardown(f: () => Promise<void>): void }, opts: Partial<IpcRpcOptions> = {}): Promise<{ server: IpcRpcServer; path: string; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'qbft-ipc-'));
  const path = join(dir, 'besu.ipc');
  const server = await startIpcRpc({ path, dispatcher: tinyDispatcher(), ...opts });
  t.teardown(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { server, path, dir };
}

interface LineClient {
  sock: Socket;
  lines: string[];
  next(): Promise<string>;
}

async function lineClient(path: string): Promise<LineClient> {
  const sock = connect(path);
  await new Promise<void>((resolve, reject) => {
    sock.once('connect', () => resolve());
    sock.once('error', reject);
  });
  const lines: string[] = [];
  let buf = '';
  const waiters: Array<() => void> = [];
  sock.on('data', (d: Buffer) => {
    buf += d.toString('utf8');
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      lines.push(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      waiters.shift()?.();
    }
  });
  let read = 0;
  return {
    sock,
    lines,
    next: async () => {
      if (lines.length <= read) {
        await Promise.race([
          new Promise<void>((r) => waiters.push(r)),
          sleep(3000).then(() => {
            throw new Error(`no line within 3 s (got ${JSON.stringify(lines)})`);
          }),
        ]);
      }
      return lines[read++]!;
    },
  };
}

test('a request split across chunks, and several requests in one chunk, each answered with a line', async (t) => {
  const { path } = await withServer(t);
  const c = await lineClient(path);
  const req = '{"jsonrpc":"2.0","id":1,"method":"test_echo","params":["{[\\"}]", "é€😀"]}';
  const bytes = Buffer.from(req);
  // split inside the string, inside a multi-byte character, and byte by byte for a while
  for (let i = 0; i < 20; i++) c.sock.write(bytes.subarray(i, i + 1));
  c.sock.write(bytes.subarray(20, bytes.length - 5));
  await sleep(20);
  t.deepEqual(c.lines, []);
  c.sock.write(bytes.subarray(bytes.length - 5));
  t.is(await c.next(), '{"jsonrpc":"2.0","id":1,"result":["{[\\"}]","é€😀"]}');
  c.sock.write('{"jsonrpc":"2.0","id":2,"method":"web3_clientVersion"}\n{"jsonrpc":"2.0","id":3,"method":"test_sleep","params":[0]}[{"jsonrpc":"2.0","id":4,"method":"web3_clientVersion"}]');
  t.is(await c.next(), '{"jsonrpc":"2.0","id":2,"result":"qbft-lab/test"}');
  t.is(await c.next(), '{"jsonrpc":"2.0","id":3,"result":0}');
  t.is(await c.next(), '[{"jsonrpc":"2.0","id":4,"result":"qbft-lab/test"}]');
  c.sock.destroy();
});

test('answers keep request order; ctx is ipc with a connection id; notifications are lines too', async (t) => {
  const { path } = await withServer(t);
  const c = await lineClient(path);
  c.sock.write('{"jsonrpc":"2.0","id":1,"method":"test_sleep","params":[50]}{"jsonrpc":"2.0","id":2,"method":"test_ctx"}');
  t.is(await c.next(), '{"jsonrpc":"2.0","id":1,"result":50}');
  const ctx = JSON.parse(await c.next());
  t.is(ctx.result.transport, 'ipc');
  t.regex(ctx.result.connectionId, /^ipc-\d+$/);
  c.sock.write('{"jsonrpc":"2.0","id":3,"method":"eth_subscribe","params":["newHeads"]}');
  t.is(await c.next(), '{"jsonrpc":"2.0","id":3,"result":"0xa"}');
  t.is(await c.next(), '{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0xa","result":{"n":1}}}');
  c.sock.destroy();
});

test('malformed input: -32700 lines, scalars skipped, and the connection keeps serving', async (t) => {
  const { path } = await withServer(t);
  const c = await lineClient(path);
  c.sock.write('{"jsonrpc":"2.0","id":1,}');
  t.is(await c.next(), IPC_PARSE_ERROR);
  c.sock.write('garbage ');
  t.is(await c.next(), IPC_PARSE_ERROR);
  c.sock.write('123 "str" true {"jsonrpc":"2.0","id":2,"method":"web3_clientVersion"}');
  t.is(await c.next(), '{"jsonrpc":"2.0","id":2,"result":"qbft-lab/test"}');
  c.sock.write('[]');
  t.is(await c.next(), '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}');
  c.sock.write('}{"jsonrpc":"2.0","id":3,"method":"web3_clientVersion"}');
  t.is(await c.next(), IPC_PARSE_ERROR);
  t.is(await c.next(), '{"jsonrpc":"2.0","id":3,"result":"qbft-lab/test"}');
  c.sock.destroy();
});

test('a value over maxRequestBytes answers -32700 once, is skipped, and the next request works', async (t) => {
  const { path } = await withServer(t, { maxRequestBytes: 200 });
  const c = await lineClient(path);
  const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'test_echo', params: ['x'.repeat(1000), { a: [1, 2, '}'] }] });
  c.sock.write(big.slice(0, 300));
  t.is(await c.next(), IPC_PARSE_ERROR);
  c.sock.write(big.slice(300));
  c.sock.write('{"jsonrpc":"2.0","id":2,"method":"web3_clientVersion"}');
  t.is(await c.next(), '{"jsonrpc":"2.0","id":2,"result":"qbft-lab/test"}');
  t.deepEqual(c.lines.length, 2);
  c.sock.write(big); // over the limit within one chunk
  t.is(await c.next(), IPC_PARSE_ERROR);
  c.sock.destroy();
});

test('a client that half-closes after its request still gets the answer', async (t) => {
  const { path } = await withServer(t);
  const c = await lineClient(path);
  const ended = new Promise<void>((r) => c.sock.once('end', () => r()));
  c.sock.end('{"jsonrpc":"2.0","id":1,"method":"test_sleep","params":[20]}');
  t.is(await c.next(), '{"jsonrpc":"2.0","id":1,"result":20}');
  await ended;
  c.sock.destroy();
});

test('onConnectionClosed; close() deletes the socket file', async (t) => {
  const closed: string[] = [];
  const dir = await mkdtemp(join(tmpdir(), 'qbft-ipc-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'besu.ipc');
  const server = await startIpcRpc({ path, dispatcher: tinyDispatcher(), onConnectionClosed: (id) => closed.push(id) });
  const c = await lineClient(path);
  c.sock.write('{"jsonrpc":"2.0","id":1,"method":"test_ctx"}');
  const id = JSON.parse(await c.next()).result.connectionId;
  t.is(server.connectionCount(), 1);
  c.sock.destroy();
  for (let i = 0; i < 100 && closed.length === 0; i++) await sleep(10);
  t.deepEqual(closed, [id]);
  await server.close();
  await t.throwsAsync(stat(path), { code: 'ENOENT' });
});

test('a stale socket file is removed at start; a live one or a regular file is refused', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'qbft-ipc-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'besu.ipc');
  // a socket file whose server is gone: a child process listens on it and is killed -9
  const child = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(path)}, () => console.log('up'))`], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('child did not listen')), 10_000);
    child.stdout.once('data', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  child.kill('SIGKILL');
  await new Promise<void>((r) => child.once('exit', () => r()));
  t.true((await stat(path)).isSocket());
  const server = await startIpcRpc({ path, dispatcher: tinyDispatcher() });
  const c = await lineClient(path);
  c.sock.write('{"jsonrpc":"2.0","id":1,"method":"web3_clientVersion"}');
  t.is(await c.next(), '{"jsonrpc":"2.0","id":1,"result":"qbft-lab/test"}');
  await t.throwsAsync(startIpcRpc({ path, dispatcher: tinyDispatcher() }), { message: /in use/ });
  c.sock.destroy();
  await server.close();
  const file = join(dir, 'plain');
  await writeFile(file, 'x');
  await t.throwsAsync(startIpcRpc({ path: file, dispatcher: tinyDispatcher() }), { message: /not a socket/ });
});

test('JsonStreamFramer: values, strings, bare tokens, limits', (t) => {
  const f = new JsonStreamFramer(50);
  const texts = (frames: ReturnType<JsonStreamFramer['push']>) => frames.map((x) => (x.kind === 'value' ? x.text : `<${x.kind}>`));
  t.deepEqual(texts(f.push(Buffer.from(' {"a":"}"} [1,[2]]\n"s\\"t" 12 nul'))), ['{"a":"}"}', '[1,[2]]', '"s\\"t"', '12']);
  t.true(f.pending);
  t.deepEqual(texts(f.push(Buffer.from('l{'))), ['null']);
  t.deepEqual(texts(f.push(Buffer.from('}'))), ['{}']);
  t.false(f.pending);
  t.deepEqual(texts(f.push(Buffer.from('{"x":"' + 'y'.repeat(60)))), ['<too-large>']);
  t.deepEqual(texts(f.push(Buffer.from('"}{"ok":1}'))), ['{"ok":1}']);
  t.deepEqual(texts(f.push(Buffer.from('42'))), []);
  t.deepEqual(texts(f.end()), ['42']);
});
