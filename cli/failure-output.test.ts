/**
 * Failures speak: the text of `scenario run`, `sim`, `tui`, `report`, `check` and `rehearse` names
 * every checker's result and the first violation, says which bug switches were on, and prints
 * commands that replay the run, open it in the TUI and write its report, which work when run.
 */
import test from 'ava';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { captureIo } from './capture-io.ts';
import { main } from './main.ts';
import { formatSummary } from './format.ts';
import { shellWord } from './failure-lines.ts';
import { runScenario } from '../sim/scenario-runner.ts';
import { describeExpectation } from '../sim/scenario-runner.ts';
import happyPath from '../scenarios/happy-path.ts';
import { FORK_EXPECTATION_TEXT } from '../reports/checker-status.ts';

const FIXTURES = fileURLToPath(new URL('../test/fixtures/operator/', import.meta.url));

/** The words of a printed command line (plain words and '…' quoting, as failure-lines prints them), without 'qbft-lab'. */
function words(line: string): string[] {
  const out = [...line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]!));
  if (out[0] !== 'qbft-lab') throw new Error(`not a qbft-lab command: ${line}`);
  return out.slice(1);
}

/** The command printed after `label:` (cut at the explanation in parentheses). */
function printed(text: string, label: string): string[] {
  const m = new RegExp(`^\\s*${label}:\\s+(qbft-lab .*?)(?:\\s{3}\\(.*\\))?$`, 'm').exec(text);
  if (!m) throw new Error(`no '${label}:' command in:\n${text}`);
  return words(m[1]!);
}

/** The command with the value of `option` moved into dir (so that tests do not write into the working directory). */
function into(dir: string, args: string[], option: string): string[] {
  const i = args.indexOf(option);
  return args.map((a, j) => (j === i + 1 ? join(dir, a) : a));
}

async function run(args: string[]) {
  const io = captureIo();
  const code = await main(args, io);
  return { code, out: io.stdout, err: io.stderr };
}

const INVARIANTS_WITH_ROUND_START_FAILED =
  'invariants: agreement ok, validity ok, acceptance ok, honest-non-equivocation ok, honest-messages ok, lock-safety ok, round-timer ok, round-start FAIL, bounded-state ok, liveness ok';
const FIRST_ROUND_START_VIOLATION = /first violation: round-start on v0 at height 1, round 0, 0\.000 s into the run: v0 started round 0 of height 1 1000 ms before its block timer/;

test('scenario run: a failing run names every checker, its first violation, the Besu version and the commands; the printed tui and report commands work', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-failure-'));
  const r = await run(['scenario', 'run', 'happy-path', '--besu-version', '21.1']);
  t.is(r.code, 1);
  t.regex(r.out, /^FAIL happy-path \(seed 1\)/m);
  t.true(r.out.includes(`  ${INVARIANTS_WITH_ROUND_START_FAILED}\n`), r.out);
  t.regex(r.out, FIRST_ROUND_START_VIOLATION);
  t.regex(r.out, /^ {2}bug switches on: [^;]*besu-2095[^;]*; nodes behave as Besu 21\.1 \(its known bugs switched on\)$/m);
  t.regex(r.out, /^ {2}replay: {2}qbft-lab scenario run happy-path --seed 1 --besu-version 21\.1$/m);
  t.regex(r.out, /^ {2}tui: {5}qbft-lab tui happy-path --seed 1 --besu-version 21\.1$/m);
  t.regex(r.out, /^ {2}report: {2}qbft-lab report happy-path --seed 1 --besu-version 21\.1 --html happy-path-seed-1\.html$/m);

  const tui = await run(printed(r.out, 'tui'));
  t.is(tui.code, 0, tui.err);
  t.regex(tui.out, /^bug switches on: .*nodes behave as Besu 21\.1/m);
  t.regex(tui.out, /^FAIL at 30\.000s: height \d+, 0 round changes$/m);
  t.true(tui.out.includes(`\n${INVARIANTS_WITH_ROUND_START_FAILED}\n`));
  t.regex(tui.out, FIRST_ROUND_START_VIOLATION);
  t.regex(tui.out, /^0\.000s {2}round-start violated by v0 \(height 1, round 0\)/m);

  const report = await run(into(dir, printed(r.out, 'report'), '--html'));
  t.is(report.code, 0, report.err);
  const html = readFileSync(join(dir, 'happy-path-seed-1.html'), 'utf8');
  t.regex(html, /<tr data-invariant="round-start" data-ok="false"><td>round-start<\/td><td class="fail">FAIL<\/td>/);
  t.regex(html, /<td>nodes behave as<\/td><td>Besu 21\.1 \(its known bugs switched on\)<\/td>/);
  t.regex(report.out, /^happy-path \(seed 1\): FAIL/m);
  t.regex(report.out, FIRST_ROUND_START_VIOLATION);
});

test('scenario run of a file with bug switches (a fuzz failure replayed) says they are on, and its commands name the file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-failure-'));
  const file = join(dir, 'found it.json');
  writeFileSync(file, JSON.stringify({ name: 'fuzz-found', description: 'a fuzz case', seed: 4, validators: 4, durationMs: 5000, bugs: ['besu-2095'], steps: [], expect: [] }));
  const r = await run(['scenario', 'run', file]);
  t.is(r.code, 1);
  t.regex(r.out, /^ {2}bug switches on: besu-2095$/m);
  t.regex(r.out, /first violation: round-start on v\d at height 1, round 0/);
  t.true(r.out.includes(`  replay:  qbft-lab scenario run ${shellWord(file)} --seed 4\n`), r.out);
  t.true(shellWord(file).startsWith("'"), 'a path with a space is quoted');
  const tui = await run(printed(r.out, 'tui'));
  t.is(tui.code, 0, tui.err);
  t.regex(tui.out, /^fuzz-found · 4 validators/m);
  t.regex(tui.out, /^bug switches on: besu-2095$/m);
  t.regex(tui.out, /^FAIL at 5\.000s/m);
});

test('sim: a failure prints the same flags (quoted for the shell) with a trace, and the TUI and report commands for that trace', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-failure-'));
  const flags = ['sim', '--duration', '6s', '--partition', '2s..3s:v0,v1|v2,v3', '--besu-version', '21.1'];
  const r = await run(flags);
  t.is(r.code, 1);
  t.regex(r.out, FIRST_ROUND_START_VIOLATION);
  t.regex(r.out, /^ {2}replay: {2}qbft-lab sim --duration 6s --partition '2s\.\.3s:v0,v1\|v2,v3' --besu-version 21\.1 --seed 1 --trace sim-seed-1\.jsonl$/m);
  t.regex(r.out, /^ {2}tui: {5}qbft-lab tui sim-seed-1\.jsonl {3}\(after the replay, which writes the trace\)$/m);
  const replay = await run(into(dir, printed(r.out, 'replay'), '--trace'));
  t.is(replay.code, 1);
  const hash = (text: string) => /trace hash (0x[0-9a-f]{64})/.exec(text)![1];
  t.is(hash(replay.out), hash(r.out), 'the replay is the same run');
  const tui = await run(printed(r.out, 'tui').map((a) => (a.endsWith('.jsonl') ? join(dir, a) : a)));
  t.is(tui.code, 0, tui.err);
  t.regex(tui.out, FIRST_ROUND_START_VIOLATION);
  t.regex(tui.out, /^report: {2}qbft-lab report \S+sim-seed-1\.jsonl --html \S+sim-seed-1\.html$/m);
});

test('twins-fork: PASS beside agreement FAIL says the scenario expects it; crashed twins have no height -1', async (t) => {
  t.is(FORK_EXPECTATION_TEXT, describeExpectation({ kind: 'fork' }));
  const r = await run(['scenario', 'run', 'twins-fork']);
  t.is(r.code, 0);
  t.regex(r.out, /^PASS twins-fork/m);
  t.regex(r.out, /^ {2}invariants: agreement FAIL \(expected by this scenario: a fork is detected \(different blocks imported at one height\)\), validity ok, /m);
  t.notRegex(r.out, /first violation/);
  t.regex(r.out, /^ {2}v0-twin +0x[0-9a-f]{40} +- +crashed +-$/m);
  t.notRegex(r.out, / -1 /);
  t.notRegex(r.out, /replay:/, 'a passing run prints no commands');
});

test('scenario run --all summary: failed runs get their first violation and commands under the table', async (t) => {
  const short = { ...happyPath, durationMs: 5000, expect: [] };
  const results = [await runScenario(short), await runScenario({ ...short, besuVersion: '21.1' })];
  const text = formatSummary(results);
  t.regex(text, /^scenario +result +height +round changes +max round +invariants +wall ms +trace hash$/m);
  t.regex(text, /^happy-path +PASS +\d+ +0 +0 +ok +/m);
  t.regex(text, /^happy-path +FAIL +\d+ +0 +0 +round-start FAIL +/m);
  t.regex(text, /^FAIL happy-path \(seed 1\)\n {2}bug switches on: .*Besu 21\.1.*\n {2}first violation: round-start on v0 at height 1, round 0, 0\.000 s into the run/m);
  t.regex(text, /^ {2}replay: {2}qbft-lab scenario run happy-path --seed 1 --besu-version 21\.1$/m);
  t.regex(text, /^1 passed, 1 failed$/m);
});

test('check: failed cases name their first violation and the Besu version; the printed tui command opens the case written by --report-dir', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-failure-'));
  const r = await run(['check', '--genesis-file', join(FIXTURES, 'old.json'), '--besu-version', '21.1', '--duration', '24s', '--report-dir', dir]);
  t.is(r.code, 1);
  t.regex(r.out, /^nodes behave as Besu 21\.1 \(its known bugs switched on\)$/m);
  t.regex(r.out, /^failed cases:\n {2}crash-f: first violation: round-start on v0 at height 1, round 0, 0\.000 s into the run/m);
  t.true(r.out.includes(`replay: qbft-lab check --genesis-file ${join(FIXTURES, 'old.json')} --besu-version 21.1 --duration 24s --seed 1 --report-dir ${dir}   (writes the trace and reports of each failed case to ${dir})`), r.out);
  const tui = await run(printed(r.out.slice(r.out.indexOf('\ncrash-f:\n')), 'tui'));
  t.is(tui.code, 0, tui.err);
  t.regex(tui.out, /^check-crash-f · 4 validators/m);
  t.regex(tui.out, FIRST_ROUND_START_VIOLATION);
});

test('rehearse: a verdict other than ok ends with the replay and the TUI and report commands of the rehearsal run', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-failure-'));
  const r = await run(['rehearse', '--genesis-file', join(FIXTURES, 'old.json'), '--new-genesis', join(FIXTURES, 'new-reward-at-20.json'), '--left-behind', 'v3', '--restart-window', '6s', '--report-dir', dir]);
  t.is(r.code, 1);
  t.regex(r.out, /^verdict: forked-off/m);
  t.regex(r.out, /^replay: qbft-lab rehearse .* --left-behind v3 --restart-window 6s --seed 1 --report-dir \S+ {3}\(writes the trace and reports of the rehearsal to /m);
  const tuiArgs = printed(r.out, 'tui');
  t.true(existsSync(tuiArgs[1]!), `${tuiArgs[1]} is the trace --report-dir wrote`);
  const tui = await run(tuiArgs);
  t.is(tui.code, 0, tui.err);
  t.regex(tui.out, /^rehearsal · /m);
});
