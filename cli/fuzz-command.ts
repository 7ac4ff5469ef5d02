/** `qbft-lab fuzz`: a seeded property-test campaign over random clusters and fault schedules. */
import { parseBesuVersion } from './besu-version.ts';
import type { BesuVersion } from '../sim/bugs/version-names.ts';
import type { BugHunt } from '../sim/bugs/catalogue.ts';
import { availableParallelism } from 'node:os';
import { UsageError } from '../node/cli/usage-error.ts';
import type { Io } from './main.ts';
import type { FuzzCaseInfo, FuzzReport } from '../sim/fuzz.ts';
import type { JUnitCase, JUnitSuite } from '../reports/junit.ts';
import { MAX_JOBS, workerCaseRunner } from './fuzz-workers.ts';
import { writeJUnitFile } from './junit-file.ts';
import { caughtBy, checkersOf, failureLines, FuzzProgress } from './fuzz-text.ts';
import { OPTIONS, type Parse } from './command-options.ts';

export async function fuzzCommand(args: string[], io: Io, parse: Parse, wallClock: () => number): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS.fuzz);
  if (positionals.length > 0) throw new UsageError(`fuzz: unexpected argument '${positionals[0]}'`);
  const runs = values.runs === undefined ? 100 : Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1 || runs > 1_000_000) throw new UsageError(`--runs: '${values.runs}' must be an integer from 1 to 1000000`);
  const seed = values.seed === undefined ? 1 : Number(values.seed);
  if (!Number.isSafeInteger(seed)) throw new UsageError(`--seed: '${values.seed}' must be an integer`);
  let shard: { index: number; count: number } | undefined;
  if (values.shard !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(values.shard as string);
    if (!m || Number(m[2]) < 1 || Number(m[1]) >= Number(m[2])) throw new UsageError(`--shard: '${values.shard}' must be i/k with 0 <= i < k`);
    shard = { index: Number(m[1]), count: Number(m[2]) };
  }
  // Worker processes; 1 runs the cases one after another in this process.
  const jobs = values.jobs === undefined ? Math.min(availableParallelism(), MAX_JOBS) : Number(values.jobs);
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > MAX_JOBS) throw new UsageError(`--jobs: '${values.jobs}' must be an integer from 1 to ${MAX_JOBS}`);
  const bug = values.bug as string | undefined;
  const { huntOfBug, knownBugIds } = await import('../sim/bugs/catalogue.ts');
  const { PLANTED_BUG_IDS } = await import('../node/bugs/bug-switches.ts');
  // A corpus entry's switch, or a planted switch (no corpus entry) as it is.
  const bugHunt = bug === undefined ? undefined : huntOfBug(bug);
  if (bug !== undefined && !bugHunt)
    throw new UsageError(`--bug: '${bug}' is not a known bug id (${[...knownBugIds(), ...PLANTED_BUG_IDS].join(', ')}; see 'qbft-lab bugs list')`);
  const besuVersion = parseBesuVersion(values['besu-version']);
  if (besuVersion !== undefined && bug !== undefined) throw new UsageError('fuzz: --bug and --besu-version hunt different things; give one');
  const hunt = besuVersion !== undefined ? await versionHunt(besuVersion) : bugHunt;
  const junitFile = values.junit as string | undefined;
  // Truncated before the campaign: a bad path fails at once, and a crash leaves no stale report behind.
  if (junitFile !== undefined) writeJUnitFile(junitFile, '');
  // Only what the JUnit cases need (the descriptions are long), and only with --junit.
  const cases: CaseRecord[] = [];
  const { runFuzz, caseIndices } = await import('../sim/fuzz.ts');
  // JSON Lines for programs with --json; for people, progress and a line per failing case.
  const progress = new FuzzProgress((line) => io.err(line), caseIndices(runs, shard).length, wallClock, jobs === 1);
  const onCase = (info: FuzzCaseInfo) => {
    if (junitFile !== undefined) cases.push({ caseIndex: info.caseIndex, caseSeed: info.caseSeed, name: info.name, seed: info.seed, validators: info.validators, durationMs: info.durationMs, height: info.height, ok: info.ok, reason: info.reason, wallMs: info.wallMs });
    if (values.json) io.err(JSON.stringify(info));
    else progress.onCase(info);
  };
  const report = await runFuzz({
    runs,
    seed,
    shard,
    failureDir: (values['failure-dir'] as string | undefined) ?? '.',
    wallClock,
    ...(jobs > 1 ? { runCases: workerCaseRunner(jobs) } : {}),
    ...(hunt ? { bugs: hunt.switches, stopAtFirstFailure: true } : {}),
    ...(hunt && hunt.checkers.length > 0 ? { expectedCheckers: hunt.checkers } : {}),
    onCase,
  });
  if (values.json) io.out(JSON.stringify(report, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
  else io.out(summaryLines(report, bug, besuVersion, hunt).join('\n'));
  if (junitFile !== undefined) {
    const { junitXml } = await import('../reports/junit.ts');
    writeJUnitFile(junitFile, junitXml([fuzzSuite(report, cases, bug)]));
  }
  if (values['report-dir'] !== undefined && report.failures.length > 0) {
    await (await import('./report-command.ts')).writeFuzzFailureReports(values['report-dir'] as string, report.failures, io, wallClock);
  }
  // Hunting a planted bug succeeds when the campaign finds it; a plain campaign when it finds nothing.
  if (bug !== undefined) return report.runsToFind !== undefined ? 0 : 1;
  return report.failures.length === 0 ? 0 : 1;
}

export type CaseRecord = Pick<FuzzCaseInfo, 'caseIndex' | 'caseSeed' | 'name' | 'seed' | 'validators' | 'durationMs' | 'height' | 'ok' | 'reason' | 'wallMs'>;

/** The campaign's end for people: counts, coverage, the hunt's outcome and every failure with how to replay it. */
function summaryLines(report: FuzzReport, bug: string | undefined, besuVersion: BesuVersion | undefined, hunt: BugHunt | undefined): string[] {
  const lines = [
    `fuzz: ${report.runs} runs, ${report.failures.length} failures, liveness checked in ${report.livenessChecked} (skipped ${report.livenessSkipped})${report.runsPerMinute ? `, ${report.runsPerMinute.toFixed(1)} runs/min` : ''}`,
    ruleCoverageLine(report.ruleMarks),
  ];
  const what = bug !== undefined ? `bug ${bug}${hunt && hunt.switches[0] !== bug ? ` (switch ${hunt.switches[0]})` : ''}` : besuVersion !== undefined ? `Besu ${besuVersion} (${hunt ? hunt.switches.join(', ') : 'no known bug'})` : undefined;
  if (what !== undefined && hunt) lines.push(huntLine(what, report));
  else if (what !== undefined) lines.push(`${what}: ${report.failures.length === 0 ? 'no failure' : `${report.failures.length} failures`} in ${report.runs} runs`);
  for (const f of report.failures) lines.push(...failureLines(f, report.seed, bug === undefined ? '' : ` --bug ${bug}`));
  return lines;
}

/** A hunt's outcome: the case that found the bug and the checker that caught it, with every checker the shrunk run tripped. */
function huntLine(what: string, report: FuzzReport): string {
  const found = report.find ? report.failures.find((f) => f.caseIndex === report.find!.caseIndex) : undefined;
  if (!report.find || !found) return `${what}: not found in ${report.runs} runs`;
  const checkers = checkersOf(found);
  const caught = report.find.checker ?? caughtBy(found);
  const others = checkers.filter((c) => c !== caught);
  return `${what}: found in case ${found.caseIndex} after ${report.runsToFind} runs, caught by ${caught}${others.length > 0 ? ` (also ${others.join(', ')})` : ''}; the shrunk case (scenario seed ${found.scenario.seed ?? 1}) passes with the switch off`;
}

/**
 * One JUnit case per fuzz case run. In a plain campaign a failing case is a failure; in a hunt for a
 * planted bug (--bug) the failing case is the finding and passes, and one more case, "bug ID found",
 * fails when the hunt did not find it, as the exit status does.
 */
export function fuzzSuite(report: FuzzReport, cases: CaseRecord[], bug: string | undefined): JUnitSuite {
  const bugArgs = bug === undefined ? '' : ` --bug ${bug}`;
  const failures = new Map(report.failures.map((f) => [f.caseIndex, f]));
  const out: JUnitCase[] = cases.map((c) => {
    const f = failures.get(c.caseIndex);
    const lines = [
      `campaign seed ${report.seed}, case ${c.caseIndex}, case seed ${c.caseSeed}, scenario seed ${c.seed}`,
      `${c.validators} validators, ${c.durationMs} ms simulated, height ${c.height}`,
      // Shard I of I+1 over I+1 runs is case I alone.
      `run this case alone: qbft-lab fuzz --seed ${report.seed} --runs ${c.caseIndex + 1} --shard ${c.caseIndex}/${c.caseIndex + 1}${bugArgs}`,
    ];
    if (f) {
      if (bug !== undefined) lines.unshift(f.find?.counted === false ? `not counted as a find of bug ${bug}: ${f.find.notCounted}` : `found bug ${bug}: ${caughtBy(f)}`);
      lines.push(`shrunk (${f.shrinks} shrinks): ${f.reason}`, f.file ? `shrunk scenario: ${f.file} (replay with 'qbft-lab scenario run ${f.file}')` : 'shrunk scenario not written');
      if (!f.reproduced) lines.push('the shrunk scenario did not replay to the same failure');
    }
    const failed = !c.ok || f !== undefined;
    const record: JUnitCase = { name: `case ${c.caseIndex} (${c.name})`, classname: 'qbft-lab.fuzz', timeSeconds: (c.wallMs ?? 0) / 1000, systemOut: lines.join('\n') };
    if (failed && bug === undefined) {
      const what = f ? caughtBy(f) : (c.reason ?? 'failed').split(/[:;]/)[0];
      record.failure = {
        message: `${what} (case seed ${c.caseSeed}${f?.file ? `, shrunk scenario ${f.file}` : ''})`,
        details: [`first run: ${c.reason ?? 'failed'}`, ...lines].join('\n'),
      };
    }
    return record;
  });
  if (bug !== undefined) {
    const found = report.find ? report.failures.find((f) => f.caseIndex === report.find!.caseIndex) : undefined;
    const summary: JUnitCase = { name: `bug ${bug} found`, classname: 'qbft-lab.fuzz', timeSeconds: 0 };
    if (found) summary.systemOut = `found in case ${found.caseIndex} (case seed ${found.caseSeed}) after ${report.runsToFind} runs, caught by ${caughtBy(found)}${found.file ? `; shrunk scenario ${found.file}` : ''}`;
    else summary.failure = { message: `bug ${bug} not found in ${report.runs} runs (campaign seed ${report.seed})`, details: `switches: ${(report.bugs ?? []).join(', ')}` };
    out.push(summary);
  }
  const shard = report.shard ? ` shard ${report.shard.index}/${report.shard.count}` : '';
  return { name: `qbft-lab fuzz seed ${report.seed}${shard}${bug === undefined ? '' : ` bug ${bug}`}`, cases: out };
}

/** Which validation rules the campaign's hostile messages exercised (coverage marks). */
function ruleCoverageLine(marks: Record<string, number>): string {
  const rules = Object.keys(marks);
  const never = rules.filter((r) => marks[r] === 0);
  return `validation rules exercised: ${rules.length - never.length} of ${rules.length}${never.length > 0 ? ` (never: ${never.join(', ')})` : ''}`;
}

/** A release line's known bugs, all switched on; a find counts when one of their checkers fires. */
async function versionHunt(version: BesuVersion): Promise<BugHunt | undefined> {
  const { switchesOfVersion, checkersOfVersion } = await import('../sim/bugs/versions.ts');
  const switches = switchesOfVersion(version);
  return switches.length > 0 ? { switches, checkers: checkersOfVersion(version) } : undefined;
}
