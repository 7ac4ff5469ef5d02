/**
 * Fuzz campaigns spread over worker processes (`fuzz --jobs N`, workerCaseRunner): the same report,
 * cases and failure files as one process. End-to-end lane: each test starts child processes.
 */
import test, { type ExecutionContext } from 'ava';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFuzz } from '../sim/fuzz.ts';
import { main } from '../cli/main.ts';
import { captureIo } from '../cli/capture-io.ts';
import { workerCaseRunner } from '../cli/fuzz-workers.ts';

const CAMPAIGN_SEED = 20_240_611;

/**
 * `qbft-lab fuzz ... --json --jobs N` with a fresh failure folder: exit code, stdout with the
 * folder's path and the wall-clock figures (the last two fields) taken out, the parsed report,
 * and the failure files by name.
 */
async function fuzzCli(t: ExecutionContext, args: string[], jobs: number) {
  const dir = mkdtempSync(join(tmpdir(), `qbft-lab-fuzz-jobs-${jobs}-`));
  try {
    const io = captureIo();
    const code = await main(['fuzz', ...args, '--json', '--jobs', String(jobs), '--failure-dir', dir], io);
    const wallFigures = /,"wallMs":\d+(,"runsPerMinute":[\d.]+)?\}\n$/;
    t.regex(io.stdout, wallFigures, io.stderr);
    const stdout = io.stdout.replaceAll(dir, '<dir>').replace(wallFigures, '}\n');
    const files = Object.fromEntries(readdirSync(dir).sort().map((name) => [name, readFileSync(join(dir, name), 'utf8')]));
    return { code, stdout, report: JSON.parse(stdout), files };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('fuzz --jobs 2 reports a campaign exactly as --jobs 1 does', async (t) => {
  const args = ['--runs', '12', '--seed', String(CAMPAIGN_SEED)];
  const [one, two] = await Promise.all([fuzzCli(t, args, 1), fuzzCli(t, args, 2)]);
  t.is(one.code, 0);
  t.is(one.report.runs, 12);
  t.is(one.report.determinismChecked, 2);
  t.is(one.report.simRuns, 14);
  t.deepEqual(two, one);
});

test('fuzz --bug with --jobs 2 finds, shrinks and writes the same first failure as --jobs 1', async (t) => {
  // Every one of the first cases fails with besu-2095 on, so the two workers race and the lowest index must win.
  const args = ['--runs', '4', '--seed', '1', '--bug', 'besu-2095'];
  const one = await fuzzCli(t, args, 1);
  const two = await fuzzCli(t, args, 2);
  t.is(one.code, 0);
  t.is(one.report.runsToFind, 1);
  t.deepEqual(one.report.find, { caseIndex: 0, checker: 'round-start', switchOffReplayPassed: true });
  t.deepEqual(one.report.failures.map((f: { caseIndex: number }) => f.caseIndex), [0]);
  t.true(one.report.failures[0].reproduced);
  t.deepEqual(Object.keys(one.files), ['fuzz-failure-1-0.json']);
  t.deepEqual(two, one);
});

test('fuzz --bug with --jobs 2 waits for the earlier passing case when a later one fails first', async (t) => {
  // With besu-10052 on, the first cases pass and a later one is the find (case 5 when written; the
  // case depends on the arbitrary): the campaign ends there whichever worker finishes first.
  const args = ['--runs', '8', '--seed', '1', '--bug', 'besu-10052'];
  const one = await fuzzCli(t, args, 1);
  const two = await fuzzCli(t, args, 2);
  const found = one.report.find as { caseIndex: number; checker: string; switchOffReplayPassed: boolean };
  t.like(found, { checker: 'round-start', switchOffReplayPassed: true });
  t.true(found.caseIndex > 0, 'a later case is the find');
  t.is(one.report.runs, found.caseIndex + 1);
  t.is(one.report.runsToFind, found.caseIndex + 1);
  t.true(`fuzz-failure-1-${found.caseIndex}.json` in one.files);
  t.deepEqual(two, one);
});

test('cases run by worker processes give the report and the case order of one process', async (t) => {
  const shard = { index: 1, count: 2 };
  const here: unknown[] = [];
  const there: unknown[] = [];
  const sequential = await runFuzz({ runs: 8, seed: CAMPAIGN_SEED + 1, shard, onCase: (info) => here.push(info) });
  const parallel = await runFuzz({ runs: 8, seed: CAMPAIGN_SEED + 1, shard, onCase: (info) => there.push(info), runCases: workerCaseRunner(3) });
  t.is(sequential.runs, 4);
  t.deepEqual(there.map((info) => (info as { caseIndex: number }).caseIndex), [1, 3, 5, 7]);
  t.deepEqual(there, here);
  t.deepEqual(parallel, sequential);
  t.is(JSON.stringify(parallel), JSON.stringify(sequential));
});
