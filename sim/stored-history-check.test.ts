/**
 * A node restarted with a transition below its head: qbft-lab's node refuses to start ('refuse',
 * the default); with 'warn' it starts as Besu does, logs the change, and then disagrees with the
 * network from the transition's rules on (here: a reward the others do not pay).
 */
import test from 'ava';
import { runScenario } from './scenario-runner.ts';
import type { Scenario } from './scenario.ts';
import type { World } from './world.ts';
import transitionInThePast from '../scenarios/transition-in-the-past.ts';

const base: Scenario = { ...transitionInThePast, expect: [] };

async function run(s: Scenario) {
  let world: World | undefined;
  const kinds: string[] = [];
  const result = await runScenario(s, {
    keepTrace: true,
    onWorld: (w) => {
      world = w;
      w.trace.subscribe((line) => {
        if (line.node === 'v3' && (line.kind === 'node-start-refused' || (line.kind === 'log' && line.level === 'warn'))) kinds.push(line.kind === 'log' ? `warn: ${line.message}` : line.kind);
      });
    },
  });
  return { result, kinds, v3: world!.get('v3') };
}

test("'refuse' (the default): the node stays down", async (t) => {
  const { kinds, v3 } = await run(base);
  t.true(kinds.includes('node-start-refused'));
  t.is(v3.status, 'crashed');
});

test("'warn': the node starts as Besu does, says why, and no longer agrees with the others' blocks", async (t) => {
  const { kinds, v3, result } = await run({ ...base, storedHistoryCheck: 'warn' });
  t.false(kinds.includes('node-start-refused'));
  t.true(kinds.includes('warn: the genesis configuration changes the rules of stored blocks; starting anyway'), kinds.join());
  t.is(v3.status, 'up');
  // Under its rules every new block pays a reward the other three do not: it cannot follow them.
  const heights = Object.fromEntries(result.nodes.map((n) => [n.name, n.height]));
  t.true(heights.v3! < heights.v0! - 5, JSON.stringify(heights));
});

test('a restart step with transitions applies them on a base genesis file too (the node then refuses, as the history changed)', async (t) => {
  const { readFileSync } = await import('node:fs');
  const baseGenesis = JSON.parse(readFileSync(new URL('../test/fixtures/operator/old.json', import.meta.url), 'utf8')) as Record<string, unknown>;
  const { kinds, v3 } = await run({ ...base, baseGenesis });
  t.true(kinds.includes('node-start-refused'), kinds.join());
  t.is(v3.status, 'crashed');
});
