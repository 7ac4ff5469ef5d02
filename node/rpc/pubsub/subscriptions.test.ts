import test from 'ava';
import { LOGGER_CONTRACT } from '../../../sim/genesis-builder.ts';
import { BESU_TEST_ACCOUNTS } from '../../../sim/keys.ts';
import { RpcError } from '../errors.ts';
import type { RpcContext, RpcMethodSpec } from '../registry.ts';
import { ok, sign1559, startCluster } from '../methods/test-kit.ts';
import { SubscriptionManager } from './subscriptions.ts';

/** World.runFor runs until an offset from the simulation start, so advance relative to now. */
async function advance(world: { runFor(ms: number): Promise<void>; elapsedMs(): number }, ms: number): Promise<void> {
  await world.runFor(world.elapsedMs() + ms);
}

interface Conn {
  ctx: RpcContext;
  got: Array<{ id: string; result: any }>;
}

function conn(connectionId: string): Conn {
  const got: Conn['got'] = [];
  return { got, ctx: { transport: 'ws', connectionId, notify: (id, result) => got.push({ id, result: JSON.parse(JSON.stringify(result)) }) } };
}

async function call(methods: RpcMethodSpec[], name: string, params: unknown[], ctx: RpcContext): Promise<{ result: any } | { error: { code: number; message: string } }> {
  const spec = methods.find((m) => m.name === name)!;
  try {
    return { result: await spec.handler(params, ctx) };
  } catch (e) {
    if (e instanceof RpcError) return { error: e.toJSON() as { code: number; message: string } };
    throw e;
  }
}

test('methods: eth_subscribe / eth_unsubscribe, ETH, connectionOnly', async (t) => {
  const { api } = await startCluster();
  const m = new SubscriptionManager(api, () => api.node.random.next());
  const specs = m.methods();
  t.deepEqual(specs.map((s) => [s.name, s.group, s.connectionOnly]), [
    ['eth_subscribe', 'ETH', true],
    ['eth_unsubscribe', 'ETH', true],
  ]);
  // no connection: guarded
  const http = await call(specs, 'eth_subscribe', ['newHeads'], { transport: 'http' });
  t.true('error' in http);
  // bad params
  const a = conn('a');
  t.deepEqual(await call(specs, 'eth_subscribe', ['nope'], a.ctx), { error: { code: -32602, message: 'Invalid subscription params' } });
  t.deepEqual(await call(specs, 'eth_subscribe', ['logs', 'x'], a.ctx), { error: { code: -32602, message: 'Invalid subscription params' } });
  t.deepEqual(await call(specs, 'eth_subscribe', ['newHeads', { includeTransactions: 'yes' }], a.ctx), { error: { code: -32602, message: 'Invalid subscription params' } });
  m.close();
  api.close();
});

test('newHeads: one notification per added block, in order, Besu block shape; unsubscribe rules', async (t) => {
  const { api, world } = await startCluster();
  const m = new SubscriptionManager(api, () => api.node.random.next());
  const specs = m.methods();
  const a = conn('a');
  const b = conn('b');
  const r1 = await call(specs, 'eth_subscribe', ['newHeads'], a.ctx);
  const r2 = await call(specs, 'eth_subscribe', ['newHeads', { includeTransactions: true }], b.ctx);
  t.deepEqual(r1, { result: '0x1' });
  t.deepEqual(r2, { result: '0x2' });
  const start = api.headNumber();
  await advance(world, 4_000);
  await m.idle();
  const end = api.headNumber();
  t.true(end - start >= 2);
  t.is(a.got.length, end - start);
  t.deepEqual(a.got.map((n) => n.id), a.got.map(() => '0x1'));
  t.deepEqual(a.got.map((n) => Number(n.result.number)), Array.from({ length: end - start }, (_, i) => start + 1 + i));
  const last = a.got[a.got.length - 1].result;
  t.is(last.hash, api.head().hash);
  t.truthy(last.parentHash && last.stateRoot && last.logsBloom && last.miner);
  t.true(Array.isArray(last.transactions));
  t.is(b.got.length, end - start);
  t.true(b.got.every((n) => n.id === '0x2'));

  // unsubscribe: another connection's id -> -32000; unknown id -> -32000; own -> true
  t.deepEqual(await call(specs, 'eth_unsubscribe', ['0x1'], b.ctx), { error: { code: -32000, message: 'Subscription not found' } });
  t.deepEqual(await call(specs, 'eth_unsubscribe', ['0x99'], a.ctx), { error: { code: -32000, message: 'Subscription not found' } });
  t.deepEqual(await call(specs, 'eth_unsubscribe', ['0x01'], a.ctx), { result: true });
  t.deepEqual(await call(specs, 'eth_unsubscribe', ['0x1'], a.ctx), { error: { code: -32000, message: 'Subscription not found' } });
  const before = a.got.length;
  await advance(world, 2_000);
  await m.idle();
  t.is(a.got.length, before);
  t.true(b.got.length > before);

  // connectionClosed drops the connection's subscriptions
  t.is(m.count('b'), 1);
  m.connectionClosed('b');
  t.is(m.count('b'), 0);
  t.is(m.count(), 0);
  const bBefore = b.got.length;
  await advance(world, 2_000);
  await m.idle();
  t.is(b.got.length, bBefore);
  m.close();
  api.close();
});

test('logs, pending transactions: logger call notifies matching subscriptions only', async (t) => {
  const { api, world, node } = await startCluster();
  const m = new SubscriptionManager(api, () => api.node.random.next());
  const specs = m.methods();
  const a = conn('a');
  const logsId = (await call(specs, 'eth_subscribe', ['logs', { address: LOGGER_CONTRACT }], a.ctx)) as { result: string };
  const otherId = (await call(specs, 'eth_subscribe', ['logs', { address: BESU_TEST_ACCOUNTS[0].address }], a.ctx)) as { result: string };
  const pendingId = (await call(specs, 'eth_subscribe', ['newPendingTransactions'], a.ctx)) as { result: string };
  const fullId = (await call(specs, 'eth_subscribe', ['newPendingTransactions', { includeTransactions: true }], a.ctx)) as { result: string };
  t.is(m.count('a'), 4);

  const r = await node.submitTransaction(sign1559(node, 1, { nonce: 1n, to: LOGGER_CONTRACT, gasLimit: 40_000n }).serialize());
  if (!r.ok) throw new Error(r.error);
  await advance(world, 3_000);
  await m.idle();

  const logs = a.got.filter((n) => n.id === logsId.result).map((n) => n.result);
  t.is(logs.length, 1);
  t.is(logs[0].address, LOGGER_CONTRACT);
  t.is(logs[0].transactionHash, r.hash);
  t.is(logs[0].removed, false);
  t.is(logs[0].topics.length, 1);
  const receipt = await api.receiptByTxHash(r.hash);
  t.is(logs[0].blockHash, receipt!.blockHash);
  t.is(a.got.filter((n) => n.id === otherId.result).length, 0);

  t.deepEqual(a.got.filter((n) => n.id === pendingId.result).map((n) => n.result), [r.hash]);
  const full = a.got.filter((n) => n.id === fullId.result).map((n) => n.result);
  t.is(full.length, 1);
  t.is(full[0].hash, r.hash);
  t.is(full[0].to, LOGGER_CONTRACT);
  m.close();
  api.close();
});

test("logs of a reorganization's removed blocks: again with removed: true, newest first (Besu's BlockAddedEvent order), in subscriptions and filters", async (t) => {
  const { api, world, node } = await startCluster();
  const m = new SubscriptionManager(api, () => api.node.random.next());
  const a = conn('a');
  const logsId = ((await call(m.methods(), 'eth_subscribe', ['logs', { address: LOGGER_CONTRACT }], a.ctx)) as { result: string }).result;
  const filterId = await ok(api, 'eth_newFilter', [{ address: LOGGER_CONTRACT }]);
  for (let nonce = 1n; nonce <= 3n; nonce++) {
    const r = await node.submitTransaction(sign1559(node, 1, { nonce, to: LOGGER_CONTRACT, gasLimit: 40_000n }).serialize());
    if (!r.ok) throw new Error(r.error);
  }
  await advance(world, 1_200);
  const r = await node.submitTransaction(sign1559(node, 1, { nonce: 4n, to: LOGGER_CONTRACT, gasLimit: 40_000n }).serialize());
  if (!r.ok) throw new Error(r.error);
  await advance(world, 3_000);
  await m.idle();
  const added = a.got.filter((n) => n.id === logsId).map((n) => n.result);
  t.is(added.length, 4);
  t.true(new Set(added.map((l) => l.blockHash)).size >= 2, 'logs in more than one block');
  t.deepEqual(await ok(api, 'eth_getFilterChanges', [filterId]), added);

  // What the node's listeners get when these blocks leave the canonical chain (highest first).
  const removed = [...new Set(added.map((l) => l.blockHash as string))].reverse().map((h) => node.blockByHash(h as `0x${string}`)!);
  (m as unknown as { onHead(removed: unknown[], added: unknown[]): void }).onHead(removed, []);
  api.filters.onNewHead(removed, []);
  await m.idle();
  const want = added.map((l) => ({ ...l, removed: true })).reverse();
  t.deepEqual(a.got.filter((n) => n.id === logsId).slice(4).map((n) => n.result), want);
  t.deepEqual(await ok(api, 'eth_getFilterChanges', [filterId]), want);
  m.close();
  api.close();
});

test('limits: per connection and in total', async (t) => {
  const { api } = await startCluster();
  const m = new SubscriptionManager(api, () => api.node.random.next(), { maxPerConnection: 2, maxTotal: 3 });
  const specs = m.methods();
  const a = conn('a');
  const b = conn('b');
  t.true('result' in (await call(specs, 'eth_subscribe', ['newHeads'], a.ctx)));
  t.true('result' in (await call(specs, 'eth_subscribe', ['syncing'], a.ctx)));
  t.deepEqual(await call(specs, 'eth_subscribe', ['newHeads'], a.ctx), { error: { code: -32000, message: 'Subscription limit reached' } });
  t.true('result' in (await call(specs, 'eth_subscribe', ['droppedPendingTransactions'], b.ctx)));
  t.deepEqual(await call(specs, 'eth_subscribe', ['newHeads'], b.ctx), { error: { code: -32000, message: 'Subscription limit reached' } });
  m.connectionClosed('a');
  t.true('result' in (await call(specs, 'eth_subscribe', ['newHeads'], b.ctx)));
  m.close();
  api.close();
});

test('random ids: 64-bit hex quantities from the injected source', async (t) => {
  const { api } = await startCluster();
  const m = new SubscriptionManager(api, () => api.node.random.next(), { randomIds: true });
  const a = conn('a');
  const ids = new Set<string>();
  for (let i = 0; i < 5; i++) ids.add((await call(m.methods(), 'eth_subscribe', ['newHeads'], a.ctx) as { result: string }).result);
  t.is(ids.size, 5);
  for (const id of ids) t.regex(id, /^0x[1-9a-f][0-9a-f]{0,15}$/);
  m.close();
  api.close();
});
