/**
 * debug_getRawHeader, debug_getRawBlock, debug_getRawReceipts and debug_getRawTransaction, as Besu
 * answers them (DebugGetRaw*.java): the RLP of a block's header or of the block; its receipts and a
 * transaction written as Besu's RLP output writes them, so a typed (EIP-2718) receipt or
 * transaction is one RLP byte string holding type || payload, and a legacy one its RLP list.
 * An unknown block answers -32000 "Block not found" (receipts: an empty list); an unknown
 * transaction null.
 */
import { RLP } from '@ethereumjs/rlp';
import { encodeReceipt } from '@ethereumjs/vm';
import { bytesToHex } from '../../crypto/bytes.ts';
import { rpcError } from '../errors.ts';
import type { NodeApi } from '../node-api.ts';
import { parseBlockParam, parseBlockParamOrHash, parseHash32 } from '../params.ts';
import type { RpcMethodSpec } from '../registry.ts';

/** A typed payload (first byte below 0x7f) goes inside an RLP byte string, as Besu's writeTo does. */
const asBesuWrites = (encoded: Uint8Array): Uint8Array => (encoded.length > 0 && encoded[0]! < 0x7f ? RLP.encode(encoded) : encoded);

export function debugRawMethods(api: NodeApi): RpcMethodSpec[] {
  const block = (x: unknown) => {
    const entry = api.entryOf(parseBlockParam(x, 'INVALID_BLOCK_PARAMS'));
    if (!entry) throw rpcError('BLOCK_NOT_FOUND');
    return entry;
  };
  return [
    { name: 'debug_getRawHeader', group: 'DEBUG', handler: (params) => bytesToHex(block(params[0]).block.header.serialize()) },
    { name: 'debug_getRawBlock', group: 'DEBUG', handler: (params) => bytesToHex(block(params[0]).block.serialize()) },
    {
      name: 'debug_getRawReceipts',
      group: 'DEBUG',
      handler: async (params) => {
        const entry = api.resolveBlockOrHash(parseBlockParamOrHash(params[0], 'INVALID_BLOCK_PARAMS'));
        if (!entry) return [];
        const receipts = entry.block.transactions.length === 0 ? [] : await api.node.receiptsOf(entry);
        return receipts.map((r, i) => bytesToHex(asBesuWrites(encodeReceipt(r, entry.block.transactions[i]!.type))));
      },
    },
    {
      name: 'debug_getRawTransaction',
      group: 'DEBUG',
      handler: (params) => {
        const found = api.minedTransaction(parseHash32(params[0], 'INVALID_TRANSACTION_HASH_PARAMS'));
        return found ? bytesToHex(asBesuWrites(found.tx.serialize())) : null;
      },
    },
  ];
}
