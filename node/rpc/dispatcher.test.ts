import test from 'ava';
import { Dispatcher, exceedsNesting, formatErrorType, isPermitted, subscriptionNotificationJson, type DispatcherOptions } from './dispatcher.ts';
import { RpcError, invalidParams, rpcError } from './errors.ts';
import { MethodRegistry, type ApiGroup, type RpcContext, type RpcTransportKind } from './registry.ts';

/** A toy registry: a few real Besu names in several groups plus one non-Besu name. */
function toyRegistry(): MethodRegistry {
  const r = new MethodRegistry();
  r.registerAll([
    { name: 'web3_clientVersion', group: 'WEB3', handler: () => 'qbft-lab/v0.1.0' },
    { name: 'net_version', group: 'NET', handler: () => '1337' },
    { name: 'eth_blockNumber', group: 'ETH', handler: () => '0x10' },
    { name: 'eth_echo_params', group: 'ETH', handler: (p) => p },
    { name: 'eth_getBalance', group: 'ETH', handler: () => { throw invalidParams('Invalid address params'); } },
    { name: 'eth_call', group: 'ETH', handler: () => { throw new RpcError(3, 'Execution reverted (nope)', '0x08c379a0'); } },
    { name: 'eth_gasPrice', group: 'ETH', handler: () => { throw new Error('boom'); } },
    { name: 'eth_chainId', group: 'ETH', handler: async () => { throw new TypeError('async boom'); } },
    { name: 'eth_syncing', group: 'ETH', handler: () => false },
    { name: 'eth_accounts', group: 'ETH', handler: () => undefined },
    { name: 'eth_mining', group: 'ETH', handler: () => 10n },
    { name: 'eth_coinbase', group: 'ETH', handler: () => { throw rpcError('INVALID_REQUEST'); } },
    { name: 'qbft_getPendingVotes', group: 'QBFT', handler: () => ({}) },
    { name: 'admin_peers', group: 'ADMIN', handler: () => [] },
    { name: 'plugins_reloadPluginConfig', group: 'PLUGINS', extraGroups: ['ADMIN'], handler: () => 'Success' },
    { name: 'rpc_modules', group: 'WEB3', alwaysEnabled: true, handler: () => ({ eth: '1.0' }) },
    { name: 'eth_subscribe', group: 'ETH', connectionOnly: true, handler: () => '0x1' },
    { name: 'lab_custom', group: 'DEBUG', handler: () => 'custom' },
    {
      name: 'eth_getFilterChanges',
      group: 'ETH',
      handler: (_p, ctx) => {
        ctx.notify?.('0xabc', { n: 1 });
        return ctx.connectionId ?? null;
      },
    },
  ]);
  return r;
}

function dispatcher(over: Partial<DispatcherOptions> = {}): Dispatcher {
  return new Dispatcher({
    registry: toyRegistry(),
    enabledApis: new Set<ApiGroup>(['ETH', 'NET', 'WEB3']),
    maxBatchSize: 1024,
    transport: 'http',
    ...over,
  });
}

const ctx = (transport: RpcTransportKind = 'http', extra: Partial<RpcContext> = {}): RpcContext => ({ transport, ...extra });

async function send(d: Dispatcher, text: string, c: RpcContext = ctx(d.transport)) {
  return d.handleText(text, c);
}

const req = (method: string, id: unknown = 1, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, ...extra });

const PARSE = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}';
const INVALID_NULL = '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}';
const INTERNAL_NULL = '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}';

// ---------------------------------------------------------------------------------------------
// Success and property order

test('a success response is jsonrpc, id, result in that order', async (t) => {
  const d = dispatcher();
  const r = await send(d, req('web3_clientVersion', 7));
  t.is(r.httpStatus, 200);
  t.is(r.body, '{"jsonrpc":"2.0","id":7,"result":"qbft-lab/v0.1.0"}');
});

test('an error response is jsonrpc, id, error{code,message} and data is omitted when absent', async (t) => {
  const d = dispatcher();
  t.is((await send(d, req('eth_getBalance', 'a'))).body, '{"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"Invalid address params"}}');
  t.is(
    (await send(d, req('eth_call', 2))).body,
    '{"jsonrpc":"2.0","id":2,"error":{"code":3,"message":"Execution reverted (nope)","data":"0x08c379a0"}}',
  );
});

test('undefined and false results are written as null and false', async (t) => {
  const d = dispatcher();
  t.is((await send(d, req('eth_accounts'))).body, '{"jsonrpc":"2.0","id":1,"result":null}');
  t.is((await send(d, req('eth_syncing'))).body, '{"jsonrpc":"2.0","id":1,"result":false}');
});

test('ids: strings, numbers (negative, fractional), empty string and null are echoed', async (t) => {
  const d = dispatcher();
  for (const id of ['abc', '', 0, -1, 1.5, 123456789012, null]) {
    const r = await send(d, req('net_version', id));
    t.is(r.body, `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":"1337"}`);
  }
  const big = '{"jsonrpc":"2.0","id":12345678901234567890,"method":"net_version"}';
  // JSON.parse loses precision beyond 2^53 (documented).
  t.is((await send(d, big)).body, '{"jsonrpc":"2.0","id":12345678901234567000,"result":"1337"}');
});

test('jsonrpc is not checked: "1.0", 2 and a missing member all succeed (Besu)', async (t) => {
  const d = dispatcher();
  t.is((await send(d, '{"jsonrpc":"1.0","id":1,"method":"net_version"}')).body, '{"jsonrpc":"2.0","id":1,"result":"1337"}');
  t.is((await send(d, '{"jsonrpc":2,"id":1,"method":"net_version"}')).httpStatus, 200);
  t.is((await send(d, '{"id":1,"method":"net_version"}')).body, '{"jsonrpc":"2.0","id":1,"result":"1337"}');
});

test('unknown members are ignored; extra params are passed through; absent or null params are []', async (t) => {
  const d = dispatcher();
  t.is((await send(d, '{"jsonrpc":"2.0","id":1,"method":"net_version","beta":true}')).httpStatus, 200);
  t.is((await send(d, req('eth_echo_params', 1, { params: [1, 'a', null] }))).body, '{"jsonrpc":"2.0","id":1,"result":[1,"a",null]}');
  t.is((await send(d, req('eth_echo_params', 1))).body, '{"jsonrpc":"2.0","id":1,"result":[]}');
  t.is((await send(d, req('eth_echo_params', 1, { params: null }))).body, '{"jsonrpc":"2.0","id":1,"result":[]}');
});

// ---------------------------------------------------------------------------------------------
// Every error code of qbft-notes §8

test('-32700: empty body, garbage, truncated JSON, scalars (HTTP 400, id null)', async (t) => {
  const d = dispatcher();
  for (const text of ['', ' ', 'garbage', '{"jsonrpc":"2.0",', '[{"id":1,"method":"net_version"},{"method"', '123', '"x"', 'null', 'true', '{} {}', '\u0000']) {
    const r = await send(d, text);
    t.is(r.httpStatus, 400, JSON.stringify(text));
    t.is(r.body, PARSE, JSON.stringify(text));
  }
});

test('-32700 for nesting deeper than 1000 levels; 1000 levels are parsed', async (t) => {
  const d = dispatcher();
  const deep = '['.repeat(1001) + ']'.repeat(1001);
  t.true(exceedsNesting(deep));
  t.is((await send(d, deep)).body, PARSE);
  const ok = '['.repeat(999) + ']'.repeat(999);
  t.false(exceedsNesting(ok));
  const inString = JSON.stringify({ id: 1, method: 'net_version', x: '['.repeat(5000) });
  t.false(exceedsNesting(inString));
  t.is((await send(d, inString)).httpStatus, 200);
});

test('a UTF-8 BOM before the JSON is skipped (Jackson)', async (t) => {
  const d = dispatcher();
  t.is((await send(d, '\ufeff' + req('net_version'))).body, '{"jsonrpc":"2.0","id":1,"result":"1337"}');
});

test('-32600: empty batch is HTTP 400 with id null', async (t) => {
  const r = await send(dispatcher(), '[]');
  t.is(r.httpStatus, 400);
  t.is(r.body, INVALID_NULL);
});

test('-32600: bad request objects answer 400; the id is echoed only when numeric (getInteger)', async (t) => {
  const d = dispatcher();
  const cases: Array<[string, string]> = [
    ['{"jsonrpc":"2.0","id":2}', '2'], // missing method (JsonRpcHttpServiceTest.missingMethodField)
    ['{"jsonrpc":"2.0","id":"s"}', 'null'],
    ['{"jsonrpc":"2.0","id":3,"method":null}', '3'],
    ['{"jsonrpc":"2.0","id":4,"method":{}}', '4'],
    ['{"jsonrpc":"2.0","id":5,"method":[]}', '5'],
    ['{"jsonrpc":{},"id":6,"method":"net_version"}', '6'],
    ['{"jsonrpc":"2.0","id":7,"method":"net_version","params":{}}', '7'], // by-name params unsupported
    ['{"jsonrpc":"2.0","id":8,"method":"net_version","params":"x"}', '8'],
    ['{"jsonrpc":"2.0","id":9,"method":"net_version","params":5}', '9'],
    ['{"jsonrpc":"2.0","id":{},"method":"net_version"}', 'null'], // objectId
    ['{"jsonrpc":"2.0","id":[],"method":"net_version"}', 'null'], // arrayId
    ['{"jsonrpc":"2.0","id":true,"method":"net_version"}', 'null'],
    ['{"jsonrpc":"2.0","id":4294967297}', '1'], // Long.intValue
    ['{"jsonrpc":"2.0","id":2.7}', '2'], // Double.intValue
    ['{"jsonrpc":"2.0"}', 'null'], // no id member: still answered
    ['{}', 'null'],
  ];
  for (const [text, id] of cases) {
    const r = await send(d, text);
    t.is(r.httpStatus, 400, text);
    t.is(r.body, `{"jsonrpc":"2.0","id":${id},"error":{"code":-32600,"message":"Invalid Request"}}`, text);
  }
});

test('a non-string scalar method is coerced to text (Jackson) and is then not found', async (t) => {
  const r = await send(dispatcher(), '{"jsonrpc":"2.0","id":1,"method":42}');
  t.is(r.httpStatus, 200);
  t.is(r.body, '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}');
});

test('-32601: unknown method, HTTP 200', async (t) => {
  const r = await send(dispatcher(), req('bla', '234'));
  t.is(r.httpStatus, 200);
  t.is(r.body, '{"jsonrpc":"2.0","id":"234","error":{"code":-32601,"message":"Method not found"}}');
});

test('-32604: a Besu method that is not registered, or whose group is disabled', async (t) => {
  const d = dispatcher();
  const notEnabled = (id: number) => `{"jsonrpc":"2.0","id":${id},"error":{"code":-32604,"message":"Method not enabled"}}`;
  t.is((await send(d, req('eth_getLogs', 1))).body, notEnabled(1)); // Besu name, not registered
  t.is((await send(d, req('qbft_getPendingVotes', 2))).body, notEnabled(2)); // QBFT disabled
  t.is((await send(d, req('admin_peers', 3))).body, notEnabled(3)); // ADMIN disabled
  t.is((await send(d, req('perm_getNodesWhitelist', 4))).body, notEnabled(4));
  const r = await send(d, req('txpool_besuStatistics', 5));
  t.is(r.httpStatus, 200);
  t.is(r.body, notEnabled(5));
});

test('a registered non-Besu method whose group is disabled is -32601 (not in the RpcMethod enum)', async (t) => {
  t.is((await send(dispatcher(), req('lab_custom'))).body, '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}');
  const withDebug = dispatcher({ enabledApis: new Set<ApiGroup>(['DEBUG']) });
  t.is((await send(withDebug, req('lab_custom'))).body, '{"jsonrpc":"2.0","id":1,"result":"custom"}');
});

test('enabling a group enables its methods', async (t) => {
  const d = dispatcher({ enabledApis: new Set<ApiGroup>(['QBFT']) });
  t.is((await send(d, req('qbft_getPendingVotes'))).body, '{"jsonrpc":"2.0","id":1,"result":{}}');
  t.is((await send(d, req('eth_blockNumber'))).body, '{"jsonrpc":"2.0","id":1,"error":{"code":-32604,"message":"Method not enabled"}}');
});

test('plugins_reloadPluginConfig is enabled by PLUGINS or ADMIN; rpc_modules whenever any group is', async (t) => {
  for (const g of ['PLUGINS', 'ADMIN'] as ApiGroup[]) {
    const d = dispatcher({ enabledApis: new Set<ApiGroup>([g]) });
    t.is((await send(d, req('plugins_reloadPluginConfig'))).body, '{"jsonrpc":"2.0","id":1,"result":"Success"}');
    t.is((await send(d, req('rpc_modules'))).body, '{"jsonrpc":"2.0","id":1,"result":{"eth":"1.0"}}');
  }
  const none = dispatcher({ enabledApis: new Set<ApiGroup>() });
  t.is((await send(none, req('rpc_modules'))).body, '{"jsonrpc":"2.0","id":1,"error":{"code":-32604,"message":"Method not enabled"}}');
});

test('-32604: connection-only methods over HTTP; served on ws/ipc/in-process even with ETH disabled', async (t) => {
  const http = dispatcher();
  t.is((await send(http, req('eth_subscribe'))).body, '{"jsonrpc":"2.0","id":1,"error":{"code":-32604,"message":"Method not enabled"}}');
  for (const transport of ['ws', 'ipc', 'in-process'] as RpcTransportKind[]) {
    const d = dispatcher({ transport, enabledApis: new Set<ApiGroup>(['NET']) });
    t.is((await send(d, req('eth_subscribe'))).body, '{"jsonrpc":"2.0","id":1,"result":"0x1"}', transport);
  }
});

test('-32602: a handler throwing invalidParams', async (t) => {
  const r = await send(dispatcher(), req('eth_getBalance'));
  t.is(r.httpStatus, 200);
  t.is(r.body, '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid address params"}}');
});

test('-32603: any other exception (sync or async) and unserializable results; the dispatcher does not throw', async (t) => {
  const d = dispatcher();
  const internal = '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}';
  t.is((await send(d, req('eth_gasPrice'))).body, internal);
  t.is((await send(d, req('eth_chainId'))).body, internal);
  t.is((await send(d, req('eth_mining'))).body, internal); // a bigint result
  t.is((await send(d, req('eth_gasPrice'))).httpStatus, 200);
});

test('an internal error reaches onInternalError with its method (for the log); RpcErrors and a throwing hook do not change answers', async (t) => {
  const seen: string[] = [];
  const d = dispatcher({ onInternalError: (method, e) => seen.push(`${method}: ${e instanceof Error ? e.message : String(e)}`) });
  await send(d, req('eth_gasPrice'));
  await send(d, req('eth_chainId'));
  await send(d, req('eth_getBalance'));
  t.is(seen.length, 2);
  t.true(seen[0].startsWith('eth_gasPrice: ') && seen[1].startsWith('eth_chainId: '), seen.join(' | '));
  const throwing = dispatcher({ onInternalError: () => { throw new Error('log down'); } });
  t.is((await send(throwing, req('eth_gasPrice'))).body, '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}');
});

test('a handler error equal to Invalid Request maps to HTTP 400 as Besu findErrorType does', async (t) => {
  const r = await send(dispatcher(), req('eth_coinbase'));
  t.is(r.httpStatus, 400);
  t.is(r.body, '{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request"}}');
});

test('-32005: a batch longer than maxBatchSize is one error object (not an array), HTTP 200', async (t) => {
  const d = dispatcher({ maxBatchSize: 3 });
  const batch = JSON.stringify([1, 2, 3, 4].map((id) => ({ jsonrpc: '2.0', id, method: 'net_version' })));
  const r = await send(d, batch);
  t.is(r.httpStatus, 200);
  t.is(r.body, '{"jsonrpc":"2.0","id":null,"error":{"code":-32005,"message":"Number of requests exceeds max batch size"}}');
  const ok = await send(d, JSON.stringify([1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, method: 'net_version' }))));
  t.is(JSON.parse(ok.body!).length, 3);
});

test('huge batch: 1024 is served in order, 1025 is refused (Besu default), 0 means unlimited', async (t) => {
  const d = dispatcher();
  const mk = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_blockNumber' })));
  const r = await send(d, mk(1024));
  const arr = JSON.parse(r.body!) as Array<{ id: number; result: string }>;
  t.is(arr.length, 1024);
  t.deepEqual(arr.map((x) => x.id), Array.from({ length: 1024 }, (_, i) => i));
  t.is(JSON.parse((await send(d, mk(1025))).body!).error.code, -32005);
  const unlimited = dispatcher({ maxBatchSize: 0 });
  t.is(JSON.parse((await send(unlimited, mk(5000))).body!).length, 5000);
});

test('-40100: a single unauthorized request is HTTP 401; inside a batch it is an element in a 200', async (t) => {
  const d = dispatcher({ authEnabled: true, methodsNoAuth: new Set(['net_version']) });
  const single = await send(d, req('eth_blockNumber', 9), ctx('http', { permissions: ['net:*'] }));
  t.is(single.httpStatus, 401);
  t.is(single.body, '{"jsonrpc":"2.0","id":9,"error":{"code":-40100,"message":"Unauthorized"}}');
  const noUser = await send(d, req('eth_blockNumber', 9));
  t.is(noUser.httpStatus, 401);
  const exempt = await send(d, req('net_version', 1));
  t.is(exempt.body, '{"jsonrpc":"2.0","id":1,"result":"1337"}');
  const allowed = await send(d, req('eth_blockNumber', 1), ctx('http', { permissions: ['eth:blockNumber'] }));
  t.is(allowed.body, '{"jsonrpc":"2.0","id":1,"result":"0x10"}');
  const batch = await send(
    d,
    JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' },
      { jsonrpc: '2.0', id: 2, method: 'net_version' },
      { jsonrpc: '2.0', id: 3, method: 'web3_clientVersion' },
    ]),
    ctx('http', { permissions: ['web3:*'] }),
  );
  t.is(batch.httpStatus, 200);
  t.is(
    batch.body,
    '[{"jsonrpc":"2.0","id":1,"error":{"code":-40100,"message":"Unauthorized"}},' +
      '{"jsonrpc":"2.0","id":2,"result":"1337"},{"jsonrpc":"2.0","id":3,"result":"qbft-lab/v0.1.0"}]',
  );
});

test('auth runs after the availability check: unknown/disabled methods keep -32601/-32604', async (t) => {
  const d = dispatcher({ authEnabled: true });
  t.is(JSON.parse((await send(d, req('bla'))).body!).error.code, -32601);
  t.is(JSON.parse((await send(d, req('admin_peers'))).body!).error.code, -32604);
});

test('a handler throwing UNAUTHORIZED itself is an ordinary error (HTTP 200)', async (t) => {
  const r = new MethodRegistry();
  r.register({ name: 'eth_blockNumber', group: 'ETH', handler: () => { throw rpcError('UNAUTHORIZED'); } });
  const d = new Dispatcher({ registry: r, enabledApis: new Set<ApiGroup>(['ETH']), maxBatchSize: 1024, transport: 'http' });
  t.is((await send(d, req('eth_blockNumber'))).httpStatus, 200);
});

// ---------------------------------------------------------------------------------------------
// Batches and notifications

test('batch: elements run in order, a non-object element answers -32600 id null (JsonRpcHttpServiceTest)', async (t) => {
  const d = dispatcher();
  const r = await send(d, '[{"jsonrpc":"2.0","id":2,"method":"web3_clientVersion"}, 5, {"jsonrpc":"2.0","id":4,"method":"net_version"}, [], "x", null]');
  t.is(r.httpStatus, 200);
  t.is(
    r.body,
    '[{"jsonrpc":"2.0","id":2,"result":"qbft-lab/v0.1.0"},' +
      INVALID_NULL +
      ',{"jsonrpc":"2.0","id":4,"result":"1337"},' +
      [INVALID_NULL, INVALID_NULL, INVALID_NULL].join(',') +
      ']',
  );
});

test('batch: bad request objects keep their numeric id; every error kind can appear in one batch', async (t) => {
  const d = dispatcher();
  const r = await send(
    d,
    JSON.stringify([
      { jsonrpc: '2.0', id: 1 },
      { jsonrpc: '2.0', id: 2, method: 'bla' },
      { jsonrpc: '2.0', id: 3, method: 'eth_getLogs' },
      { jsonrpc: '2.0', id: 4, method: 'eth_getBalance' },
      { jsonrpc: '2.0', id: 5, method: 'eth_gasPrice' },
    ]),
  );
  t.is(r.httpStatus, 200);
  t.deepEqual(
    (JSON.parse(r.body!) as Array<{ id: number; error: { code: number } }>).map((x) => [x.id, x.error.code]),
    [[1, -32600], [2, -32601], [3, -32604], [4, -32602], [5, -32603]],
  );
});

test('notifications: no id member -> not executed, no response; a batch of only notifications answers []', async (t) => {
  let calls = 0;
  const r = new MethodRegistry();
  r.register({ name: 'eth_blockNumber', group: 'ETH', handler: () => { calls++; return '0x1'; } });
  const d = new Dispatcher({ registry: r, enabledApis: new Set<ApiGroup>(['ETH']), maxBatchSize: 1024, transport: 'http' });
  const single = await send(d, '{"jsonrpc":"2.0","method":"eth_blockNumber"}');
  t.deepEqual(single, { body: undefined, httpStatus: 200 });
  const unknown = await send(d, '{"jsonrpc":"2.0","method":"bla"}');
  t.deepEqual(unknown, { body: undefined, httpStatus: 200 });
  const onlyNotes = await send(d, '[{"jsonrpc":"2.0","method":"eth_blockNumber"},{"method":"bla"}]');
  t.deepEqual(onlyNotes, { body: '[]', httpStatus: 200 });
  const mixed = await send(d, '[{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber"},{"jsonrpc":"2.0","method":"eth_blockNumber"},{"jsonrpc":"2.0","id":3,"method":"eth_blockNumber"}]');
  t.is(mixed.body, '[{"jsonrpc":"2.0","id":2,"result":"0x1"},{"jsonrpc":"2.0","id":3,"result":"0x1"}]');
  t.is(calls, 2);
  // "id": null is a request, not a notification
  t.is((await send(d, '{"jsonrpc":"2.0","id":null,"method":"eth_blockNumber"}')).body, '{"jsonrpc":"2.0","id":null,"result":"0x1"}');
});

test('batches run sequentially: a slow first element finishes before the second starts', async (t) => {
  const order: string[] = [];
  const r = new MethodRegistry();
  r.register({
    name: 'eth_blockNumber',
    group: 'ETH',
    handler: async () => {
      order.push('a-start');
      for (let i = 0; i < 5; i++) await Promise.resolve();
      order.push('a-end');
      return '0x1';
    },
  });
  r.register({ name: 'net_version', group: 'NET', handler: () => { order.push('b'); return '1'; } });
  const d = new Dispatcher({ registry: r, enabledApis: new Set<ApiGroup>(['ETH', 'NET']), maxBatchSize: 10, transport: 'http' });
  await send(d, '[{"id":1,"method":"eth_blockNumber"},{"id":2,"method":"net_version"}]');
  t.deepEqual(order, ['a-start', 'a-end', 'b']);
});

// ---------------------------------------------------------------------------------------------
// Transport-specific malformed input

test('ws: empty frame -32600, garbage and scalars -32603, [] answers [], no 400s', async (t) => {
  const d = dispatcher({ transport: 'ws', maxBatchSize: 0 });
  t.deepEqual(await send(d, ''), { body: INVALID_NULL, httpStatus: 200 });
  t.deepEqual(await send(d, 'garbage'), { body: INTERNAL_NULL, httpStatus: 200 });
  t.deepEqual(await send(d, '42'), { body: INTERNAL_NULL, httpStatus: 200 });
  t.deepEqual(await send(d, '[]'), { body: '[]', httpStatus: 200 });
  t.is((await send(d, req('net_version'))).body, '{"jsonrpc":"2.0","id":1,"result":"1337"}');
  t.is((await send(d, '{"method":"net_version"}')).body, undefined);
});

test('ipc: empty and garbage -32700, scalars skipped, [] -32600', async (t) => {
  const d = dispatcher({ transport: 'ipc', maxBatchSize: 0 });
  t.is((await send(d, '')).body, PARSE);
  t.is((await send(d, '{oops')).body, PARSE);
  t.is((await send(d, '7')).body, undefined);
  t.is((await send(d, '[]')).body, INVALID_NULL);
});

test('handleValue takes parsed values; call() resolves or rejects with RpcError', async (t) => {
  const d = dispatcher();
  t.is((await d.handleValue({ jsonrpc: '2.0', id: 1, method: 'net_version' }, ctx())).body, '{"jsonrpc":"2.0","id":1,"result":"1337"}');
  t.is((await d.handleValue([], ctx())).httpStatus, 400);
  t.is((await d.handleValue(undefined, ctx())).body, PARSE);
  t.is(await d.call('net_version', [], ctx()), '1337');
  const e1 = await t.throwsAsync(d.call('eth_getBalance', [], ctx()), { instanceOf: RpcError });
  t.is(e1!.code, -32602);
  t.is(e1!.message, 'Invalid address params');
  const e2 = await t.throwsAsync(d.call('bla', [], ctx()), { instanceOf: RpcError });
  t.is(e2!.code, -32601);
  const e3 = await t.throwsAsync(d.call('eth_call', [], ctx()), { instanceOf: RpcError });
  t.is(e3!.data, '0x08c379a0');
});

test('onCall sees every executed request with its outcome; a throwing observer changes nothing', async (t) => {
  const seen: unknown[] = [];
  const d = dispatcher({
    onCall: (method, params, outcome) => {
      seen.push([method, params, outcome]);
      throw new Error('observer bug');
    },
  });
  t.is((await send(d, '[{"id":1,"method":"net_version","params":[1]},{"method":"net_version"},{"id":2,"method":"bla"}]')).httpStatus, 200);
  t.deepEqual(seen, [
    ['net_version', [1], { result: '1337' }],
    ['bla', [], { error: { code: -32601, message: 'Method not found' } }],
  ]);
});

test('ctx reaches handlers (connectionId, notify)', async (t) => {
  const d = dispatcher({ transport: 'ws' });
  const got: unknown[] = [];
  const r = await send(d, req('eth_getFilterChanges'), ctx('ws', { connectionId: 'c1', notify: (s, x) => got.push([s, x]) }));
  t.is(r.body, '{"jsonrpc":"2.0","id":1,"result":"c1"}');
  t.deepEqual(got, [['0xabc', { n: 1 }]]);
});

// ---------------------------------------------------------------------------------------------
// Helpers

test('isPermitted: Besu permission table', (t) => {
  const table: Array<[string, string[] | undefined, boolean]> = [
    ['eth_blockNumber', ['*:*'], true],
    ['eth_blockNumber', ['eth:*'], true],
    ['eth_blockNumber', ['eth:blockNumber'], true],
    ['eth_blockNumber', ['eth:getBalance'], false],
    ['eth_blockNumber', ['net:*'], false],
    ['eth_blockNumber', ['ETH:*'], false],
    ['eth_blockNumber', ['eth_blockNumber'], false],
    ['eth_blockNumber', ['*:blockNumber'], false],
    ['eth_blockNumber', ['eth'], false],
    ['eth_blockNumber', [], false],
    ['eth_blockNumber', undefined, false],
    ['qbft_getPendingVotes', ['qbft:*'], true],
    ['qbft_getPendingVotes', ['qbft:getPendingVotes'], true],
    ['txpool_besuStatistics', ['txpool:besuStatistics'], true],
    ['engine_preparePayload_debug', ['engine:preparePayload:debug'], true],
    ['engine_preparePayload_debug', ['engine:preparePayload_debug'], false],
    ['engine_preparePayload_debug', ['engine:*'], true],
    ['rpcmodules', ['rpcmodules:*'], false],
    ['rpcmodules', ['*:*'], true],
    ['net_version', ['eth:*', 'net:version'], true],
  ];
  for (const [m, p, want] of table) t.is(isPermitted(m, p), want, `${m} ${JSON.stringify(p)}`);
});

test('formatErrorType and subscriptionNotificationJson match Besu shapes', (t) => {
  t.is(formatErrorType(null, 'UNAUTHORIZED'), '{"jsonrpc":"2.0","id":null,"error":{"code":-40100,"message":"Unauthorized"}}');
  t.is(formatErrorType(null, 'TIMEOUT_ERROR'), '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Timeout expired"}}');
  t.is(
    subscriptionNotificationJson('0x1a', { number: '0x2' }),
    '{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0x1a","result":{"number":"0x2"}}}',
  );
});
