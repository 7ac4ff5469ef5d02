/**
 * `qbft-lab check --genesis-file G [--duration D] [--seed S] [--json] [--report-dir DIR]`: a battery
 * of fault scenarios sized to an operator's genesis (sim/operator/check-battery.ts), as a pass/fail
 * table or JSON. Exit 0 when every case passes, 1 when one fails, 2 on a usage error (a genesis
 * file that cannot be simulated is one: a one-line UsageError).
 */
import { parseBesuVersion } from './besu-version.ts';
import { readFileSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { UsageError } from '../node/cli/usage-error.ts';
import { unknownOptionMessage } from '../node/cli/suggest.ts';
import { runCheckBattery, type CheckReport } from '../sim/operator/check-battery.ts';
import { formatMs } from '../sim/operator/check-cases.ts';
import { OperatorInputError, readOperatorGenesis, type OperatorGenesis } from '../sim/operator/operator-genesis.ts';
import { parseDurationMs } from './durations.ts';
import { formatTable } from './format.ts';

export interface CommandIo {
  out(text: string): void;
  err(text: string): void;
}

export const CHECK_USAGE = 'qbft-lab check --genesis-file G [--duration D] [--seed S] [--besu-version V] [--json] [--report-dir DIR]';

/** Larger than any genesis a private network needs; bounds what is read into memory. */
export const MAX_GENESIS_FILE_BYTES = 64 * 1024 * 1024;
/** The scenario language's limit on a run's virtual time. */
const MAX_DURATION_MS = 7 * 24 * 3_600_000;

type OptionSpec = Record<string, { type: 'string' | 'boolean' }>;

/** node:util parseArgs, strict; what it rejects is a usage error. */
export function parseStrict(args: string[], options: OptionSpec, command: string): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${command}: ${unknownOptionMessage(err, Object.keys(options)) ?? (err as Error).message}`);
  }
  if (parsed.positionals.length > 0) throw new UsageError(`${command}: unexpected argument '${parsed.positionals[0]}'`);
  return parsed as { values: Record<string, string | boolean | undefined>; positionals: string[] };
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

export function formatCheckReport(r: CheckReport): string {
  const lines = [
    `check ${r.genesis}: ${r.validators} validator${r.validators === 1 ? '' : 's'} (f = ${r.f}, quorum ${r.quorum}), block period ${r.blockPeriodSeconds} s, request timeout ${r.requestTimeoutSeconds} s, ${r.selectionMode} selection, ${r.transitions} transition${r.transitions === 1 ? '' : 's'}; seed ${r.seed}, fault cases run ${formatMs(r.durationMs)} simulated`,
    `simulated validators: ${r.standIns.map((s) => `${s.name} = ${s.operatorAddress}`).join(', ')}`,
    '',
    formatTable([['case', 'verdict', 'height', 'detail'], ...r.cases.map((c) => [c.case, VERDICT_TEXT[c.verdict], c.height === null ? '-' : String(c.height), c.detail])]),
  ];
  const notes = r.cases.flatMap((c) => c.notes.map((n) => `  ${c.case}: ${n}`));
  if (notes.length > 0) lines.push('', 'notes:', ...notes);
  lines.push('', `${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped`);
  return lines.join('\n');
}

export async function checkCommand(args: string[], io: CommandIo, wallClock: () => number = () => performance.now()): Promise<number> {
  const { values } = parseStrict(args, { 'genesis-file': { type: 'string' }, duration: { type: 'string' }, seed: { type: 'string' }, json: { type: 'boolean' }, 'report-dir': { type: 'string' }, 'besu-version': { type: 'string' } }, 'check');
  const besuVersion = parseBesuVersion(values['besu-version']);
  const file = values['genesis-file'] as string | undefined;
  if (!file) throw new UsageError(`check: --genesis-file is required (usage: ${CHECK_USAGE})`);
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
  io.out(values.json ? JSON.stringify(report) : formatCheckReport(report));
  return report.ok ? 0 : 1;
}
