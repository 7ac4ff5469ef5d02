/** A simulated network with privacy for tests: four validators, privacy on v0..v2. */
import { SIM_START_TIME_MS, World } from '../../sim/world.ts';
import { buildSimGenesis } from '../../sim/genesis-builder.ts';
import { BESU_TEST_ACCOUNTS, validatorKeys } from '../../sim/keys.ts';
import { privacyKeyOf } from '../../sim/privacy-run.ts';

export { STORED_TOPIC, storageContractInitCode } from '../../sim/privacy-run.ts';

/** The privacy key of node v<i> (the scenario runner's keys). */
export function privacyKey(i: number): string {
  return privacyKeyOf(`v${i}`);
}

export async function privacyWorld(): Promise<World> {
  const keys = validatorKeys(4);
  const genesis = buildSimGenesis({ validators: keys.map((k) => k.address), startTimeSeconds: SIM_START_TIME_MS / 1000, blockPeriodSeconds: 1 });
  const world = new World({
    seed: 21,
    genesis,
    nodes: keys.map((key, i) => ({
      name: `v${i}`,
      key,
      privacy: i < 3 ? { publicKey: privacyKey(i), markerSigningKey: BESU_TEST_ACCOUNTS[i]!.privateKey } : undefined,
    })),
  });
  await world.startAll();
  await world.runFor(2_000);
  return world;
}

