/**
 * Blocks in Besu's BlockResult shape (besu: ethereum/api/.../internal/results/BlockResult.java,
 * BlockResultFactory.java; snapshot 3fd224e2).
 *
 * - `hash` is the QBFT on-chain hash held by the chain entry, never ethereumjs' block.hash().
 * - Property order: BlockResult's @JsonPropertyOrder, then the properties it does not list
 *   (blobGasUsed, excessBlobGas, parentBeaconBlockRoot) in declaration order; absent header fields
 *   are omitted (class-level NON_ABSENT).
 * - `totalDifficulty` is present when the block's difficulty is non-zero (always, on QBFT).
 * - `size` is the length of the block's RLP encoding.
 */
import type { ChainEntry } from '../../chain/chain.ts';
import { bytesToHex } from '../../crypto/bytes.ts';
import { addressHex, data, padded, qty } from './hex.ts';
import { formatTransactionComplete } from './transaction.ts';

export function blockSize(entry: ChainEntry): number {
  return entry.block.serialize().length;
}

/** Besu BlockResult: `full` = transaction objects, otherwise transaction hashes. */
export function formatBlock(entry: ChainEntry, full: boolean): Record<string, unknown> {
  const h = entry.block.header;
  const out: Record<string, unknown> = {
    number: qty(entry.number),
    hash: entry.hash,
    mixHash: data(h.mixHash),
    parentHash: data(h.parentHash),
    nonce: padded(bytesToBig(h.nonce), 8),
    sha3Uncles: data(h.uncleHash),
    logsBloom: data(h.logsBloom),
    transactionsRoot: data(h.transactionsTrie),
    stateRoot: data(h.stateRoot),
    receiptsRoot: data(h.receiptTrie),
    miner: addressHex(h.coinbase),
    difficulty: qty(h.difficulty),
  };
  if (h.difficulty !== 0n) out.totalDifficulty = qty(entry.td);
  out.extraData = data(h.extraData);
  if (h.baseFeePerGas !== undefined) out.baseFeePerGas = qty(h.baseFeePerGas);
  out.size = qty(blockSize(entry));
  out.gasLimit = qty(h.gasLimit);
  out.gasUsed = qty(h.gasUsed);
  out.timestamp = qty(h.timestamp);
  out.uncles = entry.block.uncleHeaders.map((u) => bytesToHex(u.hash()));
  const baseFee = h.baseFeePerGas;
  out.transactions = entry.block.transactions.map((tx, index) =>
    full
      ? formatTransactionComplete(tx, { blockHash: entry.hash, blockNumber: entry.number, blockTimestamp: entry.timestamp, baseFee, index })
      : bytesToHex(tx.hash()),
  );
  if (h.withdrawalsRoot !== undefined) out.withdrawalsRoot = data(h.withdrawalsRoot);
  if (entry.block.withdrawals !== undefined)
    out.withdrawals = entry.block.withdrawals.map((w) => ({
      index: qty(w.index),
      validatorIndex: qty(w.validatorIndex),
      address: addressHex(w.address),
      amount: qty(w.amount),
    }));
  if (h.requestsHash !== undefined) out.requestsHash = data(h.requestsHash);
  if (h.blobGasUsed !== undefined) out.blobGasUsed = qty(h.blobGasUsed);
  if (h.excessBlobGas !== undefined) out.excessBlobGas = qty(h.excessBlobGas);
  if (h.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = data(h.parentBeaconBlockRoot);
  return out;
}

function bytesToBig(b: Uint8Array): bigint {
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  return v;
}

