/** The validity checker: forged, foreign, duplicate and mis-proposed blocks are caught; real chains pass. */
import test from 'ava';
import { findScenario } from '../../scenarios/index.ts';
import { runScenario } from '../scenario-runner.ts';
import type { CheckerSuite } from './suite.ts';
import { proposerFor } from './toolkit/bft-math.ts';
import { ZERO_ADDRESS, SyntheticRun, keys, proposalMsg, proposedBlock, sealedBlock, type BlockSpec } from './test-fixtures.ts';

function setup() {
  const run = new SyntheticRun();
  const validators = run.addresses();
  const first = proposerFor(validators, ZERO_ADDRESS, 0);
  const spec: BlockSpec = { number: 1, parentHash: `0x${'0'.repeat(64)}`, coinbase: first, validators, round: 0 };
  return { run, validators, spec };
}

function violationOf(run: SyntheticRun) {
  return run.suite.validity.violation;
}

test('clean: a valid chain imported by every node passes', (t) => {
  const run = new SyntheticRun();
  for (const { rlp } of run.chain(6)) for (const node of ['v0', 'v1', 'v2', 'v3']) run.importBlock(1_000, node, rlp);
  t.is(violationOf(run), undefined);
  t.is(run.suite.validity.unjudged, 0);
});

test('planted: a forged block with 2 seals at n = 4', (t) => {
  const { run, spec } = setup();
  run.importBlock(1_000, 'v1', sealedBlock(spec, run.keys.slice(0, 2)));
  t.like(violationOf(run), { checker: 'validity', node: 'v1', height: 1, round: 0 });
  t.regex(violationOf(run)!.reason, /2 commit seals, quorum of 4 validators is 3/);
});

test('planted: a seal from a key outside the validator set', (t) => {
  const { run, spec } = setup();
  const outsider = keys(6)[5]!;
  run.importBlock(1_000, 'v0', sealedBlock(spec, [...run.keys.slice(0, 2), outsider]));
  t.regex(violationOf(run)!.reason, /seal 2 is from 0x[0-9a-f]{40} .*not a validator of this block/);
});

test('planted: two seals from one validator', (t) => {
  const { run, spec } = setup();
  run.importBlock(1_000, 'v0', sealedBlock(spec, [run.keys[0]!, run.keys[1]!, run.keys[1]!]));
  t.regex(violationOf(run)!.reason, /two seals from 0x[0-9a-f]{40} \(v1\)/);
});

test('planted: seals over another round than the block carries', (t) => {
  const { run, spec } = setup();
  run.importBlock(1_000, 'v0', sealedBlock({ ...spec, round: 1, coinbase: proposerFor(spec.validators, ZERO_ADDRESS, 1) }, run.keys.slice(0, 3), 0));
  t.regex(violationOf(run)!.reason, /seal 0 is from .*not a validator/);
});

test('planted: a round-0 block from the wrong proposer', (t) => {
  const { run, spec, validators } = setup();
  const wrong = proposerFor(validators, ZERO_ADDRESS, 2);
  run.importBlock(1_000, 'v3', sealedBlock({ ...spec, coinbase: wrong }, run.keys.slice(0, 3)));
  t.regex(violationOf(run)!.reason, /round-0 block with coinbase 0x[0-9a-f]{40} \(v2\), the proposer for round 0 is 0x[0-9a-f]{40} \(v0\)/);
});

test('planted: a round-1 block proposed by the round-0 proposer', (t) => {
  const { run, spec, validators } = setup();
  // Shaped like a re-proposal (coinbase of round 0), but its round-1 proposal is signed by v0, not by v1.
  const block = { ...spec, round: 1 };
  run.send(900, 'v0', 0x12, proposalMsg(run.key('v0'), 1, 1, proposedBlock(block)));
  run.importBlock(1_000, 'v2', sealedBlock(block, run.keys.slice(0, 3)));
  t.regex(violationOf(run)!.reason, /proposed in round 1 by v0, the proposer for round 1 is .* \(v1\)/);
  t.is(proposerFor(validators, ZERO_ADDRESS, 1), run.key('v1').address);
});

test('clean: a prepared block re-proposed in round 1 by the round-1 proposer keeps its round-0 coinbase', (t) => {
  const { run, spec } = setup();
  const block = { ...spec, round: 1 };
  run.send(900, 'v1', 0x12, proposalMsg(run.key('v1'), 1, 1, proposedBlock(block)));
  run.importBlock(1_000, 'v2', sealedBlock(block, run.keys.slice(1, 4)));
  t.is(violationOf(run), undefined);
});

test('planted: a round-2 block whose coinbase is not the proposer of round 2 or of an earlier round', (t) => {
  const { run, spec, validators } = setup();
  run.importBlock(1_000, 'v2', sealedBlock({ ...spec, round: 2, coinbase: proposerFor(validators, ZERO_ADDRESS, 3) }, run.keys.slice(0, 3)));
  t.regex(violationOf(run)!.reason, /round-2 block with coinbase .* not the proposer of round 2 or of any earlier round/);
});

test('planted: extraData listing another validator set, and a short vanity', (t) => {
  const { run, spec } = setup();
  run.importBlock(1_000, 'v0', sealedBlock({ ...spec, validators: spec.validators.slice(0, 3) }, run.keys.slice(0, 3)));
  t.regex(violationOf(run)!.reason, /extraData lists validators \[.*\], the set for this block is/);
  const other = setup();
  other.run.importBlock(1_000, 'v0', sealedBlock({ ...other.spec, vanityBytes: 31 }, other.run.keys.slice(0, 3)));
  t.regex(violationOf(other.run)!.reason, /vanity is 31 bytes, not 32/);
});

test('planted: a node reporting another hash than its block has', (t) => {
  const { run, spec } = setup();
  run.importBlock(1_000, 'v1', sealedBlock(spec, run.keys.slice(0, 3)), 'head', `0x${'12'.repeat(32)}`);
  t.regex(violationOf(run)!.reason, /the node reported hash 0x1212.*, its on-chain hash is 0x/);
});

test('a faulty node importing a forged block is not judged', (t) => {
  const run = new SyntheticRun({ faulty: ['v3'] });
  const spec: BlockSpec = { number: 1, parentHash: `0x${'0'.repeat(64)}`, coinbase: run.addresses()[0]!, validators: run.addresses(), round: 0 };
  run.importBlock(1_000, 'v3', sealedBlock(spec, run.keys.slice(0, 1)));
  t.is(violationOf(run), undefined);
});

for (const name of ['add-validator', 'remove-validator', 'epoch-reset', 'switch-to-contract'] as const) {
  test(`a real run with a changing validator set is judged in full and passes: ${name}`, async (t) => {
    let checkers: CheckerSuite | undefined;
    const result = await runScenario({ ...findScenario(name)!, durationMs: 16_000, expect: [] }, { onCheckers: (c) => (checkers = c) });
    t.deepEqual(result.violations, []);
    t.is(checkers!.validity.unjudged, 0, 'every block had a known validator set');
  });
}
