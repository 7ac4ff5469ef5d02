/**
 * Lesson "round-change" (scenario proposer-crash): the proposer of a height crashes, round 0
 * times out, the validators exchange ROUND_CHANGE messages, the round-1 proposer takes over, and
 * every later turn of the crashed validator costs a round change again.
 */
import { maxFaulty, quorumSize } from '../../node/consensus/qbft/quorum.ts';
import { formatDuration } from '../format.ts';
import { faultyText, listNames, proposerOf, proposerWhy, quorumText, roundTimerMs, roundTimerText, s } from './explain.ts';
import type { Lesson, LessonRun, Slide } from './lesson.ts';
import { momentSlides } from './walk.ts';

function besuSummary(run: LessonRun, height: number): string[] {
  const rs = run.timeline.roundSummaries.find((r) => r.height === height);
  if (!rs) return [];
  return [
    `Besu's "BFT round summary (quorum = ${rs.quorum})" for height ${height}:`,
    ...rs.rows.map((r) => `  ${r.node.padEnd(4)} ${(r.address ?? '').padEnd(42)} Round: ${r.round ?? '-'}${r.down ? '  (down)' : ''}`),
  ];
}

export const roundChange: Lesson = {
  name: 'round-change',
  title: 'Round change: when the proposer fails',
  summary: 'a crashed proposer, ROUND_CHANGE messages, the next proposer (proposer-crash)',
  scenarios: ['proposer-crash'],
  slides([run]: LessonRun[]): Slide[] {
    const r = run!;
    const tl = r.timeline;
    const n = r.chain.genesisValidators.length;
    const crash = tl.faults.find((f) => f.kind === 'crash' && f.node !== null);
    const first = tl.heights.find((h) => h.maxRound > 0);
    const out: Slide[] = [
      {
        title: `Round change, with the scenario ${r.scenario.name}`,
        run: r,
        atMs: 0,
        paragraphs: [
          r.scenario.description,
          `${n} validators: ${faultyText(n)}, so the network keeps going with one validator down; a PREPARE, COMMIT or ROUND_CHANGE certificate needs ${quorumText(n)}. Each height has one proposer per round, chosen round-robin; if the round's timer (${roundTimerText(r, 0)} for round 0) runs out first, the validators move to the next round and its proposer.`,
        ],
      },
    ];
    if (crash && first) {
      const h = first.height;
      out.push({
        title: `${s(crash.startMs)}  ${crash.node} crashes`,
        run: r,
        atMs: crash.startMs,
        paragraphs: [
          `${crash.node} crashes at ${s(crash.startMs)}. It is the proposer of height ${h}, round 0. ${proposerWhy(r, h, 0)}`,
          `With ${crash.node} down, ${n - 1} of ${n} validators remain: still a quorum of ${quorumSize(n)} (at most ${maxFaulty(n)} may fail).`,
        ],
      });
      out.push(...momentSlides(r, { fromMs: crash.startMs + 1, toMs: first.firstCommitMs ?? tl.run.endMs }));
      const table = besuSummary(r, h);
      const later = [...new Set(tl.roundChanges.filter((c) => c.height > h).map((c) => c.height))];
      out.push({
        title: `After height ${h}`,
        run: r,
        atMs: first.firstCommitMs,
        paragraphs: [
          `Besu logs a round summary for a height that needed a round change: per validator, the round of the latest ROUND_CHANGE it received from it. ${crash.node} sent none.`,
          `The rotation goes on from the block's actual proposer: block ${h} was proposed by ${r.chain.blocks[h - 1]?.proposer ?? proposerOf(r, h, first.committedRound ?? 1)} in round ${first.committedRound}, so block ${h + 1} starts with ${proposerOf(r, h + 1, 0)}.`,
          later.length > 0
            ? `Whenever ${crash.node}'s turn comes again it is still down, and the height needs a round change: heights ${listNames(later.map(String))} in this run, each a round-0 timer (${formatDuration(roundTimerMs(r, 0))}) late.`
            : `${crash.node}'s turn does not come again within the run.`,
        ],
        table,
      });
    }
    return out;
  },
};
