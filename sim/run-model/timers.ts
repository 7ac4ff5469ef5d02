/**
 * The two QBFT timers of each validator, with their start, due and end times:
 * - the block timer (`block-timer-set` ... `block-timer-expired`): waits out the block period
 *   before round 0 of the next height;
 * - the round timer (from `round-started`, due after its `timeoutMs` = requesttimeoutseconds * 2^round,
 *   ... `round-timer-expired`): when it expires the node moves to the next round.
 * A timer ends 'expired', 'cancelled' (commit, new height, new round, crash) or is still 'running'
 * when the trace ends. A paused node's timers fire late, when it resumes: endMs is then after dueMs.
 */
import type { TraceLine } from '../trace-events.ts';

export type TimerKind = 'block' | 'round';
export type TimerOutcome = 'expired' | 'cancelled' | 'running';

export interface TimerSpan {
  node: string;
  kind: TimerKind;
  height: number;
  /** The round a round timer times (null for block timers). */
  round: number | null;
  startMs: number;
  /** When it is due to fire (start + delay). */
  dueMs: number;
  endMs: number;
  outcome: TimerOutcome;
}

type Open = Omit<TimerSpan, 'endMs' | 'outcome'>;

export class TimerTracker {
  private readonly done: TimerSpan[] = [];
  private readonly open = new Map<string, Open>();

  constructor(private readonly originMs: () => number) {}

  add(line: TraceLine, t: number): void {
    const node = line.node;
    if (node === null) return;
    switch (line.kind) {
      case 'block-timer-set': {
        this.end(node, 'round', t, 'cancelled');
        this.end(node, 'block', t, 'cancelled');
        const delay = typeof line.delayMs === 'number' ? line.delayMs : typeof line.atMs === 'number' ? line.atMs - this.originMs() - t : 0;
        this.open.set(`${node}|block`, { node, kind: 'block', height: line.height, round: null, startMs: t, dueMs: t + Math.max(0, delay) });
        break;
      }
      case 'block-timer-expired':
        this.end(node, 'block', t, 'expired');
        break;
      case 'round-started': {
        const { round, height: h } = line;
        const cur = this.open.get(`${node}|round`);
        if (cur && cur.height === h && cur.round === round) return;
        // A proposal can start round 0 before the block timer fires; that timer still runs out (harmlessly).
        this.end(node, 'round', t, 'cancelled');
        const timeout = typeof line.timeoutMs === 'number' ? line.timeoutMs : 0;
        this.open.set(`${node}|round`, { node, kind: 'round', height: h, round, startMs: t, dueMs: t + timeout });
        break;
      }
      case 'round-timer-expired':
        this.end(node, 'round', t, 'expired');
        break;
      case 'committed':
      case 'empty-block-deferred':
        this.end(node, 'round', t, 'cancelled');
        break;
      case 'block-imported': {
        const cur = this.open.get(`${node}|round`);
        if (cur && line.status === 'head' && typeof line.number === 'number' && line.number >= cur.height) this.end(node, 'round', t, 'cancelled');
        break;
      }
      case 'fault':
        if (line.fault === 'crash') {
          this.end(node, 'block', t, 'cancelled');
          this.end(node, 'round', t, 'cancelled');
        }
        break;
    }
  }

  snapshot(endMs: number): TimerSpan[] {
    const out = this.done.slice();
    for (const o of this.open.values()) out.push({ ...o, endMs: Math.max(endMs, o.startMs), outcome: 'running' });
    return out.sort((a, b) => a.startMs - b.startMs);
  }

  private end(node: string, kind: TimerKind, t: number, outcome: TimerOutcome): void {
    const key = `${node}|${kind}`;
    const o = this.open.get(key);
    if (!o) return;
    this.open.delete(key);
    this.done.push({ ...o, endMs: t, outcome });
  }
}
