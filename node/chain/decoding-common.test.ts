import test from 'ava';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createTxFromRLP, createFeeMarket1559Tx } from '@ethereumjs/tx';
import { decodingCommon } from './decoding-common.ts';

test('one frozen copy per fork: constructing with it neither copies it nor changes its fork', (t) => {
  const common = new Common({ chain: Mainnet, hardfork: Hardfork.London });
  const frozen = decodingCommon(common);
  t.is(decodingCommon(common), frozen);
  t.is(frozen.copy(), frozen);
  t.is(frozen.hardfork(), Hardfork.London);
  const raw = createFeeMarket1559Tx({ chainId: 1n, gasLimit: 21_000n, maxFeePerGas: 1n }, { common }).serialize();
  const tx = createTxFromRLP(raw, { common: frozen });
  t.is(tx.common, frozen, 'the transaction holds the shared copy, not a fresh one');
  t.is(common.hardfork(), Hardfork.London);
});

test('a block after a fork gets the later fork; never one below the Common own fork', (t) => {
  const common = new Common({ chain: Mainnet, hardfork: Hardfork.Berlin });
  t.is(decodingCommon(common, { blockNumber: 12_965_000n, timestamp: 0n }).hardfork(), Hardfork.London);
  t.is(decodingCommon(common, { blockNumber: 1n, timestamp: 0n }).hardfork(), Hardfork.Berlin);
});
