/**
 * eth_ block methods (besu: ethereum/api/.../internal/methods/EthBlockNumber.java,
 * EthGetBlockByNumber.java, EthGetBlockByHash.java, EthGetBlockTransactionCountByNumber.java,
 * EthGetBlockTransactionCountByHash.java, EthGetUncle*.java, EthGetBlockReceipts.java).
 * Uncles never exist on QBFT: counts are "0x0" for known blocks and null otherwise; uncle lookups
 * answer null.
 */
import { formatBlock } from '../formatters/block.ts';
import { formatReceipt } from '../formatters/receipt.ts';
import { qty } from '../formatters/hex.ts';
import type { NodeApi } from '../node-api.ts';
import { parseBlockParam, parseBlockParamOrHash, parseBoolean, parseHash32, parseUnsignedInt } from '../params.ts';
import type { RpcMethodSpec } from '../registry.ts';

export function ethBlockMethods(api: NodeApi): RpcMethodSpec[] {
  return [
    { name: 'eth_blockNumber', group: 'ETH', handler: () => qty(api.headNumber()) },
    {
      name: 'eth_getBlockByNumber',
      group: 'ETH',
      handler: (params) => {
        const block = parseBlockParam(params[0], 'INVALID_BLOCK_NUMBER_PARAMS');
        const full = parseBoolean(params[1], 'INVALID_RETURN_COMPLETE_TRANSACTION_PARAMS');
        const entry = api.entryOf(block);
        return entry ? formatBlock(entry, full) : null;
      },
    },
    {
      name: 'eth_getBlockByHash',
      group: 'ETH',
      handler: (params) => {
        const hash = parseHash32(params[0], 'INVALID_BLOCK_HASH_PARAMS');
        const full = parseBoolean(params[1], 'INVALID_RETURN_COMPLETE_TRANSACTION_PARAMS');
        const entry = api.byHash(hash);
        return entry ? formatBlock(entry, full) : null;
      },
    },
    {
      name: 'eth_getBlockTransactionCountByNumber',
      group: 'ETH',
      handler: (params) => {
        const entry = api.entryOf(parseBlockParam(params[0], 'INVALID_BLOCK_PARAMS'));
        return entry ? qty(entry.block.transactions.length) : null;
      },
    },
    {
      name: 'eth_getBlockTransactionCountByHash',
      group: 'ETH',
      handler: (params) => {
        const entry = api.byHash(parseHash32(params[0], 'INVALID_BLOCK_HASH_PARAMS'));
        return entry ? qty(entry.block.transactions.length) : null;
      },
    },
    {
      name: 'eth_getUncleCountByBlockNumber',
      group: 'ETH',
      handler: (params) => {
        const entry = api.entryOf(parseBlockParam(params[0], 'INVALID_BLOCK_PARAMS'));
        return entry ? qty(entry.block.uncleHeaders.length) : null;
      },
    },
    {
      name: 'eth_getUncleCountByBlockHash',
      group: 'ETH',
      handler: (params) => {
        const entry = api.byHash(parseHash32(params[0], 'INVALID_BLOCK_HASH_PARAMS'));
        return entry ? qty(entry.block.uncleHeaders.length) : null;
      },
    },
    {
      name: 'eth_getUncleByBlockNumberAndIndex',
      group: 'ETH',
      handler: (params) => {
        parseBlockParam(params[0], 'INVALID_BLOCK_PARAMS');
        parseUnsignedInt(params[1], 'INVALID_BLOCK_INDEX_PARAMS');
        return null; // QBFT blocks have no ommers
      },
    },
    {
      name: 'eth_getUncleByBlockHashAndIndex',
      group: 'ETH',
      handler: (params) => {
        parseHash32(params[0], 'INVALID_BLOCK_HASH_PARAMS');
        parseUnsignedInt(params[1], 'INVALID_BLOCK_INDEX_PARAMS');
        return null;
      },
    },
    {
      name: 'eth_getBlockReceipts',
      group: 'ETH',
      handler: async (params) => {
        const entry = api.resolveBlockOrHash(parseBlockParamOrHash(params[0], 'INVALID_BLOCK_PARAMS'));
        if (!entry) return null;
        return (await api.receipts(entry)).map(formatReceipt);
      },
    },
  ];
}
