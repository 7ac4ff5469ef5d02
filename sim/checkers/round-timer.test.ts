/** Round-timer doubling: a round-r timer runs requesttimeoutseconds * 1000 * 2^r ms, pauses aside. */
import test from 'ava';
import { findScenario } from '../../scenarios/index.ts';
import { runScenario } from '../scenario-runner.ts';
import type { Timers } from '../../node/runtime/ports.ts';
import type { CheckerSuite } from './suite.ts';
import { SyntheticRun } from './test-fixtures.ts';

test('planted: a round-1 timer that runs 1.5 times its length', (t) => {
  const run = new SyntheticRun({ requestTimeoutSeconds: 2 });
  run.line(1_000, 'v1', { kind: 'round-started', height: 4, round: 0, proposer: '0x', timeoutMs: 2_000 });
  run.line(3_000, 'v1', { kind: 'round-timer-expired', height: 4, round: 0 });
  run.line(3_000, 'v1', { kind: 'round-started', height: 4, round: 1, proposer: '0x', timeoutMs: 4_000 });
  t.is(run.suite.roundTimer.violation, undefined);
  run.line(9_000, 'v1', { kind: 'round-timer-expired', height: 4, round: 1 });
  const v = run.suite.roundTimer.violation;
  t.like(v, { checker: 'round-timer', node: 'v1', height: 4, round: 1, atMs: 9_000 });
  t.regex(v!.reason, /expired 6000 ms after the round started at 3000 ms; it must run 4000 ms \(2000 ms \* 2\^1\)/);
});

test('the timeout comes from the run-started line, not from what the node says it set', (t) => {
  const run = new SyntheticRun({ requestTimeoutSeconds: 1 });
  run.line(1_000, 'v2', { kind: 'round-started', height: 2, round: 2, proposer: '0x', timeoutMs: 8_000 });
  run.line(9_000, 'v2', { kind: 'round-timer-expired', height: 2, round: 2 });
  t.regex(run.suite.roundTimer.violation!.reason, /it must run 4000 ms \(1000 ms \* 2\^2\)/);
});

test('a pause defers a timer that comes due while paused to the resume, and only then', (t) => {
  const ok = new SyntheticRun({ requestTimeoutSeconds: 2 });
  ok.line(1_000, 'v3', { kind: 'round-started', height: 2, round: 0, proposer: '0x', timeoutMs: 2_000 });
  ok.line(2_000, 'v3', { kind: 'fault', fault: 'pause' });
  ok.line(7_000, 'v3', { kind: 'fault', fault: 'resume' });
  ok.line(7_000, 'v3', { kind: 'round-timer-expired', height: 2, round: 0 });
  t.is(ok.suite.roundTimer.violation, undefined);
  t.is(ok.suite.roundTimer.judgedExpiries, 1);

  const early = new SyntheticRun({ requestTimeoutSeconds: 2 });
  early.line(1_000, 'v3', { kind: 'round-started', height: 2, round: 0, proposer: '0x', timeoutMs: 2_000 });
  early.line(2_000, 'v3', { kind: 'fault', fault: 'pause' });
  early.line(3_000, 'v3', { kind: 'round-timer-expired', height: 2, round: 0 });
  t.regex(early.suite.roundTimer.violation!.reason, /wait for the resume of the pause that began at 2000 ms/);
});

test('stale expiries and other incarnations are not judged; faulty nodes are not judged', (t) => {
  const run = new SyntheticRun({ requestTimeoutSeconds: 2, faulty: ['v0'] });
  run.line(1_000, 'v1', { kind: 'round-started', height: 2, round: 0, proposer: '0x', timeoutMs: 2_000 });
  run.line(1_500, 'v1', { kind: 'node-started', wiped: false });
  run.line(3_000, 'v1', { kind: 'round-timer-expired', height: 2, round: 0 });
  run.line(1_000, 'v0', { kind: 'round-started', height: 2, round: 0, proposer: '0x', timeoutMs: 2_000 });
  run.line(3_500, 'v0', { kind: 'round-timer-expired', height: 2, round: 0 });
  t.is(run.suite.roundTimer.violation, undefined);
  t.is(run.suite.roundTimer.judgedExpiries, 0);
});

test("planted in a real run: one node's timers run 1.5 times too long", async (t) => {
  const s = { ...findScenario('proposer-crash')!, expect: [] };
  const result = await runScenario(s, {
    onWorld: (w) => {
      const timersOf = w.kernel.timers.bind(w.kernel);
      w.kernel.timers = (owner: string): Timers => {
        const inner = timersOf(owner);
        if (owner !== 'v1') return inner;
        return { setTimer: (delayMs, fire) => inner.setTimer(delayMs * 1.5, fire), cancelTimer: (h) => inner.cancelTimer(h) };
      };
    },
  });
  const v = result.violations.find((x) => x.checker === 'round-timer');
  t.truthy(v, JSON.stringify(result.violations));
  t.is(v!.node, 'v1');
  t.regex(v!.reason, /it must run 2000 ms/);
});

test('clean real runs judge many expiries, pauses included', async (t) => {
  for (const name of ['timeout-doubling', 'paused-validator', 'early-round-change']) {
    let checkers: CheckerSuite | undefined;
    const result = await runScenario(findScenario(name)!, { onCheckers: (c) => (checkers = c) });
    t.deepEqual(result.violations, [], name);
    t.true(checkers!.roundTimer.judgedExpiries > 0, name);
  }
});
