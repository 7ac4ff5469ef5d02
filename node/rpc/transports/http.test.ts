import test from 'ava';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { Dispatcher, type RpcContext } from '../dispatcher.ts';
import { MethodRegistry } from '../registry.ts';
import { acceptsJson, corsRegex, hostAllowed, hostOfHostHeader, startHttpRpc, type HttpRpcOptions, type HttpRpcServer } from './http.ts';

const PARSE_ERROR = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** A bound for what must happen: generous, since a loaded machine stretches real sockets. */
const GENEROUS_MS = 30_000;
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + GENEROUS_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${GENEROUS_MS} ms`);
    await sleep(5);
  }
}

/** A stand-in for the real Dispatcher: echo, ctx, slow, and Besu's parse error. */
function toyDispatcher(seen: RpcContext[] = []) {
  return {
    async handleText(text: string, ctx: RpcContext): Promise<{ body: string | undefined; httpStatus: number }> {
      seen.push(ctx);
      let req: { id?: unknown; method?: string; params?: unknown[] };
      try {
        req = JSON.parse(text);
      } catch {
        return { body: PARSE_ERROR, httpStatus: 400 };
      }
      if (req.id === undefined) return { body: undefined, httpStatus: 200 };
      if (req.method === 'slow') await sleep(Number(req.params?.[0] ?? 0));
      const result = req.method === 'ctx' ? { transport: ctx.transport, permissions: ctx.permissions ?? null } : req.params ?? null;
      return { body: JSON.stringify({ jsonrpc: '2.0', id: req.id, result }), httpStatus: 200 };
    },
  };
}

interface Res {
  status: number;
  statusMessage: string;
  headers: IncomingHttpHeaders;
  body: string;
}

function call(server: HttpRpcServer, o: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer; setHost?: boolean; chunks?: Buffer[] }): Promise<Res> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: server.port, method: o.method ?? 'GET', path: o.path ?? '/', headers: o.headers ?? {}, agent: false, setHost: o.setHost ?? true },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, statusMessage: res.statusMessage!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (o.chunks) {
      for (const c of o.chunks) req.write(c);
      req.end();
    } else req.end(o.body);
  });
}

const rpc = (server: HttpRpcServer, body: string, headers: Record<string, string> = {}): Promise<Res> =>
  call(server, { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...headers } });

async function withServer(t: { teardown(f: () => Promise<void>): void }, opts: Partial<HttpRpcOptions> = {}): Promise<HttpRpcServer> {
  const server = await startHttpRpc({ host: '127.0.0.1', port: 0, dispatcher: toyDispatcher(), ...opts });
  t.teardown(() => server.close());
  return server;
}

test('POST / goes to the dispatcher: JSON answer with its status; bad JSON 400 -32700; notification 200 empty', async (t) => {
  const seen: RpcContext[] = [];
  const s = await withServer(t, { dispatcher: toyDispatcher(seen) });
  t.true(s.port > 0);
  const ok = await rpc(s, '{"jsonrpc":"2.0","id":1,"method":"echo","params":[1,"a"]}');
  t.is(ok.status, 200);
  t.is(ok.headers['content-type'], 'application/json');
  t.is(ok.body, '{"jsonrpc":"2.0","id":1,"result":[1,"a"]}');
  const bad = await rpc(s, '{"jsonrpc":');
  t.is(bad.status, 400);
  t.is(bad.body, PARSE_ERROR);
  const note = await rpc(s, '{"jsonrpc":"2.0","method":"echo"}');
  t.is(note.status, 200);
  t.is(note.body, '');
  t.is(note.headers['content-length'], '0');
  t.is(seen[0]!.transport, 'http');
  t.is(seen[0]!.permissions, undefined);
});

test('GET / → 201 empty; unknown path 404 (Vert.x page); wrong method 405 with Allow; Accept without JSON 406', async (t) => {
  const s = await withServer(t);
  const root = await call(s, {});
  t.is(root.status, 201);
  t.is(root.body, '');
  const nf = await call(s, { path: '/nope' });
  t.is(nf.status, 404);
  t.is(nf.body, '<html><body><h1>Resource not found</h1></body></html>');
  t.is(nf.headers['content-type'], 'text/html; charset=utf-8');
  const put = await call(s, { method: 'PUT', body: '{}' });
  t.is(put.status, 405);
  t.is(put.headers['allow'], 'GET,POST');
  t.is((await call(s, { method: 'POST', path: '/liveness' })).status, 405);
  const na = await rpc(s, '{"jsonrpc":"2.0","id":1,"method":"x"}', { Accept: 'text/html' });
  t.is(na.status, 406);
  t.is((await rpc(s, '{"jsonrpc":"2.0","id":1,"method":"x"}', { Accept: 'text/html, */*;q=0.1' })).status, 200);
  t.is((await rpc(s, '{"jsonrpc":"2.0","id":1,"method":"x"}', { Accept: 'application/json' })).status, 200);
});

/** The status line of the answer to one raw request (the connection closes after it). */
async function rawStatusLine(server: HttpRpcServer, head: string): Promise<string> {
  const sock = connect(server.port, '127.0.0.1');
  let text = '';
  sock.on('data', (d: Buffer) => (text += d.toString('latin1')));
  sock.on('error', () => {});
  sock.write(`${head}\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
  await new Promise<void>((resolve) => sock.once('close', () => resolve()));
  return text.slice(0, text.indexOf('\r\n'));
}

test('other routes: HEAD as GET without the body; dot segments, percent-encoding and absolute targets name their path; a target naming none 400', async (t) => {
  const s = await withServer(t);
  const head = await call(s, { method: 'HEAD', path: '/liveness' });
  t.is(head.status, 200);
  t.is(head.headers['content-length'], String(Buffer.byteLength('{\n  "status" : "UP"\n}')));
  t.is(head.body, '');
  t.is((await call(s, { method: 'HEAD' })).status, 201);
  t.is((await call(s, { method: 'HEAD', path: '/login' })).headers['allow'], 'POST');
  for (const path of ['/x/../liveness', '/./liveness', '/livenes%73', '/%2e%2e/liveness', 'http://localhost/liveness', '/liveness#part']) t.is((await call(s, { path })).status, 200, path);
  for (const path of ['/liveness/', '//liveness', '/%2Fliveness', '/%25zz']) t.is((await call(s, { path })).status, 404, path);
  // the JSON-RPC route is POST / exactly; another spelling of the root is the GET route's
  t.is((await call(s, { method: 'POST', path: '/./', body: '{}' })).headers['allow'], 'GET,POST');
  t.is(await rawStatusLine(s, 'OPTIONS * HTTP/1.1'), 'HTTP/1.1 400 Bad Request');
  t.is(await rawStatusLine(s, 'GET /a\\liveness HTTP/1.1'), 'HTTP/1.1 400 Bad Request');
  t.is(await rawStatusLine(s, 'GET /liveness?a\\b HTTP/1.1'), 'HTTP/1.1 200 OK');
});

test('liveness / readiness: Besu\'s bodies, 200 or 503, query parameters passed through', async (t) => {
  const queries: unknown[] = [];
  const s = await withServer(t, {
    health: {
      liveness: () => true,
      readiness: async (q) => {
        queries.push(q);
        return q.minPeers === undefined;
      },
    },
  });
  const live = await call(s, { path: '/liveness' });
  t.is(live.status, 200);
  t.is(live.body, '{\n  "status" : "UP"\n}');
  t.is(live.headers['content-type'], undefined);
  const ready = await call(s, { path: '/readiness' });
  t.is(ready.status, 200);
  t.is(ready.body, '{\n  "status" : "UP"\n}');
  const down = await call(s, { path: '/readiness?minPeers=abc&maxBlocksBehind=5' });
  t.is(down.status, 503);
  t.is(down.body, '{\n  "status" : "DOWN"\n}');
  t.deepEqual(queries, [{}, { minPeers: 'abc', maxBlocksBehind: '5' }]);
});

test('host allowlist: 403 {"message":"Host not authorized."} before anything else; case-insensitive; * allows any', async (t) => {
  const s = await withServer(t);
  for (const path of ['/', '/liveness', '/nope']) {
    const r = await call(s, { path, headers: { Host: 'evil.example:8545' } });
    t.is(r.status, 403);
    t.is(r.body, '{"message":"Host not authorized."}');
    t.is(r.headers['content-type'], 'application/json; charset=utf-8');
  }
  t.is((await call(s, { headers: { Host: 'LOCALHOST:8545' } })).status, 201);
  t.is((await call(s, { headers: { Host: 'localhost' } })).status, 201);
  t.is((await call(s, { setHost: false })).status, 403); // no Host header
  const any = await withServer(t, { hostAllowlist: ['*'] });
  t.is((await call(any, { headers: { Host: 'evil.example' } })).status, 201);
  const custom = await withServer(t, { hostAllowlist: ['node.example'] });
  t.is((await call(custom, { headers: { Host: 'node.example:1' } })).status, 201);
  t.is((await call(custom, {})).status, 403); // 127.0.0.1 no longer listed
});

test('host header parsing and the allowlist rule', (t) => {
  t.is(hostOfHostHeader('a.b:8545'), 'a.b');
  t.is(hostOfHostHeader('[::1]:8545'), '[::1]');
  t.is(hostOfHostHeader('a.b:x'), undefined);
  t.is(hostOfHostHeader(''), undefined);
  t.true(hostAllowed(['localhost'], 'LocalHost:1'));
  t.false(hostAllowed(['localhost'], undefined));
  t.true(hostAllowed(['*'], undefined));
});

test('CORS: none configured → requests with an Origin are refused, without one no CORS headers', async (t) => {
  const s = await withServer(t);
  const plain = await call(s, {});
  t.is(plain.status, 201);
  t.is(plain.headers['access-control-allow-origin'], undefined);
  const refused = await call(s, { headers: { Origin: 'http://bar.me' } });
  t.is(refused.status, 403);
  t.is(refused.statusMessage, 'CORS Rejected - Invalid origin');
  t.is(refused.body, 'Exception thrown handling RPC');
  t.is((await rpc(s, '{"jsonrpc":"2.0","id":1,"method":"x"}', { Origin: 'http://bar.me' })).status, 403);
});

test('CORS: listed origins allowed (echoed), others refused; preflight 204 with Besu\'s allowed headers', async (t) => {
  const s = await withServer(t, { corsOrigins: ['http://foo.io', 'http://bar.me'] });
  const ok = await rpc(s, '{"jsonrpc":"2.0","id":1,"method":"x"}', { Origin: 'http://bar.me' });
  t.is(ok.status, 200);
  t.is(ok.headers['access-control-allow-origin'], 'http://bar.me');
  t.is(ok.headers['vary'], 'origin');
  t.is((await call(s, { headers: { Origin: 'http://hel.lo' } })).status, 403);
  t.is((await call(s, {})).status, 201);
  const pre = await call(s, { method: 'OPTIONS', headers: { Origin: 'http://foo.io', 'Access-Control-Request-Method': 'POST' } });
  t.is(pre.status, 204);
  t.is(pre.headers['access-control-allow-origin'], 'http://foo.io');
  t.is(pre.headers['access-control-allow-headers'], '*,content-type');
  // OPTIONS without Access-Control-Request-Method is no preflight: no route
  t.is((await call(s, { method: 'OPTIONS', headers: { Origin: 'http://foo.io' } })).status, 405);
  const star = await withServer(t, { corsOrigins: ['*'] });
  const ext = await call(star, { headers: { Origin: 'moz-extension://802123e4-a916-2d4e-bebf-384b0e2e86dd' } });
  t.is(ext.status, 201);
  t.is(ext.headers['access-control-allow-origin'], 'moz-extension://802123e4-a916-2d4e-bebf-384b0e2e86dd');
  t.true(corsRegex(['*']).test(''));
  t.false(corsRegex([]).test('http://a'));
  t.true(corsRegex([]).test(''));
  t.true(corsRegex(['http://.*\\.example']).test('http://x.example'));
  t.false(corsRegex(['http://foo.io']).test('http://foo.io.evil'));
});

test('request body limit: 413 by Content-Length and for a chunked body; the server keeps serving', async (t) => {
  const s = await withServer(t, { maxRequestBytes: 100 });
  const okBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'echo', params: ['x'.repeat(40)] });
  t.true(okBody.length <= 100);
  t.is((await rpc(s, okBody)).status, 200);
  const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'echo', params: ['x'.repeat(200)] });
  const r1 = await rpc(s, big);
  t.is(r1.status, 413);
  t.is(r1.body, 'Request Entity Too Large');
  const r2 = await call(s, { method: 'POST', headers: { 'Content-Type': 'application/json' }, chunks: [Buffer.from(big.slice(0, 60)), Buffer.from(big.slice(60))] });
  t.is(r2.status, 413);
  t.is((await rpc(s, okBody)).status, 200);
});

test('connections beyond maxActiveConnections are closed at once', async (t) => {
  const s = await withServer(t, { maxActiveConnections: 2 });
  const open = async () => {
    const sock = connect(s.port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      sock.once('connect', () => resolve());
      sock.once('error', reject);
    });
    return sock;
  };
  const a = await open();
  const b = await open();
  await until(() => s.socketCount() === 2);
  const c = await open();
  const closed = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), GENEROUS_MS);
    c.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
    c.on('error', () => {});
  });
  t.true(closed);
  a.destroy();
  b.destroy();
  await until(() => s.socketCount() === 0);
  t.is((await call(s, {})).status, 201);
});

test('a request slower than the timeout gets 504 Gateway Timeout', async (t) => {
  const s = await withServer(t, { timeoutMs: 50 });
  const r = await rpc(s, '{"jsonrpc":"2.0","id":1,"method":"slow","params":[300]}');
  t.is(r.status, 504);
  t.is(r.body, 'Gateway Timeout');
  t.is((await rpc(s, '{"jsonrpc":"2.0","id":2,"method":"slow","params":[0]}')).status, 200);
});

test('auth hook: unauthorized → 401 -40100 before parsing; permissions reach the dispatcher; /login', async (t) => {
  const seen: RpcContext[] = [];
  const tokens: Array<string | undefined> = [];
  const s = await withServer(t, {
    dispatcher: toyDispatcher(seen),
    auth: {
      authenticate: (req) => {
        tokens.push(req.bearerToken);
        if (req.bearerToken === undefined) return 'unauthorized';
        return req.bearerToken === 'good' ? ['net:*'] : [];
      },
      login: (body) => (body.includes('alice') ? { status: 200, body: '{"token":"t"}' } : { status: 401, statusMessage: 'Unauthorized', body: 'Unauthorized' }),
    },
  });
  const none = await rpc(s, 'not even json');
  t.is(none.status, 401);
  t.is(none.body, '{"jsonrpc":"2.0","id":null,"error":{"code":-40100,"message":"Unauthorized"}}');
  const good = await rpc(s, '{"jsonrpc":"2.0","id":1,"method":"ctx"}', { Authorization: 'Bearer good' });
  t.is(good.body, '{"jsonrpc":"2.0","id":1,"result":{"transport":"http","permissions":["net:*"]}}');
  const bad = await rpc(s, '{"jsonrpc":"2.0","id":1,"method":"ctx"}', { Authorization: 'Bearer bad' });
  t.is(bad.body, '{"jsonrpc":"2.0","id":1,"result":{"transport":"http","permissions":[]}}');
  t.deepEqual(tokens, [undefined, 'good', 'bad']);
  const login = await call(s, { method: 'POST', path: '/login', body: '{"username":"alice","password":"x"}' });
  t.is(login.status, 200);
  t.is(login.body, '{"token":"t"}');
  const denied = await call(s, { method: 'POST', path: '/login', body: '{"username":"bob","password":"x"}' });
  t.is(denied.status, 401);
  t.is(denied.statusMessage, 'Unauthorized');
  // auth off: /login answers 400 "Authentication not enabled" (status line, empty body)
  const off = await withServer(t);
  const r = await call(off, { method: 'POST', path: '/login', body: '{}' });
  t.is(r.status, 400);
  t.is(r.statusMessage, 'Authentication not enabled');
  t.is(r.body, '');
});

test('acceptsJson', (t) => {
  t.true(acceptsJson(undefined));
  t.true(acceptsJson('*/*'));
  t.true(acceptsJson('application/json; charset=utf-8'));
  t.true(acceptsJson('text/plain, application/*'));
  t.false(acceptsJson('text/plain'));
  t.false(acceptsJson('application/json;q=0'));
});

test('close() frees the port and is idempotent', async (t) => {
  const s = await startHttpRpc({ host: '127.0.0.1', port: 0, dispatcher: toyDispatcher() });
  const keepAlive = connect(s.port, '127.0.0.1');
  await new Promise<void>((r) => keepAlive.once('connect', () => r()));
  keepAlive.on('error', () => {});
  await Promise.all([s.close(), s.close()]);
  const again = await startHttpRpc({ host: '127.0.0.1', port: s.port, dispatcher: toyDispatcher() });
  t.is(again.port, s.port);
  await again.close();
});

test('with the real Dispatcher: Besu\'s HTTP answers (parse error, empty body, empty batch, batch, not enabled)', async (t) => {
  const registry = new MethodRegistry();
  registry.registerAll([
    { name: 'web3_clientVersion', group: 'WEB3', handler: () => 'qbft-lab/test' },
    { name: 'eth_subscribe', group: 'ETH', connectionOnly: true, handler: () => '0x1' },
  ]);
  const dispatcher = new Dispatcher({ registry, enabledApis: new Set(['ETH', 'NET', 'WEB3']), maxBatchSize: 2, transport: 'http' });
  const s = await withServer(t, { dispatcher });
  const ok = await rpc(s, '{"jsonrpc":"2.0","id":7,"method":"web3_clientVersion","params":[]}');
  t.is(ok.status, 200);
  t.is(ok.body, '{"jsonrpc":"2.0","id":7,"result":"qbft-lab/test"}');
  for (const body of ['', '{"jsonrpc"', '"just a string"']) {
    const r = await rpc(s, body);
    t.is(r.status, 400, body);
    t.is(r.body, PARSE_ERROR);
  }
  const empty = await rpc(s, '[]');
  t.is(empty.status, 400);
  t.is(empty.body, '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}');
  const batch = await rpc(s, '[{"jsonrpc":"2.0","id":1,"method":"web3_clientVersion"},{"jsonrpc":"2.0","id":2,"method":"eth_subscribe","params":["newHeads"]}]');
  t.is(batch.status, 200);
  t.is(batch.body, '[{"jsonrpc":"2.0","id":1,"result":"qbft-lab/test"},{"jsonrpc":"2.0","id":2,"error":{"code":-32604,"message":"Method not enabled"}}]');
  const tooMany = await rpc(s, '[{"jsonrpc":"2.0","id":1,"method":"x"},{"jsonrpc":"2.0","id":2,"method":"x"},{"jsonrpc":"2.0","id":3,"method":"x"}]');
  t.is(tooMany.body, '{"jsonrpc":"2.0","id":null,"error":{"code":-32005,"message":"Number of requests exceeds max batch size"}}');
});
