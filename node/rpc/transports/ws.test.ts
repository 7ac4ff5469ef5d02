import test from 'ava';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { WebSocket } from 'ws';
import { Dispatcher, type RpcContext } from '../dispatcher.ts';
import { MethodRegistry } from '../registry.ts';
import { startWsRpc, type WsRpcOptions, type WsRpcServer } from './ws.ts';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The real dispatcher with a tiny registry. */
function tinyDispatcher(seen: RpcContext[] = []): Dispatcher {
  const registry = new MethodRegistry();
  registry.registerAll([
    { name: 'web3_clientVersion', group: 'WEB3', handler: () => 'qbft-lab/test' },
    {
      name: 'test_sleep',
      group: 'ETH',
      handler: async (params) => {
        await sleep(Number(params[0]));
        return params[0];
      },
    },
    {
      name: 'test_ctx',
      group: 'ETH',
      handler: (_p, ctx) => {
        seen.push(ctx);
        return { transport: ctx.transport, connectionId: ctx.connectionId ?? null, permissions: ctx.permissions ?? null };
      },
    },
    {
      name: 'eth_subscribe',
      group: 'ETH',
      connectionOnly: true,
      handler: (_p, ctx) => {
        setTimeout(() => {
          ctx.notify!('0x1', { number: '0x5', n: 1 });
          ctx.notify!('0x1', { number: '0x6', n: 2 });
        }, 10);
        return '0x1';
      },
    },
  ]);
  return new Dispatcher({ registry, enabledApis: new Set(['ETH', 'NET', 'WEB3']), maxBatchSize: 0, transport: 'ws' });
}

async function withServer(t: { teardown(f: () => Promise<void>): void }, opts: Partial<WsRpcOptions> = {}): Promise<WsRpcServer> {
  const server = await startWsRpc({ host: '127.0.0.1', port: 0, dispatcher: tinyDispatcher(), ...opts });
  t.teardown(() => server.close());
  return server;
}

interface Client {
  ws: WebSocket;
  messages: string[];
  next(): Promise<string>;
  closed: Promise<{ code: number; reason: string }>;
}

async function client(server: WsRpcServer, opts: { protocols?: string[]; headers?: Record<string, string> } = {}): Promise<Client> {
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}`, opts.protocols ?? [], { headers: opts.headers ?? {} });
  const messages: string[] = [];
  const waiters: Array<() => void> = [];
  ws.on('message', (d) => {
    messages.push(d.toString());
    waiters.shift()?.();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let read = 0;
  return {
    ws,
    messages,
    closed,
    next: async () => {
      if (messages.length <= read) {
        await Promise.race([
          new Promise<void>((r) => waiters.push(r)),
          sleep(3000).then(() => {
            throw new Error('no message within 3 s');
          }),
        ]);
      }
      return messages[read++]!;
    },
  };
}

test('request / response over a text frame and a binary frame; ctx has transport ws and a connection id', async (t) => {
  const seen: RpcContext[] = [];
  const s = await withServer(t, { dispatcher: tinyDispatcher(seen) });
  const c = await client(s);
  c.ws.send('{"jsonrpc":"2.0","id":1,"method":"web3_clientVersion","params":[]}');
  t.is(await c.next(), '{"jsonrpc":"2.0","id":1,"result":"qbft-lab/test"}');
  c.ws.send(Buffer.from('{"jsonrpc":"2.0","id":2,"method":"test_ctx"}'), { binary: true });
  const ctxAnswer = JSON.parse(await c.next());
  t.is(ctxAnswer.result.transport, 'ws');
  t.regex(ctxAnswer.result.connectionId, /^ws-\d+$/);
  // Besu's WS answers: bad JSON → -32603, unknown method → -32601, batch
  c.ws.send('{"jsonrpc":');
  t.is(await c.next(), '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}');
  c.ws.send('{"jsonrpc":"2.0","id":3,"method":"nope"}');
  t.is(await c.next(), '{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}}');
  c.ws.send('[{"jsonrpc":"2.0","id":4,"method":"web3_clientVersion"},{"jsonrpc":"2.0","method":"web3_clientVersion"}]');
  t.is(await c.next(), '[{"jsonrpc":"2.0","id":4,"result":"qbft-lab/test"}]');
  t.is(s.connectionCount(), 1);
  c.ws.close();
  await c.closed;
});

test('answers keep request order on a connection even when earlier requests are slower', async (t) => {
  const s = await withServer(t);
  const c = await client(s);
  c.ws.send('{"jsonrpc":"2.0","id":1,"method":"test_sleep","params":[60]}');
  c.ws.send('{"jsonrpc":"2.0","id":2,"method":"test_sleep","params":[0]}');
  t.is(await c.next(), '{"jsonrpc":"2.0","id":1,"result":60}');
  t.is(await c.next(), '{"jsonrpc":"2.0","id":2,"result":0}');
  c.ws.close();
});

test('notify() pushes eth_subscription notifications to the subscribing connection only', async (t) => {
  const s = await withServer(t);
  const a = await client(s);
  const b = await client(s);
  a.ws.send('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}');
  t.is(await a.next(), '{"jsonrpc":"2.0","id":1,"result":"0x1"}');
  t.is(await a.next(), '{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0x1","result":{"number":"0x5","n":1}}}');
  t.is(await a.next(), '{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0x1","result":{"number":"0x6","n":2}}}');
  await sleep(30);
  t.deepEqual(b.messages, []);
  a.ws.close();
  b.ws.close();
});

test('onConnectionClosed gets the connection id once the client goes', async (t) => {
  const closedIds: string[] = [];
  const s = await withServer(t, { onConnectionClosed: (id) => closedIds.push(id) });
  const c = await client(s);
  c.ws.send('{"jsonrpc":"2.0","id":1,"method":"test_ctx"}');
  const id = JSON.parse(await c.next()).result.connectionId as string;
  c.ws.close();
  for (let i = 0; i < 100 && closedIds.length === 0; i++) await sleep(10);
  t.deepEqual(closedIds, [id]);
  t.is(s.connectionCount(), 0);
});

test('a frame over maxFrameSize closes the connection with 1009 and Netty\'s reason; others keep working', async (t) => {
  const s = await withServer(t, { maxFrameSize: 1024 });
  const c = await client(s);
  c.ws.send('{"jsonrpc":"2.0","id":1,"method":"test_sleep","params":[0]}');
  t.is(await c.next(), '{"jsonrpc":"2.0","id":1,"result":0}');
  c.ws.on('error', () => {});
  c.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'web3_clientVersion', params: ['x'.repeat(2000)] }));
  const closed = await c.closed;
  t.is(closed.code, 1009);
  t.is(closed.reason, 'Max frame length of 1024 has been exceeded.');
  const d = await client(s);
  d.ws.send('{"jsonrpc":"2.0","id":3,"method":"web3_clientVersion"}');
  t.is(await d.next(), '{"jsonrpc":"2.0","id":3,"result":"qbft-lab/test"}');
  d.ws.close();
});

function plainGet(port: number, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; statusMessage: string; body: string; contentType: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path: method === 'POST' ? '/login' : '/', headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, statusMessage: res.statusMessage!, body, contentType: res.headers['content-type'] }));
    });
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
  });
}

test('plain HTTP → 400 "Websocket endpoint can\'t handle HTTP requests"; bad Host → 403 JSON; /login without auth → 400', async (t) => {
  const s = await withServer(t);
  const r = await plainGet(s.port);
  t.is(r.status, 400);
  t.is(r.body, "Websocket endpoint can't handle HTTP requests");
  const h = await plainGet(s.port, { Host: 'evil.example' });
  t.is(h.status, 403);
  t.is(h.body, '{"message":"Host not authorized."}');
  t.is(h.contentType, 'application/json; charset=utf-8');
  const login = await plainGet(s.port, { 'Content-Type': 'application/json' }, 'POST');
  t.is(login.status, 400);
  t.is(login.statusMessage, 'Authentication not enabled');
});

test('an upgrade from a Host not in the allowlist is refused with 403', async (t) => {
  const s = await withServer(t);
  const ws = new WebSocket(`ws://127.0.0.1:${s.port}`, { headers: { Host: 'evil.example' } });
  const status = await new Promise<number>((resolve) => {
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode!));
    ws.on('error', () => resolve(-1));
  });
  t.is(status, 403);
  const any = await withServer(t, { hostAllowlist: ['*'] });
  const c = await client(any, { headers: { Host: 'evil.example' } });
  c.ws.close();
  t.pass();
});

/** A raw upgrade request; resolves with the server's first bytes (its status line onwards). */
function rawUpgrade(port: number, headerLines: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      const head = ['GET / HTTP/1.1', ...headerLines, 'Upgrade: websocket', 'Connection: Upgrade', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version: 13'];
      socket.write(`${head.join('\r\n')}\r\n\r\n`);
    });
    let text = '';
    socket.on('data', (d) => {
      text += d.toString();
      if (text.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

test('upgrade Host rules (WebSocketService.websocketHandler): no Host or a rebound Host → 403; allowlist match ignores case and port', async (t) => {
  const s = await withServer(t);
  t.regex(await rawUpgrade(s.port, []), /^HTTP\/1\.1 403 /);
  t.regex(await rawUpgrade(s.port, ['Host: attacker.example:8546', 'Origin: http://attacker.example']), /^HTTP\/1\.1 403 /);
  t.regex(await rawUpgrade(s.port, ['Host: LocalHost:8546']), /^HTTP\/1\.1 101 /);
  t.is((await plainGet(s.port, { Host: 'attacker.example' })).status, 403);
});

test('the upgrade has no Origin check, as Besu (WebSocketService checks only the Host): a foreign Origin with an allowed Host connects', async (t) => {
  const s = await withServer(t);
  const c = await client(s, { headers: { Origin: 'http://any-page.example' } });
  c.ws.send('{"jsonrpc":"2.0","id":1,"method":"web3_clientVersion"}');
  t.is(await c.next(), '{"jsonrpc":"2.0","id":1,"result":"qbft-lab/test"}');
  c.ws.close();
});

test('sub-protocol: "undefined" is accepted (as Besu), others are not selected', async (t) => {
  const s = await withServer(t);
  const c = await client(s, { protocols: ['undefined'] });
  t.is(c.ws.protocol, 'undefined');
  c.ws.close();
  const ws = new WebSocket(`ws://127.0.0.1:${s.port}`, ['graphql-ws']);
  const err = await new Promise<Error>((resolve) => ws.on('error', resolve));
  t.regex(err.message, /subprotocol/i);
});

test('connections beyond maxActiveConnections are refused', async (t) => {
  const s = await withServer(t, { maxActiveConnections: 2 });
  const a = await client(s);
  const b = await client(s);
  const third = new WebSocket(`ws://127.0.0.1:${s.port}`);
  const failed = await new Promise<boolean>((resolve) => {
    third.on('open', () => resolve(false));
    third.on('error', () => resolve(true));
  });
  t.true(failed);
  a.ws.close();
  await a.closed;
  await sleep(50);
  const d = await client(s);
  d.ws.send('{"jsonrpc":"2.0","id":1,"method":"web3_clientVersion"}');
  t.is(await d.next(), '{"jsonrpc":"2.0","id":1,"result":"qbft-lab/test"}');
  b.ws.close();
  d.ws.close();
});

test('auth hook: permissions from the upgrade reach the dispatcher; "unauthorized" becomes no permissions', async (t) => {
  const seen: RpcContext[] = [];
  const s = await withServer(t, {
    dispatcher: tinyDispatcher(seen),
    auth: {
      authenticate: (req) => (req.bearerToken === 'good' ? ['*:*'] : 'unauthorized'),
      login: () => ({ status: 200, body: '{"token":"t"}' }),
    },
  });
  const good = await client(s, { headers: { Authorization: 'Bearer good' } });
  good.ws.send('{"jsonrpc":"2.0","id":1,"method":"test_ctx"}');
  t.deepEqual(JSON.parse(await good.next()).result.permissions, ['*:*']);
  const none = await client(s);
  none.ws.send('{"jsonrpc":"2.0","id":1,"method":"test_ctx"}');
  t.deepEqual(JSON.parse(await none.next()).result.permissions, []);
  const login = await plainGet(s.port, {}, 'POST');
  t.is(login.status, 200);
  t.is(login.body, '{"token":"t"}');
  good.ws.close();
  none.ws.close();
});

test('close() ends open connections and frees the port', async (t) => {
  const s = await startWsRpc({ host: '127.0.0.1', port: 0, dispatcher: tinyDispatcher() });
  const c = await client(s);
  await s.close();
  const closed = await c.closed;
  t.true(closed.code > 0);
  const again = await startWsRpc({ host: '127.0.0.1', port: s.port, dispatcher: tinyDispatcher() });
  t.is(again.port, s.port);
  await again.close();
});
