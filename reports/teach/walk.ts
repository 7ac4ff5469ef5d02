/**
 * Slides for a run's key moments in time order: each commit, round change and fault explained
 * with the run's numbers, moments at the same time on one slide.
 */
import type { Moment, MomentKind } from '../timeline/moments.ts';
import { explainBlockTimer, explainCommit, explainFault, explainRoundChange, s } from './explain.ts';
import type { LessonRun, Slide } from './lesson.ts';

export function momentTitle(m: Moment): string {
  switch (m.kind) {
    case 'commit':
      return `Block ${m.height} committed in round ${m.round}`;
    case 'round-change':
      return `Height ${m.height} moves to round ${m.round}`;
    case 'fault':
      return 'A fault';
    case 'fault-end':
      return 'A fault ends';
    case 'fork':
      return `A fork at height ${m.height}`;
    case 'violation':
      return 'An invariant checker reports a violation';
  }
}

export function explainMoment(run: LessonRun, m: Moment): string[] {
  switch (m.kind) {
    case 'commit': {
      const out = explainCommit(run, m);
      const timer = explainBlockTimer(run, m.height! + 1);
      if (timer) out.push(timer);
      return out;
    }
    case 'round-change':
      return explainRoundChange(run, m);
    case 'fault':
    case 'fault-end':
      return [explainFault(m)];
    case 'fork':
    case 'violation':
      return [m.text];
  }
}

export interface WalkOptions {
  kinds?: MomentKind[];
  fromMs?: number;
  /** Up to and including this time. */
  toMs?: number;
  /** Keep a moment? (after kinds and times) */
  keep?: (m: Moment) => boolean;
  max?: number;
}

export function momentSlides(run: LessonRun, opts: WalkOptions = {}): Slide[] {
  const picked = run.data.moments.filter(
    (m) => (!opts.kinds || opts.kinds.includes(m.kind)) && m.atMs >= (opts.fromMs ?? 0) && m.atMs <= (opts.toMs ?? Infinity) && (!opts.keep || opts.keep(m)),
  );
  const times = [...new Set(picked.map((m) => m.atMs))].slice(0, opts.max ?? Infinity);
  return times.map((t) => {
    const here = picked.filter((m) => m.atMs === t);
    return {
      title: `${s(t)}  ${here.map(momentTitle).filter((x, i, a) => a.indexOf(x) === i).join('; ')}`,
      run,
      atMs: t,
      paragraphs: here.flatMap((m) => explainMoment(run, m)),
    };
  });
}
