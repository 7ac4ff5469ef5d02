/**
 * Everything a replay view needs from one run, computed once: the timeline, its key moments, the
 * step times and the message counts. Views ask `frameAt(data, atMs)` for what to show.
 */
import { moments, type Moment } from '../timeline/moments.ts';
import { stateAt, type LaneState, type WorldState } from '../timeline/state-at.ts';
import type { Timeline } from '../../sim/run-model/timeline.ts';
import { MessageCounts, type FlowCounts } from './message-counts.ts';
import { stepTimes } from './step-times.ts';

export interface ReplayData {
  timeline: Timeline;
  moments: Moment[];
  stops: number[];
  messages: MessageCounts;
  endMs: number;
}

export interface LaneFrame {
  state: LaneState;
  flow: FlowCounts;
  /** It is the proposer of the round some running validator is in. */
  proposing: boolean;
  /** It committed a block exactly at this time. */
  committedNow: number | null;
}

export interface Frame {
  atMs: number;
  world: WorldState;
  lanes: LaneFrame[];
  /** Moments up to and including atMs. */
  past: Moment[];
}

export function replayData(timeline: Timeline): ReplayData {
  return { timeline, moments: moments(timeline), stops: stepTimes(timeline), messages: new MessageCounts(timeline.messages), endMs: Math.max(0, timeline.run.endMs) };
}

export function frameAt(data: ReplayData, atMs: number): Frame {
  const world = stateAt(data.timeline, atMs);
  const proposers = new Set(world.lanes.filter((l) => l.up && l.proposer !== null).map((l) => l.proposer!));
  const lanes = world.lanes.map((state, i): LaneFrame => {
    const lane = data.timeline.lanes[i]!;
    const commit = lane.commits.find((c) => c.atMs === atMs);
    return { state, flow: data.messages.at(state.node, atMs), proposing: proposers.has(state.node), committedNow: commit ? commit.height : null };
  });
  let n = 0;
  while (n < data.moments.length && data.moments[n]!.atMs <= atMs) n++;
  return { atMs, world, lanes, past: data.moments.slice(0, n) };
}
