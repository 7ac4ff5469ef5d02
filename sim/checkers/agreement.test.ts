/** The agreement checker: caught forks, and what is not a fork. */
import test from 'ava';
import { findScenario } from '../../scenarios/index.ts';
import { runScenario } from '../scenario-runner.ts';
import { SyntheticRun, hashOf, sealedBlock } from './test-fixtures.ts';

test('planted: two honest nodes import different blocks at one height', (t) => {
  const run = new SyntheticRun();
  const [b1] = run.chain(1);
  const other = sealedBlock({ ...b1!.spec, tag: 9 }, run.keys.slice(1, 4));
  run.importBlock(1_000, 'v0', b1!.rlp);
  run.importBlock(1_010, 'v1', b1!.rlp);
  t.is(run.suite.agreement.violation, undefined);
  run.importBlock(1_020, 'v2', other);
  const v = run.suite.agreement.violation;
  t.truthy(v);
  t.like(v, { checker: 'agreement', node: 'v2', height: 1, atMs: 1_020 });
  t.regex(v!.reason, new RegExp(`v2 imported block ${hashOf(other)} at height 1, but v0 imported ${hashOf(b1!.rlp)}`));
  t.regex(v!.line, /"kind":"block-imported"/);
  t.false(run.suite.invariants().agreement);
});

test('clean: the same block with other seals or from a faulty node is no fork', (t) => {
  const run = new SyntheticRun({ faulty: ['v3'] });
  const [b1] = run.chain(1);
  run.importBlock(1_000, 'v0', b1!.rlp);
  run.importBlock(1_000, 'v1', sealedBlock(b1!.spec, run.keys.slice(1, 4)));
  run.importBlock(1_000, 'v3', sealedBlock({ ...b1!.spec, tag: 7 }, run.keys.slice(0, 3)));
  t.is(run.suite.agreement.violation, undefined);
  t.true(run.suite.invariants().agreement);
});

test('a real run: twins-fork forks (caught), happy-path does not', async (t) => {
  const fork = await runScenario(findScenario('twins-fork')!);
  t.false(fork.invariants.agreement);
  t.is(fork.violations[0]?.checker, 'agreement');
  t.true(fork.ok, 'the scenario expects the fork');
  const clean = await runScenario({ ...findScenario('happy-path')!, durationMs: 10_000, expect: [] });
  t.deepEqual(clean.violations, []);
  t.true(clean.invariants.agreement);
});
