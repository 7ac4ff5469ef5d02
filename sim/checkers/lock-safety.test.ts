/** Lock safety: after a quorum of COMMITs for B at (h, r), no honest PREPARE for another block at a higher round. */
import test from 'ava';
import { findScenario } from '../../scenarios/index.ts';
import { runScenario } from '../scenario-runner.ts';
import type { CheckerSuite } from './suite.ts';
import { ZERO_ADDRESS, SyntheticRun, commitMsg, digestOf, prepareMsg, proposalMsg, proposedBlock, type BlockSpec } from './test-fixtures.ts';
import { proposerFor } from './toolkit/bft-math.ts';

/** Height 1 of a 4-validator run: block B proposed in round 0, block C (another block) in round 1. */
function setup(opts: { faulty?: string[] } = {}) {
  const run = new SyntheticRun(opts);
  const validators = run.addresses();
  const b: BlockSpec = { number: 1, parentHash: `0x${'0'.repeat(64)}`, coinbase: proposerFor(validators, ZERO_ADDRESS, 0), validators, round: 0 };
  const c: BlockSpec = { ...b, coinbase: proposerFor(validators, ZERO_ADDRESS, 1), round: 1, tag: 1 };
  const B = proposedBlock(b);
  const C = proposedBlock(c);
  const Bagain = proposedBlock({ ...b, round: 1 }); // B re-proposed in round 1
  run.send(1_000, 'v0', 0x12, proposalMsg(run.key('v0'), 1, 0, B));
  return { run, B, C, Bagain };
}

function commitQuorum(run: SyntheticRun, B: Uint8Array, atMs = 1_100, who = ['v0', 'v1', 'v2']): void {
  for (const name of who) run.send(atMs, name, 0x14, commitMsg(run.key(name), 1, 0, B));
}

test('planted: an honest PREPARE for another block in a later round after a COMMIT quorum', (t) => {
  const { run, B, C } = setup();
  commitQuorum(run, B);
  run.send(3_000, 'v1', 0x12, proposalMsg(run.key('v1'), 1, 1, C));
  t.is(run.suite.lockSafety.violation, undefined);
  run.send(3_010, 'v3', 0x13, prepareMsg(run.key('v3'), 1, 1, digestOf(C)));
  const v = run.suite.lockSafety.violation;
  t.like(v, { checker: 'lock-safety', node: 'v3', height: 1, round: 1, atMs: 3_010 });
  t.regex(v!.reason, /v3 sent PREPARE at height 1 round 1 for block 0x[0-9a-f]{64}, but a quorum of COMMITs for block 0x[0-9a-f]{64} at round 0/);
});

test('planted: the PREPARE comes first, the COMMIT quorum completes later', (t) => {
  const { run, B, C } = setup();
  run.send(3_000, 'v1', 0x12, proposalMsg(run.key('v1'), 1, 1, C));
  run.send(3_010, 'v3', 0x13, prepareMsg(run.key('v3'), 1, 1, digestOf(C)));
  commitQuorum(run, B, 3_500);
  t.like(run.suite.lockSafety.violation, { node: 'v3', height: 1, round: 1, atMs: 3_500 });
});

test('clean: B re-proposed in a later round may be prepared', (t) => {
  const { run, B, Bagain } = setup();
  commitQuorum(run, B);
  run.send(3_000, 'v1', 0x12, proposalMsg(run.key('v1'), 1, 1, Bagain));
  for (const name of ['v1', 'v2', 'v3']) run.send(3_010, name, 0x13, prepareMsg(run.key(name), 1, 1, digestOf(Bagain)));
  t.not(digestOf(B), digestOf(Bagain));
  t.is(run.suite.lockSafety.violation, undefined);
});

test('clean: a PREPARE quorum alone locks nobody (late prepares, no COMMITs)', (t) => {
  const { run, B, C } = setup();
  for (const name of ['v0', 'v1', 'v2']) run.send(1_100, name, 0x13, prepareMsg(run.key(name), 1, 0, digestOf(B)));
  run.send(3_000, 'v1', 0x12, proposalMsg(run.key('v1'), 1, 1, C));
  run.send(3_010, 'v3', 0x13, prepareMsg(run.key('v3'), 1, 1, digestOf(C)));
  t.is(run.suite.lockSafety.violation, undefined);
});

test('not judged: committers that restarted forgot their lock; more than f faulty keys', (t) => {
  const forgot = setup();
  commitQuorum(forgot.run, forgot.B);
  for (const name of ['v1', 'v2']) forgot.run.line(2_000, name, { kind: 'node-started', wiped: false });
  forgot.run.send(3_000, 'v1', 0x12, proposalMsg(forgot.run.key('v1'), 1, 1, forgot.C));
  forgot.run.send(3_010, 'v3', 0x13, prepareMsg(forgot.run.key('v3'), 1, 1, digestOf(forgot.C)));
  t.is(forgot.run.suite.lockSafety.violation, undefined, 'only v0 remembers: n - quorum = 1');

  const oneForgot = setup();
  commitQuorum(oneForgot.run, oneForgot.B);
  oneForgot.run.line(2_000, 'v1', { kind: 'node-started', wiped: false });
  oneForgot.run.send(3_000, 'v1', 0x12, proposalMsg(oneForgot.run.key('v1'), 1, 1, oneForgot.C));
  oneForgot.run.send(3_010, 'v3', 0x13, prepareMsg(oneForgot.run.key('v3'), 1, 1, digestOf(oneForgot.C)));
  t.truthy(oneForgot.run.suite.lockSafety.violation, 'v0 and v2 still remember');

  const twoFaulty = setup({ faulty: ['v0', 'v2'] });
  commitQuorum(twoFaulty.run, twoFaulty.B);
  twoFaulty.run.send(3_000, 'v1', 0x12, proposalMsg(twoFaulty.run.key('v1'), 1, 1, twoFaulty.C));
  twoFaulty.run.send(3_010, 'v3', 0x13, prepareMsg(twoFaulty.run.key('v3'), 1, 1, digestOf(twoFaulty.C)));
  t.is(twoFaulty.run.suite.lockSafety.violation, undefined);
});

test('planted in a real run: a validator believed honest prepares its own other block after a commit quorum', async (t) => {
  // v1's transport equivocates (no scenario step says so): as round-1 proposer it prepares its alternative block.
  const s = { ...findScenario('timer-between-commits')!, durationMs: 20_000, expect: [] };
  const result = await runScenario(s, { onWorld: (w) => w.at(0, 'plant', () => w.setByzantine('v1', 'equivocate')) });
  const v = result.violations.find((x) => x.checker === 'lock-safety');
  t.truthy(v, JSON.stringify(result.violations));
  t.is(v!.node, 'v1');
  t.regex(v!.reason, /v1 sent PREPARE at height \d+ round \d+ for block 0x[0-9a-f]{64}, but a quorum of COMMITs/);
});

test('clean real run: slow links with round changes and re-proposals keep every lock', async (t) => {
  let checkers: CheckerSuite | undefined;
  const result = await runScenario(findScenario('timer-between-commits')!, { onCheckers: (c) => (checkers = c) });
  t.deepEqual(result.violations, []);
  t.true(checkers!.lockSafety.lockCount > 20);
  t.true(result.roundChanges > 0);
});
