/**
 * Logs and filters (besu: ethereum/api/.../internal/methods/EthGetLogs.java, EthNewFilter.java,
 * EthNewBlockFilter.java, EthNewPendingTransactionFilter.java, EthGetFilterChanges.java,
 * EthGetFilterLogs.java, EthUninstallFilter.java; filter/FilterManager.java; snapshot 3fd224e2).
 *
 * eth_getLogs: a blockHash query reads that block (unknown: -32000 "Block not found"; logs of a
 * non-canonical block come with removed = true); otherwise fromBlock..toBlock (default latest) with
 * fromBlock > toBlock or toBlock > head answering -32602 "Invalid params" and a span over
 * --rpc-max-logs-range (5000) -32005 "Requested range exceeds maximum RPC range limit".
 * Filter ids are matched as given (exact string).
 */
import { rpcError } from '../errors.ts';
import { formatLog } from '../formatters/receipt.ts';
import type { NodeApi } from '../node-api.ts';
import { parseFilterObject, type BlockParam } from '../params.ts';
import type { RpcMethodSpec } from '../registry.ts';

function filterId(x: unknown): string {
  if (typeof x !== 'string') throw rpcError('INVALID_FILTER_PARAMS');
  return x;
}

export function ethLogMethods(api: NodeApi): RpcMethodSpec[] {
  /** BlockParameter.getBlockNumber for a filter bound (QBFT: finalized/safe = head). */
  const boundOf = (p: BlockParam): bigint => api.numberOf(p);

  async function rangeLogs(from: BlockParam, to: BlockParam, query: { addresses: `0x${string}`[]; topics: Array<Array<`0x${string}` | null>> }) {
    const fromN = boundOf(from);
    const toN = boundOf(to);
    const head = BigInt(api.headNumber());
    if (fromN > toN || toN > head) throw rpcError('INVALID_PARAMS');
    if (api.maxLogsRange > 0 && toN - fromN > BigInt(api.maxLogsRange)) throw rpcError('EXCEEDS_RPC_MAX_BLOCK_RANGE');
    return api.logsInRange(fromN, toN, query);
  }

  return [
    {
      name: 'eth_getLogs',
      group: 'ETH',
      handler: async (params) => {
        const filter = parseFilterObject(params[0], 'INVALID_FILTER_PARAMS');
        const query = { addresses: filter.addresses, topics: filter.topics };
        if (filter.blockHash !== undefined) {
          const entry = api.byHash(filter.blockHash);
          if (!entry) throw rpcError('BLOCK_NOT_FOUND');
          return (await api.logsOfBlockHash(entry, query)).map(formatLog);
        }
        return (await rangeLogs(filter.fromBlock, filter.toBlock, query)).map(formatLog);
      },
    },
    {
      name: 'eth_newFilter',
      group: 'ETH',
      handler: (params) => {
        const filter = parseFilterObject(params[0], 'INVALID_FILTER_PARAMS');
        return api.filters.installLogFilter({
          fromBlock: filter.fromBlock,
          toBlock: filter.toBlock,
          addresses: filter.addresses,
          topics: filter.topics,
        });
      },
    },
    { name: 'eth_newBlockFilter', group: 'ETH', handler: () => api.filters.installBlockFilter() },
    { name: 'eth_newPendingTransactionFilter', group: 'ETH', handler: () => api.filters.installPendingTransactionFilter() },
    {
      name: 'eth_getFilterChanges',
      group: 'ETH',
      handler: async (params) => {
        const changes = await api.filters.changes(filterId(params[0]));
        if (!changes) throw rpcError('FILTER_NOT_FOUND');
        return changes.kind === 'log' ? changes.logs.map(formatLog) : changes.hashes;
      },
    },
    {
      name: 'eth_getFilterLogs',
      group: 'ETH',
      handler: async (params) => {
        const spec = api.filters.logFilter(filterId(params[0]));
        if (!spec) throw rpcError('LOGS_FILTER_NOT_FOUND');
        // FilterManager.logs: numeric bounds as given, tags read as the head (no range checks)
        const head = BigInt(api.headNumber());
        const from = spec.fromBlock.kind === 'number' ? spec.fromBlock.number : spec.fromBlock.tag === 'earliest' ? 0n : head;
        const to = spec.toBlock.kind === 'number' ? spec.toBlock.number : spec.toBlock.tag === 'earliest' ? 0n : head;
        return (await api.logsInRange(from, to, spec)).map(formatLog);
      },
    },
    {
      name: 'eth_uninstallFilter',
      group: 'ETH',
      handler: (params) => api.filters.uninstall(filterId(params[0])),
    },
  ];
}
