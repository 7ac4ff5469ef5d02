/**
 * Besu's test-only `xblockperiodmilliseconds` on a running network: the block timer fires that many
 * milliseconds after it is set (not after the parent's timestamp), headers keep whole seconds, and
 * below 1000 ms no parent-timestamp rule applies, so consecutive blocks may share a timestamp. A
 * transition that does not name the key keeps it.
 */
import test from 'ava';
import { buildSimGenesis } from '../../sim/genesis-builder.ts';
import { validatorKeys } from '../../sim/keys.ts';
import { SIM_START_TIME_MS, World } from '../../sim/world.ts';

test('xblockperiodmilliseconds 500: timer 500 ms after it is set, blocks sharing a timestamp accepted, kept across a transition without the key', async (t) => {
  const keys = validatorKeys(4);
  const genesis = buildSimGenesis({ validators: keys.map((k) => k.address), startTimeSeconds: SIM_START_TIME_MS / 1000, blockPeriodSeconds: 1 }) as {
    config: { qbft: Record<string, unknown>; transitions?: unknown };
  };
  genesis.config.qbft.xblockperiodmilliseconds = 500;
  genesis.config.transitions = { qbft: [{ block: 4, blockperiodseconds: 3 }] };
  const world = new World({ seed: 3, genesis, nodes: keys.map((key, i) => ({ name: `v${i}`, key })) });
  await world.startAll();
  const timers: Array<{ atMs: number; nowMs: number; headTimestamp: number }> = [];
  for (const atMs of [2_345, 7_777])
    world.at(atMs, 'height-context', async () => {
      const node = world.get('v1').node!;
      const head = node.head();
      timers.push({ atMs: (await node.heightContext(head)).blockTimerAtMs, nowMs: node.clock.nowMs(), headTimestamp: head.timestamp });
    });
  await world.runFor(10_000);
  t.deepEqual(world.errors, []);
  t.is(timers.length, 2);
  for (const timer of timers) t.is(timer.atMs, timer.nowMs + 500, JSON.stringify(timer));

  const node = world.get('v0').node!;
  const head = node.head();
  t.true(head.number >= 14, `only ${head.number} blocks in 10 s`);
  const timestamps = Array.from({ length: head.number + 1 }, (_, n) => node.blockAt(n)!.timestamp);
  const repeats = timestamps.filter((ts, n) => n > 0 && ts === timestamps[n - 1]).length;
  t.true(repeats > 0, `no two consecutive blocks share a timestamp: ${timestamps.join(',')}`);
  t.is(node.schedule.paramsAt(head.number).blockPeriodMilliseconds, 500);
});
