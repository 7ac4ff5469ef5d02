/** The validity checker: forged, foreign, duplicate and mis-proposed blocks are caught; real chains pass. */
import test from 'ava';
import { findScenario } from '../../scenarios/index.ts';
import { runScenario } from '../scenario-runner.ts';
import type { Scenario } from '../scenario.ts';
import type { CheckerSuite } from './suite.ts';
import { proposerFor } from './toolkit/bft-math.ts';
import { GENESIS_TIME_S, ZERO_ADDRESS, SyntheticRun, keys, proposalMsg, proposedBlock, sealedBlock, type BlockSpec } from './test-fixtures.ts';

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

const G = GENESIS_TIME_S;

/** A run whose genesis has these qbft transitions (and, with `timeFork`, shanghaiTime 0, which makes them time-typed). */
function periodRun(transitions: Array<Record<string, unknown>>, timeFork = false): SyntheticRun {
  return new SyntheticRun({
    editGenesis: (genesis) => {
      const config = genesis['config'] as Record<string, unknown>;
      config['transitions'] = { qbft: transitions };
      if (timeFork) config['shanghaiTime'] = 0;
    },
  });
}

function importAll(run: SyntheticRun, count: number, timestampOf: (n: number) => number): void {
  for (const { rlp } of run.chain(count, 3, timestampOf)) run.importBlock(1_000, 'v0', rlp);
}

test('planted: a block-period transition read one block late (block 3 only 1 s after its parent, period 2 s from block 3)', (t) => {
  const run = periodRun([{ block: 3, blockperiodseconds: 2 }]);
  importAll(run, 5, (n) => (n < 4 ? G + n : G + 3 + 2 * (n - 3)));
  t.like(violationOf(run), { checker: 'validity', height: 3 });
  t.regex(violationOf(run)!.reason, /timestamp \d+ is 1 s after its parent's, the block period in force at block 3 \(timestamp \d+\) is 2 s/);
  const clean = periodRun([{ block: 3, blockperiodseconds: 2 }]);
  importAll(clean, 5, (n) => (n < 3 ? G + n : G + 2 + 2 * (n - 2)));
  t.is(violationOf(clean), undefined);
});

test('planted: a time-typed period transition (shanghaiTime 0) is judged at the block timestamp, not the number', (t) => {
  const transition = { block: G + 10, blockperiodseconds: 2 };
  const run = periodRun([transition], true);
  importAll(run, 10, (n) => G + n);
  t.like(violationOf(run), { checker: 'validity', height: 10 });
  t.regex(violationOf(run)!.reason, /is 1 s after its parent's, the block period in force at block 10 \(timestamp \d+\) is 2 s/);
  const clean = periodRun([transition], true);
  importAll(clean, 10, (n) => (n < 10 ? G + n : G + 11));
  t.is(violationOf(clean), undefined);
  const byNumber = periodRun([transition]);
  importAll(byNumber, 10, (n) => G + n);
  t.is(violationOf(byNumber), undefined, 'without a time fork the value is a block number, not reached');
});

test('planted: xblockperiodmilliseconds replaces the period: under 1 s no rule, 2500 ms a 2 s rule', (t) => {
  const run = periodRun([{ block: 2, xblockperiodmilliseconds: 500 }, { block: 4, xblockperiodmilliseconds: 2500 }]);
  importAll(run, 4, (n) => (n === 1 ? G + 1 : G + 2));
  t.like(violationOf(run), { checker: 'validity', height: 4 });
  t.regex(violationOf(run)!.reason, /is 0 s after its parent's, the block period in force at block 4 .* is 2 s/);
  const clean = periodRun([{ block: 2, xblockperiodmilliseconds: 500 }]);
  importAll(clean, 4, (n) => (n === 1 ? G + 1 : G + 2));
  t.is(violationOf(clean), undefined, 'blocks 2-4 share their timestamp under a 500 ms period');
});

const periodTransition = {
  name: 'period-transition',
  description: 'The block period goes from 1 s to 2 s at block 3.',
  validators: 4,
  genesis: { transitions: [{ block: 3, blockPeriodSeconds: 2 }] },
  durationMs: 12_000,
  steps: [],
  expect: [{ kind: 'min-height', height: 5 }],
} satisfies Scenario;

test('planted in a real run: plant-period-early (the period read at the parent height) is caught at the transition block; without it the run passes', async (t) => {
  const buggy = await runScenario(periodTransition, { bugs: ['plant-period-early'] });
  const found = buggy.violations.find((v) => v.checker === 'validity');
  t.like(found, { height: 3 });
  t.regex(found!.reason, /is 1 s after its parent's, the block period in force at block 3 .* is 2 s/);
  const clean = await runScenario(periodTransition);
  t.deepEqual(clean.violations, []);
  t.true(clean.ok, clean.errors.join('; '));
});

test('planted: a node imports a known block (same on-chain hash) with other seals: judged on its own seals, not the first copy', (t) => {
  const { run, spec } = setup();
  run.importBlock(1_000, 'v0', sealedBlock(spec, run.keys.slice(0, 3)));
  t.is(violationOf(run), undefined);
  run.importBlock(1_010, 'v2', sealedBlock(spec, run.keys.slice(0, 2)));
  t.like(violationOf(run), { checker: 'validity', node: 'v2', height: 1 });
  t.regex(violationOf(run)!.reason, /2 commit seals, quorum of 4 validators is 3/);
});
