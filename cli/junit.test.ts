/** `--junit FILE` of scenario run, fuzz and bugs check: the XML a CI server reads, written also when runs fail. */
import test from 'ava';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from './main.ts';
import { captureIo } from './capture-io.ts';
import { fuzzSuite } from './fuzz-command.ts';
import { bugCase } from './bugs-command.ts';
import { findKnownBug } from '../sim/bugs/catalogue.ts';
import { checkKnownBug } from '../sim/bugs/check.ts';
import { runFuzz, type FuzzCaseInfo } from '../sim/fuzz.ts';
import { junitXml } from '../reports/junit.ts';

const tempDir = () => mkdtempSync(join(tmpdir(), 'qbft-lab-junit-'));

const decode = (s: string) => s.replace(/&(lt|gt|quot|apos|#10|#13|#9|amp);/g, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", '#10': '\n', '#13': '\r', '#9': '\t', amp: '&' })[e]!);

function attributes(tag: string): Record<string, string> {
  return Object.fromEntries([...tag.matchAll(/([\w-]+)="([^"]*)"/g)].map((m) => [m[1], decode(m[2])]));
}

interface ReadCase {
  attributes: Record<string, string>;
  failure?: string;
  systemOut?: string;
}

/** The root's counts and each test case, read with patterns that fit what reports/junit.ts writes. */
function readJUnit(xml: string): { root: Record<string, string>; suites: Array<Record<string, string>>; cases: ReadCase[] } {
  const root = /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites ([^>]*)>\n[\s\S]*<\/testsuites>\n$/.exec(xml);
  if (!root) throw new Error(`not a JUnit report: ${xml.slice(0, 200)}`);
  const suites = [...xml.matchAll(/<testsuite ([^>]*)>/g)].map((m) => attributes(m[1]));
  const cases = [...xml.matchAll(/<testcase ([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)].map((m) => {
    const body = m[2] ?? '';
    const failure = /<failure message="([^"]*)">/.exec(body);
    const out = /<system-out>([\s\S]*?)<\/system-out>/.exec(body);
    return { attributes: attributes(m[1]), ...(failure ? { failure: decode(failure[1]) } : {}), ...(out ? { systemOut: decode(out[1]) } : {}) };
  });
  return { root: attributes(root[1]), suites, cases };
}

const counts = (a: Record<string, string>) => ({ tests: a.tests, failures: a.failures, skipped: a.skipped });

test('scenario run happy-path --junit writes one passing case with the seed and trace hash', async (t) => {
  const file = join(tempDir(), 'scenario.xml');
  const io = captureIo();
  t.is(await main(['scenario', 'run', 'happy-path', '--json', '--junit', file], io), 0, io.stderr);
  const run = JSON.parse(io.stdout);
  const { root, suites, cases } = readJUnit(readFileSync(file, 'utf8'));
  t.deepEqual(counts(root), { tests: '1', failures: '0', skipped: '0' });
  t.deepEqual(counts(suites[0]), counts(root));
  t.is(cases.length, 1);
  t.like(cases[0].attributes, { name: 'happy-path', classname: 'qbft-lab.scenario', time: (run.wallMs / 1000).toFixed(3) });
  t.is(cases[0].failure, undefined);
  t.is(cases[0].systemOut, `seed 1\ntrace hash ${run.traceHash}`);
});

test('a scenario file with an impossible expectation fails (exit 1) and its case carries the failed check', async (t) => {
  const dir = tempDir();
  const scenario = join(dir, 'impossible.json');
  writeFileSync(scenario, JSON.stringify({ name: 'too-high', description: 'cannot reach 10000 blocks in 5 s', validators: 4, durationMs: 5000, steps: [], expect: [{ kind: 'min-height', height: 10000 }, { kind: 'no-fork' }] }));
  const file = join(dir, 'failing.xml');
  const io = captureIo();
  t.is(await main(['scenario', 'run', scenario, '--seed', '5', '--junit', file], io), 1, io.stderr);
  const xml = readFileSync(file, 'utf8');
  const { root, cases } = readJUnit(xml);
  t.deepEqual(counts(root), { tests: '1', failures: '1', skipped: '0' });
  t.like(cases[0].attributes, { name: 'too-high', classname: 'qbft-lab.scenario' });
  t.is(cases[0].failure, 'expected: honest nodes reach height 10000');
  t.regex(cases[0].systemOut!, /^seed 5\ntrace hash 0x[0-9a-f]{64}$/);
  t.regex(xml, /<failure message="[^"]*">expected: honest nodes reach height 10000\n\nFAIL too-high \(seed 5\)/);
});

test('bugs check <id> --junit writes one passing case for the bug', async (t) => {
  const file = join(tempDir(), 'bugs.xml');
  const io = captureIo();
  t.is(await main(['bugs', 'check', 'besu-8425', '--junit', file], io), 0, io.stderr);
  const { root, suites, cases } = readJUnit(readFileSync(file, 'utf8'));
  t.deepEqual(counts(root), { tests: '1', failures: '0', skipped: '0' });
  t.is(suites[0].name, 'qbft-lab bugs check');
  t.like(cases[0].attributes, { name: 'besu-8425', classname: 'qbft-lab.bugs' });
  t.is(cases[0].failure, undefined);
  t.regex(cases[0].systemOut!, /^switch off: passes\nswitch on: fails, caught by /);
});

test('a bug that is not shown fails its case, saying which half of the check went wrong', async (t) => {
  const bug = findKnownBug('besu-8425')!;
  // Real checks of altered entries: a checker that does not catch the stall, and an expectation no run meets.
  const wrongChecker = { ...bug, caughtBy: ['agreement' as const] };
  const notCaught = bugCase(wrongChecker, await checkKnownBug(wrongChecker), 0.5);
  t.is(notCaught.failure?.message, 'bug-besu-8425: not caught by agreement');
  const impossible = { ...bug, scenario: { ...bug.scenario, expect: [{ kind: 'min-height' as const, height: 10000 }] } };
  const failsWithout = bugCase(impossible, await checkKnownBug(impossible), 0.5);
  t.regex(failsWithout.failure!.message, /^bug-besu-8425: fails with the switch off \(expected: honest nodes reach height 10000\)/);
  const { root, cases } = readJUnit(junitXml([{ name: 'bugs', cases: [notCaught, failsWithout] }]));
  t.deepEqual(counts(root), { tests: '2', failures: '2', skipped: '0' });
  t.true(cases.every((c) => c.attributes.name === 'besu-8425' && c.attributes.classname === 'qbft-lab.bugs'));
});

test('fuzz --runs 2 --junit writes one case per fuzz case, each naming its seeds and how to re-run it alone', async (t) => {
  const dir = tempDir();
  const file = join(dir, 'fuzz.xml');
  const io = captureIo();
  t.is(await main(['fuzz', '--runs', '2', '--seed', '1', '--jobs', '1', '--json', '--failure-dir', dir, '--junit', file], io), 0, io.stderr);
  const report = JSON.parse(io.stdout);
  const { root, suites, cases } = readJUnit(readFileSync(file, 'utf8'));
  t.deepEqual(counts(root), { tests: '2', failures: '0', skipped: '0' });
  t.is(suites[0].name, 'qbft-lab fuzz seed 1');
  t.deepEqual(cases.map((c) => c.attributes.name.replace(/ \(.*/, '')), ['case 0', 'case 1']);
  t.true(cases.every((c) => c.attributes.classname === 'qbft-lab.fuzz' && c.failure === undefined));
  t.regex(cases[1].systemOut!, /^campaign seed 1, case 1, case seed \d+, scenario seed \d+\n.*\nrun this case alone: qbft-lab fuzz --seed 1 --runs 2 --shard 1\/2$/);
  t.is(report.runs, 2);
});

test('fuzz --bug: the case that finds the bug passes, and so does "bug ID found"; the shrunk file is named; the text names the checkers and the replay commands', async (t) => {
  const dir = tempDir();
  const file = join(dir, 'hunt.xml');
  const io = captureIo();
  t.is(await main(['fuzz', '--runs', '3', '--seed', '1', '--bug', 'besu-1734', '--jobs', '1', '--failure-dir', dir, '--junit', file], io), 0, io.stderr);
  const { root, cases } = readJUnit(readFileSync(file, 'utf8'));
  t.deepEqual(counts(root), { tests: '2', failures: '0', skipped: '0' });
  t.deepEqual(cases.map((c) => c.attributes.name.replace(/ \(.*/, '')), ['case 0', 'bug besu-1734 found']);
  const shrunk = join(dir, 'fuzz-failure-1-0.json');
  t.regex(cases[0].systemOut!, /^found bug besu-1734: /);
  t.true(cases[0].systemOut!.includes(`shrunk scenario: ${shrunk}`));
  t.true(cases[1].systemOut!.startsWith('found in case 0 (case seed '));
  t.true(cases[1].systemOut!.endsWith(`; shrunk scenario ${shrunk}`));
  // The same hunt as people read it: progress, the checkers that caught it, where, and the commands.
  t.notRegex(io.stderr, /^\{/m);
  t.true(io.stderr.includes('case 0 failed (case seed 428652776, 9 validators, 37 s simulated): round-timer on v5 at 1.716 s (height 1, round 0); also round-start; shrinking it\n'), io.stderr);
  t.regex(io.stderr, /^fuzz: 1 of 3 cases run, 1 failed \(\d+ s\)$/m);
  t.regex(io.stdout, /^bug besu-1734: found in case 0 after 1 runs, caught by round-start \(also round-timer\); the shrunk case \(scenario seed \d+\) passes with the switch off$/m);
  t.regex(io.stdout, /^ {2}failure in case 0: caught by round-timer, round-start; first: round-timer on v\d at \d+(\.\d+)? s \(height \d+, round \d+\)$/m);
  t.regex(io.stdout, /^ {4}shrunk in \d+ steps to \d+ validators, \d+ s, scenario seed \d+, bug switches besu-1734$/m);
  for (const command of [`replay: qbft-lab scenario run ${shrunk}`, `watch:  qbft-lab tui ${shrunk}`, `report: qbft-lab report ${shrunk} --html fuzz-failure-1-0.html`]) t.true(io.stdout.includes(`    ${command}\n`), command);
});

test('fuzz --bug that is not found exits 1 and fails the "bug ID found" case', async (t) => {
  const dir = tempDir();
  const file = join(dir, 'miss.xml');
  const io = captureIo();
  t.is(await main(['fuzz', '--runs', '1', '--seed', '1', '--bug', 'besu-2241', '--jobs', '1', '--failure-dir', dir, '--junit', file], io), 1, io.stderr);
  const { root, cases } = readJUnit(readFileSync(file, 'utf8'));
  t.deepEqual(counts(root), { tests: '2', failures: '1', skipped: '0' });
  t.is(cases[0].failure, undefined);
  t.like(cases[1], { attributes: { name: 'bug besu-2241 found' }, failure: 'bug besu-2241 not found in 1 runs (campaign seed 1)' });
});

test('a hunt whose failure is not counted as a find says why in the case and fails "bug ID found"', async (t) => {
  // besu-1734 is caught by round-start: a hunt that expects agreement only must not count it.
  const infos: FuzzCaseInfo[] = [];
  const report = await runFuzz({ runs: 1, seed: 1, bugs: ['besu-1734'], expectedCheckers: ['agreement'], stopAtFirstFailure: true, maxShrinkRuns: 1, determinismEvery: 0, onCase: (i) => infos.push(i) });
  t.is(report.failures.length, 1);
  const { root, cases } = readJUnit(junitXml([fuzzSuite(report, infos, 'besu-1734')]));
  t.deepEqual(counts(root), { tests: '2', failures: '1', skipped: '0' });
  t.regex(cases[0].systemOut!, /^not counted as a find of bug besu-1734: none of the expected checkers \(agreement\) fired\n/);
  t.like(cases[1], { attributes: { name: 'bug besu-1734 found' }, failure: 'bug besu-1734 not found in 1 runs (campaign seed 1)' });
});

test('a failing case of a plain campaign carries the checker, the case seed and the shrunk file', async (t) => {
  // A real failing campaign: the besu-1734 switch on, judged as a plain campaign (no --bug hunt).
  const dir = tempDir();
  const infos: FuzzCaseInfo[] = [];
  const report = await runFuzz({ runs: 1, seed: 1, bugs: ['besu-1734'], maxShrinkRuns: 3, determinismEvery: 0, failureDir: dir, onCase: (i) => infos.push(i) });
  const failure = report.failures[0];
  t.truthy(failure);
  const checkers = [...new Set(failure.result!.violations.map((v) => v.checker))];
  t.true(checkers.length > 0);
  const { root, cases } = readJUnit(junitXml([fuzzSuite(report, infos, undefined)]));
  t.deepEqual(counts(root), { tests: '1', failures: '1', skipped: '0' });
  t.is(cases[0].failure, `${checkers.join(', ')} (case seed ${failure.caseSeed}, shrunk scenario ${join(dir, 'fuzz-failure-1-0.json')})`);
});

test('a --junit path that cannot be written is a one-line usage error (exit 2) before anything runs', async (t) => {
  const dir = tempDir();
  for (const target of [join(dir, 'missing-dir', 'r.xml'), dir]) {
    for (const args of [
      ['scenario', 'run', 'happy-path', '--junit', target],
      ['scenario', 'run', '--all', '--junit', target],
      ['bugs', 'check', 'besu-8425', '--junit', target],
      ['fuzz', '--runs', '1', '--jobs', '1', '--junit', target],
    ]) {
      const io = captureIo();
      t.is(await main(args, io), 2, args.join(' '));
      t.is(io.stdout, '', `${args.join(' ')}: nothing ran`);
      t.regex(io.stderr, /^qbft-lab: --junit: cannot write .*: E[A-Z]+: .*\n$/, args.join(' '));
    }
  }
  const list = captureIo();
  t.is(await main(['bugs', 'list', '--junit', join(dir, 'x.xml')], list), 2);
  t.regex(list.stderr, /--junit is for bugs check/);
});

test('scenario list --json names every scenario with its description', async (t) => {
  const io = captureIo();
  t.is(await main(['scenario', 'list', '--json'], io), 0);
  const rows = JSON.parse(io.stdout) as Array<{ name: string; description: string }>;
  t.true(rows.some((r) => r.name === 'happy-path' && r.description.length > 0));
  t.is(await main(['scenario', 'list', 'extra'], captureIo()), 2);
});
