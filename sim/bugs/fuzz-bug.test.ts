/** `fuzz --bug`: a campaign with one switch on finds it, reports runsToFind, and its failure file replays with the switch. */
import test from 'ava';
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFuzz } from '../fuzz.ts';
import { main } from '../../cli/main.ts';
import { captureIo } from '../../cli/capture-io.ts';

test('a campaign with the besu-1734 switch on finds it in its first case and writes a failure that replays with the switch', async (t) => {
  const failureDir = mkdtempSync(join(tmpdir(), 'qbft-lab-fuzz-bug-'));
  const report = await runFuzz({ runs: 5, seed: 1, bugs: ['besu-1734'], stopAtFirstFailure: true, maxShrinkRuns: 3, failureDir, determinismEvery: 0 });
  t.is(report.runsToFind, 1);
  t.is(report.runs, 1, 'the campaign stops at the first failure');
  t.deepEqual(report.bugs, ['besu-1734']);
  const failure = report.failures[0]!;
  t.true(failure.reproduced);
  t.deepEqual(JSON.parse(readFileSync(failure.file!, 'utf8')).bugs, ['besu-1734']);
  t.regex(failure.reason, /honest-messages|round-start/);
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
