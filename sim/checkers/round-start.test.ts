/** When round 0 may start: at the block timer, or earlier on a round-0 proposal (or, with early round change, a round change). */
import test from 'ava';
import { QbftCode } from './toolkit/qbft-messages.ts';
import { GENESIS_TIME_S, SyntheticRun, roundChangeMsg } from './test-fixtures.ts';

// Synthetic runs keep absolute time: block 1's timer expires at the genesis timestamp + 1 s.
const TIMER_MS = (GENESIS_TIME_S + 1) * 1000;
const EARLY_MS = TIMER_MS - 600;

test('planted: round 0 of height 1 started 600 ms before the block timer, with nothing on the network', (t) => {
  const run = new SyntheticRun();
  run.line(EARLY_MS, 'v1', { kind: 'round-started', height: 1, round: 0, proposer: '0x', timeoutMs: 2_000 });
  t.like(run.suite.roundStart.violation, { checker: 'round-start', node: 'v1', height: 1, round: 0 });
  t.regex(run.suite.roundStart.violation!.reason, /600 ms before its block timer \(parent timestamp 1700000000 s \+ 1 s\) and before any round-0 proposal$/);
});

test('with early round change, a round change for the height already sent lets round 0 start early', (t) => {
  const run = new SyntheticRun({ earlyRoundChange: true });
  run.send(EARLY_MS - 100, 'v2', QbftCode.ROUND_CHANGE, roundChangeMsg(run.key('v2'), 1, 1));
  run.line(EARLY_MS, 'v1', { kind: 'round-started', height: 1, round: 0, proposer: '0x', timeoutMs: 2_000 });
  t.is(run.suite.roundStart.violation, undefined);
});

test('planted: the same round change does not excuse an early round 0 without early round change, nor one for another height', (t) => {
  const off = new SyntheticRun();
  off.send(EARLY_MS - 100, 'v2', QbftCode.ROUND_CHANGE, roundChangeMsg(off.key('v2'), 1, 1));
  off.line(EARLY_MS, 'v1', { kind: 'round-started', height: 1, round: 0, proposer: '0x', timeoutMs: 2_000 });
  t.truthy(off.suite.roundStart.violation);

  const otherHeight = new SyntheticRun({ earlyRoundChange: true });
  otherHeight.send(EARLY_MS - 100, 'v2', QbftCode.ROUND_CHANGE, roundChangeMsg(otherHeight.key('v2'), 2, 1));
  otherHeight.line(EARLY_MS, 'v1', { kind: 'round-started', height: 1, round: 0, proposer: '0x', timeoutMs: 2_000 });
  t.regex(otherHeight.suite.roundStart.violation!.reason, /before any round-0 proposal or round change$/);
});

test('round 0 at the block timer is fine', (t) => {
  const run = new SyntheticRun();
  run.line(TIMER_MS, 'v1', { kind: 'round-started', height: 1, round: 0, proposer: '0x', timeoutMs: 2_000 });
  t.is(run.suite.roundStart.violation, undefined);
});

test('planted: a round or block timer expiry acted on for a height the node has imported (Besu #1734, #10052)', (t) => {
  for (const expiry of [
    { kind: 'round-timer-expired' as const, height: 1, round: 0 },
    { kind: 'block-timer-expired' as const, height: 1 },
  ]) {
    const run = new SyntheticRun();
    const [block1] = run.chain(1);
    run.importBlock(TIMER_MS + 50, 'v1', block1!.rlp);
    run.line(TIMER_MS + 50, 'v1', expiry);
    t.like(run.suite.roundStart.violation, { checker: 'round-start', node: 'v1', height: 1 });
    t.regex(run.suite.roundStart.violation!.reason, /acted on its (round 0 timer|block timer) expiry for height 1, at or below its own chain head 1$/);
  }
});

test('work that began before sync imported the height may go on, as in Besu: a round started there is not judged', (t) => {
  const run = new SyntheticRun();
  const [block1] = run.chain(1);
  run.line(TIMER_MS, 'v1', { kind: 'block-timer-expired', height: 1 });
  run.importBlock(TIMER_MS + 10, 'v1', block1!.rlp);
  run.line(TIMER_MS + 10, 'v1', { kind: 'round-started', height: 1, round: 0, proposer: '0x', timeoutMs: 2_000 });
  t.is(run.suite.roundStart.violation, undefined);
});
