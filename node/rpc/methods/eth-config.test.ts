import test from 'ava';
import type { Genesis } from '../../chain/genesis.ts';
import { forkIdAt, milestones } from './eth-config.ts';

// EIP-2124's mainnet vectors.
const MAINNET_GENESIS = '0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3';
const mainnet = {
  timestamp: 0,
  forkBlocks: {
    homestead: 1150000, dao: 1920000, tangerineWhistle: 2463000, spuriousDragon: 2675000, byzantium: 4370000,
    constantinople: 7280000, petersburg: 7280000, istanbul: 9069000, muirGlacier: 9200000, berlin: 12244000,
    london: 12965000, arrowGlacier: 13773000, grayGlacier: 15050000,
  },
  forkTimestamps: { shanghai: 1681338455, cancun: 1710338135 },
} as unknown as Genesis;

test('fork ids follow EIP-2124 (mainnet vectors)', (t) => {
  const at = (name: string, value: number, by: 'block' | 'time') => forkIdAt(mainnet, MAINNET_GENESIS, { name, value, by });
  t.is(at('chainstart', 0, 'block'), '0xfc64ec04');
  t.is(at('homestead', 1150000, 'block'), '0x97c2c34c');
  t.is(at('byzantium', 4370000, 'block'), '0xa00bc324');
  t.is(at('petersburg', 7280000, 'block'), '0x668db0af');
  t.is(at('london', 12965000, 'block'), '0xb715077d');
  t.is(at('grayGlacier', 15050000, 'block'), '0xf0afd0e3');
  t.is(at('shanghai', 1681338455, 'time'), '0xdce96c2d');
  t.is(at('cancun', 1710338135, 'time'), '0x9f3d2254');
});

test('milestones list Frontier first, then block forks, then time forks', (t) => {
  const list = milestones(mainnet).map((m) => `${m.name}@${m.value}`);
  t.is(list[0], 'chainstart@0');
  t.deepEqual(list.slice(-3), ['grayGlacier@15050000', 'shanghai@1681338455', 'cancun@1710338135']);
  t.false(list.some((m) => m.startsWith('dao')), 'the DAO block is a fork id entry, not a protocol milestone');
});
