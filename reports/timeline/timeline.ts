/**
 * The trace-reading model: trace lines in, one lane per node out (height/round intervals, phases,
 * timers, faults, commits, imports, round changes, syncs), plus run-wide views (heights, round
 * changes, partitions, messages, Besu's round summaries) and the run's parameters and verdict.
 *
 * TimelineBuilder takes lines one at a time (a live view can feed it from TraceRecorder.subscribe)
 * and build() returns the model so far, intervals still open ending at the last time seen.
 * buildTimeline() does both for a whole trace. Every time in the model is in virtual ms relative
 * to the first trace line (run.originMs is that line's absolute time).
 */
import type { TraceLine } from '../../sim/trace.ts';
import { BlockTracker, type BlockImport, type BlockRejection, type Commit, type Reorg, type SyncSpan } from './blocks.ts';
import { FaultTracker, type FaultInterval } from './faults.ts';
import { buildHeights, type HeightInfo } from './heights.ts';
import { MessageTracker, type MessageFlight } from './messages.ts';
import { PhaseTracker, type PhaseInterval } from './phases.ts';
import { buildRoundSummaries, type RoundSummary } from './round-summary.ts';
import { RoundTracker, type RoundChange, type RoundInterval } from './rounds.ts';
import { RunInfoTracker, type NodeInfo, type RunInfo } from './run-info.ts';
import { TimerTracker, type TimerSpan } from './timers.ts';

export interface Lane {
  node: NodeInfo;
  rounds: RoundInterval[];
  phases: PhaseInterval[];
  timers: TimerSpan[];
  faults: FaultInterval[];
  commits: Commit[];
  imports: BlockImport[];
  rejections: BlockRejection[];
  reorgs: Reorg[];
  roundChanges: RoundChange[];
  syncs: SyncSpan[];
}

export interface Timeline {
  run: RunInfo;
  /** One lane per node, validators first (v0, v1, ...), then observers, then twins. */
  lanes: Lane[];
  heights: HeightInfo[];
  /** Every node's round changes, by time. */
  roundChanges: RoundChange[];
  /** Every fault interval (per node, and network-wide partitions with node null), by start time. */
  faults: FaultInterval[];
  messages: MessageFlight[];
  /** Sends not kept (beyond the builder's maxMessages). */
  messagesLeftOut: number;
  roundSummaries: RoundSummary[];
}

export interface TimelineOptions {
  /** Keep at most this many message sends (default 500,000). */
  maxMessages?: number;
}

export class TimelineBuilder {
  private readonly info = new RunInfoTracker();
  private readonly rounds: RoundTracker;
  private readonly phases = new PhaseTracker();
  private readonly timers: TimerTracker;
  private readonly faults = new FaultTracker();
  private readonly blocks = new BlockTracker();
  private readonly messages: MessageTracker;
  private addressNames: Map<string, string> | undefined;

  constructor(opts: TimelineOptions = {}) {
    this.rounds = new RoundTracker((address) => this.nameOfAddress(address));
    this.timers = new TimerTracker(() => this.info.origin());
    this.messages = new MessageTracker(opts.maxMessages);
  }

  add(line: TraceLine): void {
    const t = this.info.relative(line);
    this.info.add(line, t);
    if (line.kind === 'run-started' || line.kind === 'node-started') this.addressNames = undefined;
    if (line.kind.startsWith('msg-')) {
      this.messages.add(line, t);
      return;
    }
    this.rounds.add(line, t);
    this.phases.add(line, t);
    this.timers.add(line, t);
    this.faults.add(line, t);
    this.blocks.add(line, t);
  }

  addAll(lines: Iterable<TraceLine>): this {
    for (const line of lines) this.add(line);
    return this;
  }

  /** The model of everything added so far; open intervals end at endMs (default: the end of the run, else the last line). */
  build(endMs?: number): Timeline {
    const run = this.info.info(endMs);
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

export function buildTimeline(lines: Iterable<TraceLine>, opts: TimelineOptions = {}): Timeline {
  return new TimelineBuilder(opts).addAll(lines).build();
}
