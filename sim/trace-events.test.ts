import test from 'ava';
import { findScenario } from '../scenarios/index.ts';
import { runScenario } from './scenario-runner.ts';
import type { World } from './world.ts';
import { parseTraceJsonl } from './trace.ts';
import { TRACE_KINDS, type TraceLine } from './trace-events.ts';

/** Kinds in `lines` that the schema does not name. */
function unknownKinds(lines: readonly TraceLine[]): string[] {
  return [...new Set(lines.map((l) => l.kind))].filter((k) => !TRACE_KINDS.has(k)).sort();
}

// Between them these runs record faults, votes through RPC, round changes, sync, reorgs, a refused
// start and a Byzantine proposer, with every message traced.
const RUNS = ['partition-2-2', 'add-validator', 'transition-in-the-past', 'equivocating-proposer'];

test('every kind a run records is one the trace schema names', async (t) => {
  const kinds = new Set<string>();
  for (const name of RUNS) {
    const scenario = findScenario(name);
    if (!scenario) return t.fail(`no scenario ${name}`);
    let world: World | undefined;
    await runScenario({ ...scenario, network: { ...scenario.network, traceMessages: true } }, { keepTrace: true, onWorld: (w) => void (world = w) });
    const lines = parseTraceJsonl(world!.trace.lines().join('\n'));
    t.false(world!.trace.truncated());
    t.deepEqual(unknownKinds(lines), [], name);
    for (const l of lines) kinds.add(l.kind);
  }
  // The runs must exercise the schema widely for the check above to mean something.
  for (const k of ['fault', 'msg-delivered', 'rpc-call', 'round-change-sent', 'node-start-refused', 'run-finished']) t.true(kinds.has(k), k);
});

test('planted: a line of a kind the schema does not name is reported', (t) => {
  const lines = parseTraceJsonl('{"t":0,"node":null,"kind":"run-started"}\n{"t":1,"node":"v0","kind":"round-begun","round":0}\n');
  t.deepEqual(unknownKinds(lines), ['round-begun']);
});
