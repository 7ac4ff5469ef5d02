/**
 * Transaction results in Besu's shapes and property order:
 * - TransactionCompleteResult (a mined transaction: eth_getTransactionByHash, full blocks, ...)
 * - TransactionPendingResult (a pooled transaction: eth_getTransactionByHash, txpool_besuPendingTransactions)
 * (besu: ethereum/api/.../internal/results/TransactionCompleteResult.java, TransactionPendingResult.java,
 * CodeDelegationResult.java; snapshot 3fd224e2, 2026-03-29).
 *
 * Property order follows each class's @JsonPropertyOrder; properties it does not list come after,
 * in field declaration order (Jackson's default). Optional fields are omitted exactly where Besu's
 * @JsonInclude(NON_NULL) omits them; `to` stays `null` for contract creations.
 */
import { TransactionType, type TypedTransaction } from '@ethereumjs/tx';
import { bytesToHex, type Hex } from '../../crypto/bytes.ts';
import { txChainId } from '../../execution/tx-utils.ts';
import { addressHex, data, qty } from './hex.ts';

export interface AccessListEntryResult {
  address: Hex;
  storageKeys: Hex[];
}

export interface MinedTxContext {
  blockHash: Hex;
  blockNumber: number;
  blockTimestamp: number;
  /** Base fee of the including block (undefined before London). */
  baseFee: bigint | undefined;
  index: number;
}

type Fields = {
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  maxFeePerBlobGas?: bigint;
  accessList?: Array<[Uint8Array, Uint8Array[]]>;
  authorizationList?: Uint8Array[][];
  blobVersionedHashes?: Uint8Array[] | Hex[];
};

const f = (tx: TypedTransaction): Fields => tx as unknown as Fields;

export function is1559Like(tx: TypedTransaction): boolean {
  return tx.type !== TransactionType.Legacy && tx.type !== TransactionType.AccessListEIP2930;
}

export function supportsAccessList(tx: TypedTransaction): boolean {
  return tx.type !== TransactionType.Legacy;
}

/** What the transaction pays per gas with `baseFee` (Besu Transaction.getEffectiveGasPrice). */
export function effectiveGasPrice(tx: TypedTransaction, baseFee: bigint | undefined): bigint {
  if (!is1559Like(tx)) return f(tx).gasPrice!;
  const maxFee = f(tx).maxFeePerGas!;
  const prio = f(tx).maxPriorityFeePerGas!;
  const base = baseFee ?? 0n;
  const p = base + prio;
  return p < maxFee ? p : maxFee;
}

/** Besu Transaction.getEffectivePriorityFeePerGas (clamped at 0). */
export function effectivePriorityFeePerGas(tx: TypedTransaction, baseFee: bigint | undefined): bigint {
  if (!is1559Like(tx)) {
    const gp = f(tx).gasPrice!;
    const base = baseFee ?? 0n;
    return gp > base ? gp - base : 0n;
  }
  const maxFee = f(tx).maxFeePerGas!;
  const prio = f(tx).maxPriorityFeePerGas!;
  if (baseFee === undefined) return prio;
  if (baseFee >= maxFee) return 0n;
  const room = maxFee - baseFee;
  return prio < room ? prio : room;
}

export function accessListResult(tx: TypedTransaction): AccessListEntryResult[] | null {
  const list = f(tx).accessList;
  if (!list) return supportsAccessList(tx) ? [] : null;
  return list.map(([address, keys]) => ({ address: bytesToHex(address), storageKeys: keys.map((k) => bytesToHex(k)) }));
}

function versionedHashes(tx: TypedTransaction): Hex[] | undefined {
  const hashes = f(tx).blobVersionedHashes;
  if (!hashes) return undefined;
  return hashes.map((h) => (typeof h === 'string' ? (h.toLowerCase() as Hex) : bytesToHex(h)));
}

function authorizations(tx: TypedTransaction): Array<Record<string, Hex>> | undefined {
  const list = f(tx).authorizationList;
  if (!list) return undefined;
  const num = (b: Uint8Array) => {
    let v = 0n;
    for (const x of b) v = (v << 8n) | BigInt(x);
    return v;
  };
  return list.map(([chainId, address, nonce, yParity, r, s]) => ({
    chainId: qty(num(chainId)),
    address: bytesToHex(address),
    nonce: qty(num(nonce)),
    yParity: qty(num(yParity)),
    r: qty(num(r)),
    s: qty(num(s)),
  }));
}

/** type / yParity / v as Besu writes them (legacy: v as signed, no yParity; typed: v = yParity). */
function signatureFields(tx: TypedTransaction): { type: Hex; yParity?: Hex; v: Hex | null; r: Hex; s: Hex } {
  const v = tx.v ?? 0n;
  const r = qty(tx.r ?? 0n);
  const s = qty(tx.s ?? 0n);
  if (tx.type === TransactionType.Legacy) return { type: '0x0', v: qty(v), r, s };
  const yParity = qty(v);
  return { type: qty(tx.type), yParity, v: yParity, r, s };
}

function chainIdOf(tx: TypedTransaction): Hex | undefined {
  const id = txChainId(tx);
  return id === undefined ? undefined : qty(id);
}

/** Besu TransactionCompleteResult. */
export function formatTransactionComplete(tx: TypedTransaction, ctx: MinedTxContext): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const accessList = accessListResult(tx);
  if (accessList !== null) out.accessList = accessList;
  const auth = authorizations(tx);
  if (auth) out.authorizationList = auth;
  out.blockHash = ctx.blockHash;
  out.blockNumber = qty(ctx.blockNumber);
  out.blockTimestamp = qty(ctx.blockTimestamp);
  const chainId = chainIdOf(tx);
  if (chainId !== undefined) out.chainId = chainId;
  out.from = addressHex(tx.getSenderAddress());
  out.gas = qty(tx.gasLimit);
  out.gasPrice = qty(is1559Like(tx) ? effectiveGasPrice(tx, ctx.baseFee) : f(tx).gasPrice!);
  if (is1559Like(tx)) {
    out.maxPriorityFeePerGas = qty(f(tx).maxPriorityFeePerGas!);
    out.maxFeePerGas = qty(f(tx).maxFeePerGas!);
  }
  if (f(tx).maxFeePerBlobGas !== undefined) out.maxFeePerBlobGas = qty(f(tx).maxFeePerBlobGas!);
  out.hash = bytesToHex(tx.hash());
  out.input = data(tx.data);
  out.nonce = qty(tx.nonce);
  out.to = tx.to ? addressHex(tx.to) : null;
  out.transactionIndex = qty(ctx.index);
  const sig = signatureFields(tx);
  out.type = sig.type;
  out.value = qty(tx.value);
  if (sig.yParity !== undefined) out.yParity = sig.yParity;
  out.v = sig.v;
  out.r = sig.r;
  out.s = sig.s;
  const hashes = versionedHashes(tx);
  if (hashes) out.blobVersionedHashes = hashes;
  return out;
}

/** Besu TransactionPendingResult (a transaction still in the pool). */
export function formatTransactionPending(tx: TypedTransaction): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  out.blockHash = null;
  out.blockNumber = null;
  out.from = addressHex(tx.getSenderAddress());
  out.gas = qty(tx.gasLimit);
  const maxFee = is1559Like(tx) ? qty(f(tx).maxFeePerGas!) : undefined;
  out.gasPrice = is1559Like(tx) ? maxFee : qty(f(tx).gasPrice!);
  if (is1559Like(tx)) {
    out.maxPriorityFeePerGas = qty(f(tx).maxPriorityFeePerGas!);
    out.maxFeePerGas = maxFee;
  }
  if (f(tx).maxFeePerBlobGas !== undefined) out.maxFeePerBlobGas = qty(f(tx).maxFeePerBlobGas!);
  out.hash = bytesToHex(tx.hash());
  out.input = data(tx.data);
  out.nonce = qty(tx.nonce);
  out.to = tx.to ? addressHex(tx.to) : null;
  out.transactionIndex = null;
  out.value = qty(tx.value);
  const sig = signatureFields(tx);
  if (sig.yParity !== undefined) out.yParity = sig.yParity;
  out.v = sig.v;
  out.r = sig.r;
  out.s = sig.s;
  const hashes = versionedHashes(tx);
  if (hashes) out.blobVersionedHashes = hashes;
  // fields Besu's @JsonPropertyOrder does not list, in declaration order
  const accessList = f(tx).accessList ? accessListResult(tx) : null;
  if (accessList !== null) out.accessList = accessList;
  out.chainId = chainIdOf(tx) ?? null;
  out.publicKey = bytesToHex(tx.getSenderPublicKey());
  out.raw = bytesToHex(tx.serialize());
  out.type = sig.type;
  return out;
}
