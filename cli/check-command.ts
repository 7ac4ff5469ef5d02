/**
 * `qbft-lab check --genesis-file G [--duration D] [--seed S] [--json] [--report-dir DIR]`: a battery
 * of fault scenarios sized to an operator's genesis (sim/operator/check-battery.ts), as a pass/fail
 * table or JSON. Exit 0 when every case passes, 1 when one fails, 2 on a usage error (a genesis
 * file that cannot be simulated is one: a one-line UsageError).
 */
import { parseBesuVersion } from './besu-version.ts';
import { readFileSync, statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { UsageError } from '../node/cli/usage-error.ts';
import { parseOptions } from '../node/cli/parse-options.ts';
import { OPTIONS, type OptionTable } from './command-options.ts';
import { firstViolation, switchesText, violationText } from '../reports/checker-status.ts';
import { runCheckBattery, type CheckCaseResult, type CheckReport } from '../sim/operator/check-battery.ts';
import { formatMs } from '../sim/operator/check-cases.ts';
import { OperatorInputError, readOperatorGenesis, type OperatorGenesis } from '../sim/operator/operator-genesis.ts';
import { parseDurationMs } from './durations.ts';
import { batteryCommands, optionValue } from './failure-lines.ts';
import { formatTable } from './format.ts';

export interface CommandIo {
  out(text: string): void;
  err(text: string): void;
}

/** Larger than any genesis a private network needs; bounds what is read into memory. */
export const MAX_GENESIS_FILE_BYTES = 64 * 1024 * 1024;
/** The scenario language's limit on a run's virtual time. */
const MAX_DURATION_MS = 7 * 24 * 3_600_000;

/** The command's options read against its table (cli/command-options.ts); what they reject is a usage error naming the command. */
export function parseStrict(args: string[], options: OptionTable, command: string): { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] } {
  let parsed;
  try {
    parsed = parseOptions(args, options);
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(`${command}: ${err.message}`);
    throw err;
  }
  if (parsed.positionals.length > 0) throw new UsageError(`${command}: unexpected argument '${parsed.positionals[0]}'`);
  return parsed;
}

export function parseSeedOption(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === '' || !Number.isSafeInteger(n)) throw new UsageError(`--seed: '${text}' must be an integer`);
  return n;
}

/** An operator's genesis file read and prepared for the simulator; every problem with it is a one-line UsageError. */
export async function readOperatorGenesisFile(file: string, flag: string): Promise<OperatorGenesis> {
  let text: string;
  try {
    const size = statSync(file).size;
    if (size > MAX_GENESIS_FILE_BYTES) throw new UsageError(`${flag} ${file}: ${size} bytes is more than the ${MAX_GENESIS_FILE_BYTES} allowed`);
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${flag} ${file}: cannot be read: ${(err as Error).message}`);
  }
  try {
    return await readOperatorGenesis(text, file);
  } catch (err) {
    if (err instanceof OperatorInputError) throw new UsageError(`${flag} ${err.message}`);
    throw err;
  }
}

const VERDICT_TEXT = { pass: 'PASS', fail: 'FAIL', skipped: 'skipped' } as const;

export function formatCheckReport(r: CheckReport, args?: readonly string[]): string {
  const lines = [
    `check ${r.genesis}: ${r.validators} validator${r.validators === 1 ? '' : 's'} (f = ${r.f}, quorum ${r.quorum}), block period ${r.blockPeriodSeconds} s, request timeout ${r.requestTimeoutSeconds} s, ${r.selectionMode} selection, ${r.transitions} transition${r.transitions === 1 ? '' : 's'}; seed ${r.seed}, fault cases run ${formatMs(r.durationMs)} simulated`,
    `simulated validators: ${r.standIns.map((s) => `${s.name} = ${s.operatorAddress}`).join(', ')}`,
    ...versionLine(args),
    '',
    formatTable([['case', 'verdict', 'height', 'detail'], ...r.cases.map((c) => [c.case, VERDICT_TEXT[c.verdict], c.height === null ? '-' : String(c.height), c.detail])]),
  ];
  const notes = r.cases.flatMap((c) => c.notes.map((n) => `  ${c.case}: ${n}`));
  if (notes.length > 0) lines.push('', 'notes:', ...notes);
  const failed = r.cases.filter((c) => c.verdict === 'fail');
  if (failed.length > 0) lines.push('', 'failed cases:', ...failed.map((c) => `  ${c.case}: ${caseFailureText(c)}`));
  lines.push('', `${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped`);
  // With the command's arguments, a failure ends with the commands that replay it and open its runs.
  if (args && failed.length > 0) lines.push('', ...batteryCommands('check', args, r.seed, failed.map((c) => ({ label: c.case, scenario: `check-${c.case}` }))));
  return lines.join('\n');
}

/** The Besu release line the nodes behaved as, when --besu-version named one (its bugs are switched on). */
function versionLine(args: readonly string[] | undefined): string[] {
  const version = args && optionValue(args, '--besu-version');
  return version ? [switchesText([], version)!] : [];
}

/** A failed case's first violation, else its first failed expectation or error. */
function caseFailureText(c: CheckCaseResult): string {
  const first = firstViolation(c.violations ?? []);
  if (first) return `first violation: ${violationText(first)}`;
  const expectation = c.expectations?.find((e) => !e.ok);
  if (expectation) return `expected: ${expectation.text}`;
  return c.errors?.[0] ? `error: ${c.errors[0]}` : c.detail;
}

export async function checkCommand(args: string[], io: CommandIo, wallClock: () => number = () => performance.now()): Promise<number> {
  const { values } = parseStrict(args, OPTIONS.check, 'check');
  const besuVersion = parseBesuVersion(values['besu-version']);
  const file = values['genesis-file'] as string | undefined;
  if (!file) throw new UsageError('check: --genesis-file is required');
  let durationMs: number | undefined;
  if (values.duration !== undefined) {
    durationMs = parseDurationMs(values.duration as string, '--duration');
    if (durationMs <= 0 || durationMs > MAX_DURATION_MS) throw new UsageError(`--duration: '${values.duration}' must be more than 0 and at most 7 days`);
  }
  const seed = parseSeedOption(values.seed as string | undefined);
  const reportDir = values['report-dir'] as string | undefined;
  if (reportDir === '') throw new UsageError('--report-dir needs a directory');
  const genesis = await readOperatorGenesisFile(file, '--genesis-file');
  const { writeFailureReports } = await import('./report-command.ts');
  const report = await runCheckBattery(genesis, {
    ...(besuVersion ? { besuVersion } : {}),
    durationMs,
    seed,
    wallClock,
    keepTrace: reportDir !== undefined,
    onRun: (scenario, result, world) => {
      if (reportDir !== undefined && !result.ok) writeFailureReports(reportDir, scenario, result, world, { out: (t) => io.out(t), err: (t) => io.err(t), readStdin: () => '' });
    },
  });
  io.out(values.json ? JSON.stringify(report) : formatCheckReport(report, args));
  return report.ok ? 0 : 1;
}
