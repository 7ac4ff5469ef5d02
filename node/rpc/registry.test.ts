import test from 'ava';
import {
  ALL_API_GROUPS,
  BESU_RPC_METHODS,
  BESU_RPC_METHOD_NAMES,
  DEFAULT_APIS,
  MethodRegistry,
  groupOfBesuMethod,
  groupsOfBesuMethod,
  isMethodEnabled,
  parseApiList,
  type ApiGroup,
} from './registry.ts';

test('Besu API groups (26.x, with 25.4\'s EEA, PRIV and CLIQUE) and defaults', (t) => {
  t.deepEqual([...ALL_API_GROUPS], ['ETH', 'DEBUG', 'MINER', 'NET', 'PERM', 'WEB3', 'ADMIN', 'EEA', 'PRIV', 'TXPOOL', 'TRACE', 'PLUGINS', 'CLIQUE', 'IBFT', 'ENGINE', 'QBFT', 'TESTING']);
  t.deepEqual(DEFAULT_APIS, ['ETH', 'NET', 'WEB3']);
});

test('parseApiList', (t) => {
  t.deepEqual(parseApiList('ETH,NET,QBFT'), ['ETH', 'NET', 'QBFT']);
  t.deepEqual(parseApiList('eth, net ,Qbft'), ['ETH', 'NET', 'QBFT']);
  t.deepEqual(parseApiList('ETH,ETH,NET'), ['ETH', 'NET']);
  t.deepEqual(parseApiList(['TXPOOL', 'debug']), ['TXPOOL', 'DEBUG']);
  t.deepEqual(parseApiList('PRIV,EEA,CLIQUE'), ['PRIV', 'EEA', 'CLIQUE']);
  t.throws(() => parseApiList('ETH,FOO,GOQUORUM'), { message: "Invalid value for option '--rpc-http-api': invalid entries found [FOO, GOQUORUM]" });
  t.throws(() => parseApiList('ETH,  NET'), { message: "Invalid value for option '--rpc-http-api': invalid entries found [ NET]" });
  t.throws(() => parseApiList('eth', { option: '--rpc-ws-api', caseSensitive: true }), {
    message: "Invalid value for option '--rpc-ws-api': invalid entries found [eth]",
  });
  t.throws(() => parseApiList(''), { message: "Invalid value for option '--rpc-http-api': invalid entries found []" });
});

test('BESU_RPC_METHODS holds the RpcMethod enum names', (t) => {
  // 156 names of Besu 26's RpcMethod + 29 of the CLIQUE, PRIV and EEA groups of Besu 25.4
  t.is(BESU_RPC_METHOD_NAMES.length, 185);
  t.is(BESU_RPC_METHODS.size, 185);
  for (const m of ['eth_blockNumber', 'eth_subscribe', 'eth_unsubscribe', 'qbft_getValidatorsByBlockNumber', 'qbft_getRequestTimeoutSeconds', 'txpool_besuTransactions', 'rpc_modules', 'engine_preparePayload_debug', 'debug_traceBlockByNumber', 'admin_peers', 'miner_start', 'eth_getBlockReceipts']) {
    t.true(BESU_RPC_METHODS.has(m), m);
  }
  for (const m of ['clique_getSigners', 'priv_call', 'priv_subscribe', 'eea_sendRawTransaction', 'privx_findFlexiblePrivacyGroup']) t.true(BESU_RPC_METHODS.has(m), m);
  for (const m of ['eth_sign', 'eth_getWork', 'txpool_content', 'eth_sendRawPrivateTransaction']) t.false(BESU_RPC_METHODS.has(m), m);
});

test('groupOfBesuMethod by prefix', (t) => {
  const table: Array<[string, ApiGroup | undefined]> = [
    ['eth_call', 'ETH'], ['qbft_getPendingVotes', 'QBFT'], ['ibft_getPendingVotes', 'IBFT'], ['txpool_besuStatistics', 'TXPOOL'],
    ['txpool_status', 'TXPOOL'], ['debug_traceTransaction', 'DEBUG'], ['admin_nodeInfo', 'ADMIN'], ['miner_stop', 'MINER'],
    ['net_version', 'NET'], ['web3_sha3', 'WEB3'], ['trace_block', 'TRACE'], ['perm_getNodesAllowlist', 'PERM'],
    ['engine_newPayloadV3', 'ENGINE'], ['plugins_reloadPluginConfig', 'PLUGINS'], ['testing_buildBlockV1', 'TESTING'],
    ['clique_getSigners', 'CLIQUE'], ['priv_subscribe', 'PRIV'], ['privx_findFlexiblePrivacyGroup', 'PRIV'], ['eea_sendRawTransaction', 'EEA'],
    ['rpc_modules', undefined], ['eth_foo', undefined], ['clique_foo', undefined],
  ];
  for (const [m, g] of table) t.is(groupOfBesuMethod(m), g, m);
  t.deepEqual(groupsOfBesuMethod('plugins_reloadPluginConfig'), ['PLUGINS', 'ADMIN']);
  t.deepEqual(groupsOfBesuMethod('eth_call'), ['ETH']);
  t.deepEqual(groupsOfBesuMethod('rpc_modules'), []);
  // every Besu name but rpc_modules has a group
  t.deepEqual(BESU_RPC_METHOD_NAMES.filter((m) => groupOfBesuMethod(m) === undefined), ['rpc_modules']);
});

test('MethodRegistry', (t) => {
  const r = new MethodRegistry();
  const h = () => null;
  r.registerAll([
    { name: 'net_version', group: 'NET', handler: h },
    { name: 'eth_chainId', group: 'ETH', handler: h },
  ]);
  t.deepEqual(r.names(), ['eth_chainId', 'net_version']);
  t.is(r.get('net_version')?.group, 'NET');
  t.is(r.get('nope'), undefined);
  t.throws(() => r.register({ name: 'net_version', group: 'NET', handler: h }), { message: /twice/ });
});

test('isMethodEnabled', (t) => {
  const h = () => null;
  const eth = new Set<ApiGroup>(['ETH']);
  t.true(isMethodEnabled({ name: 'eth_call', group: 'ETH', handler: h }, 'http', eth));
  t.false(isMethodEnabled({ name: 'net_version', group: 'NET', handler: h }, 'http', eth));
  t.false(isMethodEnabled({ name: 'eth_subscribe', group: 'ETH', connectionOnly: true, handler: h }, 'http', eth));
  t.true(isMethodEnabled({ name: 'eth_subscribe', group: 'ETH', connectionOnly: true, handler: h }, 'ipc', new Set()));
  t.true(isMethodEnabled({ name: 'p', group: 'PLUGINS', extraGroups: ['ADMIN'], handler: h }, 'http', new Set<ApiGroup>(['ADMIN'])));
  t.true(isMethodEnabled({ name: 'rpc_modules', group: 'WEB3', alwaysEnabled: true, handler: h }, 'http', eth));
  t.false(isMethodEnabled({ name: 'rpc_modules', group: 'WEB3', alwaysEnabled: true, handler: h }, 'http', new Set()));
});
