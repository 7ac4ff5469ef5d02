/**
 * Besu's round summary, per height that needed a round change. Besu's RoundChangeManager logs
 * "BFT round summary (quorum = q)" followed by one "Address: 0x..  Round: r" line per validator:
 * the round of the latest ROUND_CHANGE message it has from that validator. Here the whole run is
 * known, so each height gets one table, with the round of each validator's latest ROUND_CHANGE
 * (Besu's column), the highest round it entered, and whether it was down meanwhile.
 */
import { quorumSize } from '../../node/consensus/qbft/quorum.ts';
import type { FaultInterval } from './faults.ts';
import type { HeightInfo } from './heights.ts';
import type { NodeInfo } from './run-info.ts';
import type { RoundChange, RoundInterval } from './rounds.ts';

export interface RoundSummaryRow {
  node: string;
  address: string | null;
  /** Round of its latest ROUND_CHANGE message at this height (Besu's "Round: r"); null: it sent none. */
  round: number | null;
  /** Highest round it entered at this height; null: it took no part. */
  highestRound: number | null;
  /** It was crashed or paused during the height. */
  down: boolean;
}

export interface RoundSummary {
  height: number;
  quorum: number;
  rows: RoundSummaryRow[];
  committedRound: number | null;
  proposer: string | null;
  startMs: number | null;
  firstCommitMs: number | null;
}

export function buildRoundSummaries(
  nodes: NodeInfo[],
  validatorCount: number,
  heights: HeightInfo[],
  rounds: RoundInterval[],
  changes: RoundChange[],
  faults: FaultInterval[],
  endMs: number,
): RoundSummary[] {
  const voters = nodes.filter((n) => n.role !== 'observer');
  const quorum = quorumSize(Math.max(validatorCount, 0));
  // node|height -> highest round of a sent ROUND_CHANGE / highest round entered
  const sentRound = new Map<string, number>();
  for (const c of changes) {
    const key = `${c.node}|${c.height}`;
    if (c.sent && c.toRound > (sentRound.get(key) ?? -1)) sentRound.set(key, c.toRound);
  }
  const entered = new Map<string, number>();
  for (const r of rounds) {
    const key = `${r.node}|${r.height}`;
    if (r.round > (entered.get(key) ?? -1)) entered.set(key, r.round);
  }
  const out: RoundSummary[] = [];
  for (const h of heights) {
    if (h.maxRound === 0) continue;
    const from = h.startMs ?? 0;
    const to = h.firstCommitMs ?? endMs;
    const rows = voters.map((n): RoundSummaryRow => {
      const round = sentRound.get(`${n.name}|${h.height}`) ?? null;
      const highest = entered.get(`${n.name}|${h.height}`) ?? null;
      const down = faults.some((f) => f.node === n.name && (f.kind === 'crash' || f.kind === 'pause') && f.startMs <= to && f.endMs >= from);
      return { node: n.name, address: n.address, round, highestRound: highest, down };
    });
    out.push({ height: h.height, quorum, rows, committedRound: h.committedRound, proposer: h.proposer, startMs: h.startMs, firstCommitMs: h.firstCommitMs });
  }
  return out;
}
