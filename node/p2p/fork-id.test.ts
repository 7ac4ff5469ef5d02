import test from 'ava';
import { bytesToHex } from '../crypto/bytes.ts';
import { crc32, forkIdOf } from './fork-id.ts';

const MAINNET_GENESIS = '0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3';

test('crc32 matches the IEEE check value', (t) => {
  t.is(crc32(new TextEncoder().encode('123456789')), 0xcbf43926);
});

test('EIP-2124 mainnet vectors', (t) => {
  const unsynced = forkIdOf(MAINNET_GENESIS, [], 1150000n);
  t.is(bytesToHex(unsynced.hash), '0xfc64ec04');
  t.is(unsynced.next, 1150000n);
  t.is(bytesToHex(forkIdOf(MAINNET_GENESIS, [1150000n], 1920000n).hash), '0x97c2c34c');
  // forks at 0 and repeated fork points do not change the hash
  t.is(bytesToHex(forkIdOf(MAINNET_GENESIS, [0n, 1150000n, 1150000n]).hash), '0x97c2c34c');
});
