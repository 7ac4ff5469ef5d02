import test from 'ava';
import { Dispatcher } from './dispatcher.ts';
import { RpcError, rpcError } from './errors.ts';
import { MethodRegistry, type ApiGroup, type RpcContext } from './registry.ts';
import { InProcessRpc, type InProcessRecord } from './transports/in-process.ts';

function setup() {
  const subs = new Map<string, { ctx: RpcContext }>();
  const r = new MethodRegistry();
  r.registerAll([
    { name: 'eth_blockNumber', group: 'ETH', handler: () => '0x2a' },
    { name: 'eth_getBalance', group: 'ETH', handler: () => { throw rpcError('INVALID_ADDRESS_PARAMS'); } },
    {
      name: 'eth_subscribe',
      group: 'ETH',
      connectionOnly: true,
      handler: (_p, ctx) => {
        const id = `0x${(subs.size + 1).toString(16)}`;
        subs.set(id, { ctx });
        return id;
      },
    },
    { name: 'eth_echo', group: 'ETH', handler: (p) => p },
  ]);
  const d = new Dispatcher({ registry: r, enabledApis: new Set<ApiGroup>(['ETH']), maxBatchSize: 1024, transport: 'in-process' });
  const publish = (result: unknown) => {
    for (const [id, s] of subs) s.ctx.notify?.(id, result);
  };
  return { d, publish };
}

test('request resolves results and rejects RpcErrors; calls and notifications are recorded in order', async (t) => {
  const { d, publish } = setup();
  const records: InProcessRecord[] = [];
  const rpc = new InProcessRpc(d, { onRecord: (e) => records.push(e), connectionId: 'sim-0' });
  t.is(await rpc.request('eth_blockNumber'), '0x2a');
  const err = await t.throwsAsync(rpc.request('eth_getBalance', ['0x1', 'latest']), { instanceOf: RpcError });
  t.is(err!.code, -32602);
  t.is(err!.message, 'Invalid address params');
  const sub = await rpc.request('eth_subscribe', ['newHeads']);
  t.is(sub, '0x1');
  publish({ number: '0x2b', big: undefined });
  t.deepEqual(rpc.notifications(), [{ subscription: '0x1', result: { number: '0x2b' } }]);
  const missing = await t.throwsAsync(rpc.request('eth_nope'), { instanceOf: RpcError });
  t.is(missing!.code, -32601);
  t.deepEqual(records, [
    { kind: 'rpc-call', connection: 'sim-0', id: 1, method: 'eth_blockNumber', params: [], result: '0x2a' },
    { kind: 'rpc-call', connection: 'sim-0', id: 2, method: 'eth_getBalance', params: ['0x1', 'latest'], error: { code: -32602, message: 'Invalid address params' } },
    { kind: 'rpc-call', connection: 'sim-0', id: 3, method: 'eth_subscribe', params: ['newHeads'], result: '0x1' },
    { kind: 'rpc-notification', connection: 'sim-0', subscription: '0x1', result: { number: '0x2b' } },
    { kind: 'rpc-call', connection: 'sim-0', id: 4, method: 'eth_nope', params: [], error: { code: -32601, message: 'Method not found' } },
  ]);
  t.deepEqual(rpc.takeNotifications().length, 1);
  t.deepEqual(rpc.notifications(), []);
});

test('listeners, close and raw input', async (t) => {
  const { d, publish } = setup();
  let closedWith = '';
  const rpc = new InProcessRpc(d, { onClose: (c) => (closedWith = c), keepNotifications: false });
  const got: unknown[] = [];
  const off = rpc.onNotification((n) => got.push(n.result));
  await rpc.request('eth_subscribe', ['newHeads']);
  publish(1);
  off();
  publish(2);
  t.deepEqual(got, [1]);
  t.deepEqual(rpc.notifications(), []);
  t.is(await rpc.sendRaw('garbage'), '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
  t.is(await rpc.sendRaw('{"jsonrpc":"2.0","method":"eth_blockNumber"}'), undefined);
  t.is(await rpc.sendRaw('[{"id":1,"method":"eth_blockNumber"}]'), '[{"jsonrpc":"2.0","id":1,"result":"0x2a"}]');
  rpc.close();
  rpc.close();
  t.is(closedWith, 'in-process');
  t.true(rpc.closed);
  await t.throwsAsync(rpc.request('eth_blockNumber'), { message: /closed/ });
  publish(3);
  t.deepEqual(got, [1]);
});

test('params travel as JSON; a bigint param is a TypeError; identical runs give identical records', async (t) => {
  const run = async () => {
    const { d } = setup();
    const records: InProcessRecord[] = [];
    const rpc = new InProcessRpc(d, { onRecord: (e) => records.push(e) });
    t.deepEqual(await rpc.request('eth_echo', [{ a: undefined, b: [1, null] }]), [{ b: [1, null] }]);
    await t.throwsAsync(rpc.request('eth_echo', [1n]), { instanceOf: TypeError });
    await rpc.request('eth_blockNumber');
    return JSON.stringify(records);
  };
  t.is(await run(), await run());
});
