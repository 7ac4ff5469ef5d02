/**
 * Time-typed QBFT transitions (Besu PR #9785) on a running network: with a timestamp hardfork in
 * force, a transition's `block` is a timestamp. The block timer takes the options at the parent's
 * timestamp (looking one period ahead), header validation and the block reward those at the block's
 * own timestamp.
 */
import test from 'ava';
import type { Hex } from '../crypto/bytes.ts';
import { extraDataOf } from './block-hashing.ts';
import { buildSimGenesis, DEFAULT_VALIDATOR_CONTRACT } from '../../sim/genesis-builder.ts';
import { validatorKeys } from '../../sim/keys.ts';
import { SIM_START_TIME_MS, World } from '../../sim/world.ts';

const START = SIM_START_TIME_MS / 1000;
const BENEFICIARY: Hex = '0x00000000000000000000000000000000000000be';
const REWARD = 1_000_000_000n;

function worldWith(transitions: Record<string, unknown>[], opts: { validatorContract?: boolean; keepTrace?: boolean } = {}): World {
  const keys = validatorKeys(4);
  const validators = keys.map((k) => k.address);
  const genesis = buildSimGenesis({
    validators,
    startTimeSeconds: START,
    blockPeriodSeconds: 1,
    validatorContract: opts.validatorContract ? { address: DEFAULT_VALIDATOR_CONTRACT, validators } : undefined,
  }) as { config: Record<string, unknown> };
  genesis.config.shanghaiTime = 0;
  genesis.config.transitions = { qbft: transitions };
  return new World({ seed: 7, genesis, nodes: keys.map((key, i) => ({ name: `v${i}`, key })), keepTrace: opts.keepTrace });
}

function canonical(world: World, name: string) {
  const node = world.get(name).node!;
  const out = [];
  for (let n = 1; n <= node.head().number; n++) out.push(node.blockAt(n)!);
  return out;
}

test('time-typed transitions: a longer block period from a timestamp on, the block reward from the block\'s own timestamp', async (t) => {
  const rewardFrom = START + 4;
  const slowFrom = START + 9;
  const world = worldWith([
    { block: rewardFrom, blockreward: '0x' + REWARD.toString(16), miningbeneficiary: BENEFICIARY },
    { block: slowFrom, blockperiodseconds: 3 },
  ]);
  await world.startAll();
  t.deepEqual(world.get('v0').node!.schedule.forks().map((f) => f.scheduleType), ['block', 'time', 'time']);
  await world.runFor(24_000);
  t.deepEqual(world.errors, []);
  const blocks = canonical(world, 'v0');
  t.true(blocks.length >= 12, `only ${blocks.length} blocks`);
  t.deepEqual(blocks.map((b) => b.block.uncleHeaders.length + extraDataOf(b.block.header).round).filter((x) => x !== 0), [], 'every block in round 0: no proposal was rejected');

  const gaps = blocks.map((b, i) => ({ ts: b.timestamp, gap: b.timestamp - (i === 0 ? START : blocks[i - 1].timestamp) }));
  t.deepEqual(gaps.filter((g) => g.ts < slowFrom).map((g) => g.gap).filter((g) => g !== 1), [], '1 s blocks before the transition time');
  t.deepEqual(gaps.filter((g) => g.ts >= slowFrom).map((g) => g.gap).filter((g) => g !== 3), [], '3 s blocks from it on');
  // The last 1 s parent sits one second before the transition: its child's timer already looked ahead to 3 s.
  t.true(gaps.some((g) => g.ts === slowFrom + 2 && g.gap === 3), JSON.stringify(gaps));

  const node = world.get('v0').node!;
  const paid = blocks.filter((b) => b.timestamp >= rewardFrom).length;
  t.true(paid >= 1 && paid < blocks.length);
  const balance = (await node.account(node.head().block.header.stateRoot, BENEFICIARY))?.balance ?? 0n;
  t.is(balance, REWARD * BigInt(paid), 'paid for every block whose own timestamp is at or after the transition');
  const hc = await node.heightContext(node.head());
  t.is(hc.blockPeriodSeconds, 3);
  t.is(hc.blockTimerAtMs, (node.head().timestamp + 3) * 1000);
});

test('Besu behaviour kept: a time-typed switch to contract mode stops the chain at the boundary (extraData chosen at the parent\'s timestamp, checked at the block\'s own)', async (t) => {
  const switchAt = START + 5;
  const world = worldWith([{ block: switchAt, validatorselectionmode: 'contract', validatorcontractaddress: DEFAULT_VALIDATOR_CONTRACT }], { validatorContract: true, keepTrace: true });
  await world.startAll();
  await world.runFor(20_000);
  t.deepEqual(world.errors, []);
  const blocks = canonical(world, 'v0');
  t.deepEqual(blocks.map((b) => b.timestamp - START), [1, 2, 3, 4], 'no block at or after the switch time');
  const rejections = world.trace.lines().map((l) => JSON.parse(l)).filter((e) => e.kind === 'proposal-block-invalid');
  t.true(rejections.length > 0);
  t.true(rejections.every((e) => String(e.reason).startsWith('validators: contract mode: extraData lists 4 validators')), JSON.stringify(rejections[0]));
});
