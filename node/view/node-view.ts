/**
 * What the world outside the node sees of it: one read-only NodeView (the simulator, its checkers,
 * the reports, JSON-RPC through NodeApi, metrics, the command line) and the named actions it may
 * take (NodeActions). Nothing outside reaches the node's parts; the composition root
 * (node/node.ts) builds them and hands each its collaborators.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { Hex } from '../crypto/bytes.ts';
import type { BlockHasher, ChainEntry, ReorgEvent } from '../chain/chain.ts';
import type { QbftForkSchedule } from '../chain/fork-schedule.ts';
import type { AccountInfo, CallContext, CallResult, TxReceipt } from '../execution/engine.ts';
import type { AddResult, TxPoolOptions } from '../execution/tx-pool.ts';
import type { TrieNodeStore } from '../execution/state-db.ts';
import type { NodePrivacy } from '../privacy/node-privacy.ts';
import type { BesuHooks } from '../bugs/hooks.ts';
import type { NodeProposedBlock } from '../consensus/proposed-block.ts';
import type { HeightContext } from '../consensus/qbft/core-types.ts';
import type { HeldState } from '../consensus/qbft/height-manager.ts';
import type { QbftStats } from '../consensus/qbft-service.ts';
import type { Clock, PeerId, Random } from '../runtime/ports.ts';
import type { NodeConfig, ProposalBlockSpec } from './node-config.ts';

export type ImportOutcome = { ok: true; status: 'head' | 'side' | 'known' } | { ok: false; reason: string };

export type SubmitOutcome = { ok: true; hash: Hex } | { ok: false; error: string };

/** Where a canonical transaction sits: its block's on-chain (QBFT) hash and its index there. */
export interface TxLocation {
  blockHash: Hex;
  blockNumber: number;
  index: number;
}

/** What the node remembers about a pooled transaction (Besu's PendingTransaction metadata). */
export interface PooledTxMeta {
  /** When the pool accepted it, on the node's clock (ms since the epoch). */
  addedAtMs: number;
  /** Submitted through this node's API (eth_sendRawTransaction) rather than received from a peer. */
  local: boolean;
}

/**
 * Besu's BftMiningCoordinator state machine, as seen by miner_start / miner_stop / eth_mining.
 * In Besu these only flip the coordinator's state (PAUSED/IDLE/RUNNING); the QBFT processor keeps
 * running and the validator keeps proposing and voting. qbft-lab does the same.
 */
export type MiningState = 'IDLE' | 'RUNNING' | 'STOPPED' | 'PAUSED';

export interface SyncStatus {
  syncing: boolean;
  highestKnown: number;
  peers: number;
}

/** Counts of the execution engine's work since the node started. */
export interface ExecutionStats {
  built: number;
  executed: number;
  fastPath: number;
  txsRun: number;
  memoHits: number;
}

export type HeadListener = (head: ChainEntry, reorg: ReorgEvent) => void;

/** Read-only queries of a running node. */
export interface NodeView {
  readonly name: string;
  readonly address: Hex;
  readonly config: Readonly<NodeConfig>;
  /**
   * False for a genesis without a BFT section (`ethash`): such a chain is only imported and served
   * (Besu's `blocks import` of a mainnet-style chain). It has plain header hashes, proof-of-work
   * rewards, no proof-of-work checks, no consensus service and no validators.
   */
  readonly bft: boolean;
  readonly common: Common;
  readonly schedule: QbftForkSchedule;
  /** Its behaviour at Besu's bug hook points (node/bugs/hooks.ts): current Besu unless its config turns known-bug switches on. */
  readonly hooks: BesuHooks;
  readonly hashOf: BlockHasher;
  /** The node's clock and random source (its runtime's): RPC reads time and draws ids from them. */
  readonly clock: Clock;
  readonly random: Random;

  // ---- the chain
  head(): ChainEntry;
  genesisBlock(): ChainEntry;
  /** The canonical block at a height. */
  blockAt(number: number): ChainEntry | undefined;
  /** Any stored block, canonical or not. */
  blockByHash(hash: Hex): ChainEntry | undefined;
  isCanonical(entry: ChainEntry): boolean;
  /** Called after every new head (and its reorg), once the pool and the index moved with it; returns the unsubscribe. */
  onNewHead(listener: HeadListener): () => void;
  /** Receipts of a block: executed here, else persisted (canonical blocks), else re-executed on demand. */
  receiptsOf(entry: ChainEntry): Promise<TxReceipt[]>;
  /** The canonical block and position of a transaction, if it is in the (bounded) index. */
  transactionLocation(hash: Hex): TxLocation | undefined;

  // ---- state
  hasState(stateRoot: Uint8Array): boolean;
  account(stateRoot: Uint8Array, address: Hex): Promise<AccountInfo | undefined>;
  code(stateRoot: Uint8Array, address: Hex): Promise<Uint8Array>;
  storage(stateRoot: Uint8Array, address: Hex, slot: Uint8Array | bigint): Promise<Uint8Array>;
  call(stateRoot: Uint8Array, ctx: CallContext, to: Hex, data: Uint8Array): Promise<CallResult>;
  /** The base fee of a child of `parent` at (number, timestamp); undefined before London. */
  nextBaseFee(parent: BlockHeader, number: bigint, timestamp: number | bigint): bigint | undefined;
  /**
   * Where the next block falls in the fork schedule: the head's child at the present time (Besu's
   * pool validates against getForNextBlockHeader(head, now)). Raw transactions decode under its fork.
   */
  nextBlockPosition(): { blockNumber: bigint; timestamp: bigint };
  /** The trie node store the world state lives in (RPC's simulators read it). */
  stateStore(): TrieNodeStore;
  executionStats(): Readonly<ExecutionStats>;
  /** Stored blocks re-executed on the last start (0 when the persisted state was at the head). */
  replayedOnStart(): number;

  // ---- validators and consensus
  /** The validators of the child of `parent`. */
  validatorsAfter(parent: ChainEntry): Promise<Hex[]>;
  /** The validators of a block itself (Besu's ValidatorProvider.getValidatorsForBlock). */
  validatorsOf(entry: ChainEntry): Promise<Hex[]>;
  isContractModeAt(blockNumber: number, timestamp?: number): boolean;
  /** Validator votes this node will put into its next blocks, in proposal order. */
  pendingVotes(): Map<Hex, boolean>;
  /** The consensus context of the height after `parent` (validators, block timer, timeouts). */
  heightContext(parent: ChainEntry): Promise<HeightContext>;
  /** Undefined without consensus (a chain without a BFT section). */
  consensusStats(): Readonly<QbftStats> | undefined;
  heldConsensusState(): HeldState | undefined;
  miningState(): MiningState;

  // ---- the transaction pool
  poolSize(): number;
  poolOptions(): Readonly<TxPoolOptions>;
  pooledTransaction(hash: Hex | Uint8Array): TypedTransaction | undefined;
  /** Pooled transactions in arrival order. */
  pooledTransactions(): TypedTransaction[];
  /** Arrival time and source of a pooled transaction. */
  pooledTransactionMeta(hash: Hex): PooledTxMeta | undefined;
  /** The next nonce of a sender counting its pooled transactions (from `accountNonce`, when given). */
  poolNextNonce(sender: Hex, accountNonce?: bigint): bigint;
  onPoolTransaction(event: 'added' | 'dropped', listener: (tx: TypedTransaction) => void): () => void;

  // ---- the network
  peers(): PeerId[];
  syncStatus(): SyncStatus;
  /** The private transaction manager (undefined without `config.privacy`): the PRIV methods drive it. */
  privacy(): NodePrivacy | undefined;
}

/** What the outside may ask a node to do. */
export interface NodeActions {
  /** Adds a raw transaction to the pool as a local one (this node's API) and relays it. */
  submitTransaction(raw: Uint8Array): Promise<SubmitOutcome>;
  /** Adds a raw transaction to the pool as if a peer had sent it (remote, not relayed). */
  addRemoteTransaction(raw: Uint8Array): Promise<AddResult>;
  /** Full validation (header, seals, execution) and fork choice for a sealed block. */
  importBlock(block: Block, opts?: { checkSeals?: boolean }): Promise<ImportOutcome>;
  /** miner_start (BftMiningCoordinator.enable): false when the coordinator is stopped. */
  startMining(): boolean;
  /** miner_stop (BftMiningCoordinator.disable): false when the coordinator is stopped. */
  stopMining(): boolean;
  /** Queues a vote to add (true) or remove a validator in this node's next blocks. */
  proposeVote(address: Hex, add: boolean): void;
  discardVote(address: Hex): void;
  /**
   * Builds and executes a proposal block on any parent, with this node's extraData rules (its
   * vanity and pending vote).
   */
  buildProposalBlock(spec: ProposalBlockSpec): Promise<NodeProposedBlock>;
  /** Keeps a state root's trie nodes from being pruned (history built with the node's own code). */
  pinState(stateRoot: Uint8Array): void;
  stop(): void;
}

/**
 * Drives consensus by hand, as Besu's QBFT integration tests do (sim/harness/): its timers and
 * new-head events are delivered by the caller.
 */
export interface ConsensusDriver {
  /** Resolves once consensus has handled every queued event (and every event those queued). */
  consensusSettled(): Promise<void>;
  expireBlockTimer(height: number, round: number): Promise<void>;
  expireRound(height: number, round: number): Promise<void>;
  /** The new-chain-head event for a height (Besu's handleNewBlockEvent). */
  deliverNewHead(ctx: HeightContext): Promise<void>;
}
