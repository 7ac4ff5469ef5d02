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

test('World.runFor runs to a point since the start; advanceBy runs for more time from now', async (t) => {
  const { World, SIM_START_TIME_MS } = await import('./world.ts');
  const { buildSimGenesis } = await import('./genesis-builder.ts');
  const { validatorKeys } = await import('./keys.ts');
  const keys = validatorKeys(1);
  const world = new World({ seed: 1, genesis: buildSimGenesis({ validators: [keys[0]!.address], startTimeSeconds: SIM_START_TIME_MS / 1000 }), nodes: [{ name: 'v0', key: keys[0]! }] });
  await world.startAll();
  await world.runFor(3_000);
  await world.runFor(3_000);
  t.is(world.elapsedMs(), 3_000);
  await world.advanceBy(2_000);
  await world.advanceBy(2_000);
  t.is(world.elapsedMs(), 7_000);
  t.true(world.get('v0').node!.head().number >= 5);
});
