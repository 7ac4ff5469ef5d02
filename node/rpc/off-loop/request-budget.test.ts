import test from 'ava';
import { request as httpRequest } from 'node:http';
import { WebSocket } from 'ws';
import { Dispatcher, type ApiGroup } from '../dispatcher.ts';
import { MethodRegistry } from '../registry.ts';
import { startHttpRpc } from '../transports/http.ts';
import { startWsRpc } from '../transports/ws.ts';
import { startGraphqlHttp } from '../transports/graphql-http.ts';
import { RequestAbandonedError, requestSignal } from './request-budget.ts';

/** `stall` waits until its request is given up and records why; `plain` answers at once. */
function stallingDispatcher(transport: 'http' | 'ws', reasons: string[], started: string[] = []) {
  const registry = new MethodRegistry();
  registry.register({
    name: 'stall',
    group: 'ETH',
    handler: () =>
      new Promise((_resolve, reject) => {
        started.push('stall');
        const signal = requestSignal();
        if (!signal) return reject(new Error('no request signal'));
        signal.addEventListener('abort', () => {
          reasons.push((signal.reason as Error).message);
          reject(signal.reason);
        });
      }),
  });
  let plainRuns = 0;
  registry.register({ name: 'plain', group: 'ETH', handler: () => ++plainRuns });
  const dispatcher = new Dispatcher({ registry, enabledApis: new Set<ApiGroup>(['ETH']), maxBatchSize: 1024, transport });
  return { dispatcher, plainRuns: () => plainRuns };
}

function post(port: number, body: string, opts: { abortWhen?: () => boolean; headers?: Record<string, string> } = {}): Promise<{ status: number; body: string } | 'aborted'> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'Content-Type': 'application/json', ...opts.headers }, agent: false }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', (e) => (opts.abortWhen !== undefined ? resolve('aborted') : reject(e)));
    req.end(body);
    if (opts.abortWhen !== undefined) void until(opts.abortWhen).then(() => req.destroy());
  });
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 3000 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
}

test('HTTP: a single request that overruns gets 504 and its work is given up; a batch gets 408 TIMEOUT_ERROR and the rest of it never runs', async (t) => {
  const reasons: string[] = [];
  const { dispatcher, plainRuns } = stallingDispatcher('http', reasons);
  const server = await startHttpRpc({ host: '127.0.0.1', port: 0, dispatcher, timeoutMs: 300 });
  try {
    const single = await post(server.port, '{"jsonrpc":"2.0","id":1,"method":"stall"}');
    t.like(single, { status: 504, body: 'Gateway Timeout' });
    await until(() => reasons.length === 1);
    t.deepEqual(reasons, ['Timeout expired']);
    const batch = await post(server.port, '[{"jsonrpc":"2.0","id":1,"method":"stall"},{"jsonrpc":"2.0","id":2,"method":"plain"}]');
    t.deepEqual(batch, { status: 408, body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Timeout expired"}}' });
    await until(() => reasons.length === 2);
    t.is(plainRuns(), 0, 'the batch element after the budget ran out was not run');
  } finally {
    await server.close();
  }
});

test('HTTP: a client that hangs up gives its request up (both the fast path and node:http)', async (t) => {
  const reasons: string[] = [];
  const started: string[] = [];
  const { dispatcher } = stallingDispatcher('http', reasons, started);
  const server = await startHttpRpc({ host: '127.0.0.1', port: 0, dispatcher, timeoutMs: 600_000 });
  try {
    // chunked bodies go to node:http
    const chunked = { 'Transfer-Encoding': 'chunked' };
    t.is(await post(server.port, '{"jsonrpc":"2.0","id":1,"method":"stall"}', { abortWhen: () => started.length >= 1, headers: chunked }), 'aborted');
    await until(() => reasons.length === 1);
    t.is(await post(server.port, '{"jsonrpc":"2.0","id":1,"method":"stall"}', { abortWhen: () => started.length >= 2 }), 'aborted');
    await until(() => reasons.length === 2);
    t.deepEqual(reasons, ['the client closed its connection', 'the client closed its connection']);
  } finally {
    await server.close();
  }
});

test('WebSocket: a request that overruns --Xws-timeout-seconds answers TIMEOUT_ERROR; closing the socket gives up what runs', async (t) => {
  const reasons: string[] = [];
  const { dispatcher } = stallingDispatcher('ws', reasons);
  const server = await startWsRpc({ host: '127.0.0.1', port: 0, dispatcher, requestTimeoutMs: 300 });
  try {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const answer = new Promise<string>((resolve) => ws.once('message', (d) => resolve(String(d))));
    ws.send('{"jsonrpc":"2.0","id":7,"method":"stall"}');
    t.is(await answer, '{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"Timeout expired"}}');
    t.deepEqual(reasons, ['Timeout expired']);
    ws.send('{"jsonrpc":"2.0","id":8,"method":"stall"}');
    await new Promise((r) => setTimeout(r, 50));
    ws.close();
    await until(() => reasons.length === 2);
    t.is(reasons[1], 'the client closed its connection');
  } finally {
    await server.close();
  }
});

test('a method that fails because its request was given up answers TIMEOUT_ERROR, not an internal error', async (t) => {
  const registry = new MethodRegistry();
  registry.register({ name: 'gone', group: 'ETH', handler: () => Promise.reject(new RequestAbandonedError('Timeout expired')) });
  const internal: string[] = [];
  const d = new Dispatcher({ registry, enabledApis: new Set<ApiGroup>(['ETH']), maxBatchSize: 1024, transport: 'http', onInternalError: (m) => internal.push(m) });
  t.is((await d.handleText('{"jsonrpc":"2.0","id":3,"method":"gone"}', { transport: 'http' })).body, '{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Timeout expired"}}');
  t.deepEqual(internal, []);
});

test('GraphQL: a query that overruns its time gets 504 and its work is given up', async (t) => {
  const reasons: string[] = [];
  const server = await startGraphqlHttp({
    host: '127.0.0.1',
    port: 0,
    hostAllowlist: ['*'],
    timeoutMs: 300,
    handle: () =>
      new Promise((_resolve, reject) => {
        const signal = requestSignal()!;
        signal.addEventListener('abort', () => {
          reasons.push((signal.reason as Error).message);
          reject(signal.reason);
        });
      }),
  });
  try {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: server.port, method: 'POST', path: '/graphql', headers: { 'Content-Type': 'application/json' }, agent: false }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      });
      req.on('error', reject);
      req.end('{"query":"{ block { number } }"}');
    });
    t.deepEqual(answer, { status: 504, body: 'Gateway Timeout' });
    t.deepEqual(reasons, ['Timeout expired']);
  } finally {
    await server.close();
  }
});
