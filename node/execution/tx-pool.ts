/**
 * Transaction pool, after Besu's sequenced ("legacy") pool and its validation rules
 * (besu: ethereum/eth/.../transactions/TransactionPool.java, sorter/AbstractPendingTransactionsSorter,
 * TransactionReplacementByGasPriceRule, TransactionReplacementByFeeMarketRule,
 * ethereum/core/.../MainnetTransactionValidator.java; snapshot 2026-03-29).
 *
 * - Rejection reasons are Besu's TransactionInvalidReason names (TX_POOL_RPC_ERRORS maps them
 *   to Besu's JSON-RPC error code and message).
 * - Remote transactions must pay at least `minGasPrice` (gasPrice, or maxFeePerGas); local ones
 *   (`add(tx, { local: true })`, i.e. eth_sendRawTransaction) only the fee-market floor (7 wei
 *   while the base fee is non-zero), as Besu gives local senders priority.
 * - Besu >= 21.x admits transactions whatever the sender's balance (its pool validation params
 *   allow "underpriced"; the layered pool's balance check is off by default): so does this pool
 *   unless `balanceCheck: true`, which rejects with UPFRONT_COST_EXCEEDS_BALANCE. Such
 *   transactions are skipped at block building instead.
 * - Replacement (same sender and nonce) needs a `priceBumpPercent` bump, by Besu's two rules.
 * - Bounded: above `maxSize` the least valuable transaction (remote before local, lowest effective
 *   priority fee, newest first) is evicted together with its sender's higher nonces (no gaps),
 *   each with a 'dropped' event. Nonce distance from the account is capped by `maxPerSender`
 *   (NONCE_TOO_FAR_IN_FUTURE_FOR_SENDER).
 * - With local account permissioning (`deps.isSenderPermitted`), a sender not on the allowlist is
 *   refused with TX_SENDER_NOT_AUTHORIZED, after the state read and before the nonce and balance
 *   checks (Besu's PermissionTransactionValidator.validateForSender).
 * Events are synchronous and in a deterministic order; nothing here reads a clock.
 */
import type { Common } from '@ethereumjs/common';
import { Mainnet, createCustomCommon } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { TransactionType, createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import { bytesToBigInt as utilBytesToBigInt } from '@ethereumjs/util';
import { bytesToHex, type Hex } from '../crypto/bytes.ts';
import { txChainId, useFastCrypto } from './tx-utils.ts';
import { decodingCommon } from '../chain/decoding-common.ts';

export interface TxPoolOptions {
  /** Besu --tx-pool-max-size default: 4096. */
  maxSize: number;
  /** Max nonce distance from the sender's account nonce (Besu --tx-pool-max-future-by-sender default: 200). */
  maxPerSender: number;
  /** Besu --tx-pool-price-bump default: 10. */
  priceBumpPercent: number;
  /** Besu --min-gas-price default: 1000 wei. */
  minGasPrice: bigint;
  /** Reject when the upfront cost exceeds the balance (Besu default: off). */
  balanceCheck: boolean;
}

export const DEFAULT_TX_POOL_OPTIONS: TxPoolOptions = {
  maxSize: 4096,
  maxPerSender: 200,
  priceBumpPercent: 10,
  minGasPrice: 1000n,
  balanceCheck: false,
};

export interface PoolAccount {
  nonce: bigint;
  balance: bigint;
  codeHash?: Uint8Array;
}

export interface TxPoolDeps {
  /** The sender's account on the chain head's state (undefined = no account). */
  getAccount(address: Hex): Promise<PoolAccount | undefined>;
  chainId: bigint;
  /** Base fee of the next block; undefined before London. */
  baseFee(): bigint | undefined;
  /** Used to decode raw transactions (defaults to a Cancun Common with `chainId`). */
  common?: Common;
  /** Gas limit of the chain head (EXCEEDS_BLOCK_GAS_LIMIT check); unchecked when absent. */
  blockGasLimit?(): bigint;
  /** Where the next block falls in the fork schedule: raw transactions decode under its fork (default: `common`'s own fork). */
  nextBlockPosition?(): { blockNumber: bigint; timestamp: bigint };
  /**
   * Local account permissioning (Besu --permissions-accounts-config-file-enabled): whether the
   * sender (lower-case address) may send transactions. Checked as Besu's PermissionTransactionValidator
   * does with the pool's and the block builder's validation parameters; absent: everyone may.
   */
  isSenderPermitted?(address: Hex): boolean;
}

export type TxPoolError =
  | 'INVALID_TRANSACTION_FORMAT'
  | 'INVALID_SIGNATURE'
  | 'WRONG_CHAIN_ID'
  | 'TRANSACTION_ALREADY_KNOWN'
  | 'GAS_PRICE_TOO_LOW'
  | 'MAX_PRIORITY_FEE_PER_GAS_EXCEEDS_MAX_FEE_PER_GAS'
  | 'INTRINSIC_GAS_EXCEEDS_GAS_LIMIT'
  | 'EXCEEDS_BLOCK_GAS_LIMIT'
  | 'NONCE_TOO_LOW'
  | 'NONCE_TOO_FAR_IN_FUTURE_FOR_SENDER'
  | 'UPFRONT_COST_EXCEEDS_BALANCE'
  | 'TX_SENDER_NOT_AUTHORIZED'
  | 'TRANSACTION_REPLACEMENT_UNDERPRICED'
  | 'CHAIN_HEAD_WORLD_STATE_NOT_AVAILABLE';

export type AddResult = { ok: true; hash: Hex } | { ok: false; error: TxPoolError; message?: string };

/** Why a transaction left the pool without being included in a block. */
export type DropReason = 'REPLACED' | 'EVICTED' | 'NONCE_TOO_LOW';

/** Besu's JSON-RPC errors for each rejection (besu: JsonRpcErrorConverter, RpcErrorType). */
export const TX_POOL_RPC_ERRORS: Record<TxPoolError, { code: number; message: string }> = {
  INVALID_TRANSACTION_FORMAT: { code: -32602, message: 'Invalid transaction type' },
  INVALID_SIGNATURE: { code: -32002, message: 'Invalid signature' },
  WRONG_CHAIN_ID: { code: -32000, message: 'Wrong chainId' },
  TRANSACTION_ALREADY_KNOWN: { code: -32000, message: 'Known transaction' },
  GAS_PRICE_TOO_LOW: { code: -32009, message: 'Gas price below configured minimum gas price' },
  MAX_PRIORITY_FEE_PER_GAS_EXCEEDS_MAX_FEE_PER_GAS: { code: -32000, message: 'Max priority fee per gas exceeds max fee per gas' },
  INTRINSIC_GAS_EXCEEDS_GAS_LIMIT: { code: -32003, message: 'Intrinsic gas exceeds gas limit' },
  EXCEEDS_BLOCK_GAS_LIMIT: { code: -32005, message: 'Transaction gas limit exceeds block gas limit' },
  NONCE_TOO_LOW: { code: -32001, message: 'Nonce too low' },
  NONCE_TOO_FAR_IN_FUTURE_FOR_SENDER: { code: -32000, message: 'Transaction nonce is too distant from current sender nonce' },
  UPFRONT_COST_EXCEEDS_BALANCE: { code: -32004, message: 'Upfront cost exceeds account balance' },
  TX_SENDER_NOT_AUTHORIZED: { code: -32007, message: 'Sender account not authorized to send transactions' },
  TRANSACTION_REPLACEMENT_UNDERPRICED: { code: -32000, message: 'Replacement transaction underpriced' },
  CHAIN_HEAD_WORLD_STATE_NOT_AVAILABLE: { code: -32008, message: 'Initial sync is still in progress' },
};

interface Entry {
  tx: TypedTransaction;
  hash: Hex;
  sender: Hex;
  nonce: bigint;
  seq: number;
  local: boolean;
}

type Listener<E extends 'added' | 'dropped'> = E extends 'added'
  ? (tx: TypedTransaction) => void
  : (tx: TypedTransaction, reason: DropReason) => void;

const EMPTY_CODE_HASH = '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470';
const FEE_FLOOR = 7n; // Besu LondonFeeMarket DEFAULT_BASEFEE_FLOOR

function is1559(tx: TypedTransaction): boolean {
  return tx.type !== TransactionType.Legacy && tx.type !== TransactionType.AccessListEIP2930;
}

/** gasPrice, or maxFeePerGas */
function maxGasPrice(tx: TypedTransaction): bigint {
  return is1559(tx) ? (tx as { maxFeePerGas: bigint }).maxFeePerGas : (tx as { gasPrice: bigint }).gasPrice;
}

/** Besu Transaction.getEffectivePriorityFeePerGas: clamped at zero; gas price without a base fee. */
export function effectivePriorityFee(tx: TypedTransaction, baseFee: bigint | undefined): bigint {
  if (baseFee === undefined) return is1559(tx) ? (tx as { maxPriorityFeePerGas: bigint }).maxPriorityFeePerGas : maxGasPrice(tx);
  if (is1559(tx)) {
    const { maxFeePerGas, maxPriorityFeePerGas } = tx as { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
    if (baseFee >= maxFeePerGas) return 0n;
    const room = maxFeePerGas - baseFee;
    return maxPriorityFeePerGas < room ? maxPriorityFeePerGas : room;
  }
  const gp = maxGasPrice(tx);
  return baseFee >= gp ? 0n : gp - baseFee;
}

/** Besu TransactionPriceCalculator: what the tx pays per gas at `baseFee`. */
function effectivePrice(tx: TypedTransaction, baseFee: bigint | undefined): bigint {
  if (!is1559(tx) || baseFee === undefined) return maxGasPrice(tx);
  const { maxFeePerGas, maxPriorityFeePerGas } = tx as { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
  const p = baseFee + maxPriorityFeePerGas;
  return p < maxFeePerGas ? p : maxFeePerGas;
}

/** Besu's TransactionPoolReplacementHandler: gas-price rule OR fee-market rule. */
export function shouldReplace(existing: TypedTransaction, candidate: TypedTransaction, baseFee: bigint | undefined, bumpPercent: number): boolean {
  const bump = BigInt(bumpPercent);
  const isBumped = (val: bigint, bumped: bigint) => val * (bump + 100n) <= bumped * 100n;
  // TransactionReplacementByGasPriceRule
  if (!is1559(existing) && !is1559(candidate)) {
    const threshold = (maxGasPrice(existing) * (100n + bump)) / 100n;
    if (maxGasPrice(candidate) >= threshold) return true;
  }
  // TransactionReplacementByFeeMarketRule
  if (baseFee !== undefined && (is1559(existing) || is1559(candidate))) {
    const newPrice = effectivePrice(candidate, baseFee);
    const newPrio = effectivePriorityFee(candidate, baseFee);
    const curPrice = effectivePrice(existing, baseFee);
    const curPrio = effectivePriorityFee(existing, baseFee);
    if (isBumped(curPrice, newPrice)) return newPrio >= curPrio;
    if (curPrice === newPrice) return isBumped(curPrio, newPrio);
  }
  return false;
}

/** Chain id a raw transaction was signed for (undefined = pre-EIP-155 legacy). Throws if malformed. */
function rawChainId(raw: Uint8Array): bigint | undefined {
  if (raw.length === 0) throw new Error('empty transaction');
  if (raw[0] <= 0x7f) {
    const fields = RLP.decode(raw.subarray(1));
    if (!Array.isArray(fields) || !(fields[0] instanceof Uint8Array)) throw new Error('malformed typed transaction');
    return utilBytesToBigInt(fields[0]);
  }
  const fields = RLP.decode(raw);
  if (!Array.isArray(fields) || fields.length !== 9 || !(fields[6] instanceof Uint8Array)) throw new Error('malformed legacy transaction');
  const v = utilBytesToBigInt(fields[6]);
  if (v === 27n || v === 28n) return undefined;
  if (v < 35n) throw new Error(`invalid legacy v ${v}`);
  return (v - 35n) / 2n;
}

class MaxHeap<T> {
  private readonly a: T[] = [];
  constructor(private readonly better: (x: T, y: T) => boolean) {}
  get size(): number {
    return this.a.length;
  }
  push(v: T): void {
    const a = this.a;
    a.push(v);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.better(a[i], a[p])) break;
      [a[i], a[p]] = [a[p], a[i]];
      i = p;
    }
  }
  pop(): T | undefined {
    const a = this.a;
    if (a.length === 0) return undefined;
    const top = a[0];
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.better(a[l], a[m])) m = l;
        if (r < a.length && this.better(a[r], a[m])) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m], a[i]];
        i = m;
      }
    }
    return top;
  }
}

export class TxPool {
  readonly options: TxPoolOptions;
  private readonly byHash = new Map<Hex, Entry>();
  private readonly bySender = new Map<Hex, Map<bigint, Entry>>();
  /** Last account nonce seen per sender (from add() look-ups and onBlockImported). */
  private readonly accountNonce = new Map<Hex, bigint>();
  private readonly listeners = { added: [] as Listener<'added'>[], dropped: [] as Listener<'dropped'>[] };
  private seq = 0;
  private readonly common: Common;

  constructor(
    opts: Partial<TxPoolOptions>,
    private readonly deps: TxPoolDeps,
  ) {
    this.options = { ...DEFAULT_TX_POOL_OPTIONS, ...opts };
    this.common =
      deps.common ?? createCustomCommon({ chainId: Number(deps.chainId) }, Mainnet, { hardfork: 'cancun' });
  }

  on<E extends 'added' | 'dropped'>(event: E, listener: Listener<E>): () => void {
    const list = this.listeners[event] as Listener<E>[];
    list.push(listener);
    return () => {
      const i = list.indexOf(listener);
      if (i >= 0) list.splice(i, 1);
    };
  }

  size(): number {
    return this.byHash.size;
  }

  get(hash: Hex | Uint8Array): TypedTransaction | undefined {
    const h = typeof hash === 'string' ? (hash.toLowerCase() as Hex) : bytesToHex(hash);
    return this.byHash.get(h)?.tx;
  }

  /** The sender of a pooled transaction (recovered when it was added), lower case. */
  senderOf(hash: Hex | Uint8Array): Hex | undefined {
    const h = typeof hash === 'string' ? (hash.toLowerCase() as Hex) : bytesToHex(hash);
    return this.byHash.get(h)?.sender;
  }

  /**
   * Gives other objects of pooled transactions (those of a block decoded from the wire) the
   * sender public key the pool recovered, so executing the block does not recover it again. A
   * transaction hash covers the signature, so equal hashes mean the same sender. Only frozen
   * transactions are touched: @ethereumjs/tx reads the cache only for those.
   */
  shareSenders(txs: readonly TypedTransaction[]): void {
    if (this.byHash.size === 0) return;
    for (const tx of txs) {
      if (tx.cache.senderPubKey !== undefined || !Object.isFrozen(tx) || !tx.isSigned()) continue;
      const pooled = this.byHash.get(bytesToHex(tx.hash()))?.tx;
      const publicKey = pooled?.cache.senderPubKey;
      if (publicKey !== undefined) tx.cache.senderPubKey = publicKey;
    }
  }

  /** All pooled transactions, in arrival order. */
  pending(): TypedTransaction[] {
    return [...this.byHash.values()].sort((a, b) => a.seq - b.seq).map((e) => e.tx);
  }

  /**
   * The nonce the sender's next transaction should use: the first gap in the pool's nonces
   * counting from the account nonce (given, or the last one seen). For eth_getTransactionCount
   * with the 'pending' tag.
   */
  pendingNonce(sender: Hex, accountNonce?: bigint): bigint {
    const s = sender.toLowerCase() as Hex;
    let n = accountNonce ?? this.accountNonce.get(s) ?? 0n;
    const txs = this.bySender.get(s);
    if (!txs) return n;
    while (txs.has(n)) n++;
    return n;
  }

  async add(input: Uint8Array | TypedTransaction, opts: { local?: boolean } = {}): Promise<AddResult> {
    const local = opts.local ?? false;
    let tx: TypedTransaction;
    if (input instanceof Uint8Array) {
      let chainId: bigint | undefined;
      try {
        chainId = rawChainId(input);
      } catch (e) {
        return this.reject('INVALID_TRANSACTION_FORMAT', e);
      }
      if (chainId !== undefined && chainId !== this.deps.chainId)
        return this.reject('WRONG_CHAIN_ID', `transaction chain id ${chainId}, expected ${this.deps.chainId}`);
      try {
        tx = createTxFromRLP(input, { common: decodingCommon(this.common, this.deps.nextBlockPosition?.()) });
      } catch (e) {
        const m = e instanceof Error ? e.message : String(e);
        if (/maxFeePerGas cannot be less than maxPriorityFeePerGas/i.test(m))
          return this.reject('MAX_PRIORITY_FEE_PER_GAS_EXCEEDS_MAX_FEE_PER_GAS', m);
        if (/signature|s-value|\bv\b/i.test(m)) return this.reject('INVALID_SIGNATURE', m);
        return this.reject('INVALID_TRANSACTION_FORMAT', m);
      }
    } else {
      tx = input;
      const chainId = txChainId(tx);
      if (chainId !== undefined && chainId !== this.deps.chainId)
        return this.reject('WRONG_CHAIN_ID', `transaction chain id ${chainId}, expected ${this.deps.chainId}`);
    }
    return this.validateAndInsert(tx, local);
  }

  /** Re-adds the transactions of blocks a reorganisation removed (as remote, re-validated). */
  async readd(txs: TypedTransaction[]): Promise<AddResult[]> {
    const out: AddResult[] = [];
    for (const tx of txs) out.push(await this.validateAndInsert(tx, false));
    return out;
  }

  /**
   * Picks transactions for a block: per sender in nonce order starting at `nonceOf(sender)` with
   * no gaps; across senders by effective priority fee at `baseFee` (ties: arrival order). A
   * sender whose next transaction cannot pay the base fee or does not fit the gas left is done,
   * and so is one no longer permitted (isSenderPermitted): its transactions stay in the pool.
   */
  selectForBlock(baseFee: bigint | undefined, gasLimit: bigint, nonceOf: (sender: Hex) => bigint): TypedTransaction[] {
    type Cursor = { sender: Hex; txs: Map<bigint, Entry>; next: Entry; prio: bigint };
    const better = (x: Cursor, y: Cursor) => (x.prio !== y.prio ? x.prio > y.prio : x.next.seq < y.next.seq);
    const heap = new MaxHeap<Cursor>(better);
    const senders = [...this.bySender.keys()].sort();
    for (const sender of senders) {
      const txs = this.bySender.get(sender)!;
      const first = txs.get(nonceOf(sender));
      if (first) heap.push({ sender, txs, next: first, prio: effectivePriorityFee(first.tx, baseFee) });
    }
    const out: TypedTransaction[] = [];
    let gasLeft = gasLimit;
    while (heap.size > 0 && gasLeft >= 21_000n) {
      const cur = heap.pop()!;
      const tx = cur.next.tx;
      // Besu's block building checks local account permissions too: a sender removed from the allowlist is done.
      if (this.deps.isSenderPermitted && !this.deps.isSenderPermitted(cur.sender)) continue;
      if (baseFee !== undefined && maxGasPrice(tx) < baseFee) continue; // cannot pay: sender done
      if (tx.gasLimit > gasLeft) continue; // does not fit: later nonces cannot go either
      out.push(tx);
      gasLeft -= tx.gasLimit;
      const following = cur.txs.get(cur.next.nonce + 1n);
      if (following) heap.push({ ...cur, next: following, prio: effectivePriorityFee(following.tx, baseFee) });
    }
    return out;
  }

  /**
   * After a block is imported: drops the included transactions (no event) and every transaction
   * whose nonce is now below its sender's account nonce ('dropped', NONCE_TOO_LOW).
   */
  onBlockImported(included: Iterable<Hex | Uint8Array>, senderNonces: Iterable<[Hex, bigint]> | Map<Hex, bigint>): void {
    for (const h of included) {
      const hash = typeof h === 'string' ? (h.toLowerCase() as Hex) : bytesToHex(h);
      const e = this.byHash.get(hash);
      if (e) this.remove(e);
    }
    const entries = [...senderNonces].map(([s, n]) => [s.toLowerCase() as Hex, n] as const).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    for (const [sender, nonce] of entries) {
      this.accountNonce.set(sender, nonce);
      const txs = this.bySender.get(sender);
      if (!txs) continue;
      const stale = [...txs.values()].filter((e) => e.nonce < nonce).sort((a, b) => (a.nonce < b.nonce ? -1 : 1));
      for (const e of stale) {
        this.remove(e);
        this.emitDropped(e.tx, 'NONCE_TOO_LOW');
      }
    }
  }

  // ---- internals --------------------------------------------------------------------------------

  private reject(error: TxPoolError, detail?: unknown): AddResult {
    const message = detail === undefined ? undefined : detail instanceof Error ? detail.message : String(detail);
    return { ok: false, error, ...(message !== undefined ? { message } : {}) };
  }

  private async validateAndInsert(tx: TypedTransaction, local: boolean): Promise<AddResult> {
    if (!tx.isSigned()) return this.reject('INVALID_SIGNATURE', 'transaction is not signed');
    const hash = bytesToHex(tx.hash());
    if (this.byHash.has(hash)) return this.reject('TRANSACTION_ALREADY_KNOWN');
    if (tx.type === TransactionType.BlobEIP4844) return this.reject('INVALID_TRANSACTION_FORMAT', 'blob transactions are not supported');
    const baseFee = this.deps.baseFee();
    if (is1559(tx) && baseFee === undefined)
      return this.reject('INVALID_TRANSACTION_FORMAT', 'EIP-1559 transaction are not allowed yet');

    // price (TransactionPool.validatePrice)
    const price = maxGasPrice(tx);
    if (local) {
      if (baseFee !== undefined && baseFee > 0n && price < FEE_FLOOR)
        return this.reject('GAS_PRICE_TOO_LOW', `max gas price ${price} below the floor ${FEE_FLOOR}`);
    } else if (price < this.options.minGasPrice) {
      return this.reject('GAS_PRICE_TOO_LOW', `max gas price ${price} below ${this.options.minGasPrice}`);
    }

    // signature
    let sender: Hex;
    try {
      useFastCrypto(tx);
      sender = tx.getSenderAddress().toString().toLowerCase() as Hex;
    } catch (e) {
      return this.reject('INVALID_SIGNATURE', e);
    }

    // cost and fee (MainnetTransactionValidator.validateCostAndFee)
    if (is1559(tx)) {
      const { maxFeePerGas, maxPriorityFeePerGas } = tx as { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
      if (maxPriorityFeePerGas > maxFeePerGas) return this.reject('MAX_PRIORITY_FEE_PER_GAS_EXCEEDS_MAX_FEE_PER_GAS');
    }
    const intrinsic = tx.getIntrinsicGas();
    if (intrinsic > tx.gasLimit)
      return this.reject('INTRINSIC_GAS_EXCEEDS_GAS_LIMIT', `intrinsic gas cost ${intrinsic} exceeds gas limit ${tx.gasLimit}`);
    const blockGasLimit = this.deps.blockGasLimit?.();
    if (blockGasLimit !== undefined && tx.gasLimit > blockGasLimit)
      return this.reject('EXCEEDS_BLOCK_GAS_LIMIT', `Transaction gas limit of ${tx.gasLimit} exceeds block gas limit of ${blockGasLimit}`);

    // sender (validateForSender with the pool's parameters)
    let account: PoolAccount | undefined;
    try {
      account = await this.deps.getAccount(sender);
    } catch (e) {
      return this.reject('CHAIN_HEAD_WORLD_STATE_NOT_AVAILABLE', e);
    }
    const accountNonce = account?.nonce ?? 0n;
    this.accountNonce.set(sender, accountNonce);
    // validateForSender: the allowlist comes before the account checks.
    if (this.deps.isSenderPermitted && !this.deps.isSenderPermitted(sender))
      return this.reject('TX_SENDER_NOT_AUTHORIZED', `Sender ${sender} is not on the Account Allowlist`);
    if (this.byHash.has(hash)) return this.reject('TRANSACTION_ALREADY_KNOWN');
    if (this.options.balanceCheck) {
      const upfront = tx.gasLimit * price + tx.value;
      if (upfront > (account?.balance ?? 0n))
        return this.reject('UPFRONT_COST_EXCEEDS_BALANCE', `transaction up-front cost ${upfront} exceeds balance ${account?.balance ?? 0n}`);
    }
    if (tx.nonce < accountNonce)
      return this.reject('NONCE_TOO_LOW', `transaction nonce ${tx.nonce} below sender account nonce ${accountNonce}`);
    if (account?.codeHash && bytesToHex(account.codeHash) !== EMPTY_CODE_HASH)
      return this.reject('TX_SENDER_NOT_AUTHORIZED');
    if (tx.nonce - accountNonce >= BigInt(this.options.maxPerSender))
      return this.reject('NONCE_TOO_FAR_IN_FUTURE_FOR_SENDER', `nonce ${tx.nonce}, account nonce ${accountNonce}`);

    // replacement
    const existing = this.bySender.get(sender)?.get(tx.nonce);
    if (existing) {
      if (!shouldReplace(existing.tx, tx, baseFee, this.options.priceBumpPercent)) return this.reject('TRANSACTION_REPLACEMENT_UNDERPRICED');
      this.remove(existing);
      this.emitDropped(existing.tx, 'REPLACED');
    }

    const entry: Entry = { tx, hash, sender, nonce: tx.nonce, seq: this.seq++, local };
    this.byHash.set(hash, entry);
    let txs = this.bySender.get(sender);
    if (!txs) this.bySender.set(sender, (txs = new Map()));
    txs.set(tx.nonce, entry);
    for (const l of this.listeners.added) l(tx);
    while (this.byHash.size > this.options.maxSize) this.evictOne(baseFee);
    return { ok: true, hash };
  }

  /** Evicts the least valuable transaction and its sender's higher nonces, highest nonce first. */
  private evictOne(baseFee: bigint | undefined): void {
    let worst: Entry | undefined;
    let worstPrio = 0n;
    for (const e of this.byHash.values()) {
      const prio = effectivePriorityFee(e.tx, baseFee);
      if (
        worst === undefined ||
        (e.local !== worst.local ? !e.local : prio !== worstPrio ? prio < worstPrio : e.seq > worst.seq)
      ) {
        worst = e;
        worstPrio = prio;
      }
    }
    if (!worst) return;
    const txs = this.bySender.get(worst.sender)!;
    const doomed = [...txs.values()].filter((e) => e.nonce >= worst!.nonce).sort((a, b) => (a.nonce > b.nonce ? -1 : 1));
    for (const e of doomed) {
      this.remove(e);
      this.emitDropped(e.tx, 'EVICTED');
    }
  }

  private remove(e: Entry): void {
    this.byHash.delete(e.hash);
    const txs = this.bySender.get(e.sender);
    if (txs) {
      txs.delete(e.nonce);
      if (txs.size === 0) this.bySender.delete(e.sender);
    }
  }

  private emitDropped(tx: TypedTransaction, reason: DropReason): void {
    for (const l of this.listeners.dropped) l(tx, reason);
  }
}
