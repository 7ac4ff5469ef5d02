/**
 * The verdict of a rehearsal, from what the nodes did (chain-observer.ts), not from the
 * configuration:
 * - fork: two different blocks were imported at one height (each had a quorum of seals under the
 *   rules of the nodes that imported it): the network split into two chains;
 * - stall: the chain did not reach the height it had to (past the stop and past every change the
 *   new genesis makes), or went quiet for longer than the rounds allow before the run's end;
 * - forked-off: the chain went on, but some nodes are not on it: down (refused to start) or stuck
 *   behind its tip;
 * - violation: the chain itself looks fine (none of the above), but an invariant checker of the run
 *   reports a violation: a verdict is never ok while a checker says the run broke a rule;
 * - ok: every node is on the one chain, at its tip, the chain went past every change, and no
 *   checker reports a violation.
 */
import type { Hex } from '../../node/crypto/bytes.ts';
import type { ChainObserver, NodeHistory } from './chain-observer.ts';

export type RehearsalVerdictKind = 'ok' | 'stall' | 'fork' | 'forked-off' | 'violation';

export interface RehearsedNode {
  name: string;
  /** Which genesis it was restarted with. */
  genesis: 'new' | 'old';
  /** 'fresh sync': a non-validator that joins after the restarts with an empty data directory and NEW. */
  role: 'on time' | 'straggler' | 'left behind' | 'fresh sync';
  restartMs: number;
}

export interface RehearsalVerdict {
  verdict: RehearsalVerdictKind;
  /** Where it happened: the block two chains disagree on, the block that never came, the block the forked-off nodes did not take. */
  block: number | null;
  nodes: string[];
  detail: string;
  /** For a fork: the blocks at `block` and who holds each. */
  sides?: Array<{ hash: Hex; nodes: string[] }>;
  /** When the verdict's moment happened (virtual ms), if there is one. */
  atMs?: number;
}

export interface VerdictContext {
  nodes: RehearsedNode[];
  endMs: number;
  requiredHeight: number;
  requestTimeoutMs: number;
  /** Quiet time at the end that counts as a stall even past requiredHeight. */
  stallAfterMs: number;
  /** The height the network had when it was stopped: blocks at or below it are history. */
  historyHeight: number;
}

/** A node this many blocks or more behind the tip at the end is not on the chain. */
export const FORKED_OFF_LAG_BLOCKS = 3;

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`;
}

function describeNode(n: RehearsedNode): string {
  if (n.role === 'fresh sync') return `${n.name} (syncing from genesis with the new genesis)`;
  return n.genesis === 'old' ? `${n.name} (old genesis)` : n.role === 'straggler' ? `${n.name} (new genesis, late)` : `${n.name} (new genesis)`;
}

function firstDivergence(histories: Map<string, NodeHistory>): { height: number; sides: Array<{ hash: Hex; nodes: string[]; atMs: number }> } | undefined {
  const byHeight = new Map<number, Map<Hex, { nodes: string[]; atMs: number }>>();
  for (const [name, h] of histories) {
    for (const [number, b] of h.chain) {
      let at = byHeight.get(number);
      if (!at) byHeight.set(number, (at = new Map()));
      const side = at.get(b.hash);
      if (side) {
        side.nodes.push(name);
        side.atMs = Math.min(side.atMs, b.atMs);
      } else at.set(b.hash, { nodes: [name], atMs: b.atMs });
    }
  }
  const heights = [...byHeight.keys()].filter((k) => byHeight.get(k)!.size > 1).sort((a, b) => a - b);
  if (heights.length === 0) return undefined;
  const height = heights[0];
  const sides = [...byHeight.get(height)!].map(([hash, s]) => ({ hash, nodes: s.nodes.sort(), atMs: s.atMs })).sort((a, b) => b.nodes.length - a.nodes.length);
  return { height, sides };
}

function groupBy<T>(items: T[], keyOf: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const list = out.get(key);
    if (list) list.push(item);
    else out.set(key, [item]);
  }
  return out;
}

function refusalText(h: NodeHistory): string {
  const r = h.refused!;
  return `refused to start: the new genesis changes the rules of stored block ${r.block} (${r.reason}), at or below the head ${r.head}`;
}

export function judgeRehearsal(observer: ChainObserver, ctx: VerdictContext): RehearsalVerdict {
  const plan = new Map(ctx.nodes.map((n) => [n.name, n]));
  const fork = firstDivergence(observer.nodes);
  if (fork) {
    const atMs = Math.max(...fork.sides.map((s) => s.atMs));
    const detail = fork.sides.map((s) => `${s.nodes.map((n) => describeNode(plan.get(n)!)).join(', ')} imported ${s.hash.slice(0, 12)}…`).join('; ');
    return { verdict: 'fork', block: fork.height, nodes: fork.sides.flatMap((s) => s.nodes).sort(), detail: `two chains from block ${fork.height}: ${detail}`, sides: fork.sides.map(({ hash, nodes }) => ({ hash, nodes })), atMs };
  }
  // The history itself no longer matches the new genesis: a node that syncs it from block 1 under
  // the new rules rejects one of the blocks the network had made before the change.
  const runningTip = Math.max(0, ...ctx.nodes.filter((n) => n.role !== 'fresh sync').map((n) => observer.nodes.get(n.name)?.head ?? 0));
  for (const n of ctx.nodes) {
    const h = n.role === 'fresh sync' ? observer.nodes.get(n.name) : undefined;
    if (!h?.rejected || h.rejected.number > ctx.historyHeight) continue;
    return {
      verdict: 'fork',
      block: h.rejected.number,
      nodes: [n.name],
      detail: `the chain's history forks from the new genesis at block ${h.rejected.number}: ${describeNode(n)} rejects it (${h.rejected.reason.slice(0, 200)}); the running nodes, which do not re-check stored blocks, went on to block ${runningTip}, but no node can join or resync from genesis with the new file`,
      atMs: h.rejected.atMs,
    };
  }
  let tip = 0;
  let lastImportMs = 0;
  for (const h of observer.nodes.values()) {
    tip = Math.max(tip, h.head);
    for (const b of h.chain.values()) lastImportMs = Math.max(lastImportMs, b.atMs);
  }
  const refused = [...observer.nodes].filter(([, h]) => h.refused && !h.up);
  const quietMs = ctx.endMs - lastImportMs;
  if (tip < ctx.requiredHeight || quietMs > ctx.stallAfterMs) {
    const timeouts = Math.floor(quietMs / ctx.requestTimeoutMs);
    const parts = [`no block after block ${tip} (imported at ${seconds(lastImportMs)}): ${seconds(quietMs)}, ${timeouts} request timeouts, without a block until the end at ${seconds(ctx.endMs)}`];
    if (tip < ctx.requiredHeight) parts.push(`the chain had to reach block ${ctx.requiredHeight}`);
    for (const [text, names] of groupBy(refused, ([, h]) => refusalText(h))) parts.push(`${names.map(([n]) => n).join(', ')} ${text}`);
    const up = [...observer.nodes].filter(([, h]) => h.up).map(([name]) => name);
    parts.push(up.length === 0 ? 'no node is running' : `running: ${up.map((n) => describeNode(plan.get(n)!)).join(', ')}`);
    return { verdict: 'stall', block: tip + 1, nodes: refused.length > 0 ? refused.map(([n]) => n) : up, detail: parts.join('; '), atMs: lastImportMs };
  }
  const off = [...observer.nodes].filter(([, h]) => !h.up || h.head <= tip - FORKED_OFF_LAG_BLOCKS);
  if (off.length > 0) {
    const reasons = off.map(([name, h]) => {
      const who = describeNode(plan.get(name)!);
      if (h.refused && !h.up) return `${who} ${refusalText(h)}`;
      if (!h.up) return `${who} is down at block ${h.head}`;
      if (h.rejected) return `${who} is stuck at block ${h.head}: it rejected block ${h.rejected.number} (${h.rejected.reason.slice(0, 200)})`;
      return `${who} is stuck at block ${h.head}`;
    });
    const block = Math.min(...off.map(([, h]) => h.head + 1));
    const atMs = Math.min(...off.map(([, h]) => h.rejected?.atMs ?? h.refused?.atMs ?? ctx.endMs));
    return { verdict: 'forked-off', block, nodes: off.map(([n]) => n), detail: `the chain went on to block ${tip} without ${off.map(([n]) => n).join(', ')}: ${reasons.join('; ')}`, atMs };
  }
  return { verdict: 'ok', block: null, nodes: [], detail: `all ${observer.nodes.size} nodes are on one chain at block ${tip} or within ${FORKED_OFF_LAG_BLOCKS - 1} of it, past block ${ctx.requiredHeight - 1}` };
}

/** What a run's invariant checker reported (the first violation of each checker). */
export interface CheckerViolation {
  checker: string;
  node: string | null;
  height: number | null;
  reason: string;
  atMs?: number;
}

function describeViolation(v: CheckerViolation): string {
  const where = [v.height === null ? '' : `block ${v.height}`, v.node ?? ''].filter((s) => s !== '').join(', ');
  return `${v.checker}${where ? ` (${where})` : ''}: ${v.reason}`;
}

/**
 * The verdict once the run's checkers are heard: an `ok` chain with a checker violation becomes
 * `violation` (the first in time names the block); a failing verdict stays as it is (its
 * violations are listed beside it).
 */
export function withCheckerViolations(verdict: RehearsalVerdict, violations: readonly CheckerViolation[]): RehearsalVerdict {
  if (verdict.verdict !== 'ok' || violations.length === 0) return verdict;
  const first = [...violations].sort((a, b) => (a.atMs ?? 0) - (b.atMs ?? 0))[0]!;
  const nodes = [...new Set(violations.map((v) => v.node).filter((n): n is string => n !== null))].sort();
  const count = violations.length === 1 ? 'an invariant checker reports a violation' : `${violations.length} invariant checkers report violations`;
  return {
    verdict: 'violation',
    block: first.height,
    nodes,
    detail: `${verdict.detail}, but ${count}: ${violations.map(describeViolation).join('; ')}`,
    ...(first.atMs === undefined ? {} : { atMs: first.atMs }),
  };
}
