/**
 * eth_ transaction methods (besu: ethereum/api/.../internal/methods/EthGetTransactionByHash.java,
 * EthGetTransactionByBlockHashAndIndex.java, EthGetTransactionByBlockNumberAndIndex.java,
 * EthGetTransactionReceipt.java, EthGetTransactionCount.java, EthSendRawTransaction.java,
 * EthSendTransaction.java).
 */
import { rpcError } from '../errors.ts';
import { qty } from '../formatters/hex.ts';
import { formatReceipt } from '../formatters/receipt.ts';
import { formatTransactionComplete, formatTransactionPending } from '../formatters/transaction.ts';
import type { NodeApi } from '../node-api.ts';
import { paramLength, parseAddress, parseBlockParam, parseBlockParamOrHash, parseHash32, parseUnsignedInt } from '../params.ts';
import type { RpcMethodSpec } from '../registry.ts';
import type { ChainEntry } from '../../chain/chain.ts';

function txAt(entry: ChainEntry | undefined, index: number) {
  if (!entry) return null;
  const tx = entry.block.transactions[index];
  if (!tx) return null;
  return formatTransactionComplete(tx, {
    blockHash: entry.hash,
    blockNumber: entry.number,
    blockTimestamp: entry.timestamp,
    baseFee: entry.block.header.baseFeePerGas,
    index,
  });
}

/** eth_sendRawTransaction's hex: a string of hex digits ("0x" optional, Bytes.fromHexString). */
function rawTransactionBytes(x: unknown): Uint8Array {
  if (typeof x !== 'string') throw rpcError('INVALID_TRANSACTION_PARAMS');
  const hex = x.startsWith('0x') ? x.slice(2) : x;
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw rpcError('INVALID_PARAMS');
  // Buffer's decoder is native; the digits were checked above (it would stop at the first non-hex one).
  const out = new Uint8Array(hex.length / 2);
  Buffer.from(out.buffer).write(hex, 'hex');
  return out;
}

export function ethTransactionMethods(api: NodeApi): RpcMethodSpec[] {
  return [
    {
      name: 'eth_getTransactionByHash',
      group: 'ETH',
      handler: (params) => {
        if (paramLength(params) !== 1) throw rpcError('INVALID_PARAM_COUNT');
        const hash = parseHash32(params[0], 'INVALID_TRANSACTION_HASH_PARAMS');
        const found = api.findTransaction(hash);
        if (!found) return null;
        if (found.kind === 'pending') return formatTransactionPending(found.tx);
        return txAt(found.entry, found.index);
      },
    },
    {
      name: 'eth_getTransactionByBlockHashAndIndex',
      group: 'ETH',
      handler: (params) => {
        const hash = parseHash32(params[0], 'INVALID_TRANSACTION_HASH_PARAMS');
        const index = parseUnsignedInt(params[1], 'INVALID_TRANSACTION_ID_PARAMS');
        return txAt(api.byHash(hash), index);
      },
    },
    {
      name: 'eth_getTransactionByBlockNumberAndIndex',
      group: 'ETH',
      handler: (params) => {
        const block = parseBlockParam(params[0], 'INVALID_BLOCK_PARAMS');
        const index = parseUnsignedInt(params[1], 'INVALID_TRANSACTION_INDEX_PARAMS');
        return txAt(api.entryOf(block), index);
      },
    },
    {
      name: 'eth_getTransactionReceipt',
      group: 'ETH',
      handler: async (params) => {
        const hash = parseHash32(params[0], 'INVALID_TRANSACTION_HASH_PARAMS');
        const receipt = await api.receiptByTxHash(hash);
        return receipt ? formatReceipt(receipt) : null;
      },
    },
    {
      name: 'eth_getTransactionCount',
      group: 'ETH',
      handler: async (params) => {
        const block = parseBlockParamOrHash(params[1], 'INVALID_BLOCK_PARAMS');
        if (block.kind === 'tag' && block.tag === 'pending') {
          const address = parseAddress(params[0], 'INVALID_ADDRESS_PARAMS');
          return qty(await api.pendingNonce(address));
        }
        const entry = api.resolveBlockOrHash(block);
        if (!entry) return null;
        const address = parseAddress(params[0], 'INVALID_ADDRESS_PARAMS');
        if (!api.stateAvailable(entry)) return qty(0); // BlockchainQueries.getTransactionCount: 0 without state
        return qty((await api.account(entry, address))?.nonce ?? 0n);
      },
    },
    {
      name: 'eth_sendRawTransaction',
      group: 'ETH',
      handler: async (params) => {
        if (paramLength(params) !== 1) throw rpcError('INVALID_PARAM_COUNT');
        const raw = rawTransactionBytes(params[0]);
        return api.sendRawTransaction(raw);
      },
    },
    {
      name: 'eth_sendTransaction',
      group: 'ETH',
      handler: () => {
        throw rpcError('ETH_SEND_TX_NOT_AVAILABLE');
      },
    },
  ];
}

