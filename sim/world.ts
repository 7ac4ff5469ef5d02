/**
 * A simulated world: one kernel, one seeded random source split per purpose, one virtual network,
 * one trace, and a set of nodes built through the node's own composition root. Faults act on
 * nodes from outside: crash (volatile state lost, the store survives), restart (optionally with a
 * wiped data directory), partitions, clock skew and Byzantine transports.
 *
 * The nodes share their state as one process would: one content-addressed trie node store, and
 * per genesis one memo of block outcomes, so a block is executed once rather than once per node
 * (execution is a pure function of the parent state and the block; each node still checks every
 * root). A crashed node restarts from the state it saved in its store and replays only the blocks after it.
 */
import { utf8ToBytes, type Hex } from '../node/crypto/bytes.ts';
import { sharedCommonFor } from '../node/chain/common.ts';
import { parseGenesis, type Genesis } from '../node/chain/genesis.ts';
import { createNode, type PrivacyConfig, type QbftNode } from '../node/node.ts';
import { TrieNodeStore } from '../node/execution/state-db.ts';
import { ExecutionMemo } from '../node/execution/execution-memo.ts';
import type { Clock, PeerId, Runtime, Transport } from '../node/runtime/ports.ts';
import { SimKernel } from './kernel.ts';
import { VirtualNetwork, type LatencyModel, type LinkFaults } from './network.ts';
import { SeededRandom } from './random.ts';
import { SimStoreDirectory, type SimStore } from './storage.ts';
import { TraceRecorder, simLog } from './trace.ts';
import { PausableTimers } from './pausable-timers.ts';
import { byzantineTransport, isByzantineBehaviour, type ByzantineBehaviour, type ByzantineControl } from './byzantine.ts';
import type { Behaviour } from './byzantine/kit.ts';
import type { NodeKey } from './keys.ts';
import type { BugSwitches } from '../node/bugs/bug-switches.ts';
import { StoredHistoryError } from '../node/chain/stored-rules.ts';
import { SIM_START_TIME_MS, secondsFromStart } from './sim-start.ts';
import { DEFAULT_MAX_PEERS, peerTopology } from './topology.ts';

export { SIM_START_TIME_MS };

export interface WorldNodeSpec {
  name: string;
  key: NodeKey;
  /** A genesis of its own (a misconfigured node); defaults to the world's. */
  genesis?: Record<string, unknown>;
  earlyRoundChange?: boolean;
  minerExtraData?: string;
  /** Privacy with the embedded private transaction manager (NodeConfig.privacy). */
  privacy?: PrivacyConfig;
}

export interface WorldOptions {
  seed: number;
  genesis: Record<string, unknown>;
  nodes: WorldNodeSpec[];
  latency?: LatencyModel;
  loss?: number;
  duplicate?: number;
  reorder?: number;
  reorderWindowMs?: number;
  gossip?: boolean;
  /**
   * Besu's --max-peers for every node (default 25): a larger network is the partial mesh the limit
   * leaves (sim/topology.ts). 'all' keeps a full mesh whatever the size.
   */
  maxPeers?: number | 'all';
  /** Record every network message in the trace (costly with many validators). */
  traceMessages?: boolean;
  earlyRoundChange?: boolean;
  wireLayout?: 'besu26' | 'legacy';
  /** Keep trace lines in memory (to write them out); by default only the running hash is kept. */
  keepTrace?: boolean;
  /** Known-bug switches every node runs with (sim/bugs/). */
  bugs?: BugSwitches;
  /** Byzantine behaviours beyond the built-in ones, by name (the library's extension point). */
  behaviours?: ReadonlyMap<string, Behaviour>;
  /** How nodes treat a new genesis that changes stored blocks' rules (NodeConfig.storedHistoryCheck). */
  storedHistoryCheck?: 'refuse' | 'warn';
}

export interface SimNode {
  readonly name: string;
  readonly key: NodeKey;
  genesis: Genesis;
  readonly minerExtraData: string | undefined;
  readonly privacy: PrivacyConfig | undefined;
  node: QbftNode | undefined;
  status: 'up' | 'crashed';
  skewMs: number;
  byzantine: ByzantineControl;
  earlyRoundChange: boolean;
  timers: PausableTimers | undefined;
  pausedSinceMs: number | undefined;
}

export class World {
  readonly kernel: SimKernel;
  readonly random: SeededRandom;
  readonly network: VirtualNetwork;
  readonly trace: TraceRecorder;
  readonly stores = new SimStoreDirectory();
  readonly stateStore = new TrieNodeStore();
  private readonly memos = new Map<Genesis, ExecutionMemo>();
  readonly nodes = new Map<string, SimNode>();
  readonly errors: string[] = [];
  /** Fills a data directory just emptied by a wiped restart (a rehearsal's imported history), before the node starts on it. */
  afterWipe: ((name: string, store: SimStore) => void) | undefined;
  private readonly gossip: boolean;

  constructor(readonly options: WorldOptions) {
    this.trace = new TraceRecorder({ keepEvents: options.keepTrace ?? false });
    this.kernel = new SimKernel({
      startTimeMs: SIM_START_TIME_MS,
      onError: (err, ev) => this.fail(`event ${ev.label ?? ev.seq} at ${secondsFromStart(ev.atMs)}: ${String((err as Error)?.stack ?? err)}`),
    });
    this.random = new SeededRandom(options.seed);
    const traceMessages = options.traceMessages ?? options.nodes.length <= 16;
    this.network = new VirtualNetwork(this.kernel, this.random.fork('network'), {
      latency: options.latency ?? { kind: 'uniform', minMs: 5, maxMs: 30 },
      // One buffer goes to every receiver (nodes never mutate message buffers), so per-process
      // caches keyed by buffer identity let the world decode each message once.
      copyBytes: false,
      faults: linkFaults(options),
      onEvent: (e) => this.trace.record(this.kernel.nowMs(), null, e),
      reportTraffic: traceMessages,
    });
    this.gossip = options.gossip ?? true;
    const maxPeers = options.maxPeers ?? DEFAULT_MAX_PEERS;
    if (maxPeers !== 'all') this.network.setTopology(peerTopology(options.nodes.map((n) => n.name), maxPeers, this.random.fork('topology')));
    const base = parseGenesis(options.genesis);
    for (const spec of options.nodes) {
      this.nodes.set(spec.name, {
        name: spec.name,
        key: spec.key,
        genesis: spec.genesis ? parseGenesis(spec.genesis) : base,
        minerExtraData: spec.minerExtraData,
        privacy: spec.privacy,
        node: undefined,
        status: 'crashed',
        skewMs: 0,
        byzantine: { behaviour: undefined },
        timers: undefined,
        pausedSinceMs: undefined,
        earlyRoundChange: spec.earlyRoundChange ?? options.earlyRoundChange ?? false,
      });
    }
  }

  fail(message: string): void {
    if (this.errors.length < 20) this.errors.push(message);
  }

  get(name: string): SimNode {
    const n = this.nodes.get(name);
    if (!n) throw new Error(`no node named ${name}`);
    return n;
  }

  names(): string[] {
    return [...this.nodes.keys()];
  }

  /** Address -> name of the first running node with that key; rebuilt only after a node starts or crashes. */
  private book: Map<Hex, PeerId> | undefined;

  private addressBook(): Map<Hex, PeerId> {
    if (this.book) return this.book;
    const book = new Map<Hex, PeerId>();
    for (const n of this.nodes.values()) if (n.status === 'up' && !book.has(n.key.address)) book.set(n.key.address, n.name);
    this.book = book;
    return book;
  }

  private transportFor(sim: SimNode): Transport {
    const raw = this.network.attach(sim.name);
    const withIdentity: Transport = {
      get localId() {
        return raw.localId;
      },
      peers: () => raw.peers(),
      send: (to, m) => raw.send(to, m),
      setHandlers: (h) => raw.setHandlers(h),
      peerForAddress: (address) => {
        const peer = this.addressBook().get(address as Hex);
        return peer !== undefined && peer !== sim.name && this.network.arePeers(sim.name, peer) ? peer : undefined;
      },
      addressOfPeer: (peer) => this.nodes.get(peer)?.key.address,
    };
    return byzantineTransport(withIdentity, sim.byzantine, sim.key.privateKey, this.commonOf(sim), this.options.wireLayout, this.options.behaviours);
  }

  private memoFor(genesis: Genesis): ExecutionMemo {
    let memo = this.memos.get(genesis);
    if (!memo) this.memos.set(genesis, (memo = new ExecutionMemo()));
    return memo;
  }

  private commonOf(sim: SimNode) {
    return sim.node?.common ?? sharedCommonFor(sim.genesis);
  }

  /** Starts (or restarts) a node: a fresh process over whatever its store kept. */
  async startNode(name: string, opts: { wipe?: boolean } = {}): Promise<void> {
    const sim = this.get(name);
    if (sim.status === 'up') return;
    if (opts.wipe) {
      this.stores.wipe(name);
      this.afterWipe?.(name, this.stores.open(name));
    }
    const kernel = this.kernel;
    const clock: Clock = { nowMs: () => kernel.nowMs() + sim.skewMs };
    sim.timers = new PausableTimers(kernel.timers(name));
    sim.pausedSinceMs = undefined;
    const runtime: Runtime = {
      clock,
      timers: sim.timers,
      random: this.random.fork(`node/${name}`),
      transport: this.transportFor(sim),
      store: this.stores.open(name),
      log: simLog(this.trace, kernel, name),
    };
    sim.status = 'up';
    this.book = undefined;
    this.trace.record(kernel.nowMs(), name, { kind: 'node-started', wiped: opts.wipe === true });
    try {
      sim.node = await createNode(
        {
          name,
          genesis: sim.genesis,
          privateKey: sim.key.privateKey,
          earlyRoundChange: sim.earlyRoundChange,
          gossip: this.gossip,
          layout: this.options.wireLayout,
          bugs: this.options.bugs,
          minerExtraData: sim.minerExtraData === undefined ? undefined : utf8ToBytes(sim.minerExtraData),
          sharedExecution: { store: this.stateStore, memo: this.memoFor(sim.genesis) },
          storedHistoryCheck: this.options.storedHistoryCheck,
          privacy: sim.privacy,
        },
        runtime,
      );
    } catch (err) {
      if (!(err instanceof StoredHistoryError)) throw err;
      // As a live node does: it refuses to start, and stays down.
      this.trace.record(kernel.nowMs(), name, { kind: 'node-start-refused', block: err.change.block, head: err.head, reason: err.change.what });
      this.crash(name);
    }
  }

  crash(name: string): void {
    const sim = this.get(name);
    if (sim.status !== 'up') return;
    sim.node?.stop();
    sim.node = undefined;
    sim.status = 'crashed';
    this.book = undefined;
    if (sim.pausedSinceMs !== undefined) {
      sim.pausedSinceMs = undefined;
      for (const other of this.names()) {
        if (other === name) continue;
        this.network.unclog(name, other);
        this.network.unclog(other, name);
      }
    }
    this.kernel.cancelOwner(name);
    this.network.setUp(name, false);
    this.trace.record(this.kernel.nowMs(), name, { kind: 'fault', fault: 'crash' });
  }

  async restart(name: string, opts: { wipe?: boolean } = {}): Promise<void> {
    this.crash(name);
    this.trace.record(this.kernel.nowMs(), name, { kind: 'fault', fault: opts.wipe ? 'restart-wiped' : 'restart' });
    await this.startNode(name, opts);
  }

  partition(groups: string[][]): void {
    this.network.partition(groups);
    this.trace.record(this.kernel.nowMs(), null, { kind: 'fault', fault: 'partition', groups });
  }

  heal(): void {
    this.network.heal();
    this.trace.record(this.kernel.nowMs(), null, { kind: 'fault', fault: 'heal' });
  }

  /** A stop-the-world pause: the node's timers freeze and its links hold messages both ways. */
  pause(name: string): void {
    const sim = this.get(name);
    if (sim.status !== 'up' || sim.pausedSinceMs !== undefined) return;
    sim.pausedSinceMs = this.kernel.nowMs();
    sim.timers?.pause();
    for (const other of this.names()) {
      if (other === name) continue;
      this.network.clog(name, other);
      this.network.clog(other, name);
    }
    this.trace.record(this.kernel.nowMs(), name, { kind: 'fault', fault: 'pause' });
  }

  async resume(name: string): Promise<void> {
    const sim = this.get(name);
    if (sim.pausedSinceMs === undefined) return;
    sim.pausedSinceMs = undefined;
    this.trace.record(this.kernel.nowMs(), name, { kind: 'fault', fault: 'resume' });
    for (const other of this.names()) {
      if (other === name) continue;
      this.network.unclog(name, other);
      this.network.unclog(other, name);
    }
    await sim.timers?.resume();
  }

  clog(from: string, to: string): void {
    this.network.clog(from, to);
    this.trace.record(this.kernel.nowMs(), null, { kind: 'fault', fault: 'clog', from, to });
  }

  unclog(from: string, to: string): void {
    this.network.unclog(from, to);
    this.trace.record(this.kernel.nowMs(), null, { kind: 'fault', fault: 'unclog', from, to });
  }

  setSkew(name: string, skewMs: number): void {
    this.get(name).skewMs = skewMs;
    this.trace.record(this.kernel.nowMs(), name, { kind: 'fault', fault: 'clock-skew', skewMs });
  }

  setByzantine(name: string, behaviour: ByzantineBehaviour | (string & {}) | undefined): void {
    if (behaviour !== undefined && !isByzantineBehaviour(behaviour) && !this.options.behaviours?.has(behaviour)) throw new Error(`unknown Byzantine behaviour '${behaviour}'`);
    this.get(name).byzantine.behaviour = behaviour;
    this.trace.record(this.kernel.nowMs(), name, { kind: 'fault', fault: 'byzantine', behaviour: behaviour ?? 'none' });
  }

  async startAll(): Promise<void> {
    for (const name of this.names()) await this.startNode(name);
  }

  /** Runs `fn` at virtual time `atMs` (relative to the start). */
  at(offsetMs: number, label: string, fn: () => void | Promise<void>): void {
    this.kernel.schedule(SIM_START_TIME_MS + offsetMs, fn, label);
  }

  /** Runs until `durationMs` of virtual time since the start (an absolute point: see advanceBy). */
  async runFor(durationMs: number): Promise<void> {
    await this.kernel.runUntil(SIM_START_TIME_MS + durationMs);
  }

  /** Runs `durationMs` more of virtual time from now. */
  async advanceBy(durationMs: number): Promise<void> {
    await this.kernel.runUntil(this.kernel.nowMs() + durationMs);
  }

  elapsedMs(): number {
    return this.kernel.nowMs() - SIM_START_TIME_MS;
  }
}

/** The default link faults of a world, or none. */
function linkFaults(o: WorldOptions): LinkFaults | undefined {
  const faults: LinkFaults = {};
  if (o.loss) faults.loss = o.loss;
  if (o.duplicate) faults.duplicate = o.duplicate;
  if (o.reorder) faults.reorder = o.reorder;
  if (o.reorderWindowMs !== undefined) faults.reorderWindowMs = o.reorderWindowMs;
  return Object.keys(faults).length > 0 ? faults : undefined;
}
