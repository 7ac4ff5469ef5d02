/**
 * What each node is doing, as consecutive phase intervals:
 * - 'idle': running but not taking part in consensus (an observer, or a node not yet started on a height);
 * - 'block-timer': waiting for the block period to pass before the next height's round 0;
 * - 'proposing': round 0 is running and the node has not yet prepared (collecting the proposal and prepares);
 * - 'round-change': a round > 0 is running and not yet prepared (round changes, then a new proposal);
 * - 'prepared': it saw a quorum of prepares and sent its commit;
 * - 'committed': it saw a quorum of commits (until the block is imported and the next height starts);
 * - 'down': crashed.
 */
import { heightOf, type TraceLine } from '../trace-events.ts';

export type Phase = 'idle' | 'block-timer' | 'proposing' | 'round-change' | 'prepared' | 'committed' | 'down';

export const PHASES: readonly Phase[] = ['idle', 'block-timer', 'proposing', 'round-change', 'prepared', 'committed', 'down'];

export interface PhaseInterval {
  node: string;
  phase: Phase;
  startMs: number;
  endMs: number;
  /** The height (and round) the phase belongs to, when it belongs to one. */
  height: number | null;
  round: number | null;
}

interface Open {
  phase: Phase;
  startMs: number;
  height: number | null;
  round: number | null;
}

const IN_ROUND = new Set<Phase>(['proposing', 'round-change', 'prepared', 'committed']);

export class PhaseTracker {
  private readonly done: PhaseInterval[] = [];
  private readonly open = new Map<string, Open>();

  add(line: TraceLine, t: number): void {
    const node = line.node;
    if (node === null) return;
    const h = heightOf(line);
    switch (line.kind) {
      case 'node-started':
        this.enter(node, t, 'idle', null, null);
        break;
      case 'block-timer-set':
        this.enter(node, t, 'block-timer', h, null);
        break;
      case 'round-started': {
        const round = line.round;
        const cur = this.open.get(node);
        // A repeated round-started for the round it is already in changes nothing.
        if (cur && cur.height === h && cur.round === round && IN_ROUND.has(cur.phase)) return;
        this.enter(node, t, round === 0 ? 'proposing' : 'round-change', h, round);
        break;
      }
      case 'prepared':
        this.enter(node, t, 'prepared', h, line.round);
        break;
      case 'committed':
        this.enter(node, t, 'committed', h, line.round);
        break;
      case 'block-imported': {
        // Traces without block-timer-set lines: a new head of a node in a round starts its wait.
        const cur = this.open.get(node);
        if (cur && IN_ROUND.has(cur.phase) && line.status === 'head' && typeof line.number === 'number' && cur.height !== null && line.number >= cur.height) {
          this.enter(node, t, 'block-timer', line.number + 1, null);
        }
        break;
      }
      case 'fault':
        if (line.fault === 'crash') this.enter(node, t, 'down', null, null);
        break;
    }
  }

  snapshot(endMs: number): PhaseInterval[] {
    const out = this.done.slice();
    // An open phase that began at the very end is kept (zero length): it is what the node is in now.
    for (const [node, o] of this.open) if (endMs >= o.startMs) out.push({ node, ...o, endMs });
    return out.sort((a, b) => a.startMs - b.startMs);
  }

  /** The phase a node is in now (for live views). */
  current(node: string): Phase | undefined {
    return this.open.get(node)?.phase;
  }

  private enter(node: string, t: number, phase: Phase, height: number | null, round: number | null): void {
    const cur = this.open.get(node);
    if (cur) {
      if (cur.phase === phase && cur.height === height && cur.round === round) return;
      if (t > cur.startMs) this.done.push({ node, ...cur, endMs: t });
    }
    this.open.set(node, { phase, startMs: t, height, round });
  }
}
