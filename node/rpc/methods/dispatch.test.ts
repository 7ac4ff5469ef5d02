/**
 * The methods behind the core dispatcher: registered by group, answered as Besu's wire JSON.
 */
import test from 'ava';
import { Dispatcher } from '../dispatcher.ts';
import { MethodRegistry } from '../registry.ts';
import { allMethods } from './index.ts';
import { REVERTER_RUNTIME, startCluster } from './test-kit.ts';

test('registered methods answer through the dispatcher, groups enable them', async (t) => {
  const c = await startCluster({ seed: 3 });
  const registry = new MethodRegistry();
  registry.registerAll(allMethods(c.api));
  const http = new Dispatcher({ registry, enabledApis: new Set(['ETH', 'NET', 'WEB3']), maxBatchSize: 1024, transport: 'http' });
  const send = async (body: unknown) => (await http.handleText(JSON.stringify(body), { transport: 'http' })).body;

  t.is(await send({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }), '{"jsonrpc":"2.0","id":1,"result":"0x539"}');
  t.is(await send({ jsonrpc: '2.0', id: 2, method: 'qbft_getPendingVotes', params: [] }), '{"jsonrpc":"2.0","id":2,"error":{"code":-32604,"message":"Method not enabled"}}');
  t.is(await send({ jsonrpc: '2.0', id: 3, method: 'eth_getBalance', params: ['0x1', 'nope'] }), '{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid block param (block not found)"}}');
  const target = `0x${'99'.repeat(20)}`;
  const revert = JSON.parse((await send({ jsonrpc: '2.0', id: 4, method: 'eth_call', params: [{ to: target }, 'latest', { [target]: { code: REVERTER_RUNTIME } }] }))!);
  t.is(revert.error.code, 3);
  t.is(revert.error.message, 'Execution reverted (nope)');
  t.regex(revert.error.data, /^0x08c379a0/);
  const block = JSON.parse((await send({ jsonrpc: '2.0', id: 5, method: 'eth_getBlockByNumber', params: ['latest', true] }))!);
  t.is(block.result.hash, c.node.head().hash);

  const all = new Dispatcher({ registry, enabledApis: new Set(['ETH', 'NET', 'WEB3', 'QBFT', 'ADMIN', 'TXPOOL', 'DEBUG', 'MINER']), maxBatchSize: 1024, transport: 'http' });
  const votes = await all.handleText(JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'qbft_getPendingVotes', params: [] }), { transport: 'http' });
  t.is(votes.body, '{"jsonrpc":"2.0","id":6,"result":{}}');
  const timeout = await all.handleText(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'qbft_getRequestTimeoutSeconds', params: [] }), { transport: 'http' });
  t.is(timeout.body, '{"jsonrpc":"2.0","id":7,"result":2}');
});
