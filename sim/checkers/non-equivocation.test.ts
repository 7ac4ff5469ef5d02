/** Honest non-equivocation: two different signed messages of one kind for one (height, round). */
import test from 'ava';
import { findScenario } from '../../scenarios/index.ts';
import { runScenario } from '../scenario-runner.ts';
import { SyntheticRun, prepareMsg, proposedBlock, roundChangeMsg, type BlockSpec } from './test-fixtures.ts';

const DIGEST_A = `0x${'aa'.repeat(32)}` as const;
const DIGEST_B = `0x${'bb'.repeat(32)}` as const;

test('planted: an honest validator signs two different PREPAREs for one height and round', (t) => {
  const run = new SyntheticRun();
  const v1 = run.key('v1');
  run.send(1_000, 'v1', 0x13, prepareMsg(v1, 3, 0, DIGEST_A));
  run.send(1_005, 'v2', 0x13, prepareMsg(v1, 3, 0, DIGEST_A)); // a relay of the same message
  run.send(1_010, 'v1', 0x13, prepareMsg(v1, 3, 1, DIGEST_B)); // another round: fine
  t.is(run.suite.nonEquivocation.violation, undefined);
  run.send(1_020, 'v1', 0x13, prepareMsg(v1, 3, 0, DIGEST_B));
  const v = run.suite.nonEquivocation.violation;
  t.like(v, { checker: 'honest-non-equivocation', node: 'v1', height: 3, round: 0, atMs: 1_020 });
  t.regex(v!.reason, /v1 signed two different PREPARE messages for height 3 round 0: first PREPARE .*digest 0xaaaa.*then PREPARE .*digest 0xbbbb/);
});

test('planted: the second PREPARE only travels piggy-backed in a round change', (t) => {
  const run = new SyntheticRun();
  const [v1, v2] = [run.key('v1'), run.key('v2')];
  const spec: BlockSpec = { number: 2, parentHash: `0x${'01'.repeat(32)}`, coinbase: v2.address, validators: run.addresses(), round: 0, tag: 2 };
  run.send(1_000, 'v1', 0x13, prepareMsg(v1, 2, 0, DIGEST_A));
  run.send(3_000, 'v2', 0x15, roundChangeMsg(v2, 2, 1, { round: 0, block: proposedBlock(spec), prepares: [prepareMsg(v1, 2, 0, DIGEST_B)] }));
  t.like(run.suite.nonEquivocation.violation, { node: 'v1', height: 2, round: 0 });
});

test('clean: a restarted node starts a new history, and old messages relayed later stay with the old one', (t) => {
  const run = new SyntheticRun();
  const v1 = run.key('v1');
  run.send(1_000, 'v1', 0x13, prepareMsg(v1, 3, 0, DIGEST_A));
  run.line(1_500, 'v1', { kind: 'fault', fault: 'crash' });
  run.line(1_500, 'v1', { kind: 'fault', fault: 'restart' });
  run.line(1_500, 'v1', { kind: 'node-started', wiped: false });
  run.send(2_000, 'v1', 0x13, prepareMsg(v1, 3, 0, DIGEST_B));
  run.send(2_100, 'v3', 0x13, prepareMsg(v1, 3, 0, DIGEST_A));
  t.is(run.suite.nonEquivocation.violation, undefined);
  // Within the new incarnation the rule holds again.
  run.send(2_200, 'v1', 0x13, prepareMsg(v1, 3, 0, `0x${'cc'.repeat(32)}`));
  t.like(run.suite.nonEquivocation.violation, { node: 'v1', height: 3, round: 0, atMs: 2_200 });
});

test('clean: a faulty validator may equivocate', (t) => {
  const run = new SyntheticRun({ faulty: ['v1'] });
  const v1 = run.key('v1');
  run.send(1_000, 'v1', 0x13, prepareMsg(v1, 3, 0, DIGEST_A));
  run.send(1_010, 'v1', 0x13, prepareMsg(v1, 3, 0, DIGEST_B));
  t.is(run.suite.nonEquivocation.violation, undefined);
});

test('planted in a real run: a validator the runner believes honest proposes two different blocks', async (t) => {
  // v1's transport equivocates, but no scenario step says so: the run-started line calls v1 honest.
  const s = { ...findScenario('happy-path')!, durationMs: 8_000, expect: [] };
  const result = await runScenario(s, { onWorld: (w) => w.at(0, 'plant', () => w.setByzantine('v1', 'equivocate')) });
  const v = result.violations.find((x) => x.checker === 'honest-non-equivocation');
  t.truthy(v, JSON.stringify(result.violations));
  t.is(v!.node, 'v1');
  t.regex(v!.reason, /v1 signed two different (PROPOSAL|PREPARE|COMMIT) messages for height \d+ round \d+/);
  t.false(result.ok);
});

test('clean real runs: a declared Byzantine equivocator, restarts and wiped restarts', async (t) => {
  for (const name of ['equivocating-proposer', 'wiped-restart', 'two-of-four-crashed']) {
    const result = await runScenario(findScenario(name)!);
    t.deepEqual(result.violations, [], name);
  }
});
