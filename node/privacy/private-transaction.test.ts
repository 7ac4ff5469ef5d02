/**
 * Private transactions and EEA privacy group ids against Besu's own vectors (hyperledger/besu 25.4,
 * PrivateTransactionTest.java and PrivacyGroupUtilTest.java, Apache-2.0).
 */
import test from 'ava';
import { bytesToHex, hexToBytes, type Hex } from '../crypto/bytes.ts';
import { privateKeyToAddress } from '../crypto/secp256k1.ts';
import { decodePrivateTransaction, fromBase64, signPrivateTransaction, toBase64, PrivateTransactionError } from './private-transaction.ts';
import { eeaPrivacyGroupId, javaBytesHashCode } from './privacy-group-id.ts';

const INIT_CODE =
  '0x608060405234801561001057600080fd5b5060d08061001f6000396000f3fe60806040526004361060485763ffffffff7c0100000000000000000000000000000000000000000000000000000000600035' +
  '04166360fe47b18114604d5780636d4ce63c146075575b600080fd5b348015605857600080fd5b50607360048036036020811015606d57600080fd5b50356099565b005b348015608057600080fd' +
  '5b506087609e565b60408051918252519081900360200190f35b600055565b6000549056fea165627a7a72305820cb1d0935d14b589300b12fcd0ab849a7e9019c81da24d6daa4f6b2f003d1b0180029';
const SIGNED_RLP =
  '0xf9018c808203e8832dc6c08080b8ef608060405234801561001057600080fd5b5060d08061001f6000396000f3fe60806040526004361060485763ffffffff7c010000000000000000000000000000000000000000000000000000000' +
  '060003504166360fe47b18114604d5780636d4ce63c146075575b600080fd5b348015605857600080fd5b50607360048036036020811015606d57600080fd5b50356099565b005b348015608057600080fd5' +
  'b506087609e565b60408051918252519081900360200190f35b600055565b6000549056fea165627a7a72305820cb1d0935d14b589300b12fcd0ab849a7e9019c81da24d6daa4f6b2f003d1b01800292ca0bab7ae7f68afad5ade9e26177e044079bbcfd7857cf911b7a4c' +
  '97027dd92e41ba06e92e391ced52de53725e3054af3908a9f2f36374d727ebc616a96a1ed2ca548a0035695b4cc4b0941e60551d7a19cf30603db5bfc23e5ac43a56f57f25f75486ae1a02a8d9b56a0fe9cd94d60be4413bcb721d3a7be27' +
  'ed8e28b3a6346df874ee141b8a72657374726963746564';
const KEY = hexToBytes('0x853d7f0010fd86d0d7811c1f9d968ea89a24484a8127b4a483ddf5d2cfec766d');
const FROM = fromBase64('A1aVtMxLCUHmBVHXoZzzBgPbW/wj5axDpW9X8l91SGo=')!;
const FOR = fromBase64('Ko2bVqD+nNlNYL5EE7y3IdOnviftjiizpjRt+HTuFBs=')!;

test('signing Besu\'s private transaction vector gives its bytes; decoding them gives its fields and sender', (t) => {
  const signed = signPrivateTransaction(
    { nonce: 0n, gasPrice: 1000n, gasLimit: 3_000_000n, value: 0n, data: hexToBytes(INIT_CODE), privateFrom: FROM, privateFor: [FOR], restriction: 'restricted', chainId: 4n },
    KEY,
  );
  t.is(bytesToHex(signed.encoded) as string, SIGNED_RLP);
  const decoded = decodePrivateTransaction(hexToBytes(SIGNED_RLP));
  // Besu's builder labels the vector with another sender; the signature recovers the key's address.
  t.is(decoded.sender, privateKeyToAddress(KEY));
  t.is(decoded.sender, '0xb3d6f5a4491a6137277699a2d4343ef4fe3c0fdc');
  t.is(decoded.chainId, 4n);
  t.is(decoded.to, undefined);
  t.is(decoded.restriction, 'restricted');
  t.deepEqual(decoded.privateFor?.map(toBase64), ['Ko2bVqD+nNlNYL5EE7y3IdOnviftjiizpjRt+HTuFBs=']);
  t.is(decoded.hash, signed.hash);
});

test('malformed private transactions are refused with a reason', (t) => {
  const bytes = hexToBytes(SIGNED_RLP);
  t.throws(() => decodePrivateTransaction(bytes.subarray(0, 50)), { instanceOf: PrivateTransactionError });
  const tampered = bytes.slice();
  tampered[tampered.length - 40] ^= 1; // inside privateFor: the signature no longer matches the sender
  t.not(decodePrivateTransaction(tampered).sender, privateKeyToAddress(KEY));
  t.throws(() => decodePrivateTransaction(hexToBytes('0xc0')), { message: /list of 12 items/ });
});

test('EEA privacy group ids are Besu\'s: distinct keys in Java hash-code order', (t) => {
  const k1 = fromBase64('negmDcN2P4ODpqn/6WkJ02zT/0w0bjhGpkZ8UP6vARk=')!;
  const k2 = fromBase64('g59BmTeJIn7HIcnq8VQWgyh/pDbvbt2eyP0Ii60aDDw=')!;
  const k3 = fromBase64('6fg8q5rWMBoAT2oIiU3tYJbk4b7oAr7dxaaVY7TeM3U=')!;
  t.is(toBase64(eeaPrivacyGroupId(k1, [])), 'kAbelwaVW7okoEn1+okO+AbA4Hhz/7DaCOWVQz9nx5M=');
  for (const [from, ...rest] of [[k1, k2, k3], [k2, k1, k3, k1], [k3, k2, k1], [k2, k3, k1, k3]])
    t.is(toBase64(eeaPrivacyGroupId(from, rest)), '/xzRjCLioUBkm5LYuzll61GXyrD5x7bvXzQk/ovJA/4=');
  t.is(javaBytesHashCode(new Uint8Array([0xff, 1])), 31 * (31 - 1) + 1);
});

test('base64 keys: strict, and of the given size', (t) => {
  t.truthy(fromBase64('A1aVtMxLCUHmBVHXoZzzBgPbW/wj5axDpW9X8l91SGo='));
  t.is(fromBase64('A1aVtMxLCUHmBVHXoZzzBgPbW/wj5axDpW9X8l91SG'), undefined);
  t.is(fromBase64('AAAA'), undefined);
  t.is(fromBase64(42), undefined);
});
