/**
 * The node as the outside holds it: the read-only NodeView, the named actions, and the consensus
 * driver of the message-level harness, each answered by the part that does the job. Its parts
 * stay private: nothing outside reaches them.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { Hex } from '../crypto/bytes.ts';
import type { BlockHasher, Chain, ChainEntry } from '../chain/chain.ts';
import type { QbftForkSchedule } from '../chain/fork-schedule.ts';
import type { AccountInfo, CallContext, CallResult, ExecutionEngine, TxReceipt } from '../execution/engine.ts';
import type { AddResult, TxPool, TxPoolOptions } from '../execution/tx-pool.ts';
import type { TrieNodeStore } from '../execution/state-db.ts';
import type { NodePrivacy } from '../privacy/node-privacy.ts';
import type { BesuHooks } from '../bugs/hooks.ts';
import type { NodeProposedBlock } from '../consensus/proposed-block.ts';
import type { HeightContext } from '../consensus/qbft/core-types.ts';
import type { HeldState } from '../consensus/qbft/height-manager.ts';
import type { VoteProposer } from '../consensus/qbft/validators/vote-proposer.ts';
import type { QbftService, QbftStats } from '../consensus/qbft-service.ts';
import type { BlockSync } from '../p2p/block-sync.ts';
import type { Clock, PeerId, Random, Runtime } from '../runtime/ports.ts';
import type { ValidatorSets } from '../validator-sets.ts';
import type { NodeConfig, ProposalBlockSpec } from '../view/node-config.ts';
import type { ConsensusDriver, ExecutionStats, HeadListener, ImportOutcome, MiningState, NodeActions, NodeView, PooledTxMeta, SubmitOutcome, SyncStatus, TxLocation } from '../view/node-view.ts';
import type { BlockImporter } from './block-importer.ts';
import type { BlockExecutor } from './block-executor.ts';
import type { BlockProducer } from './block-producer.ts';
import type { HeadFollower } from './head-follower.ts';
import type { HeightRules } from './height-rules.ts';
import type { StateRestorer } from './state-restorer.ts';
import type { TxIndex } from './tx-index.ts';
import type { WireRouter } from './wire-router.ts';

/** Who the node is: what its config fixes before anything starts. */
export interface NodeIdentity {
  address: Hex;
  common: Common;
  schedule: QbftForkSchedule;
  bft: boolean;
  hashOf: BlockHasher;
  /** Its behaviour at Besu's bug hook points, built once from its switches. */
  hooks: BesuHooks;
}

/** Everything the composition root built, handed over once the node has started. */
export interface NodeParts {
  config: NodeConfig;
  runtime: Runtime;
  identity: NodeIdentity;
  votes: VoteProposer;
  engine: ExecutionEngine;
  chain: Chain;
  /** Unset on a chain without a BFT section, as `qbft`. */
  validators: ValidatorSets | undefined;
  qbft: QbftService | undefined;
  pool: TxPool;
  sync: BlockSync;
  privacy: NodePrivacy | undefined;
  rules: HeightRules;
  executor: BlockExecutor;
  txIndex: TxIndex;
  restorer: StateRestorer;
  follower: HeadFollower;
  importer: BlockImporter;
  producer: BlockProducer;
  router: WireRouter;
}

export class QbftNode implements NodeView, NodeActions, ConsensusDriver {
  readonly name: string;
  readonly address: Hex;
  readonly config: Readonly<NodeConfig>;
  readonly bft: boolean;
  readonly common: Common;
  readonly schedule: QbftForkSchedule;
  readonly hooks: BesuHooks;
  readonly hashOf: BlockHasher;
  readonly clock: Clock;
  readonly random: Random;
  /** miner_start / miner_stop / eth_mining (Besu's BftMiningCoordinator: running once started). */
  private mining: MiningState = 'RUNNING';

  constructor(private readonly parts: NodeParts) {
    const { config, runtime, identity } = parts;
    this.name = config.name;
    this.config = config;
    this.address = identity.address;
    this.bft = identity.bft;
    this.common = identity.common;
    this.schedule = identity.schedule;
    this.hooks = identity.hooks;
    this.hashOf = identity.hashOf;
    this.clock = runtime.clock;
    this.random = runtime.random;
  }

  // ---- NodeView: the chain -----------------------------------------------------------------

  head(): ChainEntry {
    return this.parts.chain.head();
  }

  genesisBlock(): ChainEntry {
    return this.parts.chain.genesis;
  }

  blockAt(number: number): ChainEntry | undefined {
    return this.parts.chain.canonicalAt(number);
  }

  blockByHash(hash: Hex): ChainEntry | undefined {
    return this.parts.chain.get(hash);
  }

  isCanonical(entry: ChainEntry): boolean {
    return this.parts.chain.isCanonical(entry);
  }

  onNewHead(listener: HeadListener): () => void {
    return this.parts.follower.subscribe(listener);
  }

  receiptsOf(entry: ChainEntry): Promise<TxReceipt[]> {
    return this.parts.executor.receiptsOf(entry);
  }

  transactionLocation(hash: Hex): TxLocation | undefined {
    return this.parts.txIndex.transactionLocation(hash);
  }

  // ---- NodeView: state ---------------------------------------------------------------------

  hasState(stateRoot: Uint8Array): boolean {
    return this.parts.engine.hasState(stateRoot);
  }

  account(stateRoot: Uint8Array, address: Hex): Promise<AccountInfo | undefined> {
    return this.parts.engine.getAccount(stateRoot, address);
  }

  code(stateRoot: Uint8Array, address: Hex): Promise<Uint8Array> {
    return this.parts.engine.getCode(stateRoot, address);
  }

  storage(stateRoot: Uint8Array, address: Hex, slot: Uint8Array | bigint): Promise<Uint8Array> {
    return this.parts.engine.getStorage(stateRoot, address, slot);
  }

  call(stateRoot: Uint8Array, ctx: CallContext, to: Hex, data: Uint8Array): Promise<CallResult> {
    return this.parts.engine.call(stateRoot, ctx, to, data);
  }

  nextBaseFee(parent: BlockHeader, number: bigint, timestamp: number | bigint): bigint | undefined {
    return this.parts.engine.nextBaseFee(parent, number, timestamp);
  }

  nextBlockPosition(): { blockNumber: bigint; timestamp: bigint } {
    return this.parts.rules.nextBlockPosition();
  }

  stateStore(): TrieNodeStore {
    return this.parts.engine.store;
  }

  executionStats(): Readonly<ExecutionStats> {
    return this.parts.engine.stats;
  }

  replayedOnStart(): number {
    return this.parts.restorer.replayedOnStart;
  }

  // ---- NodeView: validators and consensus ----------------------------------------------------

  validatorsAfter(parent: ChainEntry): Promise<Hex[]> {
    return this.validatorSets().forChildOf(parent);
  }

  validatorsOf(entry: ChainEntry): Promise<Hex[]> {
    return this.validatorSets().ofBlock(entry);
  }

  isContractModeAt(blockNumber: number, timestamp?: number): boolean {
    return this.validatorSets().isContractModeAt(blockNumber, timestamp);
  }

  pendingVotes(): Map<Hex, boolean> {
    return this.parts.votes.pendingVotes();
  }

  heightContext(parent: ChainEntry): Promise<HeightContext> {
    return this.parts.rules.heightContext(parent);
  }

  consensusStats(): Readonly<QbftStats> | undefined {
    return this.parts.qbft?.stats;
  }

  heldConsensusState(): HeldState | undefined {
    return this.parts.qbft?.heldState();
  }

  miningState(): MiningState {
    return this.mining;
  }

  // ---- NodeView: the pool --------------------------------------------------------------------

  poolSize(): number {
    return this.parts.pool.size();
  }

  poolOptions(): Readonly<TxPoolOptions> {
    return this.parts.pool.options;
  }

  pooledTransaction(hash: Hex | Uint8Array): TypedTransaction | undefined {
    return this.parts.pool.get(hash);
  }

  pooledTransactions(): TypedTransaction[] {
    return this.parts.pool.pending();
  }

  pooledTransactionMeta(hash: Hex): PooledTxMeta | undefined {
    return this.parts.txIndex.pooledTransactionMeta(hash);
  }

  poolNextNonce(sender: Hex, accountNonce?: bigint): bigint {
    return this.parts.pool.pendingNonce(sender, accountNonce);
  }

  onPoolTransaction(event: 'added' | 'dropped', listener: (tx: TypedTransaction) => void): () => void {
    return this.parts.pool.on(event, listener);
  }

  // ---- NodeView: the network -----------------------------------------------------------------

  peers(): PeerId[] {
    return this.parts.runtime.transport.peers();
  }

  syncStatus(): SyncStatus {
    return this.parts.sync.status();
  }

  privacy(): NodePrivacy | undefined {
    return this.parts.privacy;
  }

  // ---- NodeActions ---------------------------------------------------------------------------

  async submitTransaction(raw: Uint8Array): Promise<SubmitOutcome> {
    const result = await this.parts.pool.add(raw, { local: true });
    if (!result.ok) return { ok: false, error: result.message ? `${result.error}: ${result.message}` : result.error };
    this.parts.txIndex.markLocal(result.hash);
    this.parts.sync.broadcastTransactions([raw]);
    return result;
  }

  addRemoteTransaction(raw: Uint8Array): Promise<AddResult> {
    return this.parts.pool.add(raw);
  }

  importBlock(block: Block, opts: { checkSeals?: boolean } = {}): Promise<ImportOutcome> {
    return this.parts.importer.importBlock(block, opts);
  }

  startMining(): boolean {
    // BftMiningCoordinator.enable(): RUNNING or IDLE stay; PAUSED -> IDLE; STOPPED -> false
    const s = this.mining;
    if (s === 'RUNNING' || s === 'IDLE') return true;
    if (s === 'PAUSED') {
      this.mining = 'IDLE';
      return true;
    }
    return false;
  }

  stopMining(): boolean {
    // BftMiningCoordinator.disable(): PAUSED stays; IDLE or RUNNING -> PAUSED; STOPPED -> false
    const s = this.mining;
    if (s === 'PAUSED') return true;
    if (s === 'IDLE' || s === 'RUNNING') {
      this.mining = 'PAUSED';
      return true;
    }
    return false;
  }

  proposeVote(address: Hex, add: boolean): void {
    this.parts.votes.auth(address, add);
  }

  discardVote(address: Hex): void {
    this.parts.votes.discard(address);
  }

  buildProposalBlock(spec: ProposalBlockSpec): Promise<NodeProposedBlock> {
    return this.parts.producer.buildProposalBlock(spec);
  }

  pinState(stateRoot: Uint8Array): void {
    this.parts.engine.pin(stateRoot);
  }

  stop(): void {
    this.parts.router.stop();
    this.parts.qbft?.stop();
    this.parts.engine.close();
  }

  // ---- ConsensusDriver -----------------------------------------------------------------------

  consensusSettled(): Promise<void> {
    return this.consensus().settled();
  }

  async expireBlockTimer(height: number, round: number): Promise<void> {
    await this.consensus().onBlockTimerExpiry(height, round);
  }

  async expireRound(height: number, round: number): Promise<void> {
    await this.consensus().onRoundExpiry(height, round);
  }

  async deliverNewHead(ctx: HeightContext): Promise<void> {
    await this.consensus().onNewHead(ctx);
  }

  private consensus(): QbftService {
    if (!this.parts.qbft) throw new Error(`${this.name} runs no consensus (its genesis has no BFT section)`);
    return this.parts.qbft;
  }

  private validatorSets(): ValidatorSets {
    if (!this.parts.validators) throw new Error(`${this.name} has no validators (its genesis has no BFT section)`);
    return this.parts.validators;
  }
}
