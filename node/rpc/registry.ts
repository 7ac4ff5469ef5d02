/**
 * The method registry, Besu's API groups and the names of every Besu JSON-RPC method.
 *
 * Facts (copied as data) from hyperledger/besu snapshot 3fd224e2 (2026-03-29, after 26.3.0-RC0):
 * - API groups: ethereum/api/.../jsonrpc/RpcApis.java — ETH DEBUG MINER NET PERM WEB3 ADMIN TXPOOL
 *   TRACE PLUGINS IBFT ENGINE QBFT TESTING; Besu 26.x has no CLIQUE, PRIV or EEA group, which qbft-lab
 *   keeps as Besu 25.4 declared them (RpcApis and RpcMethod at tag 25.4.0), with their method names;
 *   DEFAULT_RPC_APIS = ETH, NET, WEB3.
 * - Method names: ethereum/api/.../jsonrpc/RpcMethod.java (156 names). JsonRpcExecutor answers a
 *   name that is not registered with -32601 "Method not found" unless RpcMethod.rpcMethodExists(name),
 *   in which case -32604 "Method not enabled".
 * - Groups: each ApiGroupJsonRpcMethods subclass (methods/*JsonRpcMethods.java, consensus/qbft/.../
 *   QbftJsonRpcMethods.java, consensus/ibft/.../IbftJsonRpcMethods.java) registers only methods with
 *   its own prefix, with one exception: AdminJsonRpcMethods also registers plugins_reloadPluginConfig
 *   (so it is in PLUGINS and ADMIN). rpc_modules is in no group: JsonRpcMethodsFactory registers it
 *   whenever the transport has at least one API enabled. eth_subscribe / eth_unsubscribe are added by
 *   WebSocketMethodsFactory to the WebSocket and IPC method maps whatever the enabled groups are, and
 *   never to HTTP (RunnerBuilder).
 * - Option validation: app/.../cli/options/JsonRpcHttpOptions.java, RpcWebsocketOptions.java and
 *   BesuCommand.validateRpcOptionsParams: values split on / {0,1}, {0,1}/, compared to the enum
 *   names with String.equals (case-sensitive), error
 *   "Invalid value for option '--rpc-http-api': invalid entries found [<entries>]"; duplicates are
 *   dropped (distinct) when the configuration is built.
 */

export type ApiGroup =
  | 'ETH'
  | 'DEBUG'
  | 'MINER'
  | 'NET'
  | 'PERM'
  | 'WEB3'
  | 'ADMIN'
  | 'EEA'
  | 'PRIV'
  | 'TXPOOL'
  | 'TRACE'
  | 'PLUGINS'
  | 'CLIQUE'
  | 'IBFT'
  | 'ENGINE'
  | 'QBFT'
  | 'TESTING';

/** Besu's RpcApis enum, in declaration order (EEA, PRIV and CLIQUE as Besu had them up to 25.5). */
export const ALL_API_GROUPS: readonly ApiGroup[] = [
  'ETH',
  'DEBUG',
  'MINER',
  'NET',
  'PERM',
  'WEB3',
  'ADMIN',
  'EEA',
  'PRIV',
  'TXPOOL',
  'TRACE',
  'PLUGINS',
  'CLIQUE',
  'IBFT',
  'ENGINE',
  'QBFT',
  'TESTING',
];

/** Besu's RpcApis.DEFAULT_RPC_APIS (for --rpc-http-api, --rpc-ws-api and --Xrpc-ipc-api). */
export const DEFAULT_APIS: ApiGroup[] = ['ETH', 'NET', 'WEB3'];

const GROUP_SET: ReadonlySet<string> = new Set(ALL_API_GROUPS);

export function isApiGroup(name: string): name is ApiGroup {
  return GROUP_SET.has(name);
}

export interface ParseApiListOptions {
  /** Option name for the error message (default '--rpc-http-api'). */
  option?: string;
  /**
   * Besu compares the names case-sensitively ("eth" is rejected). Default false: names are
   * upper-cased before the comparison, so "eth,net" is accepted as ETH,NET.
   */
  caseSensitive?: boolean;
}

/**
 * Parses an API list such as "ETH,NET,QBFT" (or "ETH, NET": one optional space either side of each
 * comma, as Besu's picocli split / {0,1}, {0,1}/). Duplicates are dropped, first occurrence kept.
 * Unknown names throw Error("Invalid value for option '--rpc-http-api': invalid entries found [foo, bar]").
 */
export function parseApiList(text: string | readonly string[], opts: ParseApiListOptions = {}): ApiGroup[] {
  const option = opts.option ?? '--rpc-http-api';
  const entries = typeof text === 'string' ? text.split(/ ?, ?/) : [...text];
  const out: ApiGroup[] = [];
  const invalid: string[] = [];
  for (const entry of entries) {
    const name = opts.caseSensitive ? entry : entry.toUpperCase();
    if (isApiGroup(name)) {
      if (!out.includes(name)) out.push(name);
    } else {
      invalid.push(entry);
    }
  }
  if (invalid.length > 0) {
    throw new Error(`Invalid value for option '${option}': invalid entries found [${invalid.join(', ')}]`);
  }
  return out;
}

export type RpcTransportKind = 'http' | 'ws' | 'ipc' | 'in-process';

export interface RpcContext {
  transport: RpcTransportKind;
  connectionId?: string;
  /** Set by authenticated transports: the `permissions` claim of the caller's JWT. */
  permissions?: string[] | undefined;
  /**
   * Pub/sub sink of the connection (ws/ipc/in-process): an eth_subscription notification, or with
   * `privacyGroupId` a priv_subscription one (Besu's private logs subscription).
   */
  notify?: (subscriptionId: string, result: unknown, privacyGroupId?: string) => void;
}

export interface RpcMethodSpec {
  name: string;
  group: ApiGroup;
  /**
   * Only over connection transports (eth_subscribe, eth_unsubscribe): enabled on ws, ipc and
   * in-process whatever the enabled groups are (as Besu's WebSocketMethodsFactory), never on http.
   */
  connectionOnly?: boolean;
  /** Further groups that also enable the method (plugins_reloadPluginConfig: ADMIN). */
  extraGroups?: readonly ApiGroup[];
  /** Enabled whenever the transport has any API group enabled (rpc_modules). */
  alwaysEnabled?: boolean;
  /** `enabledApis`: the groups enabled on the transport that dispatches the call. */
  handler: (params: unknown[], ctx: RpcContext, enabledApis?: ReadonlySet<ApiGroup>) => unknown | Promise<unknown>;
}

export class MethodRegistry {
  private readonly specs = new Map<string, RpcMethodSpec>();

  register(spec: RpcMethodSpec): void {
    if (this.specs.has(spec.name)) throw new Error(`RPC method ${spec.name} registered twice`);
    this.specs.set(spec.name, spec);
  }

  registerAll(specs: RpcMethodSpec[]): void {
    for (const spec of specs) this.register(spec);
  }

  get(name: string): RpcMethodSpec | undefined {
    return this.specs.get(name);
  }

  /** Registered names, sorted. */
  names(): string[] {
    return [...this.specs.keys()].sort();
  }
}

/**
 * Whether `spec` is served on `transport` with `enabledApis` (Besu builds one method map per
 * transport from its API list; see the header comment).
 */
export function isMethodEnabled(
  spec: RpcMethodSpec,
  transport: RpcTransportKind,
  enabledApis: ReadonlySet<ApiGroup>,
): boolean {
  if (spec.connectionOnly) return transport !== 'http';
  if (spec.alwaysEnabled) return enabledApis.size > 0;
  if (enabledApis.has(spec.group)) return true;
  if (spec.extraGroups) for (const g of spec.extraGroups) if (enabledApis.has(g)) return true;
  return false;
}

/** Every method name of Besu's RpcMethod enum (names only, in the enum's order). */
export const BESU_RPC_METHOD_NAMES: readonly string[] = [
  'admin_addPeer', 'admin_nodeInfo', 'admin_peers', 'admin_removePeer', 'admin_changeLogLevel',
  'admin_generateLogBloomCache', 'admin_logsRepairCache', 'admin_logsRemoveCache',
  'debug_accountAt', 'debug_accountRange', 'debug_metrics', 'debug_resyncWorldState', 'debug_setHead',
  'debug_replayBlock', 'debug_storageRangeAt', 'debug_traceBlock', 'debug_traceBlockByHash',
  'debug_traceBlockByNumber', 'debug_standardTraceBlockToFile', 'debug_standardTraceBadBlockToFile',
  'debug_traceTransaction', 'debug_traceCall', 'debug_batchSendRawTransaction', 'debug_getBadBlocks',
  'debug_getRawHeader', 'debug_getRawBlock', 'debug_getRawReceipts', 'debug_getRawTransaction',
  'engine_getBlobsV1', 'engine_getBlobsV2', 'engine_getBlobsV3', 'engine_getPayloadV1',
  'engine_getPayloadV2', 'engine_getPayloadV3', 'engine_getPayloadV4', 'engine_getPayloadV5',
  'engine_getPayloadV6', 'engine_newPayloadV1', 'engine_newPayloadV2', 'engine_newPayloadV3',
  'engine_newPayloadV4', 'engine_newPayloadV5', 'engine_forkchoiceUpdatedV1', 'engine_forkchoiceUpdatedV2',
  'engine_forkchoiceUpdatedV3', 'engine_forkchoiceUpdatedV4', 'engine_exchangeTransitionConfigurationV1',
  'engine_getClientVersionV1', 'engine_getPayloadBodiesByHashV1', 'engine_getPayloadBodiesByHashV2',
  'engine_getPayloadBodiesByRangeV1', 'engine_getPayloadBodiesByRangeV2', 'engine_exchangeCapabilities',
  'engine_preparePayload_debug',
  'eth_accounts', 'eth_blockNumber', 'eth_call', 'eth_chainId', 'eth_coinbase', 'eth_config',
  'eth_estimateGas', 'eth_createAccessList', 'eth_feeHistory', 'eth_gasPrice', 'eth_blobBaseFee',
  'eth_getBalance', 'eth_getBlockAccessList', 'eth_getBlockByHash', 'eth_getBlockByNumber',
  'eth_getBlockReceipts', 'eth_getBlockTransactionCountByHash', 'eth_getBlockTransactionCountByNumber',
  'eth_getCode', 'eth_getFilterChanges', 'eth_getFilterLogs', 'eth_getLogs', 'eth_maxPriorityFeePerGas',
  'eth_getProof', 'eth_getStorageAt', 'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionByBlockNumberAndIndex', 'eth_getTransactionByHash', 'eth_getTransactionCount',
  'eth_getTransactionReceipt', 'eth_getUncleByBlockHashAndIndex', 'eth_getUncleByBlockNumberAndIndex',
  'eth_getUncleCountByBlockHash', 'eth_getUncleCountByBlockNumber', 'eth_mining', 'eth_newBlockFilter',
  'eth_newFilter', 'eth_newPendingTransactionFilter', 'eth_protocolVersion', 'eth_sendRawTransaction',
  'eth_sendTransaction', 'eth_simulateV1', 'eth_subscribe', 'eth_syncing', 'eth_uninstallFilter',
  'eth_unsubscribe',
  'ibft_discardValidatorVote', 'ibft_getPendingVotes', 'ibft_getValidatorsByBlockHash',
  'ibft_getValidatorsByBlockNumber', 'ibft_proposeValidatorVote', 'ibft_getSignerMetrics',
  'qbft_discardValidatorVote', 'qbft_getPendingVotes', 'qbft_getValidatorsByBlockHash',
  'qbft_getValidatorsByBlockNumber', 'qbft_proposeValidatorVote', 'qbft_getSignerMetrics',
  'qbft_getRequestTimeoutSeconds',
  'miner_changeTargetGasLimit', 'miner_start', 'miner_stop', 'miner_getMinPriorityFee',
  'miner_setMinPriorityFee', 'miner_getMinGasPrice', 'miner_setMinGasPrice', 'miner_getExtraData',
  'miner_setExtraData',
  'net_enode', 'net_listening', 'net_peerCount', 'net_services', 'net_version',
  'perm_addAccountsToWhitelist', 'perm_addAccountsToAllowlist', 'perm_addNodesToWhitelist',
  'perm_addNodesToAllowlist', 'perm_getAccountsWhitelist', 'perm_getAccountsAllowlist',
  'perm_getNodesWhitelist', 'perm_getNodesAllowlist', 'perm_reloadPermissionsFromFile',
  'perm_removeAccountsFromAllowlist', 'perm_removeNodesFromAllowlist',
  'rpc_modules',
  'trace_block', 'trace_call', 'trace_callMany', 'trace_get', 'trace_filter', 'trace_rawTransaction',
  'trace_replayBlockTransactions', 'trace_transaction',
  'txpool_besuStatistics', 'txpool_besuTransactions', 'txpool_besuPendingTransactions', 'txpool_status',
  'txpool_contentFrom',
  'web3_clientVersion', 'web3_sha3',
  'plugins_reloadPluginConfig',
  'testing_buildBlockV1',
  // Besu 25.4's RpcMethod names of the groups Besu 25.6 removed (Tessera privacy, Clique).
  'clique_discard', 'clique_getSigners', 'clique_getSignersAtHash', 'clique_proposals', 'clique_propose',
  'clique_getSignerMetrics',
  'priv_call', 'priv_getPrivateTransaction', 'priv_getTransactionCount', 'priv_getPrivacyPrecompileAddress',
  'priv_getTransactionReceipt', 'priv_createPrivacyGroup', 'priv_deletePrivacyGroup', 'priv_findPrivacyGroup',
  'priv_debugGetStateRoot', 'priv_distributeRawTransaction', 'priv_getEeaTransactionCount', 'priv_getCode',
  'priv_getLogs', 'priv_newFilter', 'priv_uninstallFilter', 'priv_getFilterChanges', 'priv_getFilterLogs',
  'priv_subscribe', 'priv_unsubscribe', 'priv_traceTransaction',
  'privx_findOnchainPrivacyGroup', 'privx_findFlexiblePrivacyGroup',
  'eea_sendRawTransaction',
];

export const BESU_RPC_METHODS: ReadonlySet<string> = new Set(BESU_RPC_METHOD_NAMES);

const PREFIX_GROUPS: Readonly<Record<string, ApiGroup>> = {
  admin: 'ADMIN',
  clique: 'CLIQUE',
  debug: 'DEBUG',
  eea: 'EEA',
  priv: 'PRIV',
  privx: 'PRIV',
  engine: 'ENGINE',
  eth: 'ETH',
  ibft: 'IBFT',
  qbft: 'QBFT',
  miner: 'MINER',
  net: 'NET',
  perm: 'PERM',
  trace: 'TRACE',
  txpool: 'TXPOOL',
  web3: 'WEB3',
  plugins: 'PLUGINS',
  testing: 'TESTING',
};

/**
 * The API group of a Besu method, by its prefix (every Besu group registers only methods with its
 * own prefix, txpool_besu* included). undefined for rpc_modules (no group; see RpcMethodSpec.alwaysEnabled)
 * and for names that are not Besu methods.
 */
export function groupOfBesuMethod(name: string): ApiGroup | undefined {
  if (!BESU_RPC_METHODS.has(name)) return undefined;
  const i = name.indexOf('_');
  const prefix = i < 0 ? name : name.slice(0, i);
  return Object.hasOwn(PREFIX_GROUPS, prefix) ? PREFIX_GROUPS[prefix] : undefined;
}

/** Every group that registers a Besu method (plugins_reloadPluginConfig: PLUGINS and ADMIN). */
export function groupsOfBesuMethod(name: string): ApiGroup[] {
  const g = groupOfBesuMethod(name);
  if (g === undefined) return [];
  return name === 'plugins_reloadPluginConfig' ? ['PLUGINS', 'ADMIN'] : [g];
}
