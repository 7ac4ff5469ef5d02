/**
 * RPC work in a simulated run takes no virtual time: a run whose scenario makes expensive calls
 * (an eth_call that loops a million times, about 26,000,000 gas, traces, proofs) commits the same
 * blocks, at the same times and in the same rounds, as the run without them.
 */
import test from 'ava';
import happyPath from '../scenarios/happy-path.ts';
import { runScenario } from './scenario-runner.ts';
import type { Step } from './scenario.ts';
import type { World } from './world.ts';

function chainOf(world: World, name: string): string[] {
  const node = world.get(name).node!;
  const out: string[] = [];
  for (let n = 0; n <= node.head().number; n++) {
    const e = node.blockAt(n)!;
    out.push(`${e.number} ${e.hash} ${e.timestamp}`);
  }
  return out;
}

async function chainsAfter(steps: Step[]): Promise<string[][]> {
  let world: World | undefined;
  const r = await runScenario({ ...happyPath, durationMs: 8_000, steps, expect: [{ kind: "no-fork" }] }, { onWorld: (w) => (world = w) });
  if (!r.ok) throw new Error(JSON.stringify([r.errors, r.expectations.filter((e) => !e.ok)]));
  return world!.names().map((name) => chainOf(world!, name));
}

test('expensive RPC calls in a scenario leave the consensus timing of the run unchanged', async (t) => {
  // PUSH3 1,000,000; JUMPDEST PUSH1 1 SWAP1 SUB DUP1 PUSH1 4 JUMPI; STOP
  const loop = { data: '0x620f42405b600190038060045700', gas: '0x2faf080' };
  const rpc: Step[] = [1_500, 3_200, 5_100].flatMap((atMs) => [
    { atMs, do: 'rpc', node: 'v0', method: 'eth_call', params: [loop, 'latest'] },
    { atMs, do: 'rpc', node: 'v1', method: 'trace_block', params: ['latest'] },
    { atMs, do: 'rpc', node: 'v2', method: 'eth_getProof', params: ['v0', [], 'latest'] },
  ]) as Step[];
  const quiet = await chainsAfter([]);
  const busy = await chainsAfter(rpc);
  t.true(quiet[0]!.length >= 7);
  t.deepEqual(busy, quiet);
});
