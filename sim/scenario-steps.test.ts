/** The step table: one entry per step kind, which kinds are faults, and steps applied to a world. */
import test from 'ava';
import type { Scenario, Step } from './scenario.ts';
import { genesisFor, resolveKeys } from './scenario-genesis.ts';
import { STEPS, applyStep, lastFaultMs, type StepContext } from './scenario-steps.ts';
import { STEP_KINDS } from './scenario-validate-steps.ts';
import type { TraceLine } from './trace-events.ts';
import { World } from './world.ts';

test('the step table has one entry per step kind a scenario may name', (t) => {
  t.deepEqual(Object.keys(STEPS).sort(), [...STEP_KINDS].sort());
});

test("liveness is owed after the last fault step: a client's request (vote, RPC, transfer, private transaction, API clients) is no fault, a custom step may be", (t) => {
  const at = (atMs: number, st: Record<string, unknown>) => ({ atMs, ...st }) as Step;
  t.is(lastFaultMs([]), 0);
  t.is(lastFaultMs([at(1000, { do: 'crash', node: 'v1' }), at(5000, { do: 'vote', nodes: ['v0'], subject: 'v1', add: false }), at(6000, { do: 'transfer', count: 1 })]), 1000);
  t.is(lastFaultMs([at(2000, { do: 'heal' }), at(3000, { do: 'rpc', node: 'v0', method: 'eth_blockNumber' }), at(4000, { do: 'private-tx', node: 'v0', group: 0, action: 'deploy' }), at(4500, { do: 'api-clients', node: 'v0' }), at(5000, { do: 'discard-vote', nodes: ['v0'], subject: 'v1' })]), 2000);
  t.is(lastFaultMs([at(7000, { do: 'custom', name: 'x' }), at(8000, { do: 'rpc', node: 'v0', method: 'eth_blockNumber' })]), 7000);
  const faults = STEP_KINDS.filter((k) => STEPS[k].fault).sort();
  t.deepEqual(faults, ['byzantine', 'clog', 'crash', 'custom', 'heal', 'partition', 'pause', 'restart', 'resume', 'skew', 'unclog']);
});

test('steps applied to a world: a crash takes the node down, a vote reaches the trace, an RPC call on a down node and an unknown custom step are run errors', async (t) => {
  const s = { name: 'steps', description: '', validators: 4, durationMs: 2000, steps: [], expect: [] } as Scenario;
  const { validators, nodes, names } = resolveKeys(s);
  const world = new World({ seed: 1, genesis: genesisFor(s, validators, names), nodes });
  const lines: TraceLine[] = [];
  world.trace.subscribe((l) => lines.push(l));
  const ctx: StepContext = {
    world,
    names,
    genesisWith: (transitions) => genesisFor(s, validators, names, transitions),
    markReconfigured: () => {},
    privacyRun: undefined,
    apiRun: undefined,
    customSteps: { mark: (w, args) => w.trace.record(w.kernel.nowMs(), null, { kind: 'vote-discarded', nodes: [], subject: String(args) }) },
    accountNonces: new Map(),
  };
  await world.startAll();
  await applyStep({ atMs: 0, do: 'crash', node: 'v1' }, ctx);
  t.is(world.get('v1').status, 'crashed');
  t.true(lines.some((l) => l.kind === 'fault' && l.fault === 'crash' && l.node === 'v1'));
  await applyStep({ atMs: 0, do: 'vote', nodes: ['v0'], subject: 'v1', add: false }, ctx);
  t.like(lines.at(-1), { kind: 'vote-queued', nodes: ['v0'], subject: 'v1', add: false });
  await applyStep({ atMs: 0, do: 'rpc', node: 'v1', method: 'eth_blockNumber' }, ctx);
  await applyStep({ atMs: 0, do: 'custom', name: 'missing' }, ctx);
  await applyStep({ atMs: 0, do: 'custom', name: 'mark', args: 'ran' }, ctx);
  t.deepEqual(world.errors, ['rpc eth_blockNumber: v1 is not running', "custom step 'missing': the run was given no step of that name"]);
  t.like(lines.at(-2), { kind: 'custom-step', name: 'mark' });
  t.like(lines.at(-1), { kind: 'vote-discarded', subject: 'ran' });
  await applyStep({ atMs: 0, do: 'rpc', node: 'v0', method: 'eth_blockNumber' }, ctx);
  t.is(world.errors.length, 2, 'an RPC call on a running node succeeds');
  t.true(lines.some((l) => l.kind === 'rpc-call' && l.node === 'v0'));
});
