/** The library's extension points refuse names that would be confused with built-in ones. */
import test from 'ava';
import { runScenario } from './scenario-runner.ts';
import type { Scenario } from './scenario.ts';
import type { Behaviour } from './byzantine/kit.ts';

const passThrough: Behaviour = { plan: (_kit, out) => [{ protocol: 'istanbul', code: out.code, data: out.data }] };
const base: Scenario = { name: 'ext', description: 'ext', validators: 4, durationMs: 5_000, steps: [], expect: [{ kind: 'min-height', height: 3 }] };

test('a custom behaviour with a built-in name is refused; one named like an Object method is used as given', async (t) => {
  await t.throwsAsync(runScenario(base, { behaviours: { equivocate: passThrough } }), { message: /has the name of a built-in one/ });
  const r = await runScenario({ ...base, steps: [{ atMs: 0, do: 'byzantine', node: 'v1', behaviour: 'toString' }] }, { behaviours: { toString: passThrough } });
  t.true(r.ok, JSON.stringify(r.errors));
});

test('a byzantine step naming a behaviour nobody gave fails the run loudly', async (t) => {
  const r = await runScenario({ ...base, steps: [{ atMs: 0, do: 'byzantine', node: 'v1', behaviour: 'constructor' }] }).catch((e: Error) => e);
  t.true(r instanceof Error ? /unknown Byzantine behaviour 'constructor'/.test(r.message) : !r.ok && r.errors.some((e) => /unknown Byzantine behaviour 'constructor'/.test(e)), String(r instanceof Error ? r.message : JSON.stringify(r.errors)));
});
