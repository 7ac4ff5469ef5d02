/** Bounded state: per author, distinct rounds held beyond Besu's cap of 1000 are reported; the round number alone is not. */
import test from 'ava';
import { findKnownBug } from '../bugs/catalogue.ts';
import { runScenario } from '../scenario-runner.ts';
import type { AuthorHeld, StateSample } from './observation.ts';
import { SyntheticRun } from './test-fixtures.ts';

function sample(run: SyntheticRun, node: string, byAuthor: AuthorHeld[]): void {
  const o: StateSample = { type: 'state-sample', atMs: 5_000, node, height: 3, roundChangeRounds: 0, highestRoundChangeRound: -1, futureRoundStates: 0, byAuthor };
  run.suite.observe(o);
}

test('planted: one author holding an honest node to 1001 distinct round-change rounds is reported, 1000 is not', (t) => {
  const run = new SyntheticRun();
  const author = run.key('v3').address;
  sample(run, 'v0', [{ author, roundChangeRounds: 1_000, futureRounds: 1_000, bytes: 76_000 }]);
  t.is(run.suite.boundedState.violation, undefined, 'at the cap');
  sample(run, 'v0', [{ author, roundChangeRounds: 1_001, futureRounds: 0, bytes: 76_076 }]);
  const v = run.suite.boundedState.violation;
  t.like(v, { checker: 'bounded-state', node: 'v0', height: 3 });
  t.regex(v!.reason, /^v3 makes v0 hold round changes for 1001 distinct rounds at height 3 \(76076 bytes\): more than Besu's cap of 1000 rounds per author$/);
});

test('round changes of many authors, each within the cap, are not reported (the cap is per author)', (t) => {
  const run = new SyntheticRun();
  sample(run, 'v0', ['v1', 'v2', 'v3'].map((name) => ({ author: run.key(name).address, roundChangeRounds: 900, futureRounds: 0, bytes: 68_400 })));
  t.is(run.suite.boundedState.violation, undefined);
});

test('planted: more than 1000 future rounds of prepares or commits from one author are reported as the consequence Besu allows', (t) => {
  const run = new SyntheticRun();
  sample(run, 'v1', [{ author: run.key('v2').address, roundChangeRounds: 0, futureRounds: 1_001, bytes: 100_000 }]);
  t.regex(run.suite.boundedState.violation!.reason, /v2 makes v1 hold prepares or commits for 1001 distinct future rounds \(Besu caps none\)/);
});

test('a faulty node is not judged', (t) => {
  const run = new SyntheticRun({ faulty: ['v3'] });
  sample(run, 'v3', [{ author: run.key('v0').address, roundChangeRounds: 5_000, futureRounds: 0, bytes: 1 }]);
  t.is(run.suite.boundedState.violation, undefined);
});

test('the ghsa-23rh switch under the round-change flood: caught by the per-author cap; the same run without the switch passes', async (t) => {
  const scenario = findKnownBug('ghsa-23rh')!.scenario;
  const without = await runScenario(scenario, { bugs: [] });
  t.deepEqual(without.violations, []);
  const withSwitch = await runScenario(scenario, { bugs: ['ghsa-23rh'] });
  const v = withSwitch.violations.find((x) => x.checker === 'bounded-state');
  t.truthy(v);
  t.regex(v!.reason, /^v3 makes v0 hold round changes for 1[01]\d\d distinct rounds at height \d+ \(\d+ bytes\)/);
});
