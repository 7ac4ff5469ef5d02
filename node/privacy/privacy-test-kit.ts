/** A simulated network with privacy for tests: four validators, privacy on v0..v2. */
import { concatBytes } from '../crypto/bytes.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { SIM_START_TIME_MS, World } from '../../sim/world.ts';
import { buildSimGenesis } from '../../sim/genesis-builder.ts';
import { BESU_TEST_ACCOUNTS, validatorKeys } from '../../sim/keys.ts';
import { toBase64 } from './private-transaction.ts';

export const STORED_TOPIC = keccak256(new TextEncoder().encode('Stored(uint256)'));

/** set(x) with calldata x stores it and logs Stored(x); empty calldata returns the stored value. */
export function storageContractInitCode(): Uint8Array {
  const runtime = concatBytes(
    Uint8Array.from([0x36, 0x15, 0x60, 0x36, 0x57, 0x60, 0x00, 0x35, 0x80, 0x60, 0x00, 0x55, 0x60, 0x00, 0x52, 0x7f]),
    STORED_TOPIC,
    Uint8Array.from([0x60, 0x20, 0x60, 0x00, 0xa1, 0x00, 0x5b, 0x60, 0x00, 0x54, 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xf3]),
  );
  return concatBytes(Uint8Array.from([0x60, runtime.length, 0x60, 12, 0x60, 0, 0x39, 0x60, runtime.length, 0x60, 0, 0xf3]), runtime);
}

export function privacyKey(i: number): string {
  return toBase64(keccak256(new TextEncoder().encode(`privacy key ${i}`)));
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

