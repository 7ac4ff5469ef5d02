/**
 * Height/round intervals per validator and the round changes between them, from `round-started`,
 * `committed`, `round-timer-expired`, `early-round-change`, `round-change-sent`, imports and crashes.
 *
 * A round interval runs from its `round-started` line until the node commits in it, moves to
 * another round or height, stops (crash), or the trace ends ('running'). A round change is a
 * node entering round r > 0 of a height; its reason is 'timeout' (its own round timer expired),
 * 'early' (f+1 round changes for a later round pulled it forward), 'quorum' (a round-change quorum
 * or a proposal for a later round moved it) or 'joined' (its first round at that height was > 0).
 */
import type { TraceLine } from '../trace.ts';

export type RoundOutcome = 'committed' | 'round-change' | 'new-height' | 'deferred' | 'stopped' | 'running';

export interface RoundInterval {
  node: string;
  height: number;
  round: number;
  startMs: number;
  endMs: number;
  /** The proposer of this round: its node name when known, else its address. */
  proposer: string | null;
  timeoutMs: number | null;
  outcome: RoundOutcome;
}

export type RoundChangeReason = 'timeout' | 'early' | 'quorum' | 'joined';

export interface RoundChange {
  node: string;
  height: number;
  fromRound: number | null;
  toRound: number;
  atMs: number;
  reason: RoundChangeReason;
  /** The round of the prepared certificate its ROUND_CHANGE message carried (null: none; undefined: it sent none). */
  preparedRound?: number | null;
  /** Whether the node broadcast a ROUND_CHANGE for toRound. */
  sent: boolean;
}

interface Open {
  height: number;
  round: number;
  startMs: number;
  proposer: string | null;
  timeoutMs: number | null;
}

export class RoundTracker {
  readonly intervals: RoundInterval[] = [];
  readonly changes: RoundChange[] = [];
  private readonly open = new Map<string, Open>();
  /** What just happened at a node that explains its next round-started line (same node, same time). */
  private readonly cause = new Map<string, { atMs: number; reason: RoundChangeReason }>();
  private readonly lastChange = new Map<string, RoundChange>();

  constructor(private readonly nameOf: (address: string) => string | null) {}

  add(line: TraceLine, t: number): void {
    const node = line.node;
    if (node === null) return;
    switch (line.kind) {
      case 'round-timer-expired':
        this.cause.set(node, { atMs: t, reason: 'timeout' });
        break;
      case 'early-round-change':
        this.cause.set(node, { atMs: t, reason: 'early' });
        break;
      case 'round-started': {
        const { height, round } = line;
        const cur = this.open.get(node);
        if (cur && cur.height === height && cur.round === round) return;
        if (cur) this.close(node, t, cur.height === height ? 'round-change' : 'new-height');
        const proposer = typeof line.proposer === 'string' ? (this.nameOf(line.proposer) ?? line.proposer) : null;
        this.open.set(node, { height, round, startMs: t, proposer, timeoutMs: typeof line.timeoutMs === 'number' ? line.timeoutMs : null });
        if (round > 0) {
          const cause = this.cause.get(node);
          const fromRound = cur && cur.height === height ? cur.round : this.lastRoundAt(node, height);
          const reason: RoundChangeReason = cause && cause.atMs === t ? cause.reason : fromRound === null ? 'joined' : 'quorum';
          const change: RoundChange = { node, height, fromRound, toRound: round, atMs: t, reason, sent: false };
          this.changes.push(change);
          this.lastChange.set(node, change);
        }
        this.cause.delete(node);
        break;
      }
      case 'round-change-sent': {
        const change = this.lastChange.get(node);
        if (change && change.height === line.height && change.toRound === line.round) {
          change.sent = true;
          change.preparedRound = typeof line.preparedRound === 'number' ? line.preparedRound : null;
          // A node sends its own ROUND_CHANGE only when its timer expires or on an early round change
          // (which has its own line): this reads traces that predate round-timer-expired lines.
          if (change.reason === 'quorum' && change.atMs === t) change.reason = 'timeout';
        }
        break;
      }
      case 'committed': {
        const cur = this.open.get(node);
        if (cur && cur.height === line.height) this.close(node, t, 'committed');
        break;
      }
      case 'block-imported': {
        const cur = this.open.get(node);
        if (cur && line.status === 'head' && typeof line.number === 'number' && line.number >= cur.height) this.close(node, t, 'new-height');
        break;
      }
      case 'empty-block-deferred': {
        const cur = this.open.get(node);
        if (cur && cur.height === line.height) this.close(node, t, 'deferred');
        break;
      }
      case 'fault':
        if (line.fault === 'crash' && this.open.has(node)) this.close(node, t, 'stopped');
        break;
    }
  }

  /** Intervals so far, those still open ending at endMs as 'running'. */
  snapshot(endMs: number): RoundInterval[] {
    const out = this.intervals.slice();
    for (const [node, o] of this.open) out.push({ node, ...o, endMs: Math.max(endMs, o.startMs), outcome: 'running' });
    return out.sort((a, b) => a.startMs - b.startMs || (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
  }

  private lastRoundAt(node: string, height: number): number | null {
    for (let i = this.intervals.length - 1; i >= 0; i--) {
      const r = this.intervals[i]!;
      if (r.node !== node) continue;
      return r.height === height ? r.round : null;
    }
    return null;
  }

  private close(node: string, t: number, outcome: RoundOutcome): void {
    const o = this.open.get(node);
    if (!o) return;
    this.open.delete(node);
    this.intervals.push({ node, ...o, endMs: t, outcome });
  }
}
