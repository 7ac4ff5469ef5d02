import test from 'ava';
import { weiHumanReadable } from './calls/call-validation.ts';
import { blobBaseFeeAt, commonAt, maxBlobGasOf } from './blob-fees.ts';
import { parseGenesis } from '../chain/genesis.ts';
import { createCommonFromGenesis } from '../chain/common.ts';

test('the blob base fee is EIP-4844 fake_exponential(1, excess, fraction)', (t) => {
  t.is(blobBaseFeeAt(0n, 3338477n), 1n);
  t.is(blobBaseFeeAt(3338477n, 3338477n), 2n); // e^1 = 2.718..: integer arithmetic truncates
  t.is(blobBaseFeeAt(10n * 3338477n, 3338477n), 22026n); // e^10 = 22026.47
});

test("each fork's blob figures: Cancun's, Prague's, and a bpo fork's from blobSchedule", (t) => {
  const genesis = parseGenesis(
    JSON.stringify({
      config: { chainId: 1, londonBlock: 0, shanghaiTime: 0, cancunTime: 0, pragueTime: 10, bpo1Time: 20, blobSchedule: { bpo1: { target: 12, max: 18, baseFeeUpdateFraction: 9000000 } }, qbft: {} },
      gasLimit: '0x1000000',
      difficulty: '0x1',
      extraData: '0x',
      alloc: {},
    }),
  );
  const base = createCommonFromGenesis(genesis);
  const at = (ts: number) => commonAt(base, 1, ts);
  t.deepEqual([at(0).param('blobGasPriceUpdateFraction'), maxBlobGasOf(at(0))], [3338477n, 6n * 131072n]);
  t.deepEqual([at(15).param('blobGasPriceUpdateFraction'), maxBlobGasOf(at(15))], [5007716n, 9n * 131072n]);
  t.deepEqual([at(25).param('blobGasPriceUpdateFraction'), maxBlobGasOf(at(25))], [9000000n, 18n * 131072n]);
  t.is(base.hardfork(), 'cancun', 'the base Common is not moved');
});

test("wei amounts read as Besu's Wei.toHumanReadableString", (t) => {
  t.is(weiHumanReadable(0n), '0 wei');
  t.is(weiHumanReadable(999n), '999 wei');
  t.is(weiHumanReadable(1_000n), '1.00 kwei');
  t.is(weiHumanReadable(1_500_000_000n), '1.50 gwei');
  t.is(weiHumanReadable(2n * 10n ** 18n), '2.00 ether');
});
