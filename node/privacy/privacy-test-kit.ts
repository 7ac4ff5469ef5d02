/** A simulated network with privacy for tests: four validators, privacy on v0..v2. */
import { SIM_START_TIME_MS, World } from '../../sim/world.ts';
import { buildSimGenesis } from '../../sim/genesis-builder.ts';
import { BESU_TEST_ACCOUNTS, validatorKeys } from '../../sim/keys.ts';
import { privacyKeyOf, privacyPrivateKeyOf } from '../../sim/privacy-run.ts';
import type { PrivacyConfig } from './node-privacy.ts';

export { STORED_TOPIC, storageContractInitCode } from '../../sim/privacy-run.ts';

/** The privacy key of node v<i> (the scenario runner's keys). */
export function privacyKey(i: number): string {
  return privacyKeyOf(`v${i}`);
}

/** The privacy config of node v<i> in `privacyWorld` (v0..v2; v3 runs without privacy). */
export function privacyConfig(i: number): PrivacyConfig | undefined {
  return i < 3 ? { publicKey: privacyKey(i), privateKey: privacyPrivateKeyOf(`v${i}`), markerSigningKey: BESU_TEST_ACCOUNTS[i]!.privateKey } : undefined;
}

export async function privacyWorld(configOf: (i: number) => PrivacyConfig | undefined = privacyConfig): Promise<World> {
  const keys = validatorKeys(4);
  const genesis = buildSimGenesis({ validators: keys.map((k) => k.address), startTimeSeconds: SIM_START_TIME_MS / 1000, blockPeriodSeconds: 1 });
  const world = new World({
    seed: 21,
    genesis,
    nodes: keys.map((key, i) => ({
      name: `v${i}`,
      key,
      privacy: configOf(i),
    })),
  });
  await world.startAll();
  await world.runFor(2_000);
  return world;
}

