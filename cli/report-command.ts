/**
 * `qbft-lab report <trace.jsonl|scenario|scenario.json> [--seed N] [--besu-version V] [--html FILE] [--md FILE]`, and
 * the reports that `scenario run`, `sim` and `fuzz` write for failed runs with `--report-dir DIR`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { UsageError } from '../node/cli/usage-error.ts';
import { renderHtml } from '../reports/html.ts';
import { renderMarkdown } from '../reports/markdown.ts';
import { loadTraceFile, runScenarioTrace, timelineOf, type LoadedTrace } from '../reports/trace-source.ts';
import { reportBaseName, writeRunReports } from '../reports/write-reports.ts';
import { findScenario } from '../scenarios/index.ts';
import type { RunResult } from '../sim/scenario-runner.ts';
import { validateScenario, type Scenario } from '../sim/scenario.ts';
import type { TraceLine } from '../sim/trace.ts';
import type { World } from '../sim/world.ts';
import { checkerStatusLine, expectedFromVerdict, firstViolation, switchesText, violationText } from '../reports/checker-status.ts';
import { parseBesuVersion } from './besu-version.ts';
import { replayCommandLines, type RunOrigin } from './failure-lines.ts';
import type { Io } from './main.ts';
import { OPTIONS, type Parse } from './command-options.ts';

export const REPORT_USAGE = 'qbft-lab report <trace.jsonl|scenario-name|scenario.json> [--seed N] [--besu-version V] [--html FILE] [--md FILE]';

function isTraceFile(ref: string): boolean {
  return /\.(jsonl|ndjson)$/i.test(ref);
}

function scenarioFrom(ref: string): Scenario {
  const named = findScenario(ref);
  if (named) return named;
  if (!/\.json$/i.test(ref)) throw new UsageError(`report: '${ref}' is neither a scenario name (see 'qbft-lab scenario list'), a scenario .json file nor a .jsonl trace`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(ref, 'utf8'));
  } catch (err) {
    throw new UsageError(`report: cannot read scenario file ${ref}: ${(err as Error).message}`);
  }
  return validateScenario(json, ref);
}

export async function reportCommand(args: string[], io: Io, parse: Parse, wallClock: () => number): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS.report);
  if (positionals.length !== 1) throw new UsageError(`report: give one trace file or scenario (usage: ${REPORT_USAGE})`);
  const html = values.html as string | undefined;
  const md = values.md as string | undefined;
  if (html === undefined && md === undefined) throw new UsageError(`report: say where to write it with --html FILE and/or --md FILE (usage: ${REPORT_USAGE})`);
  if (html === '' || md === '') throw new UsageError('report: --html and --md need a file name');
  const ref = positionals[0]!;
  let seed: number | undefined;
  if (values.seed !== undefined) {
    seed = Number(values.seed);
    if (!Number.isSafeInteger(seed)) throw new UsageError(`--seed: '${values.seed}' must be an integer`);
  }
  const besuVersion = parseBesuVersion(values['besu-version']);

  let trace: LoadedTrace;
  if (isTraceFile(ref)) {
    if (seed !== undefined) throw new UsageError('report: --seed applies to scenarios; a trace file is reported as it was recorded');
    if (besuVersion !== undefined) throw new UsageError('report: --besu-version applies to scenarios; a trace file is reported as it was recorded');
    if (!existsSync(ref)) throw new UsageError(`report: no trace file ${ref}`);
    try {
      trace = loadTraceFile(ref);
    } catch (err) {
      throw new UsageError(`report: cannot read trace ${ref}: ${(err as Error).message}`);
    }
    if (trace.lines.length === 0) throw new UsageError(`report: trace ${ref} is empty`);
  } else {
    const scenario = scenarioFrom(ref);
    trace = await runScenarioTrace(besuVersion ? { ...scenario, besuVersion } : scenario, { seed, wallClock });
  }

  const tl = timelineOf(trace);
  if (html !== undefined) {
    writeFileSync(html, renderHtml(tl));
    io.out(`wrote ${html}`);
  }
  if (md !== undefined) {
    writeFileSync(md, renderMarkdown(tl));
    io.out(`wrote ${md}`);
  }
  const v = tl.run.verdict;
  const name = tl.run.scenario ?? ref;
  io.out(`${name}${tl.run.seed !== null ? ` (seed ${tl.run.seed})` : ''}: ${v ? (v.ok ? 'PASS' : 'FAIL') : 'no verdict in the trace'}, ${tl.lanes.length} lanes, ${new Set(tl.roundChanges.map((c) => `${c.height}/${c.toRound}`)).size} round changes, ${tl.heights.filter((h) => h.firstCommitMs !== null).length} heights committed`);
  const switches = switchesText(tl.run.bugs, tl.run.besuVersion);
  if (switches) io.out(`  ${switches}`);
  if (v) {
    io.out(`  invariants: ${checkerStatusLine({ violations: v.violations, liveness: v.invariants.liveness, expected: expectedFromVerdict(v) })}`);
    const first = firstViolation(v.violations);
    if (first) io.out(`  first violation: ${violationText(first)}`);
  }
  const origin: RunOrigin = isTraceFile(ref) ? { kind: 'trace', file: ref } : { kind: 'scenario', ref };
  const commands = replayCommandLines(origin, tl.run, '  ').filter((l) => !/^\s*report:/.test(l));
  if (commands.length > 0) io.out(commands.join('\n'));
  return 0;
}

/** After a failed run with --report-dir: its HTML and Markdown reports and its trace, named after scenario and seed. */
export function writeFailureReports(dir: string, s: Scenario, result: RunResult, world: World, io: Io): void {
  const raw = world.trace.lines();
  const lines = raw.map((l) => JSON.parse(l) as TraceLine);
  const files = writeRunReports(dir, reportBaseName(s.name, result.seed), { lines, raw, traceHash: result.traceHash });
  io.err(`${s.name} (seed ${result.seed}) failed: report ${files.html}, ${files.md}, trace ${files.trace}`);
}

/** After a fuzz campaign with --report-dir: replays each shrunk failure and writes its reports. */
export async function writeFuzzFailureReports(dir: string, failures: Array<{ caseIndex: number; scenario: Scenario }>, io: Io, wallClock: () => number): Promise<void> {
  for (const f of failures) {
    const run = await runScenarioTrace(f.scenario, { seed: f.scenario.seed, wallClock });
    const base = `fuzz-case-${f.caseIndex}-${reportBaseName(f.scenario.name, run.result.seed)}`;
    const files = writeRunReports(dir, base, run);
    io.err(`fuzz case ${f.caseIndex}: report ${files.html}, ${files.md}, trace ${files.trace}`);
  }
}
