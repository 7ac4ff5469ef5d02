import test from 'ava';
import { blobGasPrice, weiHumanReadable } from './simulator.ts';

test('the blob base fee is EIP-4844 fake_exponential(1, excess, 3338477)', (t) => {
  t.is(blobGasPrice(0n), 1n);
  t.is(blobGasPrice(3338477n), 2n); // e^1 = 2.718..: integer arithmetic truncates
  t.is(blobGasPrice(10n * 3338477n), 22026n); // e^10 = 22026.47
});

test("wei amounts read as Besu's Wei.toHumanReadableString", (t) => {
  t.is(weiHumanReadable(0n), '0 wei');
  t.is(weiHumanReadable(999n), '999 wei');
  t.is(weiHumanReadable(1_000n), '1.00 kwei');
  t.is(weiHumanReadable(1_500_000_000n), '1.50 gwei');
  t.is(weiHumanReadable(2n * 10n ** 18n), '2.00 ether');
});
