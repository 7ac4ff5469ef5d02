import test from 'ava';
import { keccak256, nobleKeccak, activeKeccakProvider } from './keccak.ts';
import { nobleProvider, sign, recoverAddress, privateKeyToAddress, activeSecp256k1Provider } from './secp256k1.ts';
import { bytesToHex, hexToBytes, uint256ToBytes, utf8ToBytes } from './bytes.ts';

test('keccak-256 of the empty string', (t) => {
  t.is(bytesToHex(keccak256(new Uint8Array(0))), '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
});

test('the native keccak binding loads and agrees with noble', (t) => {
  t.is(activeKeccakProvider(), 'native');
  const data = utf8ToBytes('qbft-lab'.repeat(100));
  t.deepEqual(keccak256(data), nobleKeccak(data));
  const view = data.subarray(5, 77);
  t.deepEqual(keccak256(view), nobleKeccak(view));
});

test('Besu dev account key gives its documented address', (t) => {
  t.is(privateKeyToAddress(hexToBytes('8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63')), '0xfe3b557e8fb62b89f4916b721be55ceb828dbd73');
});

test('native and noble signing agree (RFC 6979, low-s) and recover the signer', (t) => {
  t.is(activeSecp256k1Provider(), 'native');
  for (let i = 1; i < 20; i++) {
    const key = keccak256(Uint8Array.of(i));
    const hash = keccak256(Uint8Array.of(i, i));
    const sig = sign(hash, key);
    t.deepEqual(sig, nobleProvider.sign(hash, key));
    t.true(sig[64] <= 1);
    t.is(recoverAddress(hash, sig), privateKeyToAddress(key));
    t.is(bytesToHex(nobleProvider.recover(hash, sig)), bytesToHex(nobleProvider.publicKey(key)));
  }
});

test('high-s and bad recovery ids are rejected', (t) => {
  const key = keccak256(Uint8Array.of(1));
  const hash = keccak256(Uint8Array.of(2));
  const sig = sign(hash, key);
  const badRec = sig.slice();
  badRec[64] = 2;
  t.throws(() => recoverAddress(hash, badRec));
  const highS = sig.slice();
  // s' = n - s is the high-s twin of a valid signature
  const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const s = BigInt(bytesToHex(sig.subarray(32, 64)));
  highS.set(hexToBytes((n - s).toString(16).padStart(64, '0')), 32);
  t.throws(() => recoverAddress(hash, highS), { message: /lower half/ });
  t.throws(() => recoverAddress(hash, sig.subarray(0, 64)));
});

test('uint256ToBytes: a 32-byte big-endian word', (t) => {
  t.is(bytesToHex(uint256ToBytes(0n)), `0x${'00'.repeat(32)}`);
  t.is(bytesToHex(uint256ToBytes(0x0102n)), `0x${'00'.repeat(30)}0102`);
  t.is(bytesToHex(uint256ToBytes(2n ** 256n - 1n)), `0x${'ff'.repeat(32)}`);
});
