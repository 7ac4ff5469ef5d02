/** `qbft-lab fuzz`: a seeded property-test campaign over random clusters and fault schedules. */
import { availableParallelism } from 'node:os';
import { UsageError } from '../node/cli/usage-error.ts';
import type { Io } from './main.ts';
import { switchOf } from '../sim/bugs/known-bug.ts';
import { MAX_JOBS, workerCaseRunner } from './fuzz-workers.ts';

type Parse = (args: string[], options: Record<string, { type: 'string' | 'boolean' }>) => { values: Record<string, unknown>; positionals: string[] };

export async function fuzzCommand(args: string[], io: Io, parse: Parse, wallClock: () => number): Promise<number> {
  const { values, positionals } = parse(args, {
    runs: { type: 'string' },
    seed: { type: 'string' },
    shard: { type: 'string' },
    json: { type: 'boolean' },
    'failure-dir': { type: 'string' },
    'report-dir': { type: 'string' },
    bug: { type: 'string' },
    jobs: { type: 'string' },
  });
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
  const { findKnownBug, knownBugIds } = await import('../sim/bugs/catalogue.ts');
  const entry = bug === undefined ? undefined : findKnownBug(bug);
  if (bug !== undefined && !entry) throw new UsageError(`--bug: '${bug}' is not a known bug id (${knownBugIds().join(', ')}; see 'qbft-lab bugs list')`);
  const bugSwitch = entry ? switchOf(entry) : undefined;
  const { runFuzz } = await import('../sim/fuzz.ts');
  const report = await runFuzz({
    runs,
    seed,
    shard,
    failureDir: (values['failure-dir'] as string | undefined) ?? '.',
    wallClock,
    ...(jobs > 1 ? { runCases: workerCaseRunner(jobs) } : {}),
    ...(bugSwitch !== undefined ? { bugs: [bugSwitch], stopAtFirstFailure: true } : {}),
    onCase: values.json ? undefined : (info: unknown) => io.err(typeof info === 'string' ? info : JSON.stringify(info)),
  });
  if (values.json) io.out(JSON.stringify(report, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
  else {
    io.out(`fuzz: ${report.runs} runs, ${report.failures.length} failures, liveness checked in ${report.livenessChecked} (skipped ${report.livenessSkipped})${report.runsPerMinute ? `, ${report.runsPerMinute.toFixed(1)} runs/min` : ''}`);
    if (bug !== undefined) io.out(report.runsToFind !== undefined ? `bug ${bug}${bugSwitch !== bug ? ` (switch ${bugSwitch})` : ''}: found after ${report.runsToFind} runs` : `bug ${bug}: not found in ${report.runs} runs`);
    for (const f of report.failures) io.out(`  failure in case ${f.caseIndex}${f.file ? `: replay with 'qbft-lab scenario run ${f.file}'` : ''}`);
  }
  if (values['report-dir'] !== undefined && report.failures.length > 0) {
    await (await import('./report-command.ts')).writeFuzzFailureReports(values['report-dir'] as string, report.failures, io, wallClock);
  }
  // Hunting a planted bug succeeds when the campaign finds it; a plain campaign when it finds nothing.
  if (bug !== undefined) return report.runsToFind !== undefined ? 0 : 1;
  return report.failures.length === 0 ? 0 : 1;
}
