/**
 * Besu's empty-block period on a whole simulated network (virtual clock): with 1 s blocks and
 * `emptyblockperiodseconds` 10, an idle chain makes a block every 10 s, and a transaction sent in
 * the middle of such a wait is in a block about one block period later. `npm start` runs this
 * configuration (network --empty-block-period 10).
 */
import test from 'ava';
import { runScenario } from './scenario-runner.ts';
import type { Scenario } from './scenario.ts';
import { SIM_START_TIME_MS, type World } from './world.ts';
import { buildSimGenesis } from './genesis-builder.ts';
import { validatorKeys } from './keys.ts';

interface BlockSeen {
  number: number;
  atS: number;
  txCount: number;
}

async function blocksOf(qbft: Record<string, number>, transferAtMs?: number): Promise<{ blocks: BlockSeen[]; ok: boolean; summary: string }> {
  const baseGenesis = buildSimGenesis({ validators: validatorKeys(4).map((k) => k.address), startTimeSeconds: SIM_START_TIME_MS / 1000, blockPeriodSeconds: 1 });
  Object.assign((baseGenesis.config as { qbft: Record<string, number> }).qbft, qbft);
  const scenario: Scenario = {
    name: 'empty-block-period',
    description: 'an idle chain and one transfer',
    validators: 4,
    baseGenesis,
    durationMs: 31_000,
    steps: transferAtMs === undefined ? [] : [{ atMs: transferAtMs, do: 'transfer', count: 1, node: 'v2' }],
    expect: [],
  };
  let world: World | undefined;
  const result = await runScenario(scenario, { seed: 3, onWorld: (w) => (world = w) });
  const node = world!.get('v0').node!;
  const blocks: BlockSeen[] = [];
  for (let n = 1; n <= node.head().number; n++) {
    const entry = node.blockAt(n)!;
    blocks.push({ number: n, atS: entry.timestamp - SIM_START_TIME_MS / 1000, txCount: entry.block.transactions.length });
  }
  return { blocks, ok: result.ok, summary: JSON.stringify({ errors: result.errors, violations: result.violations, blocks }) };
}

test('no transaction waiting: blocks come at the empty-block period, not the block period', async (t) => {
  const { blocks, ok, summary } = await blocksOf({ emptyblockperiodseconds: 10 });
  t.true(ok, summary);
  t.deepEqual(blocks.map((b) => b.atS), [10, 20, 30], summary);
});

test("Besu's older name, xemptyblockperiodseconds, still sets the period; the newer name wins when both are set", async (t) => {
  t.deepEqual((await blocksOf({ xemptyblockperiodseconds: 10 })).blocks.map((b) => b.atS), [10, 20, 30]);
  t.deepEqual((await blocksOf({ emptyblockperiodseconds: 15, xemptyblockperiodseconds: 10 })).blocks.map((b) => b.atS), [15, 30]);
});

test('a transaction sent to an idle chain is mined about one block period later, then the chain idles again', async (t) => {
  const { blocks, ok, summary } = await blocksOf({ emptyblockperiodseconds: 10 }, 13_300);
  t.true(ok, summary);
  const mined = blocks.find((b) => b.txCount > 0);
  t.truthy(mined, summary);
  // Sent at 13.3 s, 3.3 s into a 10 s wait: the next block-period tick (14 s) or the one after takes it.
  t.true(mined!.atS >= 14 && mined!.atS <= 15, summary);
  t.deepEqual(blocks.map((b) => b.atS), [10, mined!.atS, mined!.atS + 10], summary);
});

test('without an empty-block period (Besu default 0) the idle chain makes a block every block period', async (t) => {
  const { blocks } = await blocksOf({});
  t.is(blocks.length, 30);
});
