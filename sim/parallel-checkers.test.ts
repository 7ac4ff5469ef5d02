/** The invariant checkers in a worker thread judge a run exactly as in process, or hand the run back. */
import test from 'ava';
import { runScenario, type RunResult } from './scenario-runner.ts';
import { findScenario } from '../scenarios/index.ts';
import { ParallelCheckers } from './parallel-checkers.ts';
import type { CheckerSuite } from './checkers/suite.ts';
import type { Scenario } from './scenario.ts';
import { validatorKeys } from './keys.ts';

const scenario = (name: string): Scenario => findScenario(name)!;

/** Everything a run's checkers decide, and the trace they leave. */
function judged(r: RunResult) {
  return { ok: r.ok, traceHash: r.traceHash, violations: r.violations, invariants: r.invariants, ruleMarks: r.ruleMarks, expectations: r.expectations, height: r.height };
}

async function inWorker(s: Scenario): Promise<{ result: RunResult; runs: number }> {
  let runs = 0;
  const result = await runScenario(s, { checkersInWorker: true, onWorld: () => void runs++ });
  return { result, runs };
}

for (const name of ['happy-path', 'partition-3-1', 'equivocating-proposer']) {
  test(`${name}: the checkers in a worker judge the run as the in-process ones do, in one run`, async (t) => {
    const { result, runs } = await inWorker(scenario(name));
    t.is(runs, 1, 'judged in the worker');
    t.deepEqual(judged(result), judged(await runScenario(scenario(name))));
  });
}

test('a run the worker finds a violation in is run again in process, with the same outcome and trace', async (t) => {
  const { result, runs } = await inWorker(scenario('twins-fork'));
  t.is(runs, 2);
  const inProcess = await runScenario(scenario('twins-fork'));
  t.true(inProcess.violations.length > 0);
  t.deepEqual(judged(result), judged(inProcess));
});

test('custom checkers and suite observers keep the checkers in process', async (t) => {
  let runs = 0;
  let suite: CheckerSuite | undefined;
  await runScenario({ ...scenario('happy-path'), durationMs: 5_000, expect: [] }, { checkersInWorker: true, onWorld: () => void runs++, onCheckers: (c) => (suite = c) });
  t.is(runs, 1);
  t.truthy(suite, 'the suite was built in this thread');
});

test('planted: a worker given another validator set judges differently, and the comparison sees it', async (t) => {
  const s: Scenario = { ...scenario('happy-path'), durationMs: 6_000, expect: [] };
  let parallel: ParallelCheckers | undefined;
  let suite: CheckerSuite | undefined;
  const r = await runScenario(s, {
    onCheckers: (c) => (suite = c),
    onWorld: (w) => {
      const genesis = structuredClone(w.options.genesis) as Record<string, unknown>;
      const [ours, others] = [validatorKeys(4), validatorKeys(8).slice(4)].map((ks) => ks.map((k) => k.address.slice(2)));
      genesis.extraData = ours.reduce((x, a, i) => x.replace(a, others[i]!), String(genesis.extraData));
      t.not(genesis.extraData, w.options.genesis.extraData);
      parallel = new ParallelCheckers(w, { genesis, latencyAllowanceMs: 5_000 });
    },
  });
  const outcome = await parallel!.finish(r.simulatedMs);
  t.notDeepEqual({ violations: outcome.violations, marks: outcome.ruleMarks }, { violations: suite!.violations(), marks: suite!.acceptance.markCounts() });
});

test('a worker that is gone fails every question, and takes nothing more: the caller is never left waiting', async (t) => {
  let parallel: ParallelCheckers | undefined;
  const s: Scenario = { ...scenario('happy-path'), durationMs: 3_000, expect: [] };
  const r = await runScenario(s, { onWorld: (w) => (parallel = new ParallelCheckers(w, { genesis: w.options.genesis, latencyAllowanceMs: 5_000 })) });
  t.true(r.ok);
  await (parallel as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
  await t.throwsAsync(parallel!.state(), { message: /checker worker: the worker exited/ });
  await t.throwsAsync(parallel!.finish(r.simulatedMs), { message: /checker worker/ });
});
