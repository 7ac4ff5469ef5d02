/** A proposal verdict that depends on the clock (a block from the future) is not kept: later, the same block is valid. */
import test from 'ava';
import { runScenario } from './scenario-runner.ts';
import type { World } from './world.ts';

/** The node's private parts, reached past its view: a test plants and probes here. */
interface NodeInternals {
  parts: {
    producer: { createBlock(req: { height: number; round: number; timestampSeconds: number }): Promise<{ rlp: Uint8Array }> };
    proposals: { validateProposedBlock(rlp: Uint8Array, height: number): Promise<unknown> };
  };
  clock: { nowMs(): number };
}

test('a block rejected for a timestamp ahead of the clock is accepted once the clock gets there', async (t) => {
  const verdicts: boolean[] = [];
  let rlp: Uint8Array | undefined;
  await runScenario(
    {
      name: 'future-block',
      description: 'v1..v3 are down, so the chain stays at genesis while v0 judges one block twice.',
      validators: 4,
      durationMs: 9_000,
      steps: ['v1', 'v2', 'v3'].map((node) => ({ atMs: 0, do: 'crash' as const, node })),
      expect: [],
    },
    {
      onWorld: (world: World) => {
        const v0 = () => world.get('v0').node as unknown as NodeInternals;
        world.at(1_000, 'judge-early', async () => {
          const nowSeconds = Math.floor(v0().clock.nowMs() / 1000);
          rlp = (await v0().parts.producer.createBlock({ height: 1, round: 0, timestampSeconds: nowSeconds + 5 })).rlp;
          verdicts.push((await v0().parts.proposals.validateProposedBlock(rlp, 1)) !== undefined);
        });
        world.at(7_000, 'judge-later', async () => void verdicts.push((await v0().parts.proposals.validateProposedBlock(rlp!, 1)) !== undefined));
      },
    },
  );
  t.deepEqual(verdicts, [false, true]);
});
