/**
 * The run model's timeline view (TraceModel.timeline()), what the reports and the TUI draw: one
 * lane per node (height/round intervals, phases, timers, faults, commits, imports, round changes,
 * syncs), plus run-wide views (heights, round changes, partitions, messages, Besu's round
 * summaries) and the run's parameters and verdict. Times are virtual ms relative to the first
 * trace line (run.originMs is that line's absolute time).
 */
import type { TraceLine } from '../trace.ts';
import type { BlockImport, BlockRejection, Commit, Reorg, SyncSpan } from './blocks.ts';
import type { FaultInterval } from './faults.ts';
import type { HeightInfo } from './heights.ts';
import type { MessageFlight } from './messages.ts';
import type { PhaseInterval } from './phases.ts';
import type { RoundSummary } from './round-summary.ts';
import type { RoundChange, RoundInterval } from './rounds.ts';
import type { NodeInfo, RunInfo } from './run-info.ts';
import type { TimerSpan } from './timers.ts';
import { TraceModel, type TraceModelOptions } from './trace-model.ts';

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

export type TimelineOptions = Pick<TraceModelOptions, 'maxMessages'>;

/** The timeline of a whole trace. */
export function buildTimeline(lines: Iterable<TraceLine>, opts: TimelineOptions = {}): Timeline {
  return new TraceModel(opts).addAll(lines).timeline();
}
