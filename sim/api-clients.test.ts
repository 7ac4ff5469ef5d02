/**
 * API clients in a run: reorg-api-clients passes, with the losing branch's logs seen again with
 * removed: true through eth_subscribe and eth_newFilter; with plant-pubsub-no-removed (the
 * subscription drops those notifications) the api-streams expectation fails, naming the first
 * missing removed log, and only it.
 */
import test from 'ava';
import reorgApiClients from '../scenarios/reorg-api-clients.ts';
import { runScenario } from './scenario-runner.ts';
import { validateScenario } from './scenario.ts';
import type { World } from './world.ts';

interface Line {
  node: string | null;
  kind: string;
  method?: string;
  result?: unknown;
}

const removedIn = (results: unknown[]) => results.filter((r) => (r as { removed?: unknown }).removed === true).length;

test('reorg-api-clients: v3\'s clients see the losing branch\'s logs again with removed: true, and the check passes', async (t) => {
  let world: World | undefined;
  const r = await runScenario(reorgApiClients, { keepTrace: true, onWorld: (w) => (world = w) });
  t.true(r.ok, JSON.stringify(r.expectations.filter((e) => !e.ok)));
  const lines = world!.trace.lines().map((l) => JSON.parse(l) as Line).filter((l) => l.node === 'v3');
  const notified = lines.filter((l) => l.kind === 'rpc-notification').map((l) => l.result);
  const polled = lines.filter((l) => l.kind === 'rpc-call' && l.method === 'eth_getFilterChanges').flatMap((l) => l.result as unknown[]);
  t.true(removedIn(notified) >= 5, 'eth_subscribe logs');
  t.is(removedIn(polled), removedIn(notified), 'eth_newFilter');
});

test('plant-pubsub-no-removed: the api-streams expectation fails on the first removed log the subscription left out', async (t) => {
  const r = await runScenario(reorgApiClients, { bugs: ['plant-pubsub-no-removed'] });
  t.false(r.ok);
  const failed = r.expectations.filter((e) => !e.ok);
  t.is(failed.length, 1);
  t.regex(failed[0]!.text, /^API clients on v3 .*: v3 eth_subscribe logs: notification \d+ should be removed log \d+ of block \d+ 0x[0-9a-f]{64} \(reorganization at \d+ ms\) with removed: true, got /);
  t.deepEqual(r.errors, []);
});

test('api-clients steps and api-streams expectations are validated', (t) => {
  t.notThrows(() => validateScenario(JSON.parse(JSON.stringify(reorgApiClients))));
  const bad = { ...reorgApiClients, steps: [{ atMs: 0, do: 'api-clients', node: 'v3', pollEveryMs: 0 }] };
  t.throws(() => validateScenario(bad), { message: /steps\[0\]\.pollEveryMs must be a positive integer/ });
});

test('api-streams without an api-clients step on the node fails and says so', async (t) => {
  const r = await runScenario({ ...reorgApiClients, durationMs: 3_000, steps: [{ atMs: 1_000, do: 'api-clients', node: 'v2' }], expect: [{ kind: 'api-streams', nodes: ['v2', 'v3'] }] });
  t.deepEqual(r.expectations.map((e) => [e.ok, e.text.replace(/^.*?\): /, '')]), [[false, 'v3 has no API clients (no api-clients step ran on it)']]);
});
