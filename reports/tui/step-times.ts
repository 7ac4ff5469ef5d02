/**
 * The times at which something visible changes in a replay: a round or phase starts, a timer is
 * set or ends, a fault starts or ends, a node commits or imports a block. "Single step" moves from
 * one to the next. Sorted, without duplicates, always including 0 and the end of the run.
 */
import type { Timeline } from '../../sim/run-model/timeline.ts';

export function stepTimes(tl: Timeline): number[] {
  const end = tl.run.endMs;
  const set = new Set<number>([0, end]);
  const add = (t: number | null | undefined) => {
    if (typeof t === 'number' && t >= 0 && t <= end) set.add(t);
  };
  for (const lane of tl.lanes) {
    for (const r of lane.rounds) add(r.startMs);
    for (const p of lane.phases) add(p.startMs);
    for (const x of lane.timers) {
      add(x.startMs);
      add(x.endMs);
    }
    for (const f of lane.faults) {
      add(f.startMs);
      add(f.endMs);
    }
    for (const c of lane.commits) add(c.atMs);
    for (const i of lane.imports) add(i.atMs);
  }
  for (const f of tl.faults) {
    add(f.startMs);
    add(f.endMs);
  }
  return [...set].sort((a, b) => a - b);
}

/** The first stop after t (or t itself when there is none). */
export function nextStop(stops: readonly number[], t: number): number {
  let lo = 0;
  let hi = stops.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (stops[mid]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return stops[lo] ?? t;
}

/** The last stop before t (or 0). */
export function previousStop(stops: readonly number[], t: number): number {
  let lo = 0;
  let hi = stops.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (stops[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? stops[lo - 1]! : 0;
}
