/**
 * What the terminal says about a run beyond PASS/FAIL: every checker's result, the first violation
 * (checker, node, height, round, virtual time), the bug switches in force, and after a failure the
 * commands that replay it, open it in the TUI and write its report, ready to paste.
 */
import { join } from 'node:path';
import { checkerStatusLine, firstViolation, switchesText, violationText, type ViolationFacts } from '../reports/checker-status.ts';
import { reportBaseName } from '../reports/write-reports.ts';
import { findScenario } from '../scenarios/index.ts';
import { isBesuVersion, switchesOfVersion } from '../sim/bugs/versions.ts';
import type { RunInfo } from '../sim/run-model/run-info.ts';
import type { RunResult } from '../sim/scenario-runner.ts';

/** How a run was asked for, so that the same run can be asked for again. */
export type RunOrigin =
  /** A built-in scenario's name or a scenario .json file, as given. */
  | { kind: 'scenario'; ref: string }
  /** `qbft-lab sim` with these flags. */
  | { kind: 'sim'; args: readonly string[] }
  /** A recorded .jsonl trace file. */
  | { kind: 'trace'; file: string };

const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One shell word: as it is when safe, else in single quotes. */
export function shellWord(word: string): string {
  return PLAIN_WORD.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export function commandLine(words: readonly string[]): string {
  return ['qbft-lab', ...words].map(shellWord).join(' ');
}

/** Arguments with the named options (and their values, for those that take one) left out. */
export function withoutOptions(args: readonly string[], valued: readonly string[], flags: readonly string[] = []): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const name = a.split('=')[0]!;
    if (flags.includes(a)) continue;
    if (valued.includes(name)) {
      if (!a.includes('=')) i++;
      continue;
    }
    out.push(a);
  }
  return out;
}

/** The value of `--name V` or `--name=V` in args (the last one given). */
export function optionValue(args: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === name) value = args[i + 1];
    else if (args[i]!.startsWith(`${name}=`)) value = args[i]!.slice(name.length + 1);
  }
  return value;
}

export interface RunFacts {
  scenario: string;
  seed: number;
  besuVersion: string | null;
}

/** Labelled commands: `replay`, `tui`, `report`. */
export type Commands = Array<[label: string, command: string]>;

function scenarioCommands(ref: string, r: RunFacts): Commands {
  const run = [ref, '--seed', String(r.seed), ...(r.besuVersion ? ['--besu-version', r.besuVersion] : [])];
  return [
    ['replay', commandLine(['scenario', 'run', ...run])],
    ['tui', commandLine(['tui', ...run])],
    ['report', commandLine(['report', ...run, '--html', `${reportBaseName(r.scenario, r.seed)}.html`])],
  ];
}

/** A sim run is replayed with its own flags; the TUI and the report read the trace that replay writes. */
function simCommands(args: readonly string[], r: RunFacts): Commands {
  const given = optionValue(args, '--trace');
  const trace = given ?? `${reportBaseName(r.scenario, r.seed)}.jsonl`;
  const flags = withoutOptions(args, ['--report-dir', '--seed', '--trace'], ['--json']);
  const replay = ['sim', ...flags, '--seed', String(r.seed), '--trace', trace];
  const after = given === undefined ? '   (after the replay, which writes the trace)' : '';
  return [
    ['replay', commandLine(replay)],
    ['tui', commandLine(['tui', trace]) + after],
    ['report', commandLine(['report', trace, '--html', trace.replace(/\.jsonl$/i, '') + '.html']) + after],
  ];
}

/** A trace is replayed by its scenario when that is a built-in one; the TUI and report read the file. */
function traceCommands(file: string, r: RunFacts & { builtIn: boolean }): Commands {
  const out: Commands = [];
  if (r.builtIn) out.push(['replay', commandLine(['scenario', 'run', r.scenario, '--seed', String(r.seed), ...(r.besuVersion ? ['--besu-version', r.besuVersion] : [])])]);
  out.push(['tui', commandLine(['tui', file])], ['report', commandLine(['report', file, '--html', `${file.replace(/\.(jsonl|ndjson)$/i, '')}.html`])]);
  return out;
}

/**
 * The commands for one run. A trace's scenario counts as built in only when its bug switches are
 * the ones a replay by name turns on (the scenario's and its Besu version's).
 */
export function runCommands(origin: RunOrigin, r: RunFacts & { bugs?: readonly string[] }): Commands {
  if (origin.kind === 'scenario') return scenarioCommands(origin.ref, r);
  if (origin.kind === 'sim') return simCommands(origin.args, r);
  const named = findScenario(r.scenario);
  const byName = named && [...new Set([...(named.bugs ?? []), ...(r.besuVersion && isBesuVersion(r.besuVersion) ? switchesOfVersion(r.besuVersion) : [])])].sort();
  const builtIn = byName !== undefined && byName.join() === [...(r.bugs ?? [])].sort().join() && Number.isSafeInteger(r.seed);
  return traceCommands(origin.file, { ...r, builtIn });
}

export function commandLines(commands: Commands, indent = '  '): string[] {
  const width = Math.max(...commands.map(([label]) => label.length)) + 1;
  return commands.map(([label, command]) => `${indent}${`${label}:`.padEnd(width)}  ${command}`);
}

/** "invariants: agreement ok, ..." for a run result (its expected violations explained). */
export function invariantsLine(r: RunResult): string {
  const expected = new Set(r.expectedViolations.map((e) => e.checker));
  return `invariants: ${checkerStatusLine({ violations: r.violations.filter((v) => !expected.has(v.checker)), liveness: r.invariants.liveness, expected: r.expectedViolations })}`;
}

/** The violations that fail the run, the first one first: "first violation: ...", then "also: ...". */
export function violationLines(violations: readonly ViolationFacts[], indent = '  '): string[] {
  const first = firstViolation(violations);
  if (!first) return [];
  const rest = violations.filter((v) => v !== first).sort((a, b) => (a.atMs ?? Infinity) - (b.atMs ?? Infinity));
  return [`${indent}first violation: ${violationText(first)}`, ...rest.map((v) => `${indent}also: ${violationText(v)}`)];
}

/** The lines formatRun adds about a run's checkers, switches and (after a failure) its commands. */
export function runDetailLines(r: RunResult): { switches: string | undefined; invariants: string; violations: string[] } {
  const expected = new Set(r.expectedViolations.map((e) => e.checker));
  return {
    switches: switchesText(r.bugs, r.besuVersion),
    invariants: invariantsLine(r),
    violations: violationLines(r.violations.filter((v) => !expected.has(v.checker))),
  };
}

/**
 * After a replay (tui, report) of a failed run: its commands, from what its trace says about it
 * (a trace from before the run-started line had seeds gives no replay command).
 */
export function replayCommandLines(origin: RunOrigin, run: RunInfo, indent = ''): string[] {
  if (!run.verdict || run.verdict.ok) return [];
  return commandLines(runCommands(origin, { scenario: run.scenario ?? 'trace', seed: run.seed ?? Number.NaN, besuVersion: run.besuVersion, bugs: run.bugs }), indent);
}

/** Where `check` and `rehearse` are told to write reports when the user named no folder. */
export const DEFAULT_REPORT_DIR = 'qbft-lab-reports';

/**
 * `check` and `rehearse` run scenarios of their own: replaying the command with --report-dir
 * writes each failed run's trace and reports, which the TUI and `report` then open.
 */
export function batteryCommands(command: 'check' | 'rehearse', args: readonly string[], seed: number, runs: ReadonlyArray<{ label: string; scenario: string }>): string[] {
  const dir = optionValue(args, '--report-dir') ?? DEFAULT_REPORT_DIR;
  const replay = [command, ...withoutOptions(args, ['--report-dir', '--seed'], ['--json']), '--seed', String(seed), '--report-dir', dir];
  const what = command === 'check' ? 'each failed case' : 'the rehearsal';
  const out = [`replay: ${commandLine(replay)}   (writes the trace and reports of ${what} to ${dir})`];
  for (const run of runs) {
    const base = reportBaseName(run.scenario, seed);
    const trace = join(dir, `${base}.jsonl`);
    out.push(`${run.label}:`, ...commandLines([['tui', commandLine(['tui', trace])], ['report', commandLine(['report', trace, '--html', `${base}.html`])]]));
  }
  return out;
}
