/**
 * What `qbft-lab fuzz` prints for people (without --json): progress as the cases run, a line per
 * failing case, and at the end each failure with the checkers that caught it, the shrunk case's
 * seed and the commands that replay it.
 */
import type { FuzzCaseInfo, FuzzFailure, ViolationPlace } from '../sim/fuzz.ts';
import { seconds } from '../sim/sim-start.ts';

/** A progress line about every this many cases: about twenty lines in a long campaign. */
const PROGRESS_LINES = 20;
const REASON_CHARS = 160;

export class FuzzProgress {
  private seen = 0;
  private failed = 0;
  private readonly every: number;
  private readonly startMs: number;

  /** `shrinksAfter`: the failure line comes before the case is shrunk (cases run in this process). */
  constructor(
    private readonly err: (line: string) => void,
    private readonly total: number,
    private readonly wallClock: () => number,
    private readonly shrinksAfter: boolean,
  ) {
    this.every = Math.max(1, Math.ceil(total / PROGRESS_LINES));
    this.startMs = wallClock();
  }

  onCase(info: FuzzCaseInfo): void {
    this.seen++;
    if (!info.ok) {
      this.failed++;
      this.err(`case ${info.caseIndex} failed (case seed ${info.caseSeed}, ${info.validators} validators, ${seconds(info.durationMs)} simulated): ${caseProblem(info)}${this.shrinksAfter ? '; shrinking it' : ''}`);
    }
    if (this.seen % this.every === 0 || this.seen === this.total) {
      const elapsedS = Math.round((this.wallClock() - this.startMs) / 1000);
      this.err(`fuzz: ${this.seen} of ${this.total} cases run, ${this.failed} failed (${elapsedS} s)`);
    }
  }
}

/** What went wrong in a case's first run: the first violation and which other checkers fired, else the start of its reason. */
function caseProblem(info: FuzzCaseInfo): string {
  const [first, ...others] = info.violations ?? [];
  if (first) return `${place(first)}${others.length > 0 ? `; also ${others.map((v) => v.checker).join(', ')}` : ''}`;
  const reason = info.reason ?? 'run not ok';
  return reason.length > REASON_CHARS ? `${reason.slice(0, REASON_CHARS - 3)}...` : reason;
}

/** "round-timer on v5 at 1.716 s (height 1, round 0)" */
export function place(v: ViolationPlace): string {
  const where = v.height === null ? '' : ` (height ${v.height}${v.round === null ? '' : `, round ${v.round}`})`;
  return `${v.checker}${v.node ? ` on ${v.node}` : ''} at ${seconds(v.atMs)}${where}`;
}

/** The checkers with a violation in a failure's shrunk run, in checker order. */
export function checkersOf(f: FuzzFailure): string[] {
  return [...new Set(f.result?.violations.map((v) => v.checker) ?? [])];
}

/** What caught a shrunk failure: its checkers, else the kind of failure its reason names. */
export function caughtBy(f: FuzzFailure): string {
  const checkers = checkersOf(f);
  return checkers.length > 0 ? checkers.join(', ') : f.reason.split(/[:;]/)[0]!;
}

/** A failure at the end of a campaign: what caught it, where, the shrunk case's seed and the commands that replay it. */
export function failureLines(f: FuzzFailure, campaignSeed: number, bugArgs: string): string[] {
  const uncounted = f.find && !f.find.counted ? ` (not counted as a find: ${f.find.notCounted})` : '';
  const first = f.result?.violations[0];
  const lines = [
    `  failure in case ${f.caseIndex}${uncounted}: caught by ${caughtBy(f)}${first ? `; first: ${place(first)}` : ''}`,
    `    shrunk in ${f.shrinks} steps to ${f.scenario.validators} validators, ${seconds(f.scenario.durationMs)}, scenario seed ${f.scenario.seed ?? 1}${f.scenario.bugs?.length ? `, bug switches ${f.scenario.bugs.join(', ')}` : ''}${f.reproduced ? '' : ' (its file did not replay to the same failure)'}`,
  ];
  if (f.file) {
    lines.push(`    replay: qbft-lab scenario run ${f.file}`, `    watch:  qbft-lab tui ${f.file}`, `    report: qbft-lab report ${f.file} --html fuzz-failure-${campaignSeed}-${f.caseIndex}.html`);
  } else {
    lines.push(`    run this case alone: qbft-lab fuzz --seed ${campaignSeed} --runs ${f.caseIndex + 1} --shard ${f.caseIndex}/${f.caseIndex + 1}${bugArgs}`);
  }
  return lines;
}
