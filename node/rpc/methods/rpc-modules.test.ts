/** rpc_modules answers the groups enabled on the transport that is asked, as Besu's RpcModules. */
import test from 'ava';
import { Dispatcher } from '../dispatcher.ts';
import { MethodRegistry, type ApiGroup, type RpcTransportKind } from '../registry.ts';
import { rpcModulesMethods } from './rpc-modules.ts';

async function rpcModules(enabled: ApiGroup[], transport: RpcTransportKind = 'http'): Promise<string> {
  const registry = new MethodRegistry();
  registry.registerAll(rpcModulesMethods());
  const d = new Dispatcher({ registry, enabledApis: new Set(enabled), maxBatchSize: 1024, transport });
  return (await d.handleText('{"jsonrpc":"2.0","id":1,"method":"rpc_modules"}', { transport })).body ?? '';
}

test('each enabled group, lower-cased, at version 1.0', async (t) => {
  t.is(await rpcModules(['ETH', 'NET', 'WEB3', 'QBFT']), '{"jsonrpc":"2.0","id":1,"result":{"eth":"1.0","net":"1.0","web3":"1.0","qbft":"1.0"}}');
  t.is(await rpcModules(['DEBUG'], 'ws'), '{"jsonrpc":"2.0","id":1,"result":{"debug":"1.0"}}');
});

test('no group enabled: -32604 as any method', async (t) => {
  t.is(await rpcModules([]), '{"jsonrpc":"2.0","id":1,"error":{"code":-32604,"message":"Method not enabled"}}');
});
