/**
 * The one model of a run, read from its trace lines: who took part and how the run ended
 * (run-info), what each node did over time (rounds, phases, timers, faults, blocks, messages) and
 * where each node stands now (node-status). The scenario runner feeds it as the run goes and
 * judges the scenario's expectations from it; the reports and the TUI read its timeline() view of
 * a trace file or a finished run; the invariant checkers' run model keeps its node status with
 * the same tracker.
 *
 * Lines are taken one at a time (a live view can feed it from TraceRecorder.subscribe). Every
 * time in the model is in virtual ms relative to the first trace line (run.originMs is that line's
 * absolute time).
 */
import type { TraceLine } from '../trace-events.ts';
import { BlockTracker, type Reorg } from './blocks.ts';
import { FaultTracker } from './faults.ts';
import { buildHeights } from './heights.ts';
import { MessageTracker } from './messages.ts';
import { initialStatus, NodeStatusTracker, type NodeStatus } from './node-status.ts';
import { PhaseTracker } from './phases.ts';
import { buildRoundSummaries } from './round-summary.ts';
import { RoundTracker, type RoundChange, type RoundInterval } from './rounds.ts';
import { RunInfoTracker, type NodeInfo, type RunInfo } from './run-info.ts';
import type { Lane, Timeline } from './timeline.ts';
import { TimerTracker } from './timers.ts';

export interface TraceModelOptions {
  /** Keep at most this many message sends (default 500,000). */
  maxMessages?: number;
  /** Trace kinds whose lines by honest nodes are kept as they are (at most KEPT_LINES_PER_KIND each), for linesOf(). */
  keepKinds?: Iterable<string>;
}

/** Lines of one kept kind held at most (the model's memory stays bounded on long runs). */
export const KEPT_LINES_PER_KIND = 10_000;

export class TraceModel {
  private readonly info = new RunInfoTracker();
  private readonly rounds: RoundTracker;
  private readonly phases = new PhaseTracker();
  private readonly timers: TimerTracker;
  private readonly faults = new FaultTracker();
  private readonly blocks = new BlockTracker();
  private readonly messages: MessageTracker;
  private readonly statuses = new Map<string, NodeStatus>();
  /** Up, paused, head and round of each node now, the partition and the clogged links. */
  readonly status = new NodeStatusTracker((name) => this.statusOf(name));
  private readonly kept = new Map<string, TraceLine[]>();
  private addressNames: Map<string, string> | undefined;
  private faulty: Set<string> | undefined;

  constructor(opts: TraceModelOptions = {}) {
    this.rounds = new RoundTracker((address) => this.nameOfAddress(address));
    this.timers = new TimerTracker(() => this.info.origin());
    this.messages = new MessageTracker(opts.maxMessages);
    for (const kind of opts.keepKinds ?? []) this.kept.set(kind, []);
  }

  add(line: TraceLine): void {
    const t = this.info.relative(line);
    this.info.add(line, t);
    if (line.kind === 'run-started' || line.kind === 'node-started') {
      this.addressNames = undefined;
      this.faulty = undefined;
    }
    this.keep(line);
    if (line.kind.startsWith('msg-')) {
      this.messages.add(line, t);
      return;
    }
    this.rounds.add(line, t);
    this.phases.add(line, t);
    this.timers.add(line, t);
    this.faults.add(line, t);
    this.blocks.add(line, t);
    this.status.add(line, t);
  }

  addAll(lines: Iterable<TraceLine>): this {
    for (const line of lines) this.add(line);
    return this;
  }

  /** Who took part, the run's parameters and, once its last line is in, its verdict. */
  runInfo(endMs?: number): RunInfo {
    return this.info.info(endMs);
  }

  /** The nodes known so far, in run-started order (validators, observers, twins). */
  nodes(): NodeInfo[] {
    return this.info.nodes();
  }

  /** Not listed as faulty (Byzantine, misconfigured, a twin or twinned) by the run-started line. */
  honest(name: string): boolean {
    this.faulty ??= new Set(this.info.nodes().filter((n) => n.faulty).map((n) => n.name));
    return !this.faulty.has(name);
  }

  /** A node's status now (a node the trace has not started yet is down at head 0). */
  statusOf(name: string): NodeStatus {
    let s = this.statuses.get(name);
    if (!s) this.statuses.set(name, (s = initialStatus()));
    return s;
  }

  /** Its head now, or -1 while it is down. */
  heightOf(name: string): number {
    const s = this.statuses.get(name);
    return s?.up ? s.head : -1;
  }

  /** Every node's entries into a round > 0, by time of the line. */
  roundChanges(): readonly RoundChange[] {
    return this.rounds.changes;
  }

  /** Every round a node entered, those still open ending at endMs (default: the latest line). */
  roundIntervals(endMs = this.runInfo().endMs): RoundInterval[] {
    return this.rounds.snapshot(Math.max(endMs, 0));
  }

  reorgs(): readonly Reorg[] {
    return this.blocks.reorgs;
  }

  /** Lines of a kind named in keepKinds, by honest nodes, in order (the first KEPT_LINES_PER_KIND). */
  linesOf(kind: string): readonly TraceLine[] {
    const lines = this.kept.get(kind);
    if (!lines) throw new Error(`the run model keeps no '${kind}' lines (keepKinds)`);
    return lines;
  }

  /** The timeline view: one lane per node and the run-wide views; open intervals end at endMs (default: the end of the run, else the last line). */
  timeline(endMs?: number): Timeline {
    const run = this.runInfo(endMs);
    const end = Math.max(run.endMs, 0);
    const rounds = this.rounds.snapshot(end);
    const phases = this.phases.snapshot(end);
    const timers = this.timers.snapshot(end);
    const faults = this.faults.snapshot(end);
    const syncs = this.blocks.syncSnapshot(end);
    const changes = this.rounds.changes.slice().sort((a, b) => a.atMs - b.atMs);
    const heights = buildHeights(rounds, this.blocks.commits, this.blocks.imports);
    const byNode = <T extends { node: string | null }>(list: T[], name: string) => list.filter((x) => x.node === name);
    const lanes: Lane[] = run.nodes.map((node) => ({
      node,
      rounds: byNode(rounds, node.name),
      phases: byNode(phases, node.name),
      timers: byNode(timers, node.name),
      faults: byNode(faults, node.name),
      commits: byNode(this.blocks.commits, node.name),
      imports: byNode(this.blocks.imports, node.name),
      rejections: byNode(this.blocks.rejections, node.name),
      reorgs: byNode(this.blocks.reorgs, node.name),
      roundChanges: byNode(changes, node.name),
      syncs: byNode(syncs, node.name),
    }));
    return {
      run,
      lanes,
      heights,
      roundChanges: changes,
      faults,
      messages: this.messages.flights,
      messagesLeftOut: this.messages.leftOut,
      roundSummaries: buildRoundSummaries(run.nodes, run.validators, heights, rounds, changes, faults, end),
    };
  }

  private keep(line: TraceLine): void {
    const lines = this.kept.get(line.kind);
    if (lines && line.node !== null && this.honest(line.node) && lines.length < KEPT_LINES_PER_KIND) lines.push(line);
  }

  private nameOfAddress(address: string): string | null {
    if (!this.addressNames) {
      this.addressNames = new Map();
      for (const n of this.info.nodes()) {
        const a = n.address?.toLowerCase();
        if (a && (!this.addressNames.has(a) || n.role !== 'twin')) this.addressNames.set(a, n.name);
      }
    }
    return this.addressNames.get(address.toLowerCase()) ?? null;
  }
}
