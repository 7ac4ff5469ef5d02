/**
 * The world as it stood at one virtual time: for each lane its height, round, phase, running
 * timers with their remaining time, active faults and chain head. A replay view seeks by calling
 * this with the time it shows.
 */
import type { FaultInterval } from '../../sim/run-model/faults.ts';
import type { Phase } from '../../sim/run-model/phases.ts';
import type { Lane, Timeline } from '../../sim/run-model/timeline.ts';
import type { TimerKind } from '../../sim/run-model/timers.ts';

export interface RunningTimer {
  kind: TimerKind;
  height: number;
  round: number | null;
  dueMs: number;
  /** dueMs - atMs; negative when a paused node's timer is overdue. */
  remainingMs: number;
}

export interface LaneState {
  node: string;
  up: boolean;
  phase: Phase;
  /** Height and round it is working on (null when not in a round). */
  height: number | null;
  round: number | null;
  /** The proposer of that round. */
  proposer: string | null;
  timers: RunningTimer[];
  faults: FaultInterval[];
  /** Number of its latest imported head block (0 = genesis). */
  head: number;
  /** Round changes it made so far. */
  roundChanges: number;
}

export interface WorldState {
  atMs: number;
  lanes: LaneState[];
  /** The partition in force, if any. */
  partition: string[][] | null;
}

const within = (atMs: number, s: { startMs: number; endMs: number }, open = false) => s.startMs <= atMs && (atMs < s.endMs || (open && atMs === s.endMs));

export function laneStateAt(lane: Lane, atMs: number, endMs: number): LaneState {
  const atEnd = atMs >= endMs;
  // the latest-starting phase wins at a boundary (a phase that began at the last trace line)
  let phase: Lane['phases'][number] | undefined;
  for (const p of lane.phases) if (within(atMs, p, atEnd)) phase = p;
  const round = lane.rounds.find((r) => within(atMs, r, atEnd && r.outcome === 'running'));
  const faults = lane.faults.filter((f) => within(atMs, f, atEnd && f.ongoing) || (f.startMs === atMs && f.endMs === atMs));
  const timers: RunningTimer[] = lane.timers
    .filter((t) => within(atMs, t, atEnd && t.outcome === 'running'))
    .map((t) => ({ kind: t.kind, height: t.height, round: t.round, dueMs: t.dueMs, remainingMs: t.dueMs - atMs }));
  let head = 0;
  for (const i of lane.imports) if (i.atMs <= atMs && i.status === 'head') head = i.number;
  const down = faults.some((f) => f.kind === 'crash' && f.startMs < f.endMs) || phase?.phase === 'down';
  return {
    node: lane.node.name,
    up: !down,
    phase: phase?.phase ?? (down ? 'down' : 'idle'),
    height: round?.height ?? phase?.height ?? null,
    round: round?.round ?? null,
    proposer: round?.proposer ?? null,
    timers,
    faults,
    head,
    roundChanges: lane.roundChanges.filter((c) => c.atMs <= atMs).length,
  };
}

export function stateAt(timeline: Timeline, atMs: number): WorldState {
  const end = timeline.run.endMs;
  const partition = timeline.faults.find((f) => f.node === null && f.kind === 'partition' && within(atMs, f, atMs >= end && f.ongoing));
  return {
    atMs,
    lanes: timeline.lanes.map((l) => laneStateAt(l, atMs, end)),
    partition: partition?.groups ?? null,
  };
}
