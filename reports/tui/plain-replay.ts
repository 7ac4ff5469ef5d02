/**
 * The replay as plain text, for when stdout is not a terminal (`qbft-lab tui x | head`): a header
 * naming the run, then for each time with key moments the moments and every lane's state at that
 * time, then the verdict. Yields one chunk per moment time so a reader can stop early.
 */
import { laneHeader, laneRow, seconds } from './lane-text.ts';
import { frameAt, type ReplayData } from './replay-data.ts';
import { checkerStatusLine, expectedFromVerdict, firstViolation, violationText } from '../checker-status.ts';
import { switchesLine, titleText } from './screen.ts';

function lanesAt(data: ReplayData, atMs: number): string[] {
  return [laneHeader(), ...frameAt(data, atMs).lanes.map((l) => laneRow(l))];
}

export function* plainReplay(data: ReplayData): Generator<string> {
  const r = data.timeline.run;
  const times = [...new Set(data.moments.map((m) => m.atMs))];
  const switches = switchesLine(data);
  yield [
    titleText(data),
    ...(switches ? [switches] : []),
    `seed ${r.seed ?? '-'} · trace ${r.traceHash ?? '-'} · ${seconds(data.endMs)} virtual · ${data.moments.length} key moments`,
    '(stdout is not a terminal: plain replay, every lane at each key moment; * marks the proposer)',
    '',
    `${seconds(0)}  start`,
    ...lanesAt(data, 0),
  ].join('\n');
  for (const t of times) {
    const here = data.moments.filter((m) => m.atMs === t);
    yield ['', ...here.map((m, i) => `${i === 0 ? seconds(t) : ' '.repeat(seconds(t).length)}  ${m.text}`), ...lanesAt(data, t)].join('\n');
  }
  yield ['', ...verdictLines(data)].join('\n');
}

/** The run's verdict, every checker's result and its first violation. */
function verdictLines(data: ReplayData): string[] {
  const v = data.timeline.run.verdict;
  if (!v) return [`end of trace at ${seconds(data.endMs)} (no verdict line)`];
  const first = firstViolation(v.violations);
  return [
    `${v.ok ? 'PASS' : 'FAIL'} at ${seconds(data.endMs)}: height ${v.height}, ${v.roundChanges} round changes`,
    `invariants: ${checkerStatusLine({ violations: v.violations, liveness: v.invariants.liveness, expected: expectedFromVerdict(v) })}`,
    ...(first ? [`first violation: ${violationText(first)}`] : []),
    ...v.expectations.filter((e) => !e.ok).map((e) => `expectation failed: ${e.text}`),
  ];
}
