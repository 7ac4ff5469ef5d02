/**
 * `fuzz --bug`: a campaign with one switch on finds it, reports runsToFind, and its failure file
 * replays with the switch. A find counts only when an expected checker fired and the shrunk case
 * passes with the switch off.
 */
import test from 'ava';
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { runFuzz } from '../fuzz.ts';
import type { Scenario } from '../scenario.ts';
import { main } from '../../cli/main.ts';
import { captureIo } from '../../cli/capture-io.ts';

test('a campaign with the besu-1734 switch on finds it in its first case and writes a failure that replays with the switch', async (t) => {
  const failureDir = mkdtempSync(join(tmpdir(), 'qbft-lab-fuzz-bug-'));
  const report = await runFuzz({ runs: 5, seed: 1, bugs: ['besu-1734'], expectedCheckers: ['round-start'], stopAtFirstFailure: true, maxShrinkRuns: 3, failureDir, determinismEvery: 0 });
  t.is(report.runsToFind, 1);
  t.deepEqual(report.find, { caseIndex: 0, checker: 'round-start', switchOffReplayPassed: true });
  t.deepEqual(report.failures[0]!.find, { counted: true, checker: 'round-start', switchOffReplayPassed: true });
  t.is(report.runs, 1, 'the campaign stops at the first failure');
  t.deepEqual(report.bugs, ['besu-1734']);
  const failure = report.failures[0]!;
  t.true(failure.reproduced);
  t.deepEqual(JSON.parse(readFileSync(failure.file!, 'utf8')).bugs, ['besu-1734']);
  t.regex(failure.reason, /honest-messages|round-start/);
});

test('a failure no expected checker caught is reported as not counted, and the campaign goes on', async (t) => {
  // besu-1734 is caught by round-start; a hunt that expects only agreement must not count it.
  const report = await runFuzz({ runs: 2, seed: 1, bugs: ['besu-1734'], expectedCheckers: ['agreement'], stopAtFirstFailure: true, maxShrinkRuns: 1, determinismEvery: 0 });
  t.is(report.runs, 2, 'the campaign went on after the uncounted failure');
  t.is(report.runsToFind, undefined);
  t.is(report.find, undefined);
  t.true(report.failures.length >= 1);
  const find = report.failures[0]!.find!;
  t.false(find.counted);
  t.is(find.checker, undefined);
  t.true(find.switchOffReplayPassed);
  t.is(find.notCounted, 'none of the expected checkers (agreement) fired');
});

/** f + 1 = 2 twins of four validators fork with every switch off: a failure the switch does not explain. */
const forkingTwins: fc.Arbitrary<Scenario> = fc.integer({ min: 1, max: 1_000 }).map((seed) => ({
  name: `forking-twins-${seed}`,
  description: 'f + 1 twins: forks whatever the switch',
  seed,
  validators: 4,
  twins: ['v0', 'v1'],
  genesis: { blockPeriodSeconds: 1, requestTimeoutSeconds: 1 },
  durationMs: 15_000,
  steps: [
    { atMs: 0, do: 'crash', node: 'v0-twin' },
    { atMs: 0, do: 'crash', node: 'v1-twin' },
    { atMs: 2_000, do: 'partition', groups: [['v0', 'v1', 'v2'], ['v0-twin', 'v1-twin', 'v3']] },
    { atMs: 2_000, do: 'restart', node: 'v0-twin' },
    { atMs: 2_000, do: 'restart', node: 'v1-twin' },
    { atMs: 10_000, do: 'crash', node: 'v0-twin' },
    { atMs: 10_000, do: 'crash', node: 'v1-twin' },
    { atMs: 10_000, do: 'heal' },
  ],
  expect: [{ kind: 'no-fork' }],
}));

test('a shrunk case that fails with the switch off too is not counted as a find', async (t) => {
  const report = await runFuzz({ runs: 1, seed: 3, arbitrary: forkingTwins, bugs: ['besu-2449'], expectedCheckers: ['agreement'], stopAtFirstFailure: true, maxShrinkRuns: 1, determinismEvery: 0 });
  t.is(report.runsToFind, undefined);
  t.is(report.failures.length, 1);
  const find = report.failures[0]!.find!;
  t.false(find.counted);
  t.is(find.checker, 'agreement', 'the expected checker fired');
  t.false(find.switchOffReplayPassed);
  t.regex(find.notCounted!, /^the shrunk case fails with the switch off too \(agreement violated/);
});

test('fuzz --bug refuses an unknown id, naming the known ones', async (t) => {
  const io = captureIo();
  t.is(await main(['fuzz', '--bug', 'besu-0'], io), 2);
  t.regex(io.stderr, /--bug: 'besu-0' is not a known bug id \(besu-1671, /);
});

test('bugs list names every bug with its link and scenario; bugs check of one bug passes', async (t) => {
  const list = captureIo();
  t.is(await main(['bugs', 'list', '--json'], list), 0);
  const rows = JSON.parse(list.stdout) as Array<{ id: string; title: string; link: string; scenario: string }>;
  t.true(rows.length >= 10);
  for (const r of rows) t.truthy(r.id && r.title && r.link && r.scenario);
  const check = captureIo();
  t.is(await main(['bugs', 'check', 'besu-2095', '--json'], check), 0);
  const out = JSON.parse(check.stdout) as { passed: number; total: number };
  t.deepEqual([out.passed, out.total], [1, 1]);
  t.is(await main(['bugs', 'check', 'besu-0'], captureIo()), 2);
});
