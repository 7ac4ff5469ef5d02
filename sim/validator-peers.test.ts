/** Besu's ValidatorPeers, end to end: observers never receive QBFT messages, validators do. */
import test from 'ava';
import { runScenario } from './scenario-runner.ts';
import type { TraceLine } from './trace.ts';

test('QBFT messages reach validator peers only; an observer follows the chain by block gossip', async (t) => {
  const istanbulTo = new Map<string, number>();
  const result = await runScenario(
    { name: 'validator-peers', description: '', validators: 4, observers: 1, durationMs: 6_000, network: { traceMessages: true }, steps: [], expect: [{ kind: 'min-height', height: 4 }] },
    {
      onWorld: (w) =>
        w.trace.subscribe((l: TraceLine) => {
          if (l.kind === 'msg-sent' && l.protocol === 'istanbul') istanbulTo.set(l.to as string, (istanbulTo.get(l.to as string) ?? 0) + 1);
        }),
    },
  );
  t.true(result.ok);
  t.is(istanbulTo.get('o0'), undefined, 'nothing was sent to the observer');
  for (const v of ['v0', 'v1', 'v2', 'v3']) t.true((istanbulTo.get(v) ?? 0) > 0, v);
  t.true(result.nodes.find((n) => n.name === 'o0')!.height >= 4, 'the observer still follows the chain');
});
