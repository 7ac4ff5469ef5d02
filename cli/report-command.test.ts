import test from 'ava';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bytesToHex } from '../node/crypto/bytes.ts';
import { keccak256 } from '../node/crypto/keccak.ts';
import type { Scenario } from '../sim/scenario.ts';
import { main } from './main.ts';
import { captureIo } from './capture-io.ts';
import { writeFuzzFailureReports } from './report-command.ts';

const capture = captureIo;

const tmp = () => mkdtempSync(join(tmpdir(), 'qbft-report-cli-'));

// Two of four validators crash: no quorum, so the chain stops short of its expected height.
const failing: Scenario = {
  name: 'two-crash-short',
  description: 'two validators crash; the chain halts',
  validators: 4,
  durationMs: 6_000,
  steps: [
    { atMs: 2_500, do: 'crash', node: 'v2' },
    { atMs: 2_500, do: 'crash', node: 'v3' },
  ],
  expect: [{ kind: 'min-height', height: 5 }],
};

test('report reads a trace file written by scenario run --trace and writes HTML and Markdown', async (t) => {
  const dir = tmp();
  const trace = join(dir, 'pc.jsonl');
  const run = capture();
  t.is(await main(['scenario', 'run', 'proposer-crash', '--json', '--trace', trace], run), 0);
  const { traceHash } = JSON.parse(run.stdout);
  const io = capture();
  t.is(await main(['report', trace, '--html', join(dir, 'r.html'), '--md', join(dir, 'r.md')], io), 0);
  t.regex(io.stdout, /wrote .*r\.html\nwrote .*r\.md\nproposer-crash \(seed 1\): PASS, 4 lanes, 6 round changes, 17 heights committed/);
  const md = readFileSync(join(dir, 'r.md'), 'utf8');
  t.true(md.includes(`| trace hash | ${traceHash} |`));
  t.regex(readFileSync(join(dir, 'r.html'), 'utf8'), /data-lane="v3"/);
});

test('report runs a named scenario with a seed', async (t) => {
  const dir = tmp();
  const io = capture();
  t.is(await main(['report', 'proposer-crash', '--seed', '3', '--md', join(dir, 'r.md')], io), 0);
  t.true(readFileSync(join(dir, 'r.md'), 'utf8').startsWith('# qbft-lab report: proposer-crash (seed 3)\n'));
  t.false(existsSync(join(dir, 'r.html')));
});

test('report usage errors exit 2 with a message', async (t) => {
  const dir = tmp();
  const bad = join(dir, 'bad.jsonl');
  writeFileSync(bad, '{"t":1}\n');
  const cases: Array<[string[], RegExp]> = [
    [['report', 'proposer-crash'], /--html FILE and\/or --md FILE/],
    [['report', '--md', join(dir, 'x.md')], /give one trace file or scenario/],
    [['report', bad, '--seed', '2', '--md', join(dir, 'x.md')], /--seed applies to scenarios/],
    [['report', 'no-such-scenario', '--md', join(dir, 'x.md')], /neither a scenario name/],
    [['report', join(dir, 'missing.jsonl'), '--md', join(dir, 'x.md')], /no trace file/],
    [['report', bad, '--md', join(dir, 'x.md')], /cannot read trace .*line 1/],
    [['report', 'proposer-crash', '--seed', 'x', '--md', join(dir, 'x.md')], /--seed: 'x' must be an integer/],
    [['report', 'proposer-crash', '--pdf', 'x'], /Unknown option '--pdf'/],
  ];
  for (const [args, message] of cases) {
    const io = capture();
    t.is(await main(args, io), 2, args.join(' '));
    t.regex(io.stderr, message);
  }
  t.false(existsSync(join(dir, 'x.md')));
});

test('scenario run --report-dir writes reports and the trace of a failed run only', async (t) => {
  const dir = tmp();
  const file = join(dir, 'failing.json');
  writeFileSync(file, JSON.stringify(failing));
  const reports = join(dir, 'reports');
  const io = capture();
  t.is(await main(['scenario', 'run', file, '--json', '--report-dir', reports], io), 1);
  const r = JSON.parse(io.stdout);
  t.deepEqual(readdirSync(reports).sort(), ['two-crash-short-seed-1.html', 'two-crash-short-seed-1.jsonl', 'two-crash-short-seed-1.md']);
  t.regex(io.stderr, /two-crash-short \(seed 1\) failed: report /);
  // The written trace is the run's: same bytes, same hash.
  t.is(bytesToHex(keccak256(readFileSync(join(reports, 'two-crash-short-seed-1.jsonl')))), r.traceHash);
  t.regex(readFileSync(join(reports, 'two-crash-short-seed-1.md'), 'utf8'), /^Verdict: \*\*FAIL\*\*$/m);
  t.regex(readFileSync(join(reports, 'two-crash-short-seed-1.html'), 'utf8'), /<span class="verdict fail" data-ok="false">FAIL<\/span>/);

  const passing = join(dir, 'passing');
  t.is(await main(['scenario', 'run', 'proposer-crash', '--report-dir', passing], capture()), 0);
  t.false(existsSync(passing));
});

test('fuzz failures are replayed into reports', async (t) => {
  const dir = tmp();
  const io = capture();
  await writeFuzzFailureReports(dir, [{ caseIndex: 7, scenario: { ...failing, seed: 5 } }], io, () => 0);
  t.deepEqual(readdirSync(dir).sort(), ['fuzz-case-7-two-crash-short-seed-5.html', 'fuzz-case-7-two-crash-short-seed-5.jsonl', 'fuzz-case-7-two-crash-short-seed-5.md']);
  t.regex(io.stderr, /fuzz case 7: report /);
});
