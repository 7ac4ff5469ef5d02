import type { Common } from '@ethereumjs/common';

/** A transaction's intrinsic gas: the base, calldata (EIP-2028), creation (EIP-3860 words) and access list. */
export function intrinsicGas(common: Common, data: Uint8Array, isCreate: boolean, accessList: ReadonlyArray<{ storageKeys: readonly unknown[] }> = []): bigint {
  let gas = 21_000n;
  const istanbul = common.gteHardfork('istanbul');
  for (const byte of data) gas += byte === 0 ? 4n : istanbul ? 16n : 68n;
  if (isCreate && common.gteHardfork('homestead')) gas += 32_000n;
  if (isCreate && common.isActivatedEIP(3860)) gas += 2n * BigInt(Math.ceil(data.length / 32));
  for (const e of accessList) gas += 2_400n + 1_900n * BigInt(e.storageKeys.length);
  return gas;
}
