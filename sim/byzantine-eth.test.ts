/**
 * Byzantine peers over the eth protocol (forge-blocks): blocks served during sync and announced
 * with NewBlock carry forged, missing, duplicated or foreign commit seals, a wrong round, a wrong
 * parent, a future timestamp, or a body their header does not name. Honest nodes refuse every one;
 * a node with the planted switch plant-sync-seals (no commit-seal rule on blocks that arrive over
 * the eth protocol) imports them, and the validity checker, judging each import's own bytes,
 * reports it.
 */
import test from 'ava';
import { onchainHashOfFields } from '../node/chain/block-hashing.ts';
import { decodeExtraData } from '../node/chain/extra-data.ts';
import { bytesToHex } from '../node/crypto/bytes.ts';
import { FORGED_SEAL_VARIANTS, forgedSeals } from './byzantine/forged-blocks.ts';
import type { ByzantineKit } from './byzantine/kit.ts';
import { runScenario, type RunResult } from './scenario-runner.ts';
import type { Scenario } from './scenario.ts';
import type { World } from './world.ts';

/**
 * v0 crashes, comes back wiped while v2 and v3 cannot reach it, so it syncs from Byzantine v1
 * alone; after the clogs heal it catches up from the honest peers. v1 announces forged copies of
 * its blocks all along.
 */
const forgedSync: Scenario = {
  name: 'forged-blocks-over-sync',
  description: 'v1 serves and announces forged blocks; wiped v0 syncs from v1 alone for 8 s, then from v2 and v3',
  seed: 1,
  validators: 4,
  durationMs: 30_000,
  steps: [
    { atMs: 0, do: 'byzantine', node: 'v1', behaviour: 'forge-blocks' },
    { atMs: 2_000, do: 'crash', node: 'v0' },
    { atMs: 7_900, do: 'clog', from: 'v2', to: 'v0' },
    { atMs: 7_900, do: 'clog', from: 'v3', to: 'v0' },
    { atMs: 8_000, do: 'restart', node: 'v0', wipe: true },
    { atMs: 16_000, do: 'unclog', from: 'v2', to: 'v0' },
    { atMs: 16_000, do: 'unclog', from: 'v3', to: 'v0' },
  ],
  expect: [{ kind: 'min-height', height: 20, nodes: ['v0', 'v2', 'v3'] }],
};

interface Observed {
  result: RunResult;
  world: World;
  /** Reasons of the blocks honest nodes rejected, by node. */
  rejected: Array<{ node: string; reason: string }>;
}

async function run(bugs: string[]): Promise<Observed> {
  let world: World | undefined;
  const rejected: Observed['rejected'] = [];
  const result = await runScenario(forgedSync, {
    bugs,
    onWorld: (w) => {
      world = w;
      w.trace.subscribe((line) => {
        if (line.kind === 'block-rejected' && line.node) rejected.push({ node: line.node, reason: (line as unknown as { reason: string }).reason });
      });
    },
  });
  return { result, world: world!, rejected };
}

test('honest nodes refuse every forged block served during sync or announced, and the run passes', async (t) => {
  const { result, world, rejected } = await run([]);
  t.deepEqual(result.violations, []);
  t.true(result.ok, [...result.errors, ...result.expectations.filter((e) => !e.ok).map((e) => e.text)].join('; '));
  const acts = Object.keys(world.get('v1').byzantine.counts ?? {});
  t.true(acts.some((a) => a.startsWith('forge-blocks:headers-')), 'v1 served forged headers to a syncing peer');
  t.true(acts.some((a) => a.startsWith('forge-blocks:announced-')), 'v1 announced forged blocks');
  t.true(rejected.some((r) => r.node === 'v0' && r.reason.startsWith('commitSeals:')), 'wiped v0 refused a block v1 served it with bad seals');
  const rules = new Set(rejected.map((r) => r.reason.split(':')[0]));
  for (const rule of ['commitSeals', 'ancestry', 'timestampFuture']) t.true(rules.has(rule), `a forged block refused by the ${rule} rule`);
  t.true(world.get('v0').node!.head().number >= 20, 'v0 caught up from the honest peers');
});

test('planted: plant-sync-seals (no commit-seal rule on blocks from the eth protocol) imports a forged block, and the validity checker reports it', async (t) => {
  const { result } = await run(['plant-sync-seals']);
  const found = result.violations.find((v) => v.checker === 'validity');
  t.truthy(found, JSON.stringify(result.violations));
  t.regex(found!.reason, /seal|commit seals/);
  t.false(result.ok);
});

test('every seal variant keeps the on-chain hash (the victim asks for the bodies it was served) and changes the seals or the round', async (t) => {
  let world: World | undefined;
  await runScenario({ name: 'chain', description: '', seed: 1, validators: 4, durationMs: 3_000, steps: [], expect: [] }, { onWorld: (w) => (world = w) });
  const node = world!.get('v1').node!;
  const header = node.blockAt(2)!.block.header.raw();
  const kit = { privateKey: world!.get('v1').key.privateKey, common: node.common } as unknown as ByzantineKit;
  const original = decodeExtraData(header[12]);
  for (const variant of FORGED_SEAL_VARIANTS) {
    const forged = forgedSeals(kit, header, variant);
    t.is(bytesToHex(onchainHashOfFields(forged)), bytesToHex(onchainHashOfFields(header)), variant);
    const extra = decodeExtraData(forged[12]);
    const changed = extra.round !== original.round || extra.seals.map(bytesToHex).join() !== original.seals.map(bytesToHex).join();
    t.true(changed, `${variant} changes the seals or the round`);
  }
});
