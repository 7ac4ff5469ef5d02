/** Blobs per simulated transaction follow the fork: the block maximum (6 Cancun, 9 Prague), at most 6 from Osaka (EIP-7594). */
import test from 'ava';
import { call, startCluster } from './test-kit.ts';
import { BESU_TEST_ACCOUNTS } from '../../../sim/keys.ts';

const hashes = (n: number) => Array.from({ length: n }, (_, i) => `0x01${i.toString(16).padStart(62, '0')}`);

async function tooMany(fork: 'cancun' | 'prague' | 'osaka', blobs: number): Promise<boolean> {
  const c = await startCluster({ fork });
  const r = (await call(c.api, 'eth_call', [{ from: BESU_TEST_ACCOUNTS[0]!.address, to: BESU_TEST_ACCOUNTS[1]!.address, blobVersionedHashes: hashes(blobs) }, 'latest'])) as { error?: { message: string } };
  return /too many blobs/.test(r.error?.message ?? '');
}

test.serial('the blob count limit of a call is the fork one', async (t) => {
  t.deepEqual([await tooMany('cancun', 6), await tooMany('cancun', 7)], [false, true]);
  t.deepEqual([await tooMany('prague', 9), await tooMany('prague', 10)], [false, true]);
  t.deepEqual([await tooMany('osaka', 6), await tooMany('osaka', 7)], [false, true]);
});
