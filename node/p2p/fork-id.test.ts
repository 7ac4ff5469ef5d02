import test from 'ava';
import { bytesToHex, hexToBytes } from '../crypto/bytes.ts';
import { acceptsRemoteForkId, crc32, forkIdAtHead, forkIdOf, forkScheduleOf } from './fork-id.ts';

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

// Mainnet's block forks (EIP-2124's vectors); names are irrelevant to the fork id.
const MAINNET_FORKS = { forkBlocks: { homestead: 1150000, dao: 1920000, tangerineWhistle: 2463000, spuriousDragon: 2675000, byzantium: 4370000, constantinople: 7280000, petersburg: 7280000, istanbul: 9069000, muirGlacier: 9200000, berlin: 12244000, london: 12965000, arrowGlacier: 13773000, grayGlacier: 15050000 }, forkTimestamps: {}, timestamp: 0 };
/** EIP-6122's test network: mainnet, a block fork at 18,000,000 and Shanghai at 1,668,000,000 (genesis time 1). */
const WITHDRAWALS_FORKS = { forkBlocks: { ...MAINNET_FORKS.forkBlocks, paris: 18000000 }, forkTimestamps: { shanghai: 1668000000 }, timestamp: 1 };
const at = (number: number, timestamp = 0) => ({ number: BigInt(number), timestamp: BigInt(timestamp) });
const id = (hash: string, next: number | bigint) => ({ hash: hexToBytes(hash), next: BigInt(next) });

test('fork id at a head: EIP-2124 mainnet vectors', (t) => {
  const schedule = forkScheduleOf(MAINNET_GENESIS, MAINNET_FORKS);
  const cases: Array<[number, string, number]> = [
    [0, '0xfc64ec04', 1150000],
    [1149999, '0xfc64ec04', 1150000],
    [1150000, '0x97c2c34c', 1920000],
    [1920000, '0x91d1f948', 2463000],
    [2675000, '0x3edd5b10', 4370000],
    [7279999, '0xa00bc324', 7280000],
    [7280000, '0x668db0af', 9069000],
    [12965000, '0xb715077d', 13773000],
    [15050000, '0xf0afd0e3', 0],
    [20000000, '0xf0afd0e3', 0],
  ];
  for (const [number, hash, next] of cases) {
    const f = forkIdAtHead(schedule, at(number));
    t.is(bytesToHex(f.hash) as string, hash, `head ${number}`);
    t.is(f.next, BigInt(next), `head ${number}`);
  }
});

test('fork id at a head: timestamp forks count after every block fork, by head time', (t) => {
  const schedule = forkScheduleOf(MAINNET_GENESIS, WITHDRAWALS_FORKS);
  const before = forkIdAtHead(schedule, at(18000000, 1667999999));
  const after = forkIdAtHead(schedule, at(18000000, 1668000000));
  t.is(before.next, 1668000000n);
  t.is(after.next, 0n);
  t.is(bytesToHex(after.hash), bytesToHex(forkIdOf(MAINNET_GENESIS, [...Object.values(WITHDRAWALS_FORKS.forkBlocks).map(BigInt), 1668000000n]).hash));
  // A timestamp already passed does not count while a block fork is ahead.
  t.is(forkIdAtHead(schedule, at(17999999, 1700000000)).next, 18000000n);
});

test('fork id: forks at genesis (block 0, time at or before genesis) are skipped; none left is [crc32(genesis), 0]', (t) => {
  const zeroHash = `0x${'00'.repeat(32)}` as const;
  const schedule = forkScheduleOf(zeroHash, { forkBlocks: { homestead: 0, london: 0 }, forkTimestamps: { shanghai: 5 }, timestamp: 5 });
  t.is(schedule.points.length, 0);
  const f = forkIdAtHead(schedule, at(1000000, 1700000000));
  t.is(bytesToHex(f.hash), '0x190a55ad'); // Besu's "Private // Future block" vector
  t.is(f.next, 0n);
  const later = forkScheduleOf(MAINNET_GENESIS, { forkBlocks: { london: 1000 }, forkTimestamps: {}, timestamp: 0 });
  t.deepEqual(forkIdAtHead(later, at(999)), forkIdOf(MAINNET_GENESIS, [], 1000n));
  t.deepEqual(forkIdAtHead(later, at(1000)), forkIdOf(MAINNET_GENESIS, [1000n], 0n));
});

// Peer checks: the EIP-2124 / EIP-6122 validation vectors as Besu's ForkIdManager answers them.
test('remote fork id check: EIP-2124 mainnet vectors', (t) => {
  const schedule = forkScheduleOf(MAINNET_GENESIS, MAINNET_FORKS);
  const cases: Array<[string, number, string, number | bigint, boolean]> = [
    ['Petersburg, remote the same', 7987396, '0x668db0af', 0, true],
    ['Petersburg, remote the same and a next fork', 7987396, '0x668db0af', 2n ** 63n - 1n, true],
    ['Byzantium, remote unaware of Petersburg', 7279999, '0xa00bc324', 0, true],
    ['Byzantium, remote aware of Petersburg', 7987396, '0xa00bc324', 7280000, true],
    ['Byzantium, remote announcing an unknown fork', 7279999, '0xa00bc324', 2n ** 63n - 1n, true],
    ['Petersburg, remote at Byzantium aware of Petersburg', 7987396, '0x668db0af', 7280000, true],
    ['Petersburg, remote at Spurious aware of Byzantium', 7987396, '0x3edd5b10', 4370000, true],
    ['Byzantium, remote at Petersburg (local out of sync)', 727999, '0x668db0af', 0, true],
    ['Spurious, remote at Byzantium unaware of Petersburg', 4369999, '0xa00bc324', 0, true],
    ['Gray Glacier, remote the same announcing a fork we passed', 20000000, '0xf0afd0e3', 7280000, false],
    ['Gray Glacier, remote the same announcing a fork beyond ours', 20000000, '0xf0afd0e3', 16000000, true],
    ['unknown fork hash', 7987396, '0xdeadbeef', 0, false],
  ];
  for (const [name, head, hash, next, want] of cases) t.is(acceptsRemoteForkId(schedule, id(hash, next), at(head)), want, name);
});

test('remote fork id check: a schedule ending at Petersburg', (t) => {
  const schedule = forkScheduleOf(MAINNET_GENESIS, { forkBlocks: { a: 1150000, b: 1920000, c: 2463000, d: 2675000, e: 4370000, f: 7280000 }, forkTimestamps: {}, timestamp: 0 });
  t.false(acceptsRemoteForkId(schedule, id('0xa00bc324', 0), at(7987396)), 'remote at Byzantium, unaware of Petersburg, which we passed');
  t.false(acceptsRemoteForkId(schedule, id('0x5cddc0e1', 0), at(7987396)), 'remote past a fork we do not know');
  t.false(acceptsRemoteForkId(schedule, id('0x5cddc0e1', 0), at(7279999)), 'remote past a fork we do not know, we are before Petersburg');
});

test('remote fork id check: EIP-6122 withdrawals vectors', (t) => {
  const schedule = forkScheduleOf(MAINNET_GENESIS, WITHDRAWALS_FORKS);
  const cases: Array<[string, number, number, string, number | bigint, boolean]> = [
    ['Shanghai, remote the same', 20000000, 1668000001, '0xc1fdf181', 0, true],
    ['Shanghai, remote the same and a next fork', 20000000, 1668000001, '0xc1fdf181', 2n ** 63n - 1n, true],
    ['Byzantium, remote unaware of Petersburg', 7279999, 1667999999, '0xa00bc324', 0, true],
    ['Byzantium, remote aware of Petersburg', 7279999, 1667999999, '0xa00bc324', 7280000, true],
    ['exactly Shanghai, remote at Byzantium aware of Petersburg', 20000000, 1668000000, '0xa00bc324', 7280000, true],
    ['Shanghai, remote at Spurious aware of Byzantium', 20000000, 1668000001, '0x3edd5b10', 4370000, true],
    ['Shanghai, remote at Byzantium unaware of more forks', 20000000, 1668000001, '0xa00bc324', 0, false],
    ['Shanghai, remote at Petersburg and an unknown fork', 20000000, 1668000001, '0x5cddc0e1', 0, false],
    ['Shanghai, remote at Gray Glacier announcing an unknown fork', 88888888, 1668000001, '0xf0afd0e3', 88888888, false],
    ['Shanghai, remote at Byzantium announcing an unknown fork', 88888888, 1668000001, '0xa00bc324', 7279999, false],
  ];
  for (const [name, head, time, hash, next, want] of cases) t.is(acceptsRemoteForkId(schedule, id(hash, next), at(head, time)), want, name);
});

test('remote fork id check: no fork after genesis accepts any fork id', (t) => {
  const schedule = forkScheduleOf(MAINNET_GENESIS, { forkBlocks: { london: 0 }, forkTimestamps: { shanghai: 1 }, timestamp: 1 });
  t.true(acceptsRemoteForkId(schedule, id('0xdeadbeef', 100), at(10, 5)));
});
