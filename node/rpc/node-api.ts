/**
 * The facade the JSON-RPC methods read a QbftNode through (Besu's BlockchainQueries, plus the
 * transaction simulator, the filter manager and the node's pool and network).
 *
 * - Blocks: by number (canonical), by hash (any known block), by tag. On QBFT, `finalized` and
 *   `safe` are the head (a block is final once committed), `pending` reads as the head
 *   (eth_getTransactionCount 'pending' adds the pool's nonces).
 *   NOTE: Besu 26.3 itself never sets finalized/safe on BFT chains, so it answers those tags with
 *   -39001 "Unknown block"; qbft-lab follows the issue's rule (head) instead.
 * - Hashes are the QBFT on-chain hashes of the chain entries, never ethereumjs' block.hash().
 * - Transactions by hash: the node's canonical index (node.transactionLocation), then the pool.
 * - Receipts: the node's receipts with Besu's metadata (gas used per transaction from the
 *   cumulative gas, logIndex across the block, effectiveGasPrice at the block's base fee,
 *   contractAddress from sender and nonce).
 * - State: a block's state is readable while the engine retains its state root (the 256 most
 *   recent roots and genesis); older state answers "World state unavailable".
 */
import type { Common } from '@ethereumjs/common';
import type { TypedTransaction } from '@ethereumjs/tx';
import { createTxFromRLP } from '@ethereumjs/tx';
import { RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, createAddressFromString, generateAddress } from '@ethereumjs/util';
import type { ChainEntry } from '../chain/chain.ts';
import { decodingCommon } from '../chain/decoding-common.ts';
import { bytesToHex, hexToBytes, type Hex } from '../crypto/bytes.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { publicKeyOf } from '../crypto/secp256k1.ts';
import type { AccountInfo, TxReceipt } from '../execution/engine.ts';
import { TX_POOL_RPC_ERRORS, type TxPoolError } from '../execution/tx-pool.ts';
import type { NodeActions, NodeView, PooledTxMeta } from '../view/node-view.ts';
import { RpcError, rpcError } from './errors.ts';
import { effectiveGasPrice } from './formatters/transaction.ts';
import type { LogWithMeta, ReceiptWithMeta } from './formatters/receipt.ts';
import type { BlockParam, BlockParamOrHash } from './params.ts';
import { topicsMatch } from './params.ts';
import { FilterManager, FILTER_EXPIRY_MS, type LogQuery } from './methods/support/filters.ts';
import type { CallBlockContext } from '../execution/calls/call-types.ts';
import { TransactionSimulator, type SimulatorPort } from '../execution/calls/transaction-simulator.ts';
import { checkPoint, NEVER_PAUSE, type Pause } from './off-loop/pause.ts';
import { Mutex } from '../collections/mutex.ts';
import { commonAt } from '../execution/blob-fees.ts';
import type { PeerDirectory } from './methods/admin-miner.ts';

export interface NodeApiOptions {
  /** web3_clientVersion / admin_nodeInfo name. Default "qbft-lab/v<version>/<platform>-<arch>/node-<version>". */
  clientVersion?: string;
  /** net_version (Besu --network-id); default the chain id. */
  networkId?: bigint;
  /** P2P endpoint shown in enode URLs (admin_nodeInfo, net_enode). */
  p2pHost?: string;
  p2pPort?: number;
  /** false with --p2p-enabled=false: net_listening is false and the enode methods answer P2P_DISABLED. Default true. */
  p2pEnabled?: boolean;
  /** Besu --rpc-gas-cap (default ApiConfiguration.DEFAULT_GAS_CAP = 100,000,000). */
  gasCap?: bigint;
  /** Besu --rpc-max-logs-range (default 5000). */
  maxLogsRange?: number;
  /** Besu --rpc-max-trace-filter-range (default 1000). */
  maxTraceFilterRange?: number;
  /** Besu --api-gas-price-blocks (100), --api-gas-price-percentile (50), --api-gas-price-max (500 gwei). */
  gasPriceBlocks?: number;
  gasPricePercentile?: number;
  gasPriceMax?: bigint;
  /** Besu --min-priority-fee (default 0). */
  minPriorityFeePerGas?: bigint;
  /** Besu --api-gas-estimate-tolerance-ratio... (ApiConfiguration.getEstimateGasToleranceRatio, 0.015). */
  estimateGasToleranceRatio?: number;
  /** Filters: expiry (10 min), how many at most, undelivered entries per filter at most. */
  filterExpiryMs?: number;
  maxFilters?: number;
  maxFilterEntries?: number;
  /**
   * Where the EVM work of the methods runs (eth_call, estimates, proofs, traces). Default: a
   * simulator on this thread (the simulator's world: no real threads); a live node passes its
   * workers (off-loop/worker-simulator.ts).
   */
  simulator?: SimulatorPort;
  /** Lets long reads on this thread give the event loop a turn (default: never; live: off-loop/pause.ts). */
  pause?: Pause;
  /** What the admin methods may ask of the peer-to-peer network (the live RLPx transport); default: nothing. */
  peerDirectory?: PeerDirectory;
}

/** The node as JSON-RPC serves it: its read-only view and the actions methods take (transactions, mining, votes). */
export type RpcNode = NodeView & Pick<NodeActions, 'submitTransaction' | 'startMining' | 'stopMining' | 'proposeVote' | 'discardVote'>;

export const QBFT_LAB_VERSION = '0.1.0';

/** Besu BesuVersionUtils.version(): "besu/v26.3.0/linux-x86_64/openjdk-java-21" -> ours. */
export function defaultClientVersion(): string {
  const arch = process.arch === 'x64' ? 'x86_64' : process.arch;
  return `qbft-lab/v${QBFT_LAB_VERSION}/${process.platform}-${arch}/node-${process.versions.node.split('.')[0]}`;
}

export type TxLookup =
  | { kind: 'pending'; tx: TypedTransaction }
  | { kind: 'mined'; tx: TypedTransaction; entry: ChainEntry; index: number };

const RECEIPT_CACHE = 256;

/** The canonical (QBFT) hash of block `n`, for BLOCKHASH. */
export function canonicalHashes(node: NodeView): (n: bigint) => Uint8Array | undefined {
  return (n) => {
    const e = node.blockAt(Number(n));
    return e ? hexToBytes(e.hash) : undefined;
  };
}

export class NodeApi {
  readonly simulator: SimulatorPort;
  readonly pause: Pause;
  readonly filters: FilterManager;
  readonly clientVersion: string;
  readonly networkId: bigint;
  readonly chainId: bigint;
  readonly gasCap: bigint;
  readonly maxLogsRange: number;
  readonly maxTraceFilterRange: number;
  readonly gasPriceBlocks: number;
  readonly gasPricePercentile: number;
  readonly gasPriceMax: bigint;
  readonly minPriorityFeePerGas: bigint;
  readonly estimateGasToleranceRatio: number;
  readonly p2pHost: string;
  readonly p2pPort: number;
  readonly p2pEnabled: boolean;
  readonly peerDirectory: PeerDirectory;
  /** The block number at which the current sync started (eth_syncing's startingBlock). */
  private syncStart?: number;
  private readonly receiptCache = new Map<Hex, ReceiptWithMeta[]>();
  private readonly stateReads = new Mutex();
  private readonly unsubscribe: Array<() => void> = [];
  /** A Common copy for fork questions (which EIPs rule at a block). */
  private readonly probe: Common;

  constructor(
    readonly node: RpcNode,
    opts: NodeApiOptions = {},
  ) {
    this.clientVersion = opts.clientVersion ?? defaultClientVersion();
    this.chainId = node.config.genesis.chainId;
    this.networkId = opts.networkId ?? this.chainId;
    this.gasCap = opts.gasCap ?? 100_000_000n;
    this.maxLogsRange = opts.maxLogsRange ?? 5000;
    this.maxTraceFilterRange = opts.maxTraceFilterRange ?? 1000;
    this.gasPriceBlocks = opts.gasPriceBlocks ?? 100;
    this.gasPricePercentile = opts.gasPricePercentile ?? 50;
    this.gasPriceMax = opts.gasPriceMax ?? 500_000_000_000n;
    this.minPriorityFeePerGas = opts.minPriorityFeePerGas ?? 0n;
    this.estimateGasToleranceRatio = opts.estimateGasToleranceRatio ?? 0.015;
    this.p2pHost = opts.p2pHost ?? '127.0.0.1';
    this.p2pPort = opts.p2pPort ?? 30303;
    this.p2pEnabled = opts.p2pEnabled ?? true;
    this.peerDirectory = opts.peerDirectory ?? {};
    this.probe = node.common.copy();
    this.pause = opts.pause ?? NEVER_PAUSE;
    this.simulator = opts.simulator ?? new TransactionSimulator(node.common, node.stateStore(), canonicalHashes(node));
    this.filters = new FilterManager(
      {
        nowMs: () => node.clock.nowMs(),
        randomByte: () => node.random.int(256),
        logsOf: (entry, query, removed) => this.logsOfBlock(entry, query, removed),
      },
      {
        maxFilters: opts.maxFilters ?? 10_000,
        maxEntries: opts.maxFilterEntries ?? 10_000,
        expiryMs: opts.filterExpiryMs ?? FILTER_EXPIRY_MS,
      },
    );
    this.unsubscribe.push(
      node.onNewHead((_head, reorg) => {
        this.filters.onNewHead(reorg.removed, reorg.added);
        for (const e of reorg.removed) this.receiptCache.delete(e.hash);
      }),
    );
    this.unsubscribe.push(node.onPoolTransaction('added', (tx) => this.filters.onPendingTransaction(bytesToHex(tx.hash()))));
  }

  /** Detaches from the node (its listeners and pool events). */
  close(): void {
    for (const u of this.unsubscribe.splice(0)) u();
  }

  // ---- blocks -----------------------------------------------------------------------------------

  head(): ChainEntry {
    return this.node.head();
  }

  headNumber(): number {
    return this.node.head().number;
  }

  byNumber(n: number | bigint): ChainEntry | undefined {
    const num = typeof n === 'bigint' ? n : BigInt(n);
    if (num < 0n || num > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
    return this.node.blockAt(Number(num));
  }

  byHash(hash: Hex): ChainEntry | undefined {
    return this.node.blockByHash(hash.toLowerCase() as Hex);
  }

  isCanonical(entry: ChainEntry): boolean {
    return this.node.isCanonical(entry);
  }

  /** BlockParameter.getBlockNumber (QBFT: finalized/safe/pending = head). */
  numberOf(param: BlockParam): bigint {
    if (param.kind === 'number') return param.number;
    return param.tag === 'earliest' ? 0n : BigInt(this.headNumber());
  }

  /** The canonical block a block parameter names, if any. */
  entryOf(param: BlockParam): ChainEntry | undefined {
    return this.byNumber(this.numberOf(param));
  }

  /**
   * Besu's AbstractBlockParameterOrBlockHashMethod.handleParamTypes: the block, `null` (answer
   * null: a future number, an unknown hash), or an error (negative number: INVALID_BLOCK_NUMBER_PARAMS;
   * requireCanonical and not canonical: JSON_RPC_NOT_CANONICAL_ERROR).
   */
  resolveBlockOrHash(p: BlockParamOrHash): ChainEntry | null {
    if (p.kind === 'tag') return p.tag === 'earliest' ? this.node.genesisBlock() : this.head();
    if (p.kind === 'number') {
      if (p.number < 0n) throw rpcError('INVALID_BLOCK_NUMBER_PARAMS');
      if (p.number > BigInt(this.headNumber())) return null;
      return this.byNumber(p.number) ?? null;
    }
    const entry = this.byHash(p.hash);
    if (!entry) return null;
    if (p.requireCanonical && !this.isCanonical(entry)) throw rpcError('JSON_RPC_NOT_CANONICAL_ERROR');
    return entry;
  }

  /** Whether `eip` is active at block `number` with `timestamp`. */
  isActivatedAt(eip: number, number: number | bigint, timestamp: number | bigint): boolean {
    this.probe.setHardforkBy({ blockNumber: BigInt(number), timestamp: BigInt(timestamp) });
    return this.probe.isActivatedEIP(eip);
  }

  // ---- state ------------------------------------------------------------------------------------

  stateAvailable(entry: ChainEntry): boolean {
    return this.node.hasState(entry.block.header.stateRoot);
  }

  /** Throws WORLD_STATE_UNAVAILABLE when the block's state is no longer retained. */
  requireState(entry: ChainEntry): void {
    if (!this.stateAvailable(entry)) throw rpcError('WORLD_STATE_UNAVAILABLE');
  }

  async account(entry: ChainEntry, address: Hex): Promise<AccountInfo | undefined> {
    this.requireState(entry);
    return this.stateRead(() => this.node.account(entry.block.header.stateRoot, address));
  }

  async code(entry: ChainEntry, address: Hex): Promise<Uint8Array> {
    this.requireState(entry);
    return this.stateRead(() => this.node.code(entry.block.header.stateRoot, address));
  }

  async storage(entry: ChainEntry, address: Hex, slot: bigint): Promise<Uint8Array> {
    this.requireState(entry);
    return this.stateRead(() => this.node.storage(entry.block.header.stateRoot, address, slot));
  }

  /**
   * State reads run one at a time anyway (the engine's reader VM); queued here, each passes a check
   * point first, so hundreds of them asked at once (a wide GraphQL query) do not drain in one turn.
   */
  private stateRead<T>(read: () => Promise<T>): Promise<T> {
    return this.stateReads.run(async () => {
      await checkPoint(this.pause);
      return read();
    });
  }

  /** EthGetTransactionCount.pendingResult: max(pool's next nonce, the head's account nonce). */
  async pendingNonce(address: Hex): Promise<bigint> {
    const latest = (await this.account(this.head(), address))?.nonce ?? 0n;
    const pending = this.node.poolNextNonce(address, latest);
    return pending > latest ? pending : latest;
  }

  // ---- transactions and receipts ----------------------------------------------------------------

  /** Besu EthGetTransactionByHash: the pool first, then the canonical chain. */
  findTransaction(hash: Hex): TxLookup | undefined {
    const h = hash.toLowerCase() as Hex;
    const pooled = this.node.pooledTransaction(h);
    if (pooled) return { kind: 'pending', tx: pooled };
    return this.minedTransaction(h);
  }

  minedTransaction(hash: Hex): { kind: 'mined'; tx: TypedTransaction; entry: ChainEntry; index: number } | undefined {
    const loc = this.node.transactionLocation(hash);
    if (!loc) return undefined;
    const entry = this.node.blockByHash(loc.blockHash);
    if (!entry || !this.isCanonical(entry)) return undefined;
    const tx = entry.block.transactions[loc.index];
    if (!tx) return undefined;
    return { kind: 'mined', tx, entry, index: loc.index };
  }

  /** Receipts of a block with Besu's metadata (cached for recent blocks). */
  async receipts(entry: ChainEntry): Promise<ReceiptWithMeta[]> {
    const cached = this.receiptCache.get(entry.hash);
    if (cached) return cached;
    const raw: TxReceipt[] = entry.block.transactions.length === 0 ? [] : await this.node.receiptsOf(entry);
    const out = receiptsWithMeta(entry, raw);
    if (this.receiptCache.size >= RECEIPT_CACHE) this.receiptCache.delete(this.receiptCache.keys().next().value as Hex);
    this.receiptCache.set(entry.hash, out);
    return out;
  }

  /**
   * BlockchainQueries.matchingLogs(blockHash, ...): every matching log of the block, no bloom test;
   * logs of a block that is not canonical come with removed = true.
   */
  logsOfBlockHash(entry: ChainEntry, query: LogQuery): Promise<LogWithMeta[]> {
    return this.logsOfBlock(entry, query, !this.isCanonical(entry), false);
  }

  async receiptByTxHash(hash: Hex): Promise<ReceiptWithMeta | undefined> {
    const found = this.minedTransaction(hash.toLowerCase() as Hex);
    if (!found) return undefined;
    return (await this.receipts(found.entry))[found.index];
  }

  // ---- logs -------------------------------------------------------------------------------------

  /** Logs of one block matching `query` (removed: logs of a block a reorganization dropped). */
  async logsOfBlock(entry: ChainEntry, query: LogQuery, removed = false, useBloom = true): Promise<LogWithMeta[]> {
    if (entry.block.transactions.length === 0) return [];
    if (useBloom && !bloomCouldMatch(entry.block.header.logsBloom, query)) return [];
    const out: LogWithMeta[] = [];
    for (const r of await this.receipts(entry))
      for (const log of r.logs) if (logMatches(log, query)) out.push(removed ? { ...log, removed: true } : log);
    return out;
  }

  /** Matching logs of canonical blocks from..to (inclusive; clamped to the head). */
  async logsInRange(from: bigint, to: bigint, query: LogQuery): Promise<LogWithMeta[]> {
    const head = BigInt(this.headNumber());
    const last = to > head ? head : to;
    const out: LogWithMeta[] = [];
    for (let n = from < 0n ? 0n : from; n <= last; n++) {
      await checkPoint(this.pause);
      const entry = this.byNumber(n);
      if (entry) out.push(...(await this.logsOfBlock(entry, query)));
    }
    return out;
  }

  // ---- fees -------------------------------------------------------------------------------------

  /** Base fee of the next block (undefined before London). */
  nextBaseFee(): bigint | undefined {
    const h = this.head().block.header;
    return this.node.nextBaseFee(h, h.number + 1n, h.timestamp + 1n);
  }

  /** The pool's minimum gas price (Besu --min-gas-price). */
  minGasPrice(): bigint {
    return this.node.poolOptions().minGasPrice;
  }

  /** BlockchainQueries.gasPriceLowerBound: max(next base fee, min gas price) on a base-fee market. */
  gasPriceLowerBound(): bigint {
    const min = this.minGasPrice();
    const base = this.nextBaseFee();
    if (base === undefined) return min;
    return base > min ? base : min;
  }

  /** Transactions of the last `gasPriceBlocks` blocks, oldest block first, head last. */
  private recentTransactions(): TypedTransaction[] {
    const head = this.headNumber();
    const out: TypedTransaction[] = [];
    for (let n = Math.max(0, head - this.gasPriceBlocks + 1); n <= head; n++) out.push(...(this.byNumber(n)?.block.transactions ?? []));
    return out;
  }

  private percentileOf(values: bigint[]): bigint {
    const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const k = Math.min(sorted.length - 1, Math.floor(sorted.length * (this.gasPricePercentile / 100)));
    return sorted[k];
  }

  /**
   * BlockchainQueries.gasPrice: the gas prices of legacy/access-list transactions in the last 100
   * blocks; their 50th percentile bounded by [lower bound, gas price max]; the lower bound when
   * there are none.
   */
  gasPrice(): bigint {
    const prices: bigint[] = [];
    for (const tx of this.recentTransactions()) {
      const gp = (tx as unknown as { gasPrice?: bigint }).gasPrice;
      if (gp !== undefined) prices.push(gp);
    }
    const lower = this.gasPriceLowerBound();
    if (prices.length === 0) return lower;
    const p = this.percentileOf(prices);
    const capped = p < this.gasPriceMax ? p : this.gasPriceMax;
    return capped > lower ? capped : lower;
  }

  /** BlockchainQueries.gasPriorityFee: the same over maxPriorityFeePerGas, floored at --min-priority-fee. */
  maxPriorityFeePerGas(): bigint {
    const fees: bigint[] = [];
    for (const tx of this.recentTransactions()) {
      const f = (tx as unknown as { maxPriorityFeePerGas?: bigint }).maxPriorityFeePerGas;
      if (f !== undefined) fees.push(f);
    }
    if (fees.length === 0) return this.minPriorityFeePerGas;
    const p = this.percentileOf(fees);
    return p > this.minPriorityFeePerGas ? p : this.minPriorityFeePerGas;
  }

  // ---- simulation -------------------------------------------------------------------------------

  /** Besu's mining beneficiary of a block (fees and COINBASE go there). */
  beneficiaryAt(number: number, coinbase: Hex): Hex {
    return this.node.schedule.paramsAt(number).miningBeneficiary ?? coinbase;
  }

  callBlockOf(entry: ChainEntry): CallBlockContext {
    const h = entry.block.header;
    return {
      stateRoot: h.stateRoot,
      number: h.number,
      timestamp: h.timestamp,
      gasLimit: h.gasLimit,
      baseFee: h.baseFeePerGas,
      coinbase: this.beneficiaryAt(entry.number, entry.coinbase),
      difficulty: h.difficulty,
      mixHash: h.mixHash,
      parentHash: h.parentHash,
      excessBlobGas: h.excessBlobGas,
    };
  }

  /** TransactionSimulator.simulatePendingBlockHeader: the head's child, on the head's state. */
  pendingCallBlock(): CallBlockContext {
    const head = this.head();
    const h = head.block.header;
    const number = head.number + 1;
    const period = BigInt(this.node.schedule.paramsAt(number).blockPeriodSeconds);
    return {
      stateRoot: h.stateRoot,
      number: BigInt(number),
      timestamp: h.timestamp + period,
      gasLimit: h.gasLimit,
      baseFee: this.node.nextBaseFee(h, BigInt(number), h.timestamp + period),
      coinbase: this.beneficiaryAt(number, this.node.address),
      difficulty: 1n,
      mixHash: h.mixHash,
      parentHash: hexToBytes(head.hash),
      excessBlobGas: h.excessBlobGas === undefined ? undefined : h.calcNextExcessBlobGas(commonAt(this.node.common, number, h.timestamp + period)),
    };
  }

  // ---- pool -------------------------------------------------------------------------------------

  /** Pooled transactions in arrival order, with the node's metadata. */
  poolTransactions(): Array<{ tx: TypedTransaction; hash: Hex; meta: PooledTxMeta }> {
    return this.node.pooledTransactions().map((tx) => {
      const hash = bytesToHex(tx.hash());
      return { tx, hash, meta: this.node.pooledTransactionMeta(hash) ?? { addedAtMs: 0, local: false } };
    });
  }

  /**
   * EthSendRawTransaction: decoding failures answer -32602 "Invalid params"; pool rejections the
   * RpcErrorType of the reason (JsonRpcErrorConverter, without the detail), e.g. -32001 "Nonce too low".
   */
  async sendRawTransaction(raw: Uint8Array): Promise<Hex> {
    // Besu decodes whatever chain the transaction names (the pool then says "Wrong chainId");
    // what does not decode, or carries no valid signature, is "Invalid params".
    let chainId: bigint | undefined;
    try {
      chainId = rawChainId(raw);
    } catch {
      throw rpcError('INVALID_PARAMS');
    }
    if (chainId === undefined || chainId === this.chainId) {
      try {
        const tx = createTxFromRLP(raw, { common: decodingCommon(this.node.common, this.node.nextBlockPosition()) });
        if (!tx.isSigned()) throw new Error('unsigned');
        tx.getSenderAddress();
      } catch {
        throw rpcError('INVALID_PARAMS');
      }
    }
    const result = await this.node.submitTransaction(raw);
    if (result.ok) return result.hash;
    const reason = result.error.split(':')[0] as TxPoolError;
    const known = Object.hasOwn(TX_POOL_RPC_ERRORS, reason) ? TX_POOL_RPC_ERRORS[reason] : undefined;
    if (!known) throw rpcError('INTERNAL_ERROR');
    throw new RpcError(known.code, known.message);
  }

  // ---- network ----------------------------------------------------------------------------------

  /** The node id: the uncompressed public key without its 0x04 prefix, 128 hex digits. */
  nodeId(): string {
    const pub = publicKeyOf(this.node.config.privateKey);
    return bytesToHex(pub.length === 65 ? pub.subarray(1) : pub).slice(2);
  }

  enode(): string {
    return `enode://${this.nodeId()}@${this.p2pHost}:${this.p2pPort}`;
  }

  peers(): string[] {
    return this.node.peers();
  }

  /** eth_syncing: undefined when in sync, else Besu's SyncStatus numbers. */
  syncStatus(): { startingBlock: number; currentBlock: number; highestBlock: number } | undefined {
    const s = this.node.syncStatus();
    const current = this.headNumber();
    if (!s.syncing || s.highestKnown <= current) {
      this.syncStart = undefined;
      return undefined;
    }
    this.syncStart ??= current;
    return { startingBlock: this.syncStart, currentBlock: current, highestBlock: s.highestKnown };
  }
}

/** Receipts with Besu's TransactionReceiptWithMetadata fields. */
export function receiptsWithMeta(entry: ChainEntry, raw: TxReceipt[]): ReceiptWithMeta[] {
  const h = entry.block.header;
  const baseFee = h.baseFeePerGas;
  const out: ReceiptWithMeta[] = [];
  let prev = 0n;
  let logIndex = 0;
  const txs = entry.block.transactions;
  for (let i = 0; i < txs.length && i < raw.length; i++) {
    const tx = txs[i];
    const r = raw[i];
    const hash = bytesToHex(tx.hash());
    const from = tx.getSenderAddress().toString().toLowerCase() as Hex;
    const logs: LogWithMeta[] = r.logs.map(([address, topics, data]) => ({
      logIndex: logIndex++,
      blockNumber: entry.number,
      blockHash: entry.hash,
      blockTimestamp: entry.timestamp,
      transactionHash: hash,
      transactionIndex: i,
      address: bytesToHex(address),
      data,
      topics,
      removed: false,
    }));
    const rec: ReceiptWithMeta = {
      blockHash: entry.hash,
      blockNumber: entry.number,
      blockTimestamp: entry.timestamp,
      transactionHash: hash,
      transactionIndex: i,
      type: tx.type,
      from,
      to: tx.to ? (tx.to.toString().toLowerCase() as Hex) : null,
      contractAddress: tx.to ? null : (bytesToHex(generateAddress(createAddressFromString(from).bytes, bigIntToUnpaddedBytes(tx.nonce))) as Hex),
      cumulativeGasUsed: r.cumulativeBlockGasUsed,
      gasUsed: r.cumulativeBlockGasUsed - prev,
      effectiveGasPrice: effectiveGasPrice(tx, baseFee),
      logsBloom: r.bitvector,
      logs,
    };
    if ('stateRoot' in r) rec.root = (r as { stateRoot: Uint8Array }).stateRoot;
    else rec.status = (r as { status: 0 | 1 }).status;
    // EIP-4844 receipts (ethereumjs' EIP4844BlobTxReceipt) carry the blob gas and its price.
    const blob = r as { blobGasUsed?: bigint; blobGasPrice?: bigint };
    if (blob.blobGasUsed !== undefined) rec.blobGasUsed = blob.blobGasUsed;
    if (blob.blobGasPrice !== undefined) rec.blobGasPrice = blob.blobGasPrice;
    out.push(rec);
    prev = r.cumulativeBlockGasUsed;
  }
  return out;
}

/** The chain id a raw transaction names (undefined: pre-EIP-155 legacy). Throws when malformed. */
function rawChainId(raw: Uint8Array): bigint | undefined {
  if (raw.length === 0) throw new Error('empty');
  const num = (b: unknown) => {
    if (!(b instanceof Uint8Array)) throw new Error('not bytes');
    let v = 0n;
    for (const x of b) v = (v << 8n) | BigInt(x);
    return v;
  };
  if (raw[0] <= 0x7f) {
    const fields = RLP.decode(raw.subarray(1));
    if (!Array.isArray(fields)) throw new Error('malformed typed transaction');
    return num(fields[0]);
  }
  const fields = RLP.decode(raw);
  if (!Array.isArray(fields) || fields.length !== 9) throw new Error('malformed legacy transaction');
  const v = num(fields[6]);
  if (v === 27n || v === 28n) return undefined;
  if (v < 35n) throw new Error(`invalid v ${v}`);
  return (v - 35n) / 2n;
}


function logMatches(log: LogWithMeta, q: LogQuery): boolean {
  if (q.addresses.length > 0 && !q.addresses.includes(log.address)) return false;
  if (q.topics.length === 0) return true;
  return topicsMatch(
    q.topics,
    log.topics.map((t) => bytesToHex(t)),
  );
}

/** Whether a 2048-bit logs bloom may contain `value` (Besu LogsBloomFilter.couldContain). */
function bloomHas(bloom: Uint8Array, value: Uint8Array): boolean {
  const h = keccak256(value);
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i] << 8) | h[i + 1]) & 2047;
    if ((bloom[256 - 1 - (bit >> 3)] & (1 << (bit & 7))) === 0) return false;
  }
  return true;
}

/** LogsQuery.couldMatch: a cheap test on the block's bloom before reading receipts. */
function bloomCouldMatch(bloom: Uint8Array, q: LogQuery): boolean {
  if (q.addresses.length > 0 && !q.addresses.some((a) => bloomHas(bloom, hexToBytes(a)))) return false;
  for (const position of q.topics) {
    // as Besu: nulls are dropped from a position before the bloom test (so [t, null] needs t)
    const concrete = position.filter((t): t is Hex => t !== null);
    if (concrete.length === 0) continue;
    if (!concrete.some((t) => bloomHas(bloom, hexToBytes(t)))) return false;
  }
  return true;
}
