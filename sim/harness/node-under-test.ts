/**
 * One real qbft-lab node driven message by message (Besu's QBFT integration-test context): its
 * own validation, signing, duplicate filter, future-message buffer, gossip and timers, on a
 * virtual clock, with scripted validator peers around it. A test injects signed messages at
 * chosen virtual times, delivers timer expiries and chain heads itself, and checks what the node
 * sent to each peer. New chain heads reach consensus only when the test delivers them (as in
 * Besu's test context) unless `followChainHead` is set.
 */
import type { Block } from '@ethereumjs/block';
import { createNode, type Reproposal, type BlockCreator, type ChainEntry, type ConsensusSigner, type NodeProposedBlock, type QbftNode } from '../../node/node.ts';
import type { Log, Runtime, Transport, TransportHandlers, WireMessage } from '../../node/runtime/ports.ts';
import type { NodeTraceEvent } from '../../node/runtime/trace-events.ts';
import { parseGenesis } from '../../node/chain/genesis.ts';
import { bytesToHex, type Hex } from '../../node/crypto/bytes.ts';
import { privateKeyToAddress } from '../../node/crypto/secp256k1.ts';
import { withExtraData, withCoinbase, extraDataOf } from '../../node/chain/block-hashing.ts';
import { entryFromBlock } from '../../node/chain/chain.ts';
import { NO_BUGS, type BugSwitches } from '../../node/bugs/bug-switches.ts';
import { SimKernel } from '../kernel.ts';
import { SimStore } from '../storage.ts';
import { SeededRandom } from '../random.ts';
import { validatorKeys } from '../keys.ts';
import { selectProposer } from '../../node/consensus/qbft/proposer-selection.ts';
import { harnessGenesis, type HarnessGenesisOptions } from './harness-genesis.ts';
import { MessageFactory, ValidatorPeer, outsiderKey, type RoundId } from './validator-peer.ts';
import { RoundPeers } from './round-peers.ts';
import type { TypedTransaction } from '@ethereumjs/tx';

export interface NodeUnderTestOptions extends HarnessGenesisOptions {
  /** Validators, the node under test among them (Besu's validatorCount). Default 4. */
  validators?: number;
  /** Their private keys instead of qbft-lab's deterministic ones (Besu's nodeParams). */
  keys?: Uint8Array[];
  /**
   * Which validator, in address order, is the node under test (Besu's
   * indexOfFirstLocallyProposedBlock: with the genesis coinbase on validator 0, validator 1
   * proposes block 1 in round 0). Default 0.
   */
  localIndex?: number;
  /** A whole Besu genesis file (parsed JSON) instead of the generated one; `keys` must hold its validators. */
  genesis?: Record<string, unknown>;
  /** The consensus clock at start, ms since the epoch (Besu's fixed test Clock). Default 0. */
  clockMs?: number;
  /**
   * The clock header timestamps are judged against (Besu: the system clock), fixed at this value;
   * default: the consensus clock.
   */
  headerClockMs?: number;
  /** Re-gossip received messages, as Besu does live (its tests default to no gossip). Default false. */
  gossip?: boolean;
  /** Deliver new chain heads to consensus as the node imports blocks (the live wiring). Default false. */
  followChainHead?: boolean;
  earlyRoundChange?: boolean;
  signer?: ConsensusSigner;
  blockCreator?: BlockCreator;
  /** The node's block interface for re-proposals and their validation (see `replaceRoundAndProposer`); default Besu's. */
  reproposal?: Reproposal;
  bugs?: BugSwitches;
}

/** A block to build for a proposal; omitted fields: on the chain head, round 0, the local node as coinbase. */
export interface ProposalBlockRequest {
  timestampSeconds: number;
  /** A stored block or its number, or a sealed block not stored yet (Besu builds on a header it has not appended). */
  parent?: ChainEntry | number | Block;
  coinbase?: Hex;
  round?: number;
  transactions?: TypedTransaction[];
}

const LOCAL_ID = 'node-under-test';

export class NodeUnderTest {
  /** Remote validators in address order. */
  readonly peers: ValidatorPeer[];
  /** Besu's local-node MessageFactory: the messages the node under test is expected to send. */
  readonly local: MessageFactory;
  /** Every trace event the node reported, in order. */
  readonly events: NodeTraceEvent[];
  private headerClockMs: number | undefined;

  private constructor(
    readonly node: QbftNode,
    private readonly kernel: SimKernel,
    localKey: Uint8Array,
    peers: ValidatorPeer[],
    private readonly transport: HarnessTransport,
    events: NodeTraceEvent[],
  ) {
    this.events = events;
    this.local = new MessageFactory(localKey);
    this.peers = peers;
  }

  static async create(options: NodeUnderTestOptions = {}): Promise<NodeUnderTest> {
    const keys = sortedKeys(options);
    const localIndex = options.localIndex ?? 0;
    if (!Number.isInteger(localIndex) || localIndex < 0 || localIndex >= keys.length) throw new RangeError(`localIndex ${localIndex} is not one of ${keys.length} validators`);
    const genesis = parseGenesis(options.genesis ?? harnessGenesis(keys.map(privateKeyToAddress), options));
    const kernel = new SimKernel({ startTimeMs: options.clockMs ?? 0 });
    const transport = new HarnessTransport();
    const peers = keys.filter((_, i) => i !== localIndex).map((k) => new ValidatorPeer(k, privateKeyToAddress(k), (from, code, data) => harness.inject(from, code, data)));
    for (const p of peers) transport.connect(p);
    let harness!: NodeUnderTest;
    const events: NodeTraceEvent[] = [];
    const runtime: Runtime = {
      clock: kernel.clock,
      systemClock: { nowMs: () => harness?.headerClockMs ?? kernel.nowMs() },
      timers: kernel.timers(LOCAL_ID),
      random: new SeededRandom('node-under-test'),
      transport,
      store: new SimStore(),
      log: recordingLog(events),
    };
    const node = await createNode(
      {
        name: LOCAL_ID,
        genesis,
        privateKey: keys[localIndex],
        earlyRoundChange: options.earlyRoundChange,
        gossip: options.gossip ?? false,
        bugs: options.bugs ?? NO_BUGS,
        signer: options.signer,
        blockCreator: options.blockCreator,
        reproposal: options.reproposal,
        deliverNewChainHeads: options.followChainHead ?? false,
        // Besu's StubbedSynchronizerUpdater: each future-height message tells sync its sender's chain height.
        onPeerAhead: (peer, number) => harness?.peers.find((p) => p.id === peer)?.updateEstimatedChainHeight(number),
      },
      runtime,
    );
    harness = new NodeUnderTest(node, kernel, keys[localIndex], peers, transport, events);
    harness.headerClockMs = options.headerClockMs;
    await harness.settled();
    return harness;
  }

  get address(): Hex {
    return this.node.address;
  }

  // ---- time --------------------------------------------------------------------------------

  nowMs(): number {
    return this.kernel.nowMs();
  }

  /**
   * Runs the virtual clock to `atMs`, firing the node's timers due by then (a timer already due
   * fires on `advanceBy(0)`), and waits for the node. Without it no timer fires, as in Besu's
   * integration tests, whose timer events are queued but never processed.
   */
  async advanceTo(atMs: number): Promise<void> {
    if (atMs < this.kernel.nowMs()) throw new RangeError(`cannot move the clock back from ${this.kernel.nowMs()} to ${atMs}`);
    for (let pass = 0; pass < 1000; pass++) {
      await this.kernel.runUntil(atMs);
      await this.settled();
      const next = this.kernel.nextEventAtMs();
      if (next === undefined || next > atMs) return;
    }
    throw new Error(`the node under test did not settle at ${atMs} ms within 1000 passes`);
  }

  advanceBy(ms: number): Promise<void> {
    return this.advanceTo(this.kernel.nowMs() + ms);
  }

  setHeaderClock(atMs: number | undefined): void {
    this.headerClockMs = atMs;
  }

  /** Waits until the node has handled every queued event (and every event those queued). */
  settled(): Promise<void> {
    return this.node.consensusSettled();
  }

  // ---- peers -------------------------------------------------------------------------------

  /** The remote validators seen from one round: its proposer (if remote) and the others. */
  async roundSpecificPeers(id: RoundId, parent?: ChainEntry): Promise<RoundPeers> {
    const base = parent ?? this.node.blockAt(id.height - 1) ?? this.chainHead();
    const proposer = selectProposer(await this.node.validatorsAfter(base), base.coinbase, id.round);
    return new RoundPeers(id, this.peers.find((p) => p.address === proposer), this.peers);
  }

  peer(address: Hex): ValidatorPeer {
    const p = this.peers.find((q) => q.address === address.toLowerCase());
    if (!p) throw new Error(`${address} is not a remote validator`);
    return p;
  }

  /** A peer that is not a validator (not connected: it receives nothing), from a seed. */
  outsider(seed = 'outsider'): ValidatorPeer {
    const key = outsiderKey(seed);
    return new ValidatorPeer(key, `outsider-${seed}`, (from, code, data) => this.inject(from, code, data));
  }

  private async inject(from: string, code: number, data: Uint8Array): Promise<void> {
    await this.transport.deliver(from, { protocol: 'istanbul', code, data });
    await this.settled();
  }

  // ---- timers and chain heads --------------------------------------------------------------

  async blockTimerExpiry(id: RoundId): Promise<void> {
    await this.node.expireBlockTimer(id.height, id.round);
    await this.settled();
  }

  async roundExpiry(id: RoundId): Promise<void> {
    await this.node.expireRound(id.height, id.round);
    await this.settled();
  }

  /** Delivers the new-chain-head event for a stored block (Besu's handleNewBlockEvent). */
  async newChainHead(block: Block | ChainEntry | number): Promise<void> {
    await this.node.deliverNewHead(await this.node.heightContext(this.entry(block)));
    await this.settled();
  }

  // ---- the chain ---------------------------------------------------------------------------

  chainHeight(): number {
    return this.node.head().number;
  }

  chainHead(): ChainEntry {
    return this.node.head();
  }

  blockAt(number: number): ChainEntry {
    const entry = this.node.blockAt(number);
    if (!entry) throw new RangeError(`no canonical block ${number} (head ${this.chainHeight()})`);
    return entry;
  }

  /** Validators for the child of canonical block `number`. */
  validatorsAfter(number: number): Promise<Hex[]> {
    return this.node.validatorsAfter(this.blockAt(number));
  }

  /**
   * Validators of canonical block `number` itself (Besu's ValidatorProvider.getValidatorsForBlock):
   * in block-header mode its extraData list, in contract mode the contract of its own fork called
   * on its own state; sorted.
   */
  validatorsForBlock(number: number): Promise<Hex[]> {
    return this.node.validatorsOf(this.blockAt(number));
  }

  /** Builds (and executes) a block for a proposal, with the node's own block builder. */
  createBlockForProposal(req: ProposalBlockRequest): Promise<NodeProposedBlock> {
    const p = req.parent;
    const parent = p === undefined ? this.chainHead() : typeof p === 'number' ? this.blockAt(p) : 'header' in p ? this.unstoredEntry(p) : p;
    return this.node.buildProposalBlock({
      parent,
      round: req.round ?? 0,
      timestampSeconds: req.timestampSeconds,
      coinbase: (req.coinbase ?? this.address).toLowerCase() as Hex,
      transactions: req.transactions ?? [],
    });
  }

  /**
   * The block with its round and its coinbase replaced (a block interface that also moves the
   * proposer, as Besu's tests plug in: `reproposal: (b, r, p) => node.replaceRoundAndProposer(b, r, p)`).
   */
  replaceRoundAndProposer(block: Block, round: number, proposer: Hex): Block {
    const withRound = withExtraData(block, { ...extraDataOf(block.header), round, seals: [] }, this.node.common);
    return withCoinbase(withRound, proposer, this.node.common);
  }

  /** The block with its commit round and seals written into its extraData. */
  createSealedBlock(block: NodeProposedBlock, round: number, seals: Uint8Array[]): Block {
    return withExtraData(block.block, { ...extraDataOf(block.block.header), round, seals }, this.node.common);
  }

  /**
   * Imports a sealed block with the node's full validation (throws when it is refused); the
   * new-chain-head event follows only with `newChainHead: true` (or `followChainHead`).
   */
  async appendBlock(block: Block, opts: { newChainHead?: boolean } = {}): Promise<ChainEntry> {
    const outcome = await this.node.importBlock(block);
    if (!outcome.ok) throw new Error(`block ${block.header.number} refused: ${outcome.reason}`);
    if (opts.newChainHead) await this.newChainHead(block);
    await this.settled();
    return this.entry(block);
  }

  stop(): void {
    this.node.stop();
    this.kernel.stop();
  }

  /** A block as a chain entry, stored or not (its parent's total difficulty, if stored, gives its own). */
  private unstoredEntry(block: Block): ChainEntry {
    const parentTd = this.node.blockByHash(bytesToHex(block.header.parentHash))?.td ?? 0n;
    return this.node.blockByHash(bytesToHex(this.node.hashOf(block.header))) ?? entryFromBlock(block, parentTd, (h) => this.node.hashOf(h));
  }

  private entry(block: Block | ChainEntry | number): ChainEntry {
    if (typeof block === 'number') return this.blockAt(block);
    if ('hash' in block && typeof block.hash === 'string') return block;
    const hash = bytesToHex(this.node.hashOf((block as Block).header));
    const entry = this.node.blockByHash(hash);
    if (!entry) throw new Error(`block ${hash} is not stored`);
    return entry;
  }
}

function sortedKeys(options: NodeUnderTestOptions): Uint8Array[] {
  if (options.keys) {
    if (options.validators !== undefined && options.validators !== options.keys.length) throw new RangeError('give `validators` or `keys`, not both disagreeing');
    return [...options.keys].sort((a, b) => (privateKeyToAddress(a) < privateKeyToAddress(b) ? -1 : 1));
  }
  const n = options.validators ?? 4;
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`validators must be a positive integer, got ${n}`);
  return validatorKeys(n).map((k) => k.privateKey);
}

function recordingLog(events: NodeTraceEvent[]): Log {
  return { log: () => {}, trace: (e) => void events.push(e) };
}

/** The node's transport: scripted peers, each connected and identified by its validator address. */
class HarnessTransport implements Transport {
  readonly localId = LOCAL_ID;
  private readonly byId = new Map<string, ValidatorPeer>();
  private handlers: TransportHandlers | undefined;

  connect(peer: ValidatorPeer): void {
    this.byId.set(peer.id, peer);
  }

  peers(): string[] {
    return [...this.byId.keys()].sort();
  }

  /** Consensus messages are recorded for their peer; other sub-protocols (sync, privacy) go nowhere. */
  send(to: string, message: WireMessage): void {
    if (message.protocol === 'istanbul') this.byId.get(to)?.record({ code: message.code, data: message.data });
  }

  peerForAddress(address: string): string | undefined {
    return this.byId.has(address.toLowerCase()) ? address.toLowerCase() : undefined;
  }

  addressOfPeer(peer: string): string | undefined {
    return this.byId.get(peer)?.address;
  }

  setHandlers(handlers: TransportHandlers): void {
    this.handlers = handlers;
  }

  async deliver(from: string, message: WireMessage): Promise<void> {
    if (!this.handlers) throw new Error('the node has not started');
    await this.handlers.onMessage(from, message);
  }
}
