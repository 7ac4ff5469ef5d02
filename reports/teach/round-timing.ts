/**
 * Lesson "round-timing" (scenario timeout-doubling): the block timer, round 0, and a height that
 * cannot finish while two of four validators are down, so its round timer doubles each round
 * (requesttimeoutseconds * 2^round); after the restart the two pairs climb rounds separately until
 * they meet in one round and commit.
 */
import { quorumSize } from '../../node/consensus/qbft/quorum.ts';
import { formatDuration } from '../format.ts';
import { faultyText, listNames, quorumText, roundTimerText, s } from './explain.ts';
import type { Lesson, LessonRun, Slide } from './lesson.ts';
import { momentSlides } from './walk.ts';

function roundTable(run: LessonRun, height: number): string[] {
  const rounds = run.timeline.lanes.flatMap((l) => l.rounds.filter((r) => r.height === height));
  const maxRound = Math.max(0, ...rounds.map((r) => r.round));
  const lines = [`${'round'.padEnd(6)} ${`timer (${run.chain.requestTimeoutSeconds} s x 2^r)`.padEnd(22)} who: started -> ended`];
  for (let r = 0; r <= maxRound; r++) {
    const groups = new Map<string, string[]>();
    for (const x of rounds.filter((y) => y.round === r)) {
      const key = `${s(x.startMs)} -> ${x.outcome === 'running' ? 'end of run' : s(x.endMs)} (${x.outcome})`;
      groups.set(key, [...(groups.get(key) ?? []), x.node]);
    }
    const who = [...groups].map(([k, nodes]) => `${nodes.sort().join(',')}: ${k}`);
    lines.push(`${String(r).padEnd(6)} ${formatDuration(run.chain.requestTimeoutSeconds * 1000 * 2 ** r).padEnd(22)} ${who[0] ?? '-'}`);
    for (const w of who.slice(1)) lines.push(`${' '.repeat(30)}${w}`);
  }
  return lines;
}

/** Did validators run the same round of this height at different times? */
function apart(run: LessonRun, height: number): boolean {
  const starts = new Map<number, Set<number>>();
  for (const r of run.timeline.lanes.flatMap((l) => l.rounds)) if (r.height === height) starts.set(r.round, (starts.get(r.round) ?? new Set()).add(r.startMs));
  return [...starts.values()].some((set) => set.size > 1 && Math.max(...set) - Math.min(...set) > 1000);
}

export const roundTiming: Lesson = {
  name: 'round-timing',
  title: 'Round timing: the block timer and requesttimeoutseconds * 2^round',
  summary: 'block period, round timers doubling per round, quorum (timeout-doubling)',
  scenarios: ['timeout-doubling'],
  slides([run]: LessonRun[]): Slide[] {
    const tl = run!.timeline;
    const n = run!.chain.genesisValidators.length;
    const slow = tl.heights.filter((h) => h.maxRound > 0).sort((a, b) => b.maxRound - a.maxRound)[0];
    const intro: Slide = {
      title: `Round timing, with the scenario ${run!.scenario.name}`,
      run: run!,
      atMs: 0,
      paragraphs: [
        run!.scenario.description,
        `${n} validators (${listNames(run!.chain.genesisValidators)}), blockperiodseconds ${run!.chain.blockPeriodSeconds}, requesttimeoutseconds ${run!.chain.requestTimeoutSeconds}. A block needs ${quorumText(n)} PREPAREs and COMMITs; QBFT tolerates ${faultyText(n)} faulty validator(s).`,
        `Two timers drive a validator. The block timer waits one block period after the parent block's timestamp, then round 0 of the next height starts. Each round starts a round timer of requesttimeoutseconds x 2^round; if it expires before the block is committed, the validator broadcasts ROUND_CHANGE and starts the next round, whose timer is twice as long.`,
      ],
      table: [`round timers in this run:`, ...[0, 1, 2, 3, 4, 5].map((r) => `  round ${r}: ${roundTimerText(run!, r)}`)],
    };
    const end = slow?.firstCommitMs ?? tl.run.endMs;
    const walk = momentSlides(run!, { toMs: end, keep: (m) => m.kind !== 'commit' || m.height === 1 || m.round !== 0 || m.atMs === end });
    const out = [intro, ...walk];
    if (slow) {
      const took = slow.firstCommitMs !== null && slow.startMs !== null ? slow.firstCommitMs - slow.startMs : null;
      out.push({
        title: `Summary: height ${slow.height} took ${slow.maxRound + 1} rounds`,
        run: run!,
        atMs: end,
        paragraphs: [
          `Height ${slow.height} started at ${s(slow.startMs ?? 0)} and ${slow.firstCommitMs === null ? 'never committed' : `committed at ${s(slow.firstCommitMs)} in round ${slow.committedRound}, ${formatDuration(took ?? 0)} later instead of about one block period`}. While fewer than ${quorumSize(n)} validators were up no round could succeed, and each failed round doubled the wait.`,
          ...(apart(run!, slow.height)
            ? [`A restarted validator starts the height at round 0 with its own timers. Without early round change it moves to a higher round only on a quorum of ${quorumSize(n)} ROUND_CHANGE messages for that round, so groups of validators can sit in different rounds until their timers bring them into the same round, which then has a proposer and a quorum.`]
            : []),
        ],
        table: roundTable(run!, slow.height),
      });
    }
    return out;
  },
};
