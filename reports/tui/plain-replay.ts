/**
 * The replay as plain text, for when stdout is not a terminal (`qbft-lab tui x | head`): a header
 * naming the run, then for each time with key moments the moments and every lane's state at that
 * time, then the verdict. Yields one chunk per moment time so a reader can stop early.
 */
import { laneHeader, laneRow, seconds } from './lane-text.ts';
import { frameAt, type ReplayData } from './replay-data.ts';
import { titleText } from './screen.ts';

function lanesAt(data: ReplayData, atMs: number): string[] {
  return [laneHeader(), ...frameAt(data, atMs).lanes.map((l) => laneRow(l))];
}

export function* plainReplay(data: ReplayData): Generator<string> {
  const r = data.timeline.run;
  const times = [...new Set(data.moments.map((m) => m.atMs))];
  yield [
    titleText(data),
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
  const v = r.verdict;
  const end = v
    ? `${v.ok ? 'PASS' : 'FAIL'} at ${seconds(data.endMs)}: height ${v.height}, ${v.roundChanges} round changes, agreement ${v.invariants.agreement ? 'ok' : 'FAILED'}, validity ${v.invariants.validity ? 'ok' : 'FAILED'}, liveness ${v.invariants.liveness === null ? 'n/a' : v.invariants.liveness ? 'ok' : 'FAILED'}`
    : `end of trace at ${seconds(data.endMs)} (no verdict line)`;
  yield ['', end].join('\n');
}
