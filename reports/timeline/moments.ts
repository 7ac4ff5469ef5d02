/**
 * The key moments of a run, in time order, each with a one-line explanation: a height's first
 * commit, round changes (grouped: every node that moved to the same round of the same height at
 * the same time and for the same reason is one moment), faults starting and ending, forks, and
 * the first violation of each invariant checker that failed the run. A
 * replay steps from moment to moment ("next round change", "next commit"); an event log lists them.
 */
import type { Timeline } from '../../sim/run-model/timeline.ts';
import type { RoundChangeReason } from '../../sim/run-model/rounds.ts';

export type MomentKind = 'commit' | 'round-change' | 'fault' | 'fault-end' | 'fork' | 'violation';

export interface Moment {
  atMs: number;
  kind: MomentKind;
  /** The nodes concerned (empty for network-wide moments). */
  nodes: string[];
  height: number | null;
  round: number | null;
  text: string;
}

const REASONS: Record<RoundChangeReason, string> = {
  timeout: 'round timer expired',
  early: 'f+1 round changes for a later round (early round change)',
  quorum: 'a quorum of round changes or a proposal for a later round',
  joined: 'joined the height in a later round',
};

export function moments(timeline: Timeline): Moment[] {
  const out: Moment[] = [];
  for (const h of timeline.heights) {
    if (h.firstCommitMs === null) continue;
    const first = h.committedBy[0];
    const proposer = h.proposer ? ` proposed by ${h.proposer}` : '';
    out.push({
      atMs: h.firstCommitMs,
      kind: 'commit',
      nodes: h.committedBy,
      height: h.height,
      round: h.committedRound,
      text: `block ${h.height} committed in round ${h.committedRound}${proposer} (first by ${first})`,
    });
    if (h.hashes.length > 1) {
      out.push({ atMs: h.firstCommitMs, kind: 'fork', nodes: [], height: h.height, round: null, text: `fork: ${h.hashes.length} different blocks imported at height ${h.height}` });
    }
  }
  const groups = new Map<string, Moment>();
  for (const c of timeline.roundChanges) {
    const key = `${c.atMs}|${c.height}|${c.toRound}|${c.reason}`;
    const m = groups.get(key);
    if (m) {
      m.nodes.push(c.node);
      continue;
    }
    const timeout = c.reason === 'timeout' && c.fromRound !== null ? `round ${c.fromRound} timer expired, ` : '';
    const g: Moment = { atMs: c.atMs, kind: 'round-change', nodes: [c.node], height: c.height, round: c.toRound, text: '' };
    g.text = `${timeout}height ${c.height} moves to round ${c.toRound} (${REASONS[c.reason]})`;
    groups.set(key, g);
    out.push(g);
  }
  for (const m of groups.values()) m.text = `${m.nodes.join(', ')}: ${m.text}`;
  for (const f of timeline.faults) {
    if (f.node === null && f.kind !== 'partition') continue;
    if (f.kind === 'partition' && f.node !== null) continue; // the network-wide interval stands for all
    const who = f.node ?? 'network';
    out.push({ atMs: f.startMs, kind: 'fault', nodes: f.node ? [f.node] : [], height: null, round: null, text: `${who}: ${f.kind}${f.detail && f.detail !== 'crashed' ? ` (${f.detail})` : ''}` });
    if (!f.ongoing) {
      const how = f.kind === 'crash' ? (f.endedBy === 'restart-wiped' ? 'restarted with a wiped data directory' : 'restarted') : f.kind === 'pause' ? 'resumed' : f.kind === 'partition' ? 'healed' : `${f.kind} ends`;
      out.push({ atMs: f.endMs, kind: 'fault-end', nodes: f.node ? [f.node] : [], height: null, round: null, text: `${who}: ${how}` });
    }
  }
  for (const v of timeline.run.verdict?.violations ?? []) {
    const where = [v.height !== null ? `height ${v.height}` : null, v.round !== null ? `round ${v.round}` : null].filter(Boolean).join(', ');
    out.push({ atMs: v.atMs, kind: 'violation', nodes: v.node ? [v.node] : [], height: v.height, round: v.round, text: `${v.checker} violated${v.node ? ` by ${v.node}` : ''}${where ? ` (${where})` : ''}: ${v.reason.split('\n')[0]}` });
  }
  const rank: Record<MomentKind, number> = { fault: 0, 'fault-end': 1, 'round-change': 2, commit: 3, fork: 4, violation: 5 };
  return out.sort((a, b) => a.atMs - b.atMs || rank[a.kind] - rank[b.kind]);
}

/** The first moment after atMs (of the given kinds), for "step to the next ...". */
export function nextMoment(list: Moment[], afterMs: number, kinds?: MomentKind[]): Moment | undefined {
  return list.find((m) => m.atMs > afterMs && (!kinds || kinds.includes(m.kind)));
}

/** The last moment before atMs (of the given kinds), for stepping back. */
export function previousMoment(list: Moment[], beforeMs: number, kinds?: MomentKind[]): Moment | undefined {
  for (let i = list.length - 1; i >= 0; i--) {
    const m = list[i]!;
    if (m.atMs < beforeMs && (!kinds || kinds.includes(m.kind))) return m;
  }
  return undefined;
}
