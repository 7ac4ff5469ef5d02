/**
 * Receipts and logs in Besu's shapes (besu: ethereum/api/.../internal/results/
 * TransactionReceiptResult.java, TransactionReceiptRootResult.java, TransactionReceiptStatusResult.java,
 * TransactionReceiptLogResult.java, LogResult.java; snapshot 3fd224e2).
 *
 * - Receipts of pre-Byzantium blocks carry `root` (the intermediate state root), later ones `status`.
 * - `logIndex` counts across the whole block (Besu's logIndexOffset + i).
 * - Logs inside a receipt use TransactionReceiptLogResult's order (address first); logs from
 *   eth_getLogs / filters use LogResult's order (logIndex first) and carry `removed`.
 */
import type { Hex } from '../../crypto/bytes.ts';
import { data, qty } from './hex.ts';

/** One log with everything needed to place it (Besu LogWithMetadata). */
export interface LogWithMeta {
  logIndex: number;
  blockNumber: number;
  blockHash: Hex;
  blockTimestamp: number;
  transactionHash: Hex;
  transactionIndex: number;
  address: Hex;
  data: Uint8Array;
  topics: Uint8Array[];
  removed: boolean;
}

/** One receipt with its transaction and block context (Besu TransactionReceiptWithMetadata). */
export interface ReceiptWithMeta {
  blockHash: Hex;
  blockNumber: number;
  blockTimestamp: number;
  transactionHash: Hex;
  transactionIndex: number;
  type: number;
  from: Hex;
  to: Hex | null;
  contractAddress: Hex | null;
  cumulativeGasUsed: bigint;
  gasUsed: bigint;
  effectiveGasPrice: bigint;
  logsBloom: Uint8Array;
  /** Pre-Byzantium: the intermediate state root; otherwise undefined. */
  root?: Uint8Array;
  /** Byzantium on: 1 success, 0 failure. */
  status?: 0 | 1;
  logs: LogWithMeta[];
  blobGasUsed?: bigint;
  blobGasPrice?: bigint;
}

/** Besu TransactionReceiptLogResult. */
export function formatReceiptLog(log: LogWithMeta): Record<string, unknown> {
  return {
    address: log.address,
    topics: log.topics.map((t) => data(t)),
    data: data(log.data),
    blockNumber: qty(log.blockNumber),
    transactionHash: log.transactionHash,
    transactionIndex: qty(log.transactionIndex),
    blockHash: log.blockHash,
    blockTimestamp: qty(log.blockTimestamp),
    logIndex: qty(log.logIndex),
    removed: log.removed,
  };
}

/** Besu LogResult (eth_getLogs, eth_getFilterLogs, eth_getFilterChanges). */
export function formatLog(log: LogWithMeta): Record<string, unknown> {
  return {
    logIndex: qty(log.logIndex),
    removed: log.removed,
    blockNumber: qty(log.blockNumber),
    blockHash: log.blockHash,
    blockTimestamp: qty(log.blockTimestamp),
    transactionHash: log.transactionHash,
    transactionIndex: qty(log.transactionIndex),
    address: log.address,
    data: data(log.data),
    topics: log.topics.map((t) => data(t)),
  };
}

/** Besu TransactionReceiptRootResult / TransactionReceiptStatusResult. */
export function formatReceipt(r: ReceiptWithMeta): Record<string, unknown> {
  const out: Record<string, unknown> = {
    blockHash: r.blockHash,
    blockNumber: qty(r.blockNumber),
    contractAddress: r.contractAddress,
    cumulativeGasUsed: qty(r.cumulativeGasUsed),
    from: r.from,
    gasUsed: qty(r.gasUsed),
    effectiveGasPrice: qty(r.effectiveGasPrice),
    logs: r.logs.map(formatReceiptLog),
    logsBloom: data(r.logsBloom),
  };
  if (r.root !== undefined) out.root = data(r.root);
  else out.status = qty(r.status ?? 0);
  out.to = r.to;
  out.transactionHash = r.transactionHash;
  out.transactionIndex = qty(r.transactionIndex);
  out.type = qty(r.type);
  if (r.blobGasUsed !== undefined) out.blobGasUsed = qty(r.blobGasUsed);
  if (r.blobGasPrice !== undefined) out.blobGasPrice = qty(r.blobGasPrice);
  return out;
}
