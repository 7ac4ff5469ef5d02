/** Shrunk fuzz failures, kept as scenarios that must pass from now on. */
import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { runScenario } from '../sim/scenario-runner.ts';
import { validateScenario } from '../sim/scenario.ts';

const dir = new URL('./regressions/', import.meta.url);

for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
  test(`regression ${file}`, async (t) => {
    const scenario = validateScenario(JSON.parse(readFileSync(new URL(file, dir), 'utf8')), file);
    const result = await runScenario(scenario);
    t.deepEqual(result.errors, []);
    t.deepEqual(result.invariants, { agreement: true, validity: true, liveness: true });
    t.true(result.ok);
  });
}
