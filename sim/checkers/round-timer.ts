/**
 * Round-timer doubling: when an honest node's round timer for (h, r) expires, exactly
 * requesttimeoutseconds * 1000 * 2^r virtual ms have passed since that node started round r of
 * height h (its latest 'round-started' line for it, in its current incarnation). Clock skew does
 * not change timer lengths. A stop-the-world pause defers a timer that comes due while the node
 * is paused to the moment it resumes, so such a timer must expire exactly at the resume.
 * The timeout is read from the run-started line (else the genesis file), never from the node.
 * Expiries of timers that no longer match the node's latest round are not judged.
 */
import type { Observation } from './observation.ts';
import { ModelChecker, lineText } from './violation.ts';

interface NodeTimers {
  started: { height: number; round: number; atMs: number } | undefined;
  /** Pauses of the current incarnation: [from, to). */
  pauses: Array<[number, number]>;
  pausedSinceMs: number | undefined;
}

export class RoundTimerChecker extends ModelChecker {
  readonly name = 'round-timer' as const;
  /** Expiries judged (for tests and reports). */
  judgedExpiries = 0;
  private readonly nodes = new Map<string, NodeTimers>();


  private of(node: string): NodeTimers {
    let n = this.nodes.get(node);
    if (!n) this.nodes.set(node, (n = { started: undefined, pauses: [], pausedSinceMs: undefined }));
    return n;
  }

  observe(o: Observation): void {
    if (this.stopped) return;
    switch (o.type) {
      case 'node-started':
        this.nodes.set(o.node, { started: undefined, pauses: [], pausedSinceMs: undefined });
        break;
      case 'fault': {
        if (o.node === null) break;
        const n = this.of(o.node);
        if (o.fault === 'pause') n.pausedSinceMs = o.atMs;
        else if (o.fault === 'resume' && n.pausedSinceMs !== undefined) {
          n.pauses.push([n.pausedSinceMs, o.atMs]);
          n.pausedSinceMs = undefined;
        } else if (o.fault === 'crash') {
          n.started = undefined;
          n.pausedSinceMs = undefined;
        }
        break;
      }
      case 'round-started':
        this.of(o.node).started = { height: o.height, round: o.round, atMs: o.atMs };
        break;
      case 'round-timer-expired': {
        if (!this.model.honest(o.node)) break;
        const n = this.of(o.node);
        const s = n.started;
        if (!s || s.height !== o.height || s.round !== o.round) break;
        this.judgedExpiries++;
        const lengthMs = this.model.requestTimeoutMs * 2 ** o.round;
        const dueMs = s.atMs + lengthMs;
        const pause = n.pauses.find(([from, to]) => from <= dueMs && dueMs < to);
        const stillPaused = n.pausedSinceMs !== undefined && n.pausedSinceMs <= dueMs;
        const expectedMs = pause ? pause[1] : dueMs;
        if (!stillPaused && o.atMs === expectedMs) break;
        const deferral = stillPaused ? `, and wait for the resume of the pause that began at ${n.pausedSinceMs} ms` : pause ? `, deferred by a pause until ${pause[1]} ms` : '';
        this.report({
          atMs: o.atMs,
          node: o.node,
          height: o.height,
          round: o.round,
          reason:
            `${o.node}'s timer for height ${o.height} round ${o.round} expired ${o.atMs - s.atMs} ms after the round started at ${s.atMs} ms; ` +
            `it must run ${lengthMs} ms (${this.model.requestTimeoutMs} ms * 2^${o.round})${deferral}`,
          line: lineText(o.line),
        });
        break;
      }
      default:
        break;
    }
  }
}
