import test from 'ava';
import { SCENARIOS, findScenario } from './index.ts';
import { runScenario, type RunResult } from '../sim/scenario-runner.ts';
import { validateScenario, type Scenario } from '../sim/scenario.ts';

/** Each scenario's run with its own seed, made once: the replay tests below compare against it. */
const firstRuns = new Map<string, Promise<RunResult>>();
function firstRun(scenario: Scenario): Promise<RunResult> {
  let run = firstRuns.get(scenario.name);
  if (!run) firstRuns.set(scenario.name, (run = runScenario(scenario)));
  return run;
}

for (const scenario of SCENARIOS) {
  test(`scenario ${scenario.name} passes`, async (t) => {
    validateScenario(JSON.parse(JSON.stringify(scenario)));
    const result = await firstRun(scenario);
    const failed = result.expectations.filter((e) => !e.ok).map((e) => e.text);
    t.deepEqual(failed, [], `unmet expectations: ${failed.join('; ')}`);
    t.deepEqual(result.errors, []);
    t.true(result.invariants.validity, 'validity');
    t.not(result.invariants.liveness, false, 'liveness');
    t.true(result.ok);
  });
}

for (const name of ['proposer-crash', 'twins-fork', 'timer-between-commits']) {
  test(`scenario ${name} replays to the same trace hash`, async (t) => {
    const s = findScenario(name)!;
    const a = await firstRun(s);
    const b = await runScenario(s, { seed: a.seed });
    t.is(a.traceHash, b.traceHash);
    t.deepEqual(a.nodes, b.nodes);
  });
}

test('another seed gives another run (proposer-crash)', async (t) => {
  const s = findScenario('proposer-crash')!;
  const a = await firstRun(s);
  t.not((await runScenario(s, { seed: a.seed + 1 })).traceHash, a.traceHash);
});

test('scenario names are unique', (t) => {
  t.is(new Set(SCENARIOS.map((s) => s.name)).size, SCENARIOS.length);
});
