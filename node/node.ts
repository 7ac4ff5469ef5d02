/**
 * The composition root: one QBFT node built from its config and the runtime ports. The simulator
 * and the live CLI both build nodes here; nothing below this file knows which world it runs in.
 */
import type { Block } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { Common } from '@ethereumjs/common';
import { bytesToHex, hexToBytes, type Hex } from './crypto/bytes.ts';
import { privateKeyToAddress } from './crypto/secp256k1.ts';
import { blockFromRlp, committedSealHash, onchainBlockHash, plainBlockHash, withExtraData, extraDataOf } from './chain/block-hashing.ts';
import { Chain, type BlockHasher, type ChainEntry, type ReorgEvent } from './chain/chain.ts';
import { checkBlobGasFields } from './chain/blob-gas-rules.ts';
import { NodePrivacy, type PrivacyConfig } from './privacy/node-privacy.ts';
export type { PrivacyConfig } from './privacy/node-privacy.ts';
export type { NodeProposedBlock, Reproposal } from './consensus/proposed-block.ts';
export type { ChainEntry } from './chain/chain.ts';
export type { ConsensusSigner } from './consensus/qbft/core-types.ts';
import { checkPowImportBlock, powBlockRewards } from './chain/pow-import-rules.ts';
import { sharedCommonFor } from './chain/common.ts';
import { QbftForkSchedule, type QbftForkParams } from './chain/fork-schedule.ts';
import { GenesisError, withConfig, type Genesis } from './chain/genesis.ts';
import { StoredHistoryError, firstRulesChange } from './chain/stored-rules.ts';
import { createGenesisBlock, writeGenesisState } from './chain/genesis-state.ts';
import { checkOmmers } from './chain/ommer-rules.ts';
import { EXPECTED_MIX_HASH, validateHeader, type HeaderFacts, type HeaderRule } from './chain/header-rules.ts';
import { encodeExtraData, vanityFrom, type QbftExtraData } from './chain/extra-data.ts';
import { QbftService } from './consensus/qbft-service.ts';
import type { ConsensusSigner, HeightContext } from './consensus/qbft/core-types.ts';
import type { WireLayout } from './consensus/qbft/messages.ts';
import { recoverAddressCached } from './consensus/qbft/signer-cache.ts';
import { VoteProposer } from './consensus/qbft/validators/vote-proposer.ts';
import { proposedBlockFrom, type NodeProposedBlock, type Reproposal } from './consensus/proposed-block.ts';
import { ExecutionEngine, type ExecuteOptions, type Reward, type Rewards, type TxReceipt } from './execution/engine.ts';
import { TxPool } from './execution/tx-pool.ts';
import type { TrieNodeStore } from './execution/state-db.ts';
import { StatePersistence, type ReceiptsToPersist, type StateHead } from './execution/state-persistence.ts';
import type { ExecutionMemo } from './execution/execution-memo.ts';
import { BlockSync } from './p2p/block-sync.ts';
import { acceptsRemoteForkId, forkIdAtHead, forkScheduleOf } from './p2p/fork-id.ts';
import type { PeerId, Runtime, WireMessage } from './runtime/ports.ts';
import { ValidatorSets } from './validator-sets.ts';
import { utf8ToBytes } from './crypto/bytes.ts';
import { NO_BUGS, type BugSwitches } from './bugs/bug-switches.ts';
import type { LocalPermissioning } from './permissioning/local-permissioning.ts';

export interface NodeConfig {
  name: string;
  genesis: Genesis;
  privateKey: Uint8Array;
  earlyRoundChange?: boolean;
  layout?: WireLayout;
  /** Re-gossip QBFT messages (Besu does). */
  gossip?: boolean;
  /** Source of the 32-byte extraData vanity (Besu: --miner-extra-data). */
  minerExtraData?: Uint8Array;
  minGasPrice?: bigint;
  /**
   * Nodes of one process (a simulated world, a one-process network) may share their state: one
   * content-addressed trie node store and the memo of block outcomes (execution-memo.ts), so a
   * block is executed once, not once per node. Nodes with different genesis files share a store
   * but never a memo.
   */
  sharedExecution?: { store: TrieNodeStore; memo?: ExecutionMemo };
  /** Known-bug switches (simulation only; the live node refuses them). */
  bugs?: BugSwitches;
  /**
   * A new genesis configuration that changes the rules of stored blocks: 'refuse' (the default)
   * stops the start with StoredHistoryError; 'warn' logs it and starts, as Besu does (it does not
   * compare), so its stored history may no longer match what a node syncing from genesis computes.
   */
  storedHistoryCheck?: 'refuse' | 'warn';
  /** Privacy with the embedded private transaction manager (Besu's --privacy-enabled). */
  privacy?: PrivacyConfig;
  /** Besu's local permissioning (--permissions-*-config-file-enabled): the accounts allowlist gates the pool; the PERM methods use it. */
  permissioning?: LocalPermissioning;
  /** Signs consensus messages and commit seals (Besu's NodeKey or security module); default: `privateKey`. */
  signer?: ConsensusSigner;
  /**
   * How a prepared block is re-proposed and how validation recomputes its hash (Besu's
   * QbftBlockInterface.replaceRoundAndProposerForProposalBlock). Default: Besu's, which replaces
   * the round only and keeps the coinbase.
   */
  reproposal?: Reproposal;
  /** Builds the blocks this node proposes (Besu's QbftBlockCreator); `build` is the node's own creator. */
  blockCreator?: BlockCreator;
  /**
   * New chain heads reach consensus as events (true, the default, as Besu's mining coordinator
   * wires them); false leaves them to the caller (`qbft.onNewHead`), as Besu's QBFT integration
   * tests do.
   */
  deliverNewChainHeads?: boolean;
}

/** What the consensus service asks a block creator for. */
export interface BlockRequest {
  height: number;
  round: number;
  timestampSeconds: number;
  /** Re-propose this prepared block with its round replaced instead of building a new one. */
  repropose?: NodeProposedBlock;
}

export type BlockCreator = (req: BlockRequest, build: (req: BlockRequest) => Promise<NodeProposedBlock>) => Promise<NodeProposedBlock>;

/** A block proposal built on any parent: its coinbase, round, timestamp and transactions chosen. */
export interface ProposalBlockSpec {
  parent: ChainEntry;
  round: number;
  timestampSeconds: number;
  coinbase: Hex;
  transactions: TypedTransaction[];
}

export type ImportOutcome = { ok: true; status: 'head' | 'side' | 'known' } | { ok: false; reason: string };

export interface NodeEvents {
  onHead?(entry: ChainEntry, reorg: ReorgEvent): void;
}

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

/** Canonical transactions indexed by hash at most (oldest blocks' entries are dropped first). */
export const TX_INDEX_LIMIT = 250_000;

/** While re-executing stored blocks on start, the state is persisted every this many blocks. */
const REPLAY_PERSIST_BLOCKS = 256;

const MAX_ROUND = 1_000;
const MIX_HASH = hexToBytes(EXPECTED_MIX_HASH);
/** The one header rule whose verdict changes with time (a timestamp too far ahead of the clock). */
const TIME_DEPENDENT_RULE: HeaderRule = 'timestampFuture';

export class QbftNode {
  readonly address: Hex;
  readonly common: Common;
  /**
   * False for a genesis without a BFT section (`ethash`): such a chain is only imported and served
   * (Besu's `blocks import` of a mainnet-style chain). It has plain header hashes, proof-of-work
   * rewards, no proof-of-work checks, and no consensus service: `qbft` and `validators` stay unset.
   */
  readonly bft: boolean;
  readonly hashOf: BlockHasher;
  readonly schedule: QbftForkSchedule;
  readonly votes = new VoteProposer();
  chain!: Chain;
  engine!: ExecutionEngine;
  pool!: TxPool;
  /** Set when the node runs with privacy (`config.privacy`). */
  privacy?: NodePrivacy;
  validators!: ValidatorSets;
  sync!: BlockSync;
  qbft!: QbftService;
  readonly listeners: NodeEvents[] = [];
  /** Receipts of executed blocks by on-chain hash (bounded); presence means "executed". */
  private readonly receipts = new Map<Hex, TxReceipt[]>();
  private readonly proposalCache = new Map<Hex, NodeProposedBlock | null>();
  private readonly vanity: Uint8Array;
  private stopped = false;
  /** Canonical transactions by hash (bounded by TX_INDEX_LIMIT, oldest inserted first out). */
  private readonly txIndex = new Map<Hex, TxLocation>();
  /** Pooled transactions' arrival time and source, by hash (pruned against the pool). */
  private readonly pooledMeta = new Map<Hex, PooledTxMeta>();
  /** miner_start / miner_stop / eth_mining (Besu's BftMiningCoordinator: running once started). */
  miningState: MiningState = 'RUNNING';
  /** The world state and canonical receipts on the Store (execution/state-persistence.ts). */
  persistence!: StatePersistence;
  /** Blocks that became canonical since the last state flush (drained by every flush). */
  private canonicalSinceFlush: ChainEntry[] = [];
  /** Stored blocks re-executed on the last start (0 when the persisted state was at the head). */
  replayedOnStart = 0;

  constructor(
    readonly config: NodeConfig,
    readonly runtime: Runtime,
  ) {
    const { consensus } = config.genesis;
    if (consensus === 'ibft2' || consensus === 'clique')
      throw new GenesisError(`config.${consensus}`, `names ${consensus === 'ibft2' ? 'IBFT 2.0' : 'Clique'}: qbft-lab runs QBFT (config.qbft) and chains without a consensus section only`);
    this.address = privateKeyToAddress(config.privateKey);
    this.common = sharedCommonFor(config.genesis);
    this.schedule = new QbftForkSchedule(config.genesis);
    this.bft = config.genesis.consensus !== 'ethash';
    this.hashOf = this.bft ? onchainBlockHash : plainBlockHash;
    this.vanity = vanityFrom(config.minerExtraData ?? utf8ToBytes('qbft-lab'));
  }

  get bugs(): BugSwitches {
    return this.config.bugs ?? NO_BUGS;
  }

  get name(): string {
    return this.config.name;
  }

  async start(): Promise<void> {
    const { genesis } = this.config;
    const { runtime } = this;
    this.engine = await ExecutionEngine.create({
      common: this.common,
      writeGenesis: (sm) => writeGenesisState(sm, genesis),
      store: this.config.sharedExecution?.store,
      memo: this.config.sharedExecution?.memo,
      depositContractAddress: genesis.depositContractAddress,
      blockHashes: (n) => {
        const entry = this.chain?.canonicalAt(Number(n));
        return entry ? hexToBytes(entry.hash) : undefined;
      },
    });
    const genesisBlock = await createGenesisBlock(genesis, this.common);
    this.chain = await Chain.open(runtime.store, genesisBlock, this.common, this.hashOf);
    await this.checkStoredRules();
    if (this.bft)
      this.validators = new ValidatorSets(
      this.schedule,
      extraDataOf(genesisBlock.header).validators,
      genesis.qbft.epochLength,
      (hash) => this.chain.get(hash),
      {
        callAt: async (entry, to, data) => {
          const result = await this.engine.call(entry.block.header.stateRoot, entry.block.header, to, data);
          if (result.error) throw new Error(`validator contract call failed: ${result.error}`);
          return result.returnValue;
        },
      },
      this.bugs,
    );
    this.persistence = new StatePersistence({
      store: runtime.store,
      db: this.engine.store,
      pin: (root) => this.engine.pin(root),
      unpin: (root) => this.engine.unpin(root),
      onWarning: (message, fields) => runtime.log.log('warn', message, fields),
    });
    await this.restoreState();
    this.rebuildTxIndex();
    this.pool = new TxPool(
      { minGasPrice: this.config.minGasPrice ?? 0n },
      {
        chainId: genesis.chainId,
        common: this.common,
        getAccount: async (address) => (await this.engine.getAccount(this.chain.head().block.header.stateRoot, address)) ?? { nonce: 0n, balance: 0n },
        baseFee: () => this.nextBaseFee(),
        nextBlockPosition: () => this.nextBlockPosition(),
        isSenderPermitted: this.config.permissioning?.accounts ? (address) => this.config.permissioning!.isSenderPermitted(address) : undefined,
      },
    );
    const forks = forkScheduleOf(this.chain.genesis.hash, genesis);
    const forkPosition = (hash: Hex) => {
      const header = (this.chain.get(hash) ?? this.chain.head()).block.header;
      return { number: header.number, timestamp: header.timestamp };
    };
    this.sync = new BlockSync({
      transport: runtime.transport,
      timers: runtime.timers,
      log: runtime.log,
      chain: {
        networkId: genesis.chainId,
        genesisHash: this.chain.genesis.hash,
        head: () => {
          const h = this.chain.head();
          return { number: h.number, hash: h.hash, td: h.td };
        },
        hasBlock: (hash) => this.chain.has(hash),
        canonicalHashAt: (n) => this.chain.canonicalAt(n)?.hash,
        blockByHash: (hash) => this.chain.get(hash)?.block,
      },
      // plant-sync-seals: blocks that arrive over the eth protocol skip the commit-seal rule.
      sink: { importBlock: (block) => this.importBlock(block, { checkSeals: !this.bugs.has('plant-sync-seals') }) },
      common: this.common,
      hashOf: this.bft ? undefined : (header) => bytesToHex(plainBlockHash(header)),
      forkId: (head) => forkIdAtHead(forks, forkPosition(head.hash)),
      acceptsForkId: (remote, head) => acceptsRemoteForkId(forks, remote, forkPosition(head.hash)),
      onSyncing: (syncing) => this.onSyncing(syncing),
    });
    this.pool.on('added', (tx) => {
      this.pooledMeta.set(bytesToHex(tx.hash()), { addedAtMs: runtime.clock.nowMs(), local: false });
      if (this.pooledMeta.size > 2 * this.pool.options.maxSize + 64) this.prunePooledMeta();
    });
    this.pool.on('dropped', (tx) => {
      this.pooledMeta.delete(bytesToHex(tx.hash()));
    });
    this.sync.onTransactions = (_peer, raws) => {
      for (const raw of raws) void this.pool.add(raw);
    };
    if (this.config.privacy) {
      this.privacy = new NodePrivacy(this.config.privacy, { transport: runtime.transport, common: this.common, random: runtime.random, store: runtime.store, log: runtime.log });
      await this.privacy.start({ genesisHash: this.chain.genesis.hash, head: () => this.chain.head(), canonicalAt: (n) => this.chain.canonicalAt(n) });
    }
    runtime.transport.setHandlers({
      onMessage: (from, message) => this.onWireMessage(from, message),
      onPeerConnected: (peer) => {
        this.privacy?.onPeerConnected(peer);
        return this.sync.onPeerConnected(peer);
      },
      onPeerDisconnected: (peer) => {
        this.privacy?.onPeerDisconnected(peer);
        return this.sync.onPeerDisconnected(peer);
      },
    });
    if (this.bft) await this.startConsensus();
    for (const peer of runtime.transport.peers()) {
      this.privacy?.onPeerConnected(peer);
      this.sync.onPeerConnected(peer);
    }
    if (this.bft) await this.qbft.onNewHead(await this.heightContext(this.chain.head()));
  }

  private async startConsensus(): Promise<void> {
    const { genesis } = this.config;
    const { runtime } = this;
    const cfg = this.config;
    this.qbft = new QbftService({
      cfg: {
        privateKey: cfg.privateKey,
        address: this.address,
        earlyRoundChange: cfg.earlyRoundChange ?? false,
        layout: cfg.layout ?? 'besu26',
        maxRound: MAX_ROUND,
        bugs: cfg.bugs ?? NO_BUGS,
        signer: cfg.signer,
      },
      clock: runtime.clock,
      timers: runtime.timers,
      log: runtime.log,
      limits: {
        duplicateMessageLimit: genesis.qbft.duplicateMessageLimit,
        futureMessagesLimit: genesis.qbft.futureMessagesLimit,
        futureMessagesMaxDistance: genesis.qbft.futureMessagesMaxDistance,
        gossipedHistoryLimit: genesis.qbft.gossipedHistoryLimit,
        messageQueueLimit: genesis.qbft.messageQueueLimit,
      },
      gossip: cfg.gossip ?? true,
      validateBlock: (rlp, height) => this.validateProposedBlock(rlp, height),
      createBlock: (req) => (cfg.blockCreator ? cfg.blockCreator(req, (r) => this.createBlock(r)) : this.createBlock(req)),
      commitBlock: (block, round, seals) => this.commitBlock(block, round, seals),
      headNumber: () => this.chain.head().number,
      onPeerAhead: (peer, number) => this.sync.notePeerAhead(peer, number),
      multicast: (code, data, except, validators) => this.multicastToValidators({ protocol: 'istanbul', code, data }, except, validators),
      peerOf: (address) => runtime.transport.peerForAddress?.(address),
    });
  }

  stop(): void {
    this.stopped = true;
    this.qbft?.stop();
    this.engine?.close();
  }

  /**
   * Refuses a genesis configuration that would change the rules of blocks already stored (a
   * transition, selection-mode switch or hardfork placed at or below the head), then records the
   * configuration the stored blocks are held to from now on.
   */
  private async checkStoredRules(): Promise<void> {
    const { store } = this.runtime;
    const head = this.chain.head().number;
    const raw = await store.get(STORED_CONFIG_KEY);
    if (raw !== undefined && head > 0) {
      const before = withConfig(this.config.genesis, JSON.parse(new TextDecoder().decode(raw)));
      const change = firstRulesChange(before, this.config.genesis, head, (n) => ({ number: n, timestamp: this.chain.timestampAt(n)! }));
      if (change && this.config.storedHistoryCheck === 'warn')
        this.runtime.log.log('warn', 'the genesis configuration changes the rules of stored blocks; starting anyway', { block: change.block, change: change.what, head });
      else if (change) throw new StoredHistoryError(change, head);
    }
    await store.write([{ key: STORED_CONFIG_KEY, value: new TextEncoder().encode(JSON.stringify(this.config.genesis.config)) }]);
  }

  /**
   * Puts the persisted world state back and re-executes only the stored canonical blocks after it
   * (none when the node stopped after a flush); without a usable persisted state (an older data
   * directory, a persisted block a reorg dropped and no older kept root) the whole stored chain.
   */
  private async restoreState(): Promise<void> {
    const { from, loaded } = await this.persistence.restore((candidate) => {
      const entry = this.chain.canonicalAt(candidate.number);
      return entry !== undefined && entry.hash === candidate.hash && bytesToHex(entry.block.header.stateRoot) === candidate.stateRoot;
    });
    const head = this.chain.head().number;
    this.runtime.log.log('info', 'world state restored', { persistedBlock: from?.number ?? null, loadedKeys: loaded, replayBlocks: head - (from?.number ?? 0) });
    await this.replayStoredChain(from?.number ?? 0);
    await this.persistState(this.chain.head());
  }

  /** Re-executes the stored canonical chain after block `from` to rebuild state after a restart; never rewrites it. */
  private async replayStoredChain(from: number): Promise<void> {
    this.replayedOnStart = 0;
    for (let n = from + 1; n <= this.chain.head().number; n++) {
      const entry = this.chain.canonicalAt(n)!;
      const parent = this.chain.canonicalAt(n - 1)!;
      try {
        const result = await this.engine.executeBlock(entry.block, parent.block.header.stateRoot, this.rewardFor(entry.block), this.executeOptions(entry.block));
        this.remember(entry.hash, result.receipts);
      } catch (err) {
        throw new StoredHistoryError({ block: n, what: `it no longer executes: ${(err as Error).message}` }, this.chain.head().number);
      }
      this.replayedOnStart++;
      this.canonicalSinceFlush.push(entry);
      if (n % REPLAY_PERSIST_BLOCKS === 0) await this.persistState(entry);
    }
  }

  /**
   * One atomic write of the state at `entry` (normally the new head) with the receipts of the
   * blocks that became canonical since the previous flush. The snapshot is taken now, so flushes
   * land in call order.
   */
  private persistState(entry: ChainEntry): Promise<unknown> {
    const blocks: ReceiptsToPersist[] = [];
    for (const e of this.canonicalSinceFlush)
      if (e.block.transactions.length > 0) blocks.push({ hash: e.hash, receipts: () => this.receiptsOf(e) });
    this.canonicalSinceFlush = [];
    const head: StateHead = { number: entry.number, hash: entry.hash, stateRoot: bytesToHex(entry.block.header.stateRoot) };
    return this.persistence.persist(head, blocks);
  }

  private onWireMessage(from: PeerId, message: WireMessage): Promise<void> | void {
    if (this.stopped) return;
    if (message.protocol === 'istanbul') return this.bft ? this.qbft.onMessage(from, message.code, message.data) : undefined;
    if (message.protocol === 'ptm') return this.privacy?.onWireMessage(from, message.code, message.data);
    return this.sync.onMessage(from, message);
  }

  /** To connected validator peers only; a transport that knows no identities gets every peer. */
  private multicastToValidators(message: WireMessage, except: PeerId[], validators: readonly Hex[]): void {
    const { transport } = this.runtime;
    if (!transport.addressOfPeer) return this.multicast(message, except);
    for (const peer of transport.peers()) {
      if (except.includes(peer)) continue;
      const address = transport.addressOfPeer(peer)?.toLowerCase();
      if (address !== undefined && validators.includes(address as Hex)) transport.send(peer, message);
    }
  }

  private multicast(message: WireMessage, except: PeerId[]): void {
    for (const peer of this.runtime.transport.peers()) if (!except.includes(peer)) this.runtime.transport.send(peer, message);
  }

  /**
   * Where the next block falls in the fork schedule: the head's child at the present time (Besu's
   * pool validates against getForNextBlockHeader(head, now)). Raw transactions decode under its fork.
   */
  nextBlockPosition(): { blockNumber: bigint; timestamp: bigint } {
    const head = this.chain.head().block.header;
    const nowSeconds = BigInt(Math.floor(this.runtime.clock.nowMs() / 1000));
    return { blockNumber: head.number + 1n, timestamp: nowSeconds > head.timestamp ? nowSeconds : head.timestamp + 1n };
  }

  private nextBaseFee(): bigint | undefined {
    const head = this.chain.head().block.header;
    return this.engine.nextBaseFee(head, head.number + 1n, head.timestamp + 1n);
  }

  rewardFor(block: Block): Rewards {
    if (!this.bft) return powBlockRewards(block, this.common);
    return this.rewardAt(Number(block.header.number), Number(block.header.timestamp), block.header.coinbase.toString().toLowerCase() as Hex);
  }

  /** Besu pays transaction fees to the mining beneficiary when one is set (and COINBASE returns it). */
  private executeOptions(block: Block): ExecuteOptions {
    if (!this.bft) return { allowWithdrawalsAndBlobs: true };
    const beneficiary = this.schedule.paramsAt(Number(block.header.number), Number(block.header.timestamp)).miningBeneficiary;
    return beneficiary ? { feeRecipient: beneficiary } : {};
  }

  /** QBFT block reward: `blockreward` to `miningbeneficiary` if set, else to the coinbase (options at the block's own number and timestamp). */
  private rewardAt(blockNumber: number, timestampSeconds: number, coinbase: Hex): Reward | undefined {
    const params = this.schedule.paramsAt(blockNumber, timestampSeconds);
    if (params.blockReward === 0n) return undefined;
    return { to: params.miningBeneficiary ?? coinbase, amountWei: params.blockReward };
  }

  async heightContext(head: ChainEntry): Promise<HeightContext> {
    const height = head.number + 1;
    // Besu's BlockTimer: the options at (height, parent timestamp), and a longer period that a
    // time-typed transition brings within one period applies already (else the block would fail
    // the period rule, judged at the block's own timestamp).
    const periodHeight = this.bugs.has('plant-period-early') ? head.number : height;
    // besu-9681: before Besu PR #9785 the block timer read the options at the height's number
    // alone, so a time-typed transition never reached it (nor looked one period ahead).
    const byNumber = this.bugs.has('besu-9681');
    const params = byNumber ? this.schedule.paramsAt(periodHeight) : this.schedule.paramsAt(periodHeight, head.timestamp);
    const blockPeriodSeconds = byNumber ? params.blockPeriodSeconds : Math.max(params.blockPeriodSeconds, this.schedule.paramsAt(periodHeight, head.timestamp + params.blockPeriodSeconds).blockPeriodSeconds);
    // xblockperiodmilliseconds counts from now, not from the parent's timestamp.
    const blockTimerAtMs = params.blockPeriodMilliseconds ? this.runtime.clock.nowMs() + params.blockPeriodMilliseconds : (head.timestamp + blockPeriodSeconds) * 1000;
    return {
      height,
      parentTimestampSeconds: head.timestamp,
      parentCoinbase: head.coinbase,
      validators: await this.validators.forChildOf(head),
      blockTimerAtMs,
      blockPeriodSeconds,
      requestTimeoutMs: this.config.genesis.qbft.requestTimeoutSeconds * 1000,
      emptyBlockPeriodSeconds: params.emptyBlockPeriodSeconds,
    };
  }

  /**
   * besu-2894: before Besu PR #2874 the header rules of a transition's fork were those of contract
   * mode only when that transition itself named `validatorselectionmode: contract` (the genesis
   * fork: when it has a validator contract), not the mode in force there, so a transition that
   * changes anything else (a block reward) put a contract-mode chain back under block-header rules.
   */
  private forkNamesContractMode(params: QbftForkParams): boolean {
    const transition = this.schedule.transitionAt(params.fromBlock);
    if (transition) return transition.validatorSelectionMode === 'contract';
    return params.fromBlock === 0 && this.config.genesis.qbft.validatorContractAddress !== undefined;
  }

  private headerFacts(block: { header: Block['header'] }, hash?: Hex): HeaderFacts {
    const h = block.header;
    const extra = extraDataOf(h);
    return {
      number: Number(h.number),
      parentHash: bytesToHex(h.parentHash),
      hash: hash ?? bytesToHex(onchainBlockHash(h)),
      timestamp: Number(h.timestamp),
      gasLimit: h.gasLimit,
      gasUsed: h.gasUsed,
      baseFeePerGas: h.baseFeePerGas,
      mixHash: bytesToHex(h.mixHash),
      difficulty: h.difficulty,
      coinbase: h.coinbase.toString().toLowerCase() as Hex,
      extraValidators: extra.validators,
      vote: extra.vote,
      round: extra.round,
      seals: extra.seals,
    };
  }

  /** Header rules of a block against its parent (`checkSeals` for sealed imports), then its ommers (Besu's generic body rules). */
  private async checkHeader(block: Block, parent: ChainEntry, checkSeals: boolean): Promise<string | undefined> {
    const blobGas = checkBlobGasFields(block.header, parent.block.header, this.common);
    if (blobGas) return blobGas;
    if (!this.bft) {
      const parentHeader = parent.block.header;
      const expectedBaseFee = this.engine.nextBaseFee(parentHeader, block.header.number, block.header.timestamp);
      return checkPowImportBlock(block, { parent: parentHeader, common: this.common, expectedBaseFee });
    }
    const headerProblem = async (header: Block['header'], parentEntry: ChainEntry, withSeals: boolean): Promise<string | undefined> => {
      // The ruleset of the fork at the header's own number and timestamp (Besu: getByBlockHeader).
      const params = this.schedule.paramsAt(Number(header.number), Number(header.timestamp));
      const period = this.bugs.has('plant-period-early') ? this.schedule.paramsAt(parentEntry.number, parentEntry.timestamp) : params;
      const verdict = validateHeader(this.headerFacts({ header }), {
        parent: this.headerFacts(parentEntry.block, parentEntry.hash),
        validatorsAfterParent: await this.validators.forChildOf(parentEntry),
        contractMode: this.bugs.has('besu-2894') ? this.forkNamesContractMode(params) : params.validatorSelectionMode === 'contract',
        blockPeriodSeconds: period.blockPeriodSeconds,
        blockPeriodMilliseconds: period.blockPeriodMilliseconds,
        nowSeconds: Math.floor((this.runtime.systemClock ?? this.runtime.clock).nowMs() / 1000),
        londonBlock: this.config.genesis.forkBlocks['london'],
        committedSealHash: (round) => committedSealHash(header, round),
        recoverSealer: (hash, seal) => {
          const signer = recoverAddressCached(hash, seal);
          if (!signer) throw new Error('unrecoverable seal');
          return signer;
        },
        checkSeals: withSeals,
      });
      return verdict.ok ? undefined : `${verdict.rule}: ${verdict.reason}`;
    };
    return (
      (await headerProblem(block.header, parent, checkSeals)) ??
      (await checkOmmers(block, {
        hashOf: (header) => bytesToHex(onchainBlockHash(header)),
        get: (hash) => this.chain.get(hash),
        checkOmmerHeader: (ommer, parentHash) => headerProblem(ommer, this.chain.get(parentHash)!, true),
      }))
    );
  }

  private async execute(block: Block, parent: ChainEntry): Promise<string | undefined> {
    const hash = bytesToHex(this.hashOf(block.header));
    if (this.receipts.has(hash)) return undefined;
    try {
      this.pool.shareSenders(block.transactions);
      const result = await this.engine.executeBlock(block, parent.block.header.stateRoot, this.rewardFor(block), this.executeOptions(block));
      this.remember(hash, result.receipts);
    } catch (err) {
      return `execution: ${(err as Error).message}`;
    }
    return undefined;
  }

  private remember(hash: Hex, receipts: TxReceipt[]): void {
    if (this.receipts.size >= 4096) this.receipts.delete(this.receipts.keys().next().value as Hex);
    this.receipts.set(hash, receipts);
  }

  /** Receipts of a block: executed here, else persisted (canonical blocks), else re-executed on demand. */
  async receiptsOf(entry: ChainEntry): Promise<TxReceipt[]> {
    const known = this.receipts.get(entry.hash);
    if (known) return known;
    if (entry.block.transactions.length === 0) return [];
    const stored = await this.persistence.receiptsOf(entry.hash);
    if (stored && stored.length === entry.block.transactions.length) return stored;
    const parent = this.chain.get(entry.parentHash);
    if (!parent) return [];
    const result = await this.engine.executeBlock(entry.block, parent.block.header.stateRoot, this.rewardFor(entry.block), this.executeOptions(entry.block));
    this.remember(entry.hash, result.receipts);
    return result.receipts;
  }

  /** Full validation (header, seals, execution) and fork choice for a sealed block. */
  async importBlock(block: Block, opts: { checkSeals?: boolean } = {}): Promise<ImportOutcome> {
    const hash = bytesToHex(this.hashOf(block.header));
    if (this.chain.has(hash)) return { ok: true, status: 'known' };
    const parent = this.chain.get(bytesToHex(block.header.parentHash));
    if (!parent) return { ok: false, reason: 'unknown parent' };
    let problem: string | undefined;
    try {
      problem = (await this.checkHeader(block, parent, opts.checkSeals ?? true)) ?? (await this.execute(block, parent));
    } catch (err) {
      problem = `validation: ${(err as Error).message}`;
    }
    if (problem) {
      this.runtime.log.trace({ kind: 'block-rejected', number: Number(block.header.number), hash, reason: problem });
      return { ok: false, reason: problem };
    }
    // The transaction index moves with the head: a block visible over RPC has its receipts found.
    const result = await this.chain.add(block, (reorg) => this.indexReorg(reorg));
    const round = this.bft ? extraDataOf(block.header).round : undefined;
    this.runtime.log.trace({ kind: 'block-imported', number: Number(block.header.number), hash, round, txs: block.transactions.length, status: result.status });
    if (result.status === 'head') {
      this.canonicalSinceFlush.push(...result.reorg.added);
      await this.persistState(this.chain.head());
      await this.onNewHead(result.reorg);
    }
    return { ok: true, status: result.status };
  }

  private async onNewHead(reorg: ReorgEvent): Promise<void> {
    const head = this.chain.head();
    if (reorg.removed.length > 0) {
      const removedLogs = (await Promise.all(reorg.removed.map((e) => this.receiptsOf(e).catch(() => [])))).reduce((n, rs) => n + rs.reduce((m, r) => m + r.logs.length, 0), 0);
      this.runtime.log.trace({ kind: 'reorg', removed: reorg.removed.map((e) => e.hash), added: reorg.added.map((e) => e.hash), removedLogs });
    }
    await this.updatePool(reorg);
    if (this.privacy)
      try {
        await this.privacy.onReorg(reorg, this.chain.genesis.hash, (hash) => this.chain.get(hash));
      } catch (err) {
        this.runtime.log.log('error', 'private transactions not processed', { head: head.hash, error: String(err) });
      }
    for (const l of this.listeners) l.onHead?.(head, reorg);
    this.chain.pruneSideChains(64);
    if (this.bft && !this.consensusPausedForSync && this.config.deliverNewChainHeads !== false) void this.qbft.onNewHead(await this.heightContext(head));
  }

  /**
   * besu-8307: Besu stopped its BFT mining coordinator while the node had a sync target
   * (dropping its timers and new-head events) and its restart after the sync did not rebuild the
   * height manager. New heads reach consensus again once the sync ends.
   */
  private consensusPausedForSync = false;

  private onSyncing(syncing: boolean): void {
    if (!this.bft || !this.bugs.has('besu-8307')) return;
    this.consensusPausedForSync = syncing;
    if (syncing) this.qbft.suspendTimers();
  }

  /** Drops included transactions from the pool and returns those of blocks a reorg removed. */
  private async updatePool(reorg: ReorgEvent): Promise<void> {
    const included: Uint8Array[] = [];
    const senders = new Set<Hex>();
    for (const e of reorg.added)
      for (const tx of e.block.transactions) {
        const hash = tx.hash();
        included.push(hash);
        // The pool recovered the senders of the transactions it held; recover only the others.
        senders.add(this.pool.senderOf(hash) ?? (tx.getSenderAddress().toString().toLowerCase() as Hex));
      }
    const stateRoot = this.chain.head().block.header.stateRoot;
    const nonces = new Map<Hex, bigint>();
    for (const sender of [...senders].sort()) nonces.set(sender, (await this.engine.getAccount(stateRoot, sender))?.nonce ?? 0n);
    this.pool.onBlockImported(included, nonces);
    const removedTxs = reorg.removed.flatMap((e) => [...e.block.transactions]);
    if (removedTxs.length > 0) await this.pool.readd(removedTxs);
  }

  private async validateProposedBlock(rlp: Uint8Array, height: number): Promise<NodeProposedBlock | undefined> {
    let block: Block;
    try {
      block = blockFromRlp(rlp, this.common);
    } catch {
      return undefined;
    }
    const digest = bytesToHex(committedSealHash(block.header));
    const cached = this.proposalCache.get(digest);
    if (cached !== undefined) return cached ?? undefined;
    const head = this.chain.head();
    let result: NodeProposedBlock | null = null;
    let timeDependent = false;
    if (Number(block.header.number) === height && bytesToHex(block.header.parentHash) === head.hash) {
      const problem = (await this.checkHeader(block, head, false)) ?? (await this.execute(block, head));
      const reason = problem ?? this.persistedProposalConflict(block, height);
      if (reason === undefined) result = proposedBlockFrom(block, rlp, this.config.reproposal);
      else this.runtime.log.trace({ kind: 'proposal-block-invalid', number: height, digest, reason });
      timeDependent = problem?.startsWith(`${TIME_DEPENDENT_RULE}:`) === true;
    }
    // A block from the future may become valid as time passes: that verdict depends on the clock, so it is not kept.
    if (timeDependent) return undefined;
    if (this.proposalCache.size >= 256) this.proposalCache.delete(this.proposalCache.keys().next().value as Hex);
    this.proposalCache.set(digest, result);
    return result ?? undefined;
  }

  /**
   * besu-7642 (one candidate cause, unconfirmed: Besu PR #7204): proposal validation persisted the
   * proposed block's world state on Bonsai, so after one proposal at a height had been validated, any
   * other block at that height failed on the moved state. The same block with only its round changed
   * still passes. Returns the rejection reason, or undefined.
   */
  private persistedProposal: { height: number; identity: Hex } | undefined;

  private persistedProposalConflict(block: Block, height: number): string | undefined {
    if (!this.bugs.has('besu-7642')) return undefined;
    const identity = bytesToHex(committedSealHash(block.header, 0));
    const persisted = this.persistedProposal;
    if (!persisted || persisted.height !== height) {
      this.persistedProposal = { height, identity };
      return undefined;
    }
    return persisted.identity === identity ? undefined : 'world state already moved to another proposal of this height (persisted proposal state)';
  }

  private async createBlock(req: BlockRequest): Promise<NodeProposedBlock> {
    // besu-6613: every block was built with round 0 and a prepared block was re-proposed unchanged.
    const roundZeroBlocks = this.bugs.has('besu-6613');
    if (req.repropose) {
      if (roundZeroBlocks) return req.repropose;
      const prepared = req.repropose.block;
      const { reproposal } = this.config;
      const block = reproposal ? reproposal(prepared, req.round, this.address) : withExtraData(prepared, { ...extraDataOf(prepared.header), round: req.round, seals: [] }, this.common);
      return proposedBlockFrom(block, undefined, reproposal);
    }
    // On the height's parent, as Besu's height manager holds it: sync may have moved the head meanwhile.
    const parent = this.chain.canonicalAt(req.height - 1);
    if (!parent) throw new Error(`no parent for block ${req.height}`);
    return this.buildProposalBlock({
      parent,
      round: roundZeroBlocks ? 0 : req.round,
      timestampSeconds: req.timestampSeconds,
      coinbase: this.address,
      transactions: await this.pendingForBlock(parent),
    });
  }

  /** The pool's transactions for a block on `parent`, as its block creator selects them. */
  private async pendingForBlock(parent: ChainEntry): Promise<TypedTransaction[]> {
    const stateRoot = parent.block.header.stateRoot;
    const nonces = new Map<Hex, bigint>();
    for (const tx of this.pool.pending()) {
      const sender = tx.getSenderAddress().toString().toLowerCase() as Hex;
      if (!nonces.has(sender)) nonces.set(sender, (await this.engine.getAccount(stateRoot, sender))?.nonce ?? 0n);
    }
    const header = parent.block.header;
    const baseFee = this.engine.nextBaseFee(header, header.number + 1n, header.timestamp + 1n);
    return this.pool.selectForBlock(baseFee, header.gasLimit, (sender) => nonces.get(sender) ?? 0n);
  }

  /**
   * Builds and executes a proposal block on any parent, with this node's extraData rules (its
   * vanity and pending vote). Besu: extraData (contract mode or not) from the fork at the parent's
   * timestamp; reward and beneficiary at the block's own.
   */
  async buildProposalBlock(spec: ProposalBlockSpec): Promise<NodeProposedBlock> {
    const { parent, round, timestampSeconds, coinbase } = spec;
    const height = parent.number + 1;
    const contractMode = this.schedule.paramsAt(height, parent.timestamp).validatorSelectionMode === 'contract';
    const params = this.schedule.paramsAt(height, timestampSeconds);
    const validators = await this.validators.forChildOf(parent);
    const extra: QbftExtraData = {
      vanity: this.vanity,
      validators: contractMode ? [] : validators,
      vote: contractMode ? undefined : this.votes.nextVote(this.address, validators, this.validators.tallyAfter(parent)),
      round,
      seals: [],
    };
    // besu-8384: before Besu PR #8387 the block creator took the mining beneficiary (for the fees
    // and the reward, whose amount still came from the fork at the timestamp) from the BFT fork at
    // the block's number alone, where a time-typed transition is never reached; import reads it at
    // the block's timestamp, so the proposer's state root disagreed with everyone else's.
    const beneficiary = (this.bugs.has('besu-8384') ? this.schedule.paramsAt(height) : params).miningBeneficiary;
    const reward = this.rewardAt(height, timestampSeconds, coinbase);
    const { block, receipts } = await this.engine.buildBlock({
      parent: parent.block,
      parentHash: onchainBlockHash(parent.block.header),
      number: BigInt(height),
      timestamp: timestampSeconds,
      coinbase,
      extraData: encodeExtraData(extra),
      mixHash: MIX_HASH,
      transactions: spec.transactions,
      reward: reward && this.bugs.has('besu-8384') ? { ...reward, to: beneficiary ?? coinbase } : reward,
      feeRecipient: beneficiary,
    });
    this.remember(bytesToHex(onchainBlockHash(block.header)), receipts);
    return proposedBlockFrom(block, undefined, this.config.reproposal);
  }


  private async commitBlock(proposed: NodeProposedBlock, round: number, seals: Uint8Array[]): Promise<void> {
    const extra = extraDataOf(proposed.block.header);
    const sealed = withExtraData(proposed.block, { ...extra, round, seals }, this.common);
    const outcome = await this.importBlock(sealed);
    if (outcome.ok && outcome.status === 'head') this.sync.announceBlock(sealed, bytesToHex(onchainBlockHash(sealed.header)));
  }

  /** Adds a raw transaction to the pool and relays it. */
  async submitTransaction(raw: Uint8Array): Promise<{ ok: true; hash: Hex } | { ok: false; error: string }> {
    const result = await this.pool.add(raw, { local: true });
    if (!result.ok) return { ok: false, error: result.message ? `${result.error}: ${result.message}` : result.error };
    const meta = this.pooledMeta.get(result.hash);
    if (meta) meta.local = true;
    this.sync.broadcastTransactions([raw]);
    return result;
  }

  // ---- transaction index and pool metadata (JSON-RPC) ------------------------------------------

  /** The canonical block and position of a transaction, if it is in the (bounded) index. */
  transactionLocation(hash: Hex): TxLocation | undefined {
    return this.txIndex.get(hash.toLowerCase() as Hex);
  }

  /** Arrival time and source of a pooled transaction. */
  pooledTransactionMeta(hash: Hex): PooledTxMeta | undefined {
    return this.pooledMeta.get(hash.toLowerCase() as Hex);
  }

  private indexBlock(entry: ChainEntry): void {
    const txs = entry.block.transactions;
    for (let i = 0; i < txs.length; i++) {
      const hash = bytesToHex(txs[i].hash());
      this.txIndex.delete(hash); // re-insert at the end: newest last
      this.txIndex.set(hash, { blockHash: entry.hash, blockNumber: entry.number, index: i });
    }
    while (this.txIndex.size > TX_INDEX_LIMIT) this.txIndex.delete(this.txIndex.keys().next().value as Hex);
  }

  /** Keeps the index on the canonical chain: entries of removed blocks go, those of added blocks come. */
  private indexReorg(reorg: ReorgEvent): void {
    for (const e of reorg.removed)
      for (const tx of e.block.transactions) {
        const hash = bytesToHex(tx.hash());
        if (this.txIndex.get(hash)?.blockHash === e.hash) this.txIndex.delete(hash);
      }
    for (const e of reorg.added) this.indexBlock(e);
  }

  /** Rebuilds the index from the stored canonical chain (after a restart), newest blocks kept. */
  private rebuildTxIndex(): void {
    this.txIndex.clear();
    const head = this.chain.head().number;
    // The blocks of a store's history have no transactions.
    const floor = this.chain.historyHeight;
    let first = head;
    for (let count = 0; first > floor; first--) {
      count += this.chain.canonicalAt(first)!.block.transactions.length;
      if (count >= TX_INDEX_LIMIT) break;
    }
    for (let n = Math.max(first, floor + 1); n <= head; n++) this.indexBlock(this.chain.canonicalAt(n)!);
  }

  private prunePooledMeta(): void {
    for (const hash of [...this.pooledMeta.keys()]) if (!this.pool.get(hash)) this.pooledMeta.delete(hash);
  }
}


/** The genesis `config` the stored blocks were last accepted under. */
const STORED_CONFIG_KEY = 'meta:genesis-config';

export async function createNode(config: NodeConfig, runtime: Runtime): Promise<QbftNode> {
  const node = new QbftNode(config, runtime);
  await node.start();
  return node;
}
