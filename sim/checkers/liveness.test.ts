/** Liveness with a bound fixed when the faults end: a stall is a violation, never "not checkable". */
import test from 'ava';
import { findScenario } from '../../scenarios/index.ts';
import { findKnownBug } from '../bugs/catalogue.ts';
import { runScenario } from '../scenario-runner.ts';
import type { CheckerSuite } from './suite.ts';
import { SyntheticRun } from './test-fixtures.ts';

/** Four validators at height 5 when the faults end at 10 s; T = 2 s, block period 1 s, 1 s latency allowance. */
function atHeightFive(opts: { faulty?: string[] } = {}) {
  const run = new SyntheticRun({ requestTimeoutSeconds: 2, latencyAllowanceMs: 1_000, ...opts });
  const chain = run.chain(7);
  for (const { rlp } of chain.slice(0, 5)) for (const node of ['v0', 'v1', 'v2', 'v3']) run.importBlock(1_000, node, rlp);
  return { run, next: chain.slice(5) };
}

// heal 10 000 + block period 1 000 + 2 000 * (2^(0 + 1 + 3) - 1) + allowance 1 000
const DEADLINE_MS = 10_000 + 1_000 + 2_000 * 15 + 1_000;

test('planted: the chain stalls after the faults end', (t) => {
  const { run } = atHeightFive();
  run.healed(10_000);
  t.is(run.suite.liveness.pendingDeadlineMs(), DEADLINE_MS);
  run.line(40_000, 'v1', { kind: 'round-started', height: 6, round: 3, proposer: '0x', timeoutMs: 16_000 });
  t.is(run.suite.liveness.pendingDeadlineMs(), DEADLINE_MS, 'rounds climbed later do not move the deadline');
  run.suite.finish(DEADLINE_MS);
  const v = run.suite.liveness.violation;
  t.like(v, { checker: 'liveness', atMs: DEADLINE_MS, height: 5 });
  t.regex(v!.reason, /v0, v1, v2, v3 did not get past height 5 by 42000 ms/);
  t.is(run.suite.invariants().liveness, false);
});

test('planted: one node does not follow the others', (t) => {
  const { run, next } = atHeightFive();
  run.healed(10_000);
  for (const node of ['v0', 'v1', 'v2']) run.importBlock(12_000, node, next[0]!.rlp);
  run.line(50_000, 'v0', { kind: 'round-started', height: 7, round: 0, proposer: '0x', timeoutMs: 2_000 });
  t.like(run.suite.liveness.violation, { node: 'v3', atMs: DEADLINE_MS });
});

test('clean: every node grows before the deadline', (t) => {
  const { run, next } = atHeightFive();
  run.healed(10_000);
  for (const node of ['v0', 'v1', 'v2', 'v3']) run.importBlock(12_000, node, next[0]!.rlp);
  run.suite.finish(100_000);
  t.is(run.suite.liveness.status, 'satisfied');
  t.is(run.suite.invariants().liveness, true);
});

test('the highest round at the end of the faults widens the bound', (t) => {
  const { run } = atHeightFive();
  run.line(9_000, 'v2', { kind: 'round-started', height: 6, round: 3, proposer: '0x', timeoutMs: 16_000 });
  run.healed(10_000);
  t.is(run.suite.liveness.pendingDeadlineMs(), 10_000 + 1_000 + 2_000 * (2 ** (3 + 1 + 3) - 1) + 1_000);
});

test('no obligation with more than f faulty validators; no verdict when the run ends before the deadline', (t) => {
  const crashed = atHeightFive({ faulty: ['v0'] });
  crashed.run.line(9_000, 'v1', { kind: 'fault', fault: 'crash' });
  crashed.run.healed(10_000);
  crashed.run.suite.finish(100_000);
  t.is(crashed.run.suite.liveness.status, 'no-obligation');
  t.is(crashed.run.suite.invariants().liveness, null);

  const short = atHeightFive();
  short.run.healed(10_000);
  short.run.suite.finish(20_000);
  t.is(short.run.suite.liveness.status, 'not-judged');
  t.is(short.run.suite.liveness.violation, undefined);
});

test('planted in a real run: every message is lost after the faults end; the run goes on to the deadline', async (t) => {
  const s = { ...findScenario('proposer-crash')!, expect: [] };
  let checkers: CheckerSuite | undefined;
  const result = await runScenario(s, {
    onWorld: (w) => w.at(3_000, 'plant', () => w.network.setLinkFaults({ loss: 1 })),
    onCheckers: (c) => (checkers = c),
  });
  t.is(result.invariants.liveness, false);
  const deadline = checkers!.liveness.obligation!.deadlineMs;
  t.true(deadline > s.durationMs, 'the deadline lies past the scenario');
  t.is(result.simulatedMs, deadline, 'the world ran on to it');
  t.like(result.violations.find((v) => v.checker === 'liveness'), { atMs: deadline });
  t.false(result.ok);
});

test('planted in a real run: a stall after high rounds is judged, not excused', async (t) => {
  // timeout-doubling reaches round 4 before its restarts at 33 s; from then on nothing gets through.
  const s = { ...findScenario('timeout-doubling')!, expect: [] };
  let checkers: CheckerSuite | undefined;
  const result = await runScenario(s, {
    onWorld: (w) => w.at(33_000, 'plant', () => w.network.setLinkFaults({ loss: 1 })),
    onCheckers: (c) => (checkers = c),
  });
  const ob = checkers!.liveness.obligation!;
  t.is(ob.highestRound, 4);
  t.is(result.invariants.liveness, false);
  t.is(result.simulatedMs, ob.deadlineMs);
  t.true(ob.deadlineMs > 500_000);
});

for (const id of ['besu-6613', 'besu-8307'] as const) {
  test(`the known stall ${id} is a liveness violation with its switch on, and passes with it off`, async (t) => {
    const bug = findKnownBug(id)!;
    const off = await runScenario(bug.scenario);
    t.is(off.invariants.liveness, true);
    const on = await runScenario(bug.scenario, { bugs: [id] });
    t.is(on.invariants.liveness, false);
    t.is(on.violations.find((v) => v.checker === 'liveness')?.checker, 'liveness');
  });
}

test('clean real runs: liveness holds, or is not owed with more than f faulty', async (t) => {
  t.is((await runScenario(findScenario('partition-2-2')!)).invariants.liveness, true);
  t.is((await runScenario(findScenario('invalid-justification')!)).invariants.liveness, null);
});
