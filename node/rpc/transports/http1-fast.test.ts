import test from 'ava';
import { createServer, request as httpRequest, Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Dispatcher } from '../dispatcher.ts';
import { MethodRegistry } from '../registry.ts';
import { RpcError } from '../errors.ts';
import { startHttpRpc, type HttpRpcOptions, type HttpRpcServer } from './http.ts';
import { installFastFrontEnd, parseSimpleHead, type FastRoute } from './http1-fast.ts';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function realDispatcher(): Dispatcher {
  const registry = new MethodRegistry();
  registry.registerAll([
    { name: 'eth_blockNumber', group: 'ETH', handler: () => '0x10' },
    { name: 'web3_clientVersion', group: 'WEB3', handler: async () => 'qbft-lab/ünïcode' },
    { name: 'eth_chainId', group: 'ETH', handler: () => Promise.reject(new RpcError(-32000, 'nope')) },
    { name: 'net_version', group: 'NET', handler: async (params) => { await sleep(Number(params[0] ?? 0)); return String(params[0] ?? '0'); } },
    { name: 'net_listening', group: 'NET', handler: () => { throw new Error('boom'); } },
  ]);
  return new Dispatcher({ registry, enabledApis: new Set(['ETH', 'NET', 'WEB3']), maxBatchSize: 1024, transport: 'http' });
}

async function withServer(t: { teardown(f: () => Promise<void>): void }, opts: Partial<HttpRpcOptions> = {}): Promise<HttpRpcServer> {
  const server = await startHttpRpc({ host: '127.0.0.1', port: 0, dispatcher: realDispatcher(), ...opts });
  t.teardown(() => server.close());
  return server;
}

interface RawResponse {
  head: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A raw client: writes byte chunks, reads HTTP/1.1 responses (Content-Length framed) off the stream. */
class RawClient {
  private readonly socket: Socket;
  private data = Buffer.alloc(0);
  closed = false;
  private waiters: Array<() => void> = [];

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (d: Buffer) => {
      this.data = Buffer.concat([this.data, d]);
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => {});
  }

  static async open(port: number): Promise<RawClient> {
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('error', reject);
    });
    return new RawClient(socket);
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  write(chunk: string | Buffer): void {
    this.socket.write(chunk);
  }

  end(): void {
    this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }

  /** The next full response, or undefined when the connection closes first. */
  async response(timeoutMs = 3000): Promise<RawResponse | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const headEnd = this.data.indexOf('\r\n\r\n');
      if (headEnd >= 0) {
        const head = this.data.toString('latin1', 0, headEnd);
        const headers: Record<string, string> = {};
        for (const line of head.split('\r\n').slice(1)) {
          const i = line.indexOf(':');
          headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
        }
        const length = Number(headers['content-length'] ?? 0);
        if (this.data.length >= headEnd + 4 + length) {
          const body = this.data.toString('utf8', headEnd + 4, headEnd + 4 + length);
          this.data = this.data.subarray(headEnd + 4 + length);
          return { head, status: Number(head.split(' ')[1]), headers, body };
        }
      }
      if (this.closed) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no response in time');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async closedWithin(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!this.closed && Date.now() < deadline) await sleep(10);
    return this.closed;
  }
}

const post = (body: string, extra = '', target = '/', connection = 'keep-alive'): string =>
  `POST ${target} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${extra}Connection: ${connection}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
const rpcBody = (method: string, params: unknown[] = [], id: unknown = 1): string => JSON.stringify({ jsonrpc: '2.0', id, method, params });
const withoutDate = (head: string): string => head.replace(/\r\nDate: [^\r]*/, '\r\nDate: -');

test('parseSimpleHead: the plain keep-alive POST / only', (t) => {
  const ok = parseSimpleHead('POST / HTTP/1.1\r\nHost: a\r\ncontent-length: 12\r\nX-Y:  v \t');
  t.deepEqual(ok, { headers: { host: 'a', 'content-length': '12', 'x-y': 'v' }, contentLength: 12, close: false });
  t.is(parseSimpleHead('POST / HTTP/1.1\r\nHost: a\r\nConnection: Close\r\nContent-Length: 0')?.close, true);
  for (const head of [
    'POST /x HTTP/1.1\r\nContent-Length: 1',
    'POST / HTTP/1.0\r\nContent-Length: 1',
    'GET / HTTP/1.1\r\nContent-Length: 1',
    'POST / HTTP/1.1\r\nHost: a', // no Content-Length
    'POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1',
    'POST / HTTP/1.1\r\nContent-Length: -1',
    'POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked',
    'POST / HTTP/1.1\r\nContent-Length: 1\r\nExpect: 100-continue',
    'POST / HTTP/1.1\r\nContent-Length: 1\r\nConnection: Upgrade',
    'POST / HTTP/1.1\r\nContent-Length: 1\r\n folded',
    'POST / HTTP/1.1\r\nContent-Length: 1\r\nBad Name: x',
    'POST / HTTP/1.1\r\nContent-Length: 1\r\nX: a\x01b',
    'POST / HTTP/1.1\r\nContent-Length: 1\r\n__proto__: x',
  ]) {
    t.is(parseSimpleHead(head), undefined, JSON.stringify(head));
  }
});

test('answers are byte for byte what node:http writes for the same request (Date aside)', async (t) => {
  const s = await withServer(t, { corsOrigins: ['http://ok.example'] });
  const cases: Array<[string, string]> = [
    [rpcBody('eth_blockNumber'), ''],
    [rpcBody('web3_clientVersion'), ''], // async, non-ASCII body
    [rpcBody('eth_chainId'), ''], // rejected with an RpcError
    [rpcBody('net_listening'), ''], // throws: -32603
    ['{"jsonrpc":"2.0","method":"eth_blockNumber"}', ''], // notification: empty body
    ['{"jsonrpc":', ''], // parse error: 400
    ['', ''],
    ['[]', ''],
    [`[${rpcBody('eth_blockNumber')},${rpcBody('nope', [], 2)}]`, ''],
    [rpcBody('eth_blockNumber'), 'Origin: http://ok.example\r\n'],
    [rpcBody('eth_blockNumber'), 'Accept: application/json\r\nUser-Agent: x\r\n'],
  ];
  for (const connection of ['keep-alive', 'close']) {
    for (const [body, extra] of cases) {
      const fast = await RawClient.open(s.port);
      fast.write(post(body, extra, '/', connection));
      const a = (await fast.response())!;
      const slow = await RawClient.open(s.port);
      slow.write(post(body, extra, '/?via=node', connection)); // a query string: node:http's path
      const b = (await slow.response())!;
      t.is(withoutDate(a.head), withoutDate(b.head), `${connection} ${body} ${extra}`);
      t.is(a.body, b.body);
      if (connection === 'close') {
        t.true(await fast.closedWithin(1000));
        t.true(await slow.closedWithin(1000));
      }
      fast.destroy();
      slow.destroy();
    }
  }
});

test('auth: 401 without a token and permissions with one, on the fast path as on node:http\'s', async (t) => {
  const s = await withServer(t, {
    auth: {
      authenticate: (req) => (req.bearerToken === undefined ? 'unauthorized' : req.bearerToken === 'good' ? ['*:*'] : []),
      login: () => ({ status: 200, body: '{}' }),
    },
  });
  for (const [extra, status] of [['', 401], ['Authorization: Bearer good\r\n', 200], ['Authorization: Bearer bad\r\n', 200]] as const) {
    const fast = await RawClient.open(s.port);
    fast.write(post(rpcBody('eth_blockNumber'), extra));
    const a = (await fast.response())!;
    const slow = await RawClient.open(s.port);
    slow.write(post(rpcBody('eth_blockNumber'), extra, '/?x'));
    const b = (await slow.response())!;
    t.is(a.status, status);
    t.is(withoutDate(a.head), withoutDate(b.head));
    t.is(a.body, b.body);
    fast.destroy();
    slow.destroy();
  }
});

test('pipelined requests in one write are answered in order, a slow one holding back the rest', async (t) => {
  const s = await withServer(t);
  const c = await RawClient.open(s.port);
  c.write(post(rpcBody('net_version', [80], 1)) + post(rpcBody('eth_blockNumber', [], 2)) + post(rpcBody('net_version', [0], 3)) + post(rpcBody('eth_blockNumber', [], 4)));
  const ids = [];
  for (let i = 0; i < 4; i++) ids.push(JSON.parse((await c.response())!.body).id);
  t.deepEqual(ids, [1, 2, 3, 4]);
  // Many synchronous answers in one go (no recursion limit).
  c.write(Array.from({ length: 3000 }, (_, i) => post(rpcBody('eth_blockNumber', [], i))).join(''));
  for (let i = 0; i < 3000; i++) t.is(JSON.parse((await c.response())!.body).id, i);
  c.destroy();
});

test('a request split across many writes (head and body) is put together', async (t) => {
  const s = await withServer(t);
  const c = await RawClient.open(s.port);
  const bytes = Buffer.from(post(rpcBody('web3_clientVersion')) + post(rpcBody('eth_blockNumber', [], 2)));
  for (let i = 0; i < bytes.length; i += 7) {
    c.write(bytes.subarray(i, i + 7));
    await sleep(1);
  }
  t.is(JSON.parse((await c.response())!.body).result, 'qbft-lab/ünïcode');
  t.is(JSON.parse((await c.response())!.body).id, 2);
  c.destroy();
});

test('mid-connection hand-off: other routes, chunked bodies and HTTP/1.0 go to node:http, in order, with the bytes not yet read', async (t) => {
  const s = await withServer(t);
  const c = await RawClient.open(s.port);
  c.write(
    post(rpcBody('net_version', [30], 1)) +
      'GET /liveness HTTP/1.1\r\nHost: localhost\r\n\r\n' +
      post(rpcBody('eth_blockNumber', [], 3)) +
      'POST / HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n' +
      `${Buffer.byteLength(rpcBody('eth_blockNumber', [], 4)).toString(16)}\r\n${rpcBody('eth_blockNumber', [], 4)}\r\n0\r\n\r\n`,
  );
  const r1 = (await c.response())!;
  t.is(JSON.parse(r1.body).id, 1);
  const r2 = (await c.response())!;
  t.is(r2.status, 200);
  t.is(r2.body, '{\n  "status" : "UP"\n}');
  t.is(JSON.parse((await c.response())!.body).id, 3);
  t.is(JSON.parse((await c.response())!.body).id, 4);
  // The connection now belongs to node:http and keeps serving.
  c.write(post(rpcBody('eth_blockNumber', [], 5)));
  t.is(JSON.parse((await c.response())!.body).id, 5);
  c.destroy();

  const old = await RawClient.open(s.port);
  old.write(`POST / HTTP/1.0\r\nHost: localhost\r\nContent-Length: ${rpcBody('eth_blockNumber').length}\r\n\r\n${rpcBody('eth_blockNumber')}`);
  const r = (await old.response())!;
  t.is(r.headers['connection'], 'close');
  t.is(JSON.parse(r.body).result, '0x10');
  t.true(await old.closedWithin(1000));
});

test('refusals stay node:http\'s: bad Host 403, refused Origin 403, Accept 406, body limit 413, malformed 400', async (t) => {
  const s = await withServer(t, { maxRequestBytes: 100 });
  const body = rpcBody('eth_blockNumber');
  const cases: Array<[string, number]> = [
    [post(body).replace('Host: localhost', 'Host: evil.example'), 403],
    [post(body, 'Origin: http://x.example\r\n'), 403],
    [post(body, 'Accept: text/html\r\n'), 406],
    [post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'x', params: ['y'.repeat(200)] })), 413],
    ['POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\nBad Header\r\n\r\n{}', 400],
  ];
  // Bare LF line ends are node:http's to judge (at once, not after a timeout).
  const lf = await RawClient.open(s.port);
  lf.write(`POST / HTTP/1.1\nHost: localhost\nContent-Length: ${body.length}\n\n${body}`);
  t.true((await lf.response(2000)) !== undefined || lf.closed);
  lf.destroy();
  for (const [bytes, status] of cases) {
    const c = await RawClient.open(s.port);
    c.write(post(body) + bytes);
    t.is((await c.response())!.status, 200);
    t.is((await c.response())!.status, status, bytes.slice(0, 80));
    c.destroy();
  }
});

test('a request slower than the timeout gets 504 and the connection closes; later answers are dropped', async (t) => {
  const s = await withServer(t, { timeoutMs: 60 });
  const c = await RawClient.open(s.port);
  c.write(post(rpcBody('net_version', [400])) + post(rpcBody('eth_blockNumber', [], 2)));
  const r = (await c.response())!;
  t.is(r.status, 504);
  t.is(r.body, 'Gateway Timeout');
  t.is(r.headers['connection'], 'close');
  t.is(await c.response(), undefined);
  t.true(c.closed);
});

test('keep-alive clients (Agent, fetch) are served on reused connections', async (t) => {
  const s = await withServer(t);
  const agent = new Agent({ keepAlive: true, maxSockets: 2 });
  t.teardown(() => agent.destroy());
  const once = (id: number): Promise<string> =>
    new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: s.port, method: 'POST', path: '/', agent, headers: { 'Content-Type': 'application/json' } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.end(rpcBody('eth_blockNumber', [], id));
    });
  const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => once(i)));
  answers.forEach((a, i) => t.is(JSON.parse(a).id, i));
  for (let i = 0; i < 5; i++) {
    const res = await fetch(`http://127.0.0.1:${s.port}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: rpcBody('eth_blockNumber', [], i) });
    t.is(res.status, 200);
    t.is(res.headers.get('keep-alive'), 'timeout=5');
    t.is(((await res.json()) as { id: number }).id, i);
  }
});

test('node:http timers: idle keep-alive connections close; an incomplete request gets 408', async (t) => {
  const server = createServer((_req, res) => res.end('node'));
  server.keepAliveTimeout = 100;
  server.headersTimeout = 150;
  const route: FastRoute = {
    timeoutMs: 1000,
    timeoutReply: () => ({ status: 504, body: 'late' }),
    admit: () => '',
    serve: () => ({ status: 200, body: 'fast' }),
  };
  const fast = installFastFrontEnd(server, route);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => {
    fast.stop();
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  const port = (server.address() as { port: number }).port;
  const idle = await RawClient.open(port);
  idle.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n');
  const r = (await idle.response())!;
  t.is(r.body, 'fast');
  t.is(r.headers['keep-alive'], 'timeout=0');
  t.true(await idle.closedWithin(1000));
  const partial = await RawClient.open(port);
  partial.write('POST / HTTP/1.1\r\nHost: x\r\n');
  const timeout = (await partial.response())!;
  t.is(timeout.status, 408);
  t.true(await partial.closedWithin(1000));
  // A half-close after a complete request still gets its answer.
  const half = await RawClient.open(port);
  half.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n');
  half.end();
  t.is((await half.response())!.body, 'fast');
  t.true(await half.closedWithin(1000));
});
