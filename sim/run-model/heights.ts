/**
 * One row per block height across all nodes: when its round 0 first started, the highest round
 * any node reached, the round it was committed in and by whose proposal, when the first node
 * committed it, and every distinct block hash imported at that number (more than one is a fork).
 */
import type { BlockImport, Commit } from './blocks.ts';
import type { RoundInterval } from './rounds.ts';

export interface HeightInfo {
  height: number;
  /** First round-started of this height on any node. */
  startMs: number | null;
  /** Highest round any node started at this height. */
  maxRound: number;
  committedRound: number | null;
  /** Proposer of the committed round (else of the highest round). */
  proposer: string | null;
  firstCommitMs: number | null;
  /** Nodes that committed it by consensus. */
  committedBy: string[];
  /** Distinct hashes imported at this number, in order of first import. */
  hashes: string[];
}

export function buildHeights(rounds: RoundInterval[], commits: Commit[], imports: BlockImport[]): HeightInfo[] {
  const by = new Map<number, HeightInfo>();
  const get = (height: number): HeightInfo => {
    let h = by.get(height);
    if (!h) by.set(height, (h = { height, startMs: null, maxRound: 0, committedRound: null, proposer: null, firstCommitMs: null, committedBy: [], hashes: [] }));
    return h;
  };
  const proposers = new Map<string, string | null>();
  for (const r of rounds) {
    const h = get(r.height);
    if (h.startMs === null || r.startMs < h.startMs) h.startMs = r.startMs;
    if (r.round > h.maxRound) h.maxRound = r.round;
    if (!proposers.has(`${r.height}/${r.round}`)) proposers.set(`${r.height}/${r.round}`, r.proposer);
  }
  for (const c of commits) {
    const h = get(c.height);
    if (h.firstCommitMs === null || c.atMs < h.firstCommitMs) {
      h.firstCommitMs = c.atMs;
      h.committedRound = c.round;
    }
    if (!h.committedBy.includes(c.node)) h.committedBy.push(c.node);
  }
  for (const i of imports) {
    const h = get(i.number);
    if (i.hash && !h.hashes.includes(i.hash)) h.hashes.push(i.hash);
  }
  for (const h of by.values()) h.proposer = proposers.get(`${h.height}/${h.committedRound ?? h.maxRound}`) ?? null;
  return [...by.values()].sort((a, b) => a.height - b.height);
}
