import test from 'ava';
import { createBlock } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { powBlockRewards } from './pow-import-rules.ts';

const ETHER = 10n ** 18n;
const MINER = '0x8888f1f195afa192cfee860698584c030f4c9db1';
const UNCLE = '0x1111111111111111111111111111111111111111';
const opts = (hardfork: string) => ({ common: new Common({ chain: Mainnet, hardfork }), skipConsensusFormatValidation: true });

test('proof-of-work rewards: 5 ETH in Frontier, plus 1/32 per ommer to the miner and (8 + ommer - block)/8 to the ommer', (t) => {
  const common = new Common({ chain: Mainnet, hardfork: Hardfork.Chainstart });
  const block = createBlock({ header: { number: 4n, coinbase: MINER }, uncleHeaders: [{ number: 3n, coinbase: UNCLE }, { number: 2n, coinbase: UNCLE }] }, opts(Hardfork.Chainstart));
  t.deepEqual(powBlockRewards(block, common), [
    { to: MINER, amountWei: 5n * ETHER + (2n * 5n * ETHER) / 32n },
    { to: UNCLE, amountWei: (5n * ETHER * 7n) / 8n },
    { to: UNCLE, amountWei: (5n * ETHER * 6n) / 8n },
  ]);
});

test('proof-of-work rewards: 3 ETH from Byzantium, 2 ETH from Constantinople, none from Paris', (t) => {
  const at = (number: bigint, hardfork: string) => {
    const common = new Common({ chain: Mainnet, hardfork });
    return powBlockRewards(createBlock({ header: { number, coinbase: MINER } }, opts(hardfork)), common);
  };
  t.is(at(4_370_000n, Hardfork.Byzantium)[0].amountWei, 3n * ETHER);
  t.is(at(7_280_000n, Hardfork.Petersburg)[0].amountWei, 2n * ETHER);
  t.deepEqual(at(15_537_394n, Hardfork.Paris), []);
});
