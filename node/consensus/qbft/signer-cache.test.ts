import test from 'ava';
import { keccak256 } from '../../crypto/keccak.ts';
import { utf8ToBytes, bytesToHex } from '../../crypto/bytes.ts';
import { sign, privateKeyToAddress } from '../../crypto/secp256k1.ts';
import { recoverSigner, signRemembered, signingCounts } from './signer-cache.ts';

test('a hash signed twice with one key is signed once: the same signature, a fresh copy, the signer known', (t) => {
  const key = keccak256(utf8ToBytes('signer-cache-test-key'));
  const hash = keccak256(utf8ToBytes('a commit seal digest'));
  const before = signingCounts();
  const first = signRemembered(hash, key);
  const second = signRemembered(hash, key);
  const after = signingCounts();
  t.is(after.signed - before.signed, 1);
  t.is(after.reused - before.reused, 1);
  t.is(bytesToHex(second), bytesToHex(first));
  t.is(bytesToHex(first), bytesToHex(sign(hash, key)), 'what signing gives (RFC 6979: deterministic)');
  second[0] ^= 1;
  t.is(bytesToHex(signRemembered(hash, key)), bytesToHex(first), 'a caller changing its copy changes nothing');
  t.is(recoverSigner(hash, first), privateKeyToAddress(key));
  const other = signRemembered(keccak256(utf8ToBytes('another digest')), key);
  t.not(bytesToHex(other), bytesToHex(first));
});
