/**
 * Block building and block import on the @ethereumjs VM, for QBFT.
 *
 * - One loop (`applyBody`) over `runTx` does both building and re-execution, so a block built
 *   here and re-executed elsewhere give identical state roots, receipts roots, blooms and gas.
 *   The stock `buildBlock`/`addTransaction` re-runs every earlier transaction on each add
 *   (quadratic); `runBlock` pays a proof-of-work reward whenever the Common says PoW. Neither is
 *   used: the engine never pays any reward of the library's; the QBFT block reward is applied by
 *   us, after the transactions (Besu's order), to the address the caller names.
 * - QBFT block hashes are computed by the chain layer, never by `block.hash()`: parent hashes
 *   come in as parameters, BLOCKHASH is answered from the caller's lookup.
 * - Transaction fees (priority fee, or gas price minus base fee) go to `feeRecipient`, which is
 *   what Besu calls the mining beneficiary (genesis `miningbeneficiary`, else the coinbase). As
 *   in Besu, the COINBASE opcode returns that beneficiary too.
 * - Empty blocks without a reward skip the VM entirely: their state root is the parent's.
 * - State lives in a `TrieNodeStore` (state-db.ts). Memory bound: the engine retains the 256
 *   most recently produced/executed state roots (`retainRoots`) plus pinned ones (genesis,
 *   `pin()`); once the store holds more than max(10,000, 2 x live) nodes a mark-and-sweep drops
 *   everything unreachable from them. Empty blocks write no node at all; a reward-only block
 *   writes ~2. Engines of one process (a simulated world, a one-process network) share one store
 *   and a memo of block outcomes (`store`, `memo`: execution-memo.ts), so a block runs once.
 * - Reads (`call`, `getAccount`, ...) use a second VM so they never disturb the warm caches of
 *   the block VM; each VM serializes its own work (FIFO), so concurrent callers are safe.
 *
 * Supported forks: Frontier..Osaka and the blob-parameter forks. BFT chains run Prague as Besu
 * runs it on PoA: no EIP-2935/6110/7002/7251 system calls, the requestsHash of no requests
 * (node/chain/common.ts); other chains make them (system-calls.ts). QBFT blocks carry no withdrawals and no blob transactions; imported non-BFT
 * chains may (`allowWithdrawalsAndBlobs`), and blob transactions are never built here.
 */
import { Mutex } from '../collections/mutex.ts';
import { Block, BlockHeader, createBlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { TransactionType, type TypedTransaction } from '@ethereumjs/tx';
import {
  Account,
  KECCAK256_RLP,
  SHA256_NULL,
  createAddressFromString,
  createZeroAddress,
  type Withdrawal,
} from '@ethereumjs/util';
import { RLP } from '@ethereumjs/rlp';
import { Bloom, createVM, encodeReceipt, runTx, type RunTxResult, type TxReceipt, type VM } from '@ethereumjs/vm';
import { bytesToHex, equalBytes, uint256ToBytes, type Hex } from '../crypto/bytes.ts';
import { keccak256 } from '../crypto/ethereumjs-crypto.ts';
import { orderedTrieRoot } from './ordered-trie.ts';
import { intrinsicGas } from './intrinsic-gas.ts';
import { stateManagerOn, warmCallParties, withNodeCrypto } from './vm-state.ts';
import { txChainId, useFastCrypto } from './tx-utils.ts';
import { RootRetention, TrieNodeStore, type PruneStats } from './state-db.ts';
import { executionKey, type ExecutionMemo } from './execution-memo.ts';
import { ExecutionError } from './execution-error.ts';
import type { Reward, Rewards } from '../chain/block-reward.ts';
import { BEACON_ROOTS_ADDRESS, MAINNET_DEPOSIT_CONTRACT, collectRequests, makesSystemWrites, preBlockSystemCalls, requestsHash } from './system-calls.ts';

export type { TxReceipt } from '@ethereumjs/vm';
export { txChainId, useFastCrypto } from './tx-utils.ts';

export type { Reward, Rewards } from '../chain/block-reward.ts';

function paidRewards(rewards: Rewards): Reward[] {
  const list = rewards === undefined ? [] : Array.isArray(rewards) ? rewards : [rewards as Reward];
  return list.filter((r) => r.amountWei > 0n);
}

/** Looks up the QBFT (on-chain) hash of an ancestor by number, for BLOCKHASH. */
export type BlockHashLookup = (number: bigint) => Uint8Array | undefined;

export interface BuildRequest {
  parent: Block;
  /** QBFT on-chain hash of the parent. */
  parentHash: Uint8Array;
  number: bigint;
  /** Seconds, virtual. */
  timestamp: number;
  coinbase: Hex;
  extraData: Uint8Array;
  mixHash: Uint8Array;
  /** Default: the parent's gas limit (Besu keeps it when the target equals the current limit). */
  gasLimit?: bigint;
  /** Candidates in order; invalid ones are skipped and reported. */
  transactions: TypedTransaction[];
  reward?: Reward;
  /** Who receives transaction fees: Besu's mining beneficiary. Default: `coinbase`. */
  feeRecipient?: Hex;
  /** Override the EIP-1559 base fee (genesis `zeroBaseFee` / `fixedBaseFee`). */
  baseFee?: bigint;
  /** Ancestor hashes for BLOCKHASH (the parent is known from `parentHash`). */
  blockHashes?: BlockHashLookup;
}

export interface SkippedTx {
  tx: TypedTransaction;
  /** Besu TransactionInvalidReason-like code, e.g. NONCE_TOO_LOW, UPFRONT_COST_EXCEEDS_BALANCE. */
  reason: string;
  message: string;
}

export interface BuildResult {
  block: Block;
  receipts: TxReceipt[];
  skipped: SkippedTx[];
}

export interface ImportResult {
  receipts: TxReceipt[];
  stateRoot: Uint8Array;
  gasUsed: bigint;
}

export interface ExecuteOptions {
  feeRecipient?: Hex;
  blockHashes?: BlockHashLookup;
  /**
   * Imported chains that are not QBFT (Besu's `blocks import` of a mainnet-style chain) carry
   * withdrawals and blob transactions; QBFT blocks never do, and the engine refuses them there.
   */
  allowWithdrawalsAndBlobs?: boolean;
}

export { ExecutionError, type ExecutionErrorReason } from './execution-error.ts';

export interface AccountInfo {
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
  storageRoot: Uint8Array;
}

/** Block context for `call`: a header, or the few fields the EVM reads. */
export type CallContext =
  | BlockHeader
  | {
      number: bigint;
      timestamp: bigint | number;
      gasLimit?: bigint;
      baseFeePerGas?: bigint;
      coinbase?: Hex;
      mixHash?: Uint8Array;
      difficulty?: bigint;
    };

export interface CallResult {
  returnValue: Uint8Array;
  gasUsed: bigint;
  /** EVM exception ('revert', 'out of gas', ...) or an error before execution. */
  error?: string;
  logs?: Array<[Uint8Array, Uint8Array[], Uint8Array]>;
}

export interface CallOptions {
  value?: bigint;
  gasLimit?: bigint;
  blockHashes?: BlockHashLookup;
}

export interface ExecutionEngineOptions {
  common: Common;
  /** Writes the genesis allocation into the (empty) state manager and returns its state root. */
  writeGenesis: (stateManager: MerkleStateManager) => Promise<Uint8Array>;
  /** When given, must equal what `writeGenesis` returns. */
  genesisStateRoot?: Uint8Array;
  /** Share one node store among the engines of a simulated world (content-addressed). */
  store?: TrieNodeStore;
  /** With a shared `store`: outcomes of blocks built or executed by any engine (execution-memo.ts). */
  memo?: ExecutionMemo;
  /** How many recent state roots stay re-openable (default 256; the genesis root is pinned). */
  retainRoots?: number;
  /** Default ancestor-hash lookup for BLOCKHASH (QBFT hashes). Unknown -> zero hash. */
  blockHashes?: BlockHashLookup;
  /** Base fee of the London fork block when London activates after genesis (default 1 gwei). */
  initialBaseFee?: bigint;
  /** Clear the state manager's caches past this many cached accounts (default 100,000). */
  maxCachedAccounts?: number;
  /** EIP-6110's deposit contract (genesis `depositContractAddress`; default mainnet's, as in Besu). */
  depositContractAddress?: Hex;
}

const ZERO32 = new Uint8Array(32);
const ZERO_BLOOM = new Uint8Array(256);
const ZERO_NONCE = new Uint8Array(8);
const DEFAULT_INITIAL_BASE_FEE = 1_000_000_000n;

/** EIP-1559 base fee of the block after `parent` (Besu's LondonFeeMarket.computeBaseFee). */
export function computeBaseFee(parentBaseFee: bigint, parentGasUsed: bigint, parentGasLimit: bigint): bigint {
  const target = parentGasLimit / 2n;
  if (target === 0n || parentGasUsed === target) return parentBaseFee;
  if (parentGasUsed > target) {
    const delta = (parentBaseFee * (parentGasUsed - target)) / target / 8n;
    return parentBaseFee + (delta > 1n ? delta : 1n);
  }
  const delta = (parentBaseFee * (target - parentGasUsed)) / target / 8n;
  return parentBaseFee - delta;
}


/** The EVM's `blockchain`: answers BLOCKHASH with QBFT hashes. */
class HashLookupChain {
  parent?: { number: bigint; hash: Uint8Array };
  lookup?: BlockHashLookup;
  fallback?: BlockHashLookup;
  async getBlock(n: number): Promise<{ hash(): Uint8Array }> {
    const num = BigInt(n);
    let h: Uint8Array | undefined;
    if (this.parent && this.parent.number === num) h = this.parent.hash;
    h ??= this.lookup?.(num) ?? this.fallback?.(num);
    const hash = h ?? ZERO32;
    return { hash: () => hash };
  }
  async putBlock(): Promise<void> {}
  shallowCopy(): HashLookupChain {
    return this;
  }
}

interface VmSlot {
  vm: VM;
  sm: MerkleStateManager;
  chain: HashLookupChain;
  common: Common;
  /** The state root the state manager is positioned at (and its caches describe), if known. */
  root?: Uint8Array;
  mutex: Mutex;
}

interface BodyResult {
  included: TypedTransaction[];
  receipts: TxReceipt[];
  skipped: SkippedTx[];
  gasUsed: bigint;
  bloom: Uint8Array;
  stateRoot: Uint8Array;
  /** EIP-7685 requestsHash of what the body produced (from Prague). */
  requestsHash?: Uint8Array;
}

/** Maps a runTx error message to a Besu TransactionInvalidReason-like code. */
export function classifyTxError(tx: TypedTransaction, message: string, accountNonce?: bigint): string {
  if (message.includes("doesn't have the correct nonce")) {
    const m = /account has nonce of: (\d+)/.exec(message);
    const n = m ? BigInt(m[1]) : accountNonce;
    return n !== undefined && tx.nonce < n ? 'NONCE_TOO_LOW' : 'NONCE_TOO_HIGH';
  }
  if (message.includes("doesn't have enough funds")) return 'UPFRONT_COST_EXCEEDS_BALANCE';
  if (message.includes("is less than the block's baseFeePerGas")) return 'GAS_PRICE_BELOW_CURRENT_BASE_FEE';
  if (message.includes('INTRINSIC_GAS_TOO_LOW')) return 'INTRINSIC_GAS_EXCEEDS_GAS_LIMIT';
  if (message.includes('Invalid Signature') || message.includes('invalid signature')) return 'INVALID_SIGNATURE';
  if (message.includes('EIP-3607')) return 'TX_SENDER_NOT_AUTHORIZED';
  if (message.includes('higher gas limit than the block')) return 'EXCEEDS_BLOCK_GAS_LIMIT';
  if (message.includes('initcode size')) return 'INITCODE_TOO_LARGE';
  if (message.includes('EIP 1559 is not activated') || message.includes('EIP 2930 is not activated'))
    return 'INVALID_TRANSACTION_FORMAT';
  return 'INTERNAL_ERROR';
}

export class ExecutionEngine {
  readonly store: TrieNodeStore;
  readonly retention: RootRetention;
  readonly genesisStateRoot: Uint8Array;
  private readonly main: VmSlot;
  private readonly reader: VmSlot;
  private readonly initialBaseFee: bigint;
  private readonly maxCachedAccounts: number;
  private readonly releaseRetainer: () => void;
  /** A Common copy only for fork questions asked outside the mutexes (nextBaseFee). */
  private readonly probe: Common;
  private readonly memo?: ExecutionMemo;
  private readonly depositContract: Hex;
  /** Counters for diagnostics and tests. */
  readonly stats = { built: 0, executed: 0, fastPath: 0, txsRun: 0, memoHits: 0 };

  private constructor(
    private readonly common: Common,
    store: TrieNodeStore,
    main: VmSlot,
    reader: VmSlot,
    genesisRoot: Uint8Array,
    opts: ExecutionEngineOptions,
  ) {
    this.store = store;
    this.main = main;
    this.reader = reader;
    this.genesisStateRoot = genesisRoot;
    this.retention = new RootRetention(opts.retainRoots ?? 256);
    this.retention.pin(genesisRoot);
    this.releaseRetainer = store.addRetainer(() => this.retention.roots());
    this.initialBaseFee = opts.initialBaseFee ?? DEFAULT_INITIAL_BASE_FEE;
    this.maxCachedAccounts = opts.maxCachedAccounts ?? 100_000;
    this.probe = common.copy();
    this.memo = opts.memo;
    this.depositContract = opts.depositContractAddress ?? MAINNET_DEPOSIT_CONTRACT;
  }

  static async create(opts: ExecutionEngineOptions): Promise<ExecutionEngine> {
    const store = opts.store ?? new TrieNodeStore();
    const main = await ExecutionEngine.makeSlot(opts.common, store, opts.blockHashes);
    const reader = await ExecutionEngine.makeSlot(opts.common, store, opts.blockHashes);
    store.beginWork();
    let root: Uint8Array;
    try {
      root = await opts.writeGenesis(main.sm);
      await main.sm.getStateRoot(); // flush caches into the trie
      root = await main.sm.getStateRoot();
    } finally {
      store.endWork();
    }
    if (opts.genesisStateRoot && !equalBytes(opts.genesisStateRoot, root))
      throw new Error(
        `genesis state root mismatch: expected ${bytesToHex(opts.genesisStateRoot)}, wrote ${bytesToHex(root)}`,
      );
    main.root = root;
    return new ExecutionEngine(opts.common, store, main, reader, root, opts);
  }

  private static async makeSlot(common: Common, store: TrieNodeStore, fallback?: BlockHashLookup): Promise<VmSlot> {
    const vmCommon = withNodeCrypto(common.copy());
    const sm = stateManagerOn(vmCommon, store);
    const chain = new HashLookupChain();
    chain.fallback = fallback;
    const vm = await createVM({ common: vmCommon, stateManager: sm, blockchain: chain as never });
    return { vm, sm, chain, common: vmCommon, mutex: new Mutex() };
  }

  /** Stops retaining this engine's roots in a shared store. */
  close(): void {
    this.releaseRetainer();
  }

  // ---- public API -------------------------------------------------------------------------------

  /** Builds a block on `req.parent` with the valid candidates, in order (linear: one runTx each). */
  buildBlock(req: BuildRequest): Promise<BuildResult> {
    return this.main.mutex.run(() => this.buildLocked(req));
  }

  /**
   * Re-executes a received block on its parent's state and checks every execution-dependent
   * header field (state root, receipts root, bloom, gas used, transactions root, withdrawals).
   * Header rules that need the parent header (base fee, gas limit bounds, timestamps, extraData,
   * seals) are the chain/consensus layer's.
   */
  executeBlock(block: Block, parentStateRoot: Uint8Array, reward?: Rewards, opts: ExecuteOptions = {}): Promise<ImportResult> {
    return this.main.mutex.run(() => this.executeLocked(block, parentStateRoot, reward, opts));
  }

  /** eth_call-like: runs a message call on `stateRoot`, discards every state change. */
  call(stateRoot: Uint8Array, ctx: CallContext, to: Hex, data: Uint8Array, from?: Hex, opts: CallOptions = {}): Promise<CallResult> {
    return this.reader.mutex.run(() => this.callLocked(stateRoot, ctx, to, data, from, opts));
  }

  getAccount(stateRoot: Uint8Array, address: Hex): Promise<AccountInfo | undefined> {
    return this.reader.mutex.run(async () => {
      await this.position(this.reader, stateRoot);
      const a = await this.reader.sm.getAccount(createAddressFromString(address));
      if (!a) return undefined;
      return { nonce: a.nonce, balance: a.balance, codeHash: a.codeHash, storageRoot: a.storageRoot };
    });
  }

  getCode(stateRoot: Uint8Array, address: Hex): Promise<Uint8Array> {
    return this.reader.mutex.run(async () => {
      await this.position(this.reader, stateRoot);
      return this.reader.sm.getCode(createAddressFromString(address));
    });
  }

  /** Storage slot value, left-padded to 32 bytes (as eth_getStorageAt returns it). */
  getStorage(stateRoot: Uint8Array, address: Hex, slot: Uint8Array | bigint): Promise<Uint8Array> {
    const key = typeof slot === 'bigint' ? uint256ToBytes(slot) : leftPad32(slot);
    return this.reader.mutex.run(async () => {
      await this.position(this.reader, stateRoot);
      const v = await this.reader.sm.getStorage(createAddressFromString(address), key);
      return leftPad32(v);
    });
  }

  /** True when `stateRoot` can be opened (retained, or not yet swept). */
  hasState(stateRoot: Uint8Array): boolean {
    return this.store.hasRoot(stateRoot);
  }

  /** Keep a state root re-openable until `unpin` (e.g. the finalized head, a long RPC session). */
  pin(stateRoot: Uint8Array): void {
    this.retention.pin(stateRoot);
  }

  unpin(stateRoot: Uint8Array): void {
    this.retention.unpin(stateRoot);
  }

  /** Forces a sweep of the node store now (normally automatic). */
  prune(): PruneStats {
    return this.store.prune();
  }

  /** Base fee for block `number` on top of `parent` (undefined before London). */
  nextBaseFee(parent: BlockHeader, number: bigint, timestamp: number | bigint): bigint | undefined {
    const c = this.probe;
    c.setHardforkBy({ blockNumber: number, timestamp: BigInt(timestamp) });
    if (!c.isActivatedEIP(1559)) return undefined;
    if (parent.baseFeePerGas === undefined) return this.initialBaseFee;
    return computeBaseFee(parent.baseFeePerGas, parent.gasUsed, parent.gasLimit);
  }

  // ---- internals --------------------------------------------------------------------------------

  private async buildLocked(req: BuildRequest): Promise<BuildResult> {
    const parentRoot = req.parent.header.stateRoot;
    this.requireState(parentRoot);
    const c = this.setFork(this.main, req.number, req.timestamp);
    const gasLimit = req.gasLimit ?? req.parent.header.gasLimit;
    const baseFee = c.isActivatedEIP(1559)
      ? (req.baseFee ?? this.nextBaseFeeFor(req.parent.header))
      : undefined;
    const shanghai = c.isActivatedEIP(4895);
    const cancun = c.isActivatedEIP(4844);
    const headerData = {
      parentHash: req.parentHash,
      coinbase: req.coinbase,
      difficulty: 1n,
      number: req.number,
      gasLimit,
      timestamp: BigInt(req.timestamp),
      extraData: req.extraData,
      mixHash: req.mixHash,
      nonce: ZERO_NONCE,
      baseFeePerGas: baseFee,
      withdrawalsRoot: shanghai ? KECCAK256_RLP : undefined,
      blobGasUsed: cancun ? 0n : undefined,
      excessBlobGas: cancun ? req.parent.header.calcNextExcessBlobGas(c) : undefined,
      parentBeaconBlockRoot: c.isActivatedEIP(4788) ? ZERO32 : undefined,
      requestsHash: c.isActivatedEIP(7685) ? SHA256_NULL : undefined,
    };
    const rewards = paidRewards(req.reward);

    let body: BodyResult;
    if (req.transactions.length === 0 && rewards.length === 0 && !(await this.hasSystemWrites(c, parentRoot))) {
      this.stats.fastPath++;
      body = { included: [], receipts: [], skipped: [], gasUsed: 0n, bloom: ZERO_BLOOM, stateRoot: parentRoot, requestsHash: headerData.requestsHash };
    } else {
      const ctx = this.contextBlock(c, { ...headerData, coinbase: req.feeRecipient ?? req.coinbase });
      this.main.chain.parent = { number: req.number - 1n, hash: req.parentHash };
      this.main.chain.lookup = req.blockHashes;
      body = await this.applyBody(ctx, req.transactions, 'build', parentRoot, rewards, []);
    }
    const transactionsTrie = transactionsRoot(body.included);
    const receiptTrie = receiptsRoot(body.included, body.receipts);
    const header = createBlockHeader(
      {
        ...headerData,
        requestsHash: body.requestsHash,
        stateRoot: body.stateRoot,
        transactionsTrie,
        receiptTrie,
        logsBloom: body.bloom,
        gasUsed: body.gasUsed,
      },
      { common: c, skipConsensusFormatValidation: true },
    );
    const block = new Block(header, body.included, [], shanghai ? [] : undefined, {
      common: c,
      skipConsensusFormatValidation: true,
    });
    this.retention.touch(body.stateRoot);
    this.stats.built++;
    if (this.memo)
      this.memo.set(executionKey({ header, parentStateRoot: parentRoot, hardfork: c.hardfork(), rewards, feeRecipient: req.feeRecipient, foreign: false }), {
        stateRoot: body.stateRoot,
        receipts: body.receipts,
        gasUsed: body.gasUsed,
        bloom: body.bloom,
        requestsHash: body.requestsHash,
      });
    this.store.maybePrune();
    return { block, receipts: body.receipts, skipped: body.skipped };
  }

  private async executeLocked(
    block: Block,
    parentStateRoot: Uint8Array,
    rewardsIn: Rewards,
    opts: ExecuteOptions,
  ): Promise<ImportResult> {
    const h = block.header;
    this.requireState(parentStateRoot);
    const c = this.setFork(this.main, h.number, h.timestamp);
    const rewards = paidRewards(rewardsIn);
    const foreign = opts.allowWithdrawalsAndBlobs === true;

    // body-level checks that need no execution
    const withdrawals = block.withdrawals ?? [];
    if (c.isActivatedEIP(4895)) {
      if (!foreign && withdrawals.length !== 0) throw new ExecutionError('INVALID_WITHDRAWALS', 'QBFT blocks carry no withdrawals');
      const root = withdrawalsRoot(withdrawals);
      if (!h.withdrawalsRoot || !equalBytes(h.withdrawalsRoot, root))
        throw new ExecutionError('INVALID_WITHDRAWALS', `withdrawals root ${h.withdrawalsRoot ? bytesToHex(h.withdrawalsRoot) : 'missing'}, body ${bytesToHex(root)}`);
    } else if (withdrawals.length > 0) throw new ExecutionError('INVALID_WITHDRAWALS', 'withdrawals before Shanghai');
    if (c.isActivatedEIP(4844)) {
      const blobGas = foreign ? block.transactions.reduce((sum, tx) => sum + blobGasOf(tx, c), 0n) : 0n;
      if (h.blobGasUsed !== blobGas) throw new ExecutionError('INVALID_BLOB_GAS', `blobGasUsed ${h.blobGasUsed}, expected ${blobGas}`);
    }
    const txRoot = transactionsRoot(block.transactions);
    if (!equalBytes(txRoot, h.transactionsTrie))
      throw new ExecutionError('INVALID_TRANSACTIONS_ROOT', `got ${bytesToHex(txRoot)}, header ${bytesToHex(h.transactionsTrie)}`);

    const memoKey = this.memo
      ? executionKey({ header: h, parentStateRoot, hardfork: c.hardfork(), rewards, feeRecipient: opts.feeRecipient, foreign })
      : undefined;
    const known = memoKey === undefined ? undefined : this.memo!.get(memoKey);
    let body: BodyResult;
    if (known && this.store.hasRoot(known.stateRoot)) {
      this.stats.memoHits++;
      body = { included: block.transactions, receipts: known.receipts, skipped: [], gasUsed: known.gasUsed, bloom: known.bloom, stateRoot: known.stateRoot, requestsHash: known.requestsHash };
    } else if (block.transactions.length === 0 && rewards.length === 0 && withdrawals.length === 0 && !(await this.hasSystemWrites(c, parentStateRoot))) {
      this.stats.fastPath++;
      body = { included: [], receipts: [], skipped: [], gasUsed: 0n, bloom: ZERO_BLOOM, stateRoot: parentStateRoot, requestsHash: c.isActivatedEIP(7685) ? SHA256_NULL : undefined };
    } else {
      const ctx = this.contextBlock(c, {
        parentHash: h.parentHash,
        coinbase: opts.feeRecipient ?? h.coinbase.toString(),
        difficulty: h.difficulty,
        number: h.number,
        gasLimit: h.gasLimit,
        timestamp: h.timestamp,
        extraData: h.extraData,
        mixHash: h.mixHash,
        nonce: h.nonce,
        baseFeePerGas: h.baseFeePerGas,
        withdrawalsRoot: h.withdrawalsRoot,
        blobGasUsed: h.blobGasUsed,
        excessBlobGas: h.excessBlobGas,
        parentBeaconBlockRoot: h.parentBeaconBlockRoot,
        requestsHash: h.requestsHash,
      });
      this.main.chain.parent = { number: h.number - 1n, hash: h.parentHash };
      this.main.chain.lookup = opts.blockHashes;
      body = await this.applyBody(ctx, block.transactions, 'execute', parentStateRoot, rewards, withdrawals, foreign);
    }

    if (body.gasUsed !== h.gasUsed)
      throw new ExecutionError('INVALID_GAS_USED', `executed ${body.gasUsed}, header ${h.gasUsed}`);
    const rRoot = receiptsRoot(block.transactions, body.receipts);
    if (!equalBytes(rRoot, h.receiptTrie))
      throw new ExecutionError('INVALID_RECEIPTS_ROOT', `executed ${bytesToHex(rRoot)}, header ${bytesToHex(h.receiptTrie)}`);
    if (!equalBytes(body.bloom, h.logsBloom)) throw new ExecutionError('INVALID_LOGS_BLOOM', 'logs bloom differs');
    if (!equalBytes(body.stateRoot, h.stateRoot))
      throw new ExecutionError('INVALID_STATE_ROOT', `executed ${bytesToHex(body.stateRoot)}, header ${bytesToHex(h.stateRoot)}`);
    if (body.requestsHash !== undefined && (!h.requestsHash || !equalBytes(h.requestsHash, body.requestsHash)))
      throw new ExecutionError('INVALID_REQUESTS_HASH', `requestsHash ${h.requestsHash ? bytesToHex(h.requestsHash) : 'missing'}, executed ${bytesToHex(body.requestsHash)}${equalBytes(body.requestsHash, SHA256_NULL) ? ' (no requests)' : ''}`);

    this.retention.touch(body.stateRoot);
    this.stats.executed++;
    if (memoKey !== undefined) this.memo!.set(memoKey, { stateRoot: body.stateRoot, receipts: body.receipts, gasUsed: body.gasUsed, bloom: body.bloom, requestsHash: body.requestsHash });
    this.store.maybePrune();
    return { receipts: body.receipts, stateRoot: body.stateRoot, gasUsed: body.gasUsed };
  }

  /**
   * The one transaction loop. 'build' skips invalid candidates; 'execute' throws on the first
   * invalid transaction. Always leaves the state manager committed at the returned root (or, on a
   * throw, reverted to the parent's).
   */
  private async applyBody(
    ctx: Block,
    txs: TypedTransaction[],
    mode: 'build' | 'execute',
    parentRoot: Uint8Array,
    rewards: readonly Reward[],
    withdrawals: readonly Withdrawal[],
    acceptBlobs = false,
  ): Promise<BodyResult> {
    const slot = this.main;
    const vm = slot.vm;
    const c = slot.common;
    const gasLimit = ctx.header.gasLimit;
    const chainId = c.chainId();
    this.store.beginWork();
    try {
      await this.position(slot, parentRoot);
      await vm.evm.journal.checkpoint();
      const included: TypedTransaction[] = [];
      const receipts: TxReceipt[] = [];
      const skipped: SkippedTx[] = [];
      const bloom = new Bloom(undefined, c);
      let gasUsed = 0n;
      let receiptGas = 0n;
      let requestsCommitment: Uint8Array | undefined;
      try {
        await preBlockSystemCalls(vm, ctx);
        for (let i = 0; i < txs.length; i++) {
          const tx = txs[i];
          const reject = (reason: string, message: string): void => {
            if (mode === 'execute') throw new ExecutionError('INVALID_TRANSACTION', `tx ${i}: ${reason}: ${message}`);
            skipped.push({ tx, reason, message });
          };
          if (tx.type === TransactionType.BlobEIP4844 && !acceptBlobs) {
            reject('INVALID_TRANSACTION_FORMAT', 'blob transactions are not supported');
            continue;
          }
          const txChain = txChainId(tx);
          if (txChain !== undefined && txChain !== chainId) {
            reject('WRONG_CHAIN_ID', `transaction chain id ${txChain}, chain ${chainId}`);
            continue;
          }
          if (tx.gasLimit > gasLimit - gasUsed) {
            if (mode === 'execute')
              throw new ExecutionError('GAS_LIMIT_EXCEEDED', `tx ${i}: gas limit ${tx.gasLimit} over the ${gasLimit - gasUsed} left`);
            reject('EXCEEDS_BLOCK_GAS_LIMIT', `gas limit ${tx.gasLimit} over the ${gasLimit - gasUsed} left in the block`);
            continue;
          }
          useFastCrypto(tx);
          let res: RunTxResult;
          try {
            res = await runTx(vm, { tx, block: ctx, blockGasUsed: receiptGas });
          } catch (e) {
            const message = e instanceof Error ? e.message : String(e);
            reject(classifyTxError(tx, message), message);
            continue;
          }
          this.stats.txsRun++;
          gasUsed += res.blockGasSpent ?? res.totalGasSpent;
          receiptGas += res.totalGasSpent;
          bloom.or(res.bloom);
          receipts.push(res.receipt);
          included.push(tx);
        }
        for (const reward of rewards) await this.credit(reward.to, reward.amountWei);
        // EIP-4895: amounts are in gwei; no gas, no logs, after the transactions.
        for (const w of withdrawals) await this.credit(w.address.toString(), w.amount * 1_000_000_000n);
        if (rewards.length > 0 || withdrawals.length > 0) await vm.evm.journal.cleanup();
        if (c.isActivatedEIP(7685)) requestsCommitment = requestsHash(await collectRequests(vm, ctx, receipts, this.depositContract));
        await vm.evm.journal.commit();
      } catch (e) {
        await vm.evm.journal.revert();
        slot.root = undefined; // be safe: re-open the parent state next time
        throw e;
      }
      const stateRoot = await slot.sm.getStateRoot();
      slot.root = stateRoot;
      this.trimCaches(slot);
      return { included, receipts, skipped, gasUsed, bloom: bloom.bitvector, stateRoot, requestsHash: requestsCommitment };
    } finally {
      this.store.endWork();
    }
  }

  private async credit(address: string, amountWei: bigint): Promise<void> {
    const vm = this.main.vm;
    const to = createAddressFromString(address);
    const account = (await vm.stateManager.getAccount(to)) ?? new Account();
    account.balance += amountWei;
    await vm.evm.journal.putAccount(to, account);
  }

  private async callLocked(
    stateRoot: Uint8Array,
    ctxIn: CallContext,
    to: Hex,
    data: Uint8Array,
    from: Hex | undefined,
    opts: CallOptions,
  ): Promise<CallResult> {
    const slot = this.reader;
    const number = ctxIn.number;
    const timestamp = BigInt(ctxIn.timestamp);
    const c = this.setFork(slot, number, timestamp);
    const gasLimit = opts.gasLimit ?? ctxIn.gasLimit ?? 30_000_000n;
    const isHeader = ctxIn instanceof BlockHeader;
    const ctx = this.contextBlock(c, {
      number,
      timestamp,
      gasLimit: ctxIn.gasLimit ?? gasLimit,
      coinbase: isHeader ? ctxIn.coinbase.toString() : (ctxIn.coinbase ?? createZeroAddress().toString()),
      difficulty: isHeader ? ctxIn.difficulty : (ctxIn.difficulty ?? 1n),
      mixHash: ctxIn.mixHash ?? ZERO32,
      baseFeePerGas: c.isActivatedEIP(1559) ? (ctxIn.baseFeePerGas ?? 0n) : undefined,
      excessBlobGas: c.isActivatedEIP(4844) ? ((isHeader ? ctxIn.excessBlobGas : undefined) ?? 0n) : undefined,
      blobGasUsed: c.isActivatedEIP(4844) ? 0n : undefined,
      parentBeaconBlockRoot: c.isActivatedEIP(4788) ? ZERO32 : undefined,
      withdrawalsRoot: c.isActivatedEIP(4895) ? KECCAK256_RLP : undefined,
      requestsHash: c.isActivatedEIP(7685) ? SHA256_NULL : undefined,
    });
    slot.chain.parent = isHeader ? { number: number - 1n, hash: ctxIn.parentHash } : undefined;
    slot.chain.lookup = opts.blockHashes;
    this.requireState(stateRoot);
    await this.position(slot, stateRoot);
    const vm = slot.vm;
    const caller = from ? createAddressFromString(from) : createZeroAddress();
    const target = createAddressFromString(to);
    // intrinsic gas as a transaction would pay it (eth_call reports it too)
    const intrinsic = intrinsicGas(c, data, false);
    await vm.evm.journal.checkpoint();
    try {
      warmCallParties(vm, caller.toString(), target.toString());
      const res = await vm.evm.runCall({
        block: ctx,
        caller,
        to: target,
        data,
        value: opts.value ?? 0n,
        gasLimit: gasLimit > intrinsic ? gasLimit - intrinsic : 0n,
        gasPrice: 0n,
        origin: caller,
      });
      const ex = res.execResult;
      return {
        returnValue: ex.returnValue,
        gasUsed: intrinsic + ex.executionGasUsed,
        error: ex.exceptionError?.error,
        logs: ex.logs as CallResult['logs'],
      };
    } catch (e) {
      return { returnValue: new Uint8Array(0), gasUsed: 0n, error: e instanceof Error ? e.message : String(e) };
    } finally {
      await vm.evm.journal.revert();
      vm.evm.journal.cleanJournal();
    }
  }

  /** Positions a slot's state manager at `root` (no-op when already there). */
  private async position(slot: VmSlot, root: Uint8Array): Promise<void> {
    if (slot.root && equalBytes(slot.root, root)) return;
    this.requireState(root);
    try {
      await slot.sm.setStateRoot(root, true);
    } catch (e) {
      throw new ExecutionError('UNKNOWN_PARENT_STATE', `cannot open state ${bytesToHex(root)}: ${(e as Error).message}`);
    }
    slot.root = root.slice();
  }

  private requireState(root: Uint8Array): void {
    if (!this.store.hasRoot(root))
      throw new ExecutionError('UNKNOWN_PARENT_STATE', `state ${bytesToHex(root)} is not available (never computed here, or pruned)`);
  }

  private setFork(slot: VmSlot, number: bigint, timestamp: number | bigint): Common {
    const c = slot.common;
    c.setHardforkBy({ blockNumber: number, timestamp: BigInt(timestamp) });
    return c;
  }

  private nextBaseFeeFor(parent: BlockHeader): bigint {
    if (parent.baseFeePerGas === undefined) return this.initialBaseFee;
    return computeBaseFee(parent.baseFeePerGas, parent.gasUsed, parent.gasLimit);
  }

  private contextBlock(c: Common, data: Record<string, unknown>): Block {
    const header = createBlockHeader(data as never, { common: c, skipConsensusFormatValidation: true });
    return new Block(header, [], [], undefined, { common: c, skipConsensusFormatValidation: true });
  }


  /**
   * EIP-4788: only writes when the beacon-roots contract has code, and never on BFT chains: Besu's
   * specs for Clique, IBFT 2.0 and QBFT run no pre-execution processor (MainnetProtocolSpecs).
   */
  private async hasSystemWrites(c: Common, root: Uint8Array): Promise<boolean> {
    if (c.consensusType() === 'bft') return false;
    if (makesSystemWrites(c)) return true;
    if (!c.isActivatedEIP(4788)) return false;
    return this.reader.mutex.run(async () => {
      await this.position(this.reader, root);
      return (await this.reader.sm.getCode(BEACON_ROOTS_ADDRESS)).length > 0;
    });
  }

  private trimCaches(slot: VmSlot): void {
    const caches = (slot.sm as unknown as { _caches?: { account?: { size(): number } } })._caches;
    const size = caches?.account?.size?.() ?? 0;
    if (size > this.maxCachedAccounts) slot.sm.clearCaches();
  }
}

/** Transactions root of a body (ordered trie of the transactions' canonical encodings). */
export function transactionsRoot(txs: TypedTransaction[]): Uint8Array {
  return txs.length === 0 ? KECCAK256_RLP : orderedTrieRoot(txs.map((tx) => tx.serialize()), keccak256);
}

/** Withdrawals root (ordered trie of the RLP-encoded withdrawals). */
export function withdrawalsRoot(withdrawals: readonly Withdrawal[]): Uint8Array {
  return withdrawals.length === 0 ? KECCAK256_RLP : orderedTrieRoot(withdrawals.map((w) => RLP.encode(w.raw())), keccak256);
}

function blobGasOf(tx: TypedTransaction, c: Common): bigint {
  if (tx.type !== TransactionType.BlobEIP4844) return 0n;
  const hashes = (tx as unknown as { blobVersionedHashes: unknown[] }).blobVersionedHashes;
  return BigInt(hashes.length) * c.param('blobGasPerBlob');
}

/** Receipts root (ordered trie of EIP-2718 encoded receipts). */
export function receiptsRoot(txs: TypedTransaction[], receipts: TxReceipt[]): Uint8Array {
  if (receipts.length === 0) return KECCAK256_RLP;
  return orderedTrieRoot(receipts.map((r, i) => encodeReceipt(r, txs[i].type)), keccak256);
}

function leftPad32(b: Uint8Array): Uint8Array {
  if (b.length >= 32) return b.subarray(b.length - 32);
  const out = new Uint8Array(32);
  out.set(b, 32 - b.length);
  return out;
}


