import test from 'ava';
import { ECIES as EthereumjsEcies } from '@ethereumjs/devp2p';
import { createHash } from 'node:crypto';
import { concatBytes, hexToBytes } from '../../crypto/bytes.ts';
import { concatKdf, ECIES_OVERHEAD_BYTES, eciesDecrypt, eciesEncrypt, EciesError } from './ecies.ts';
import { nodeIdFromPrivateKey } from './node-identity.ts';
import vectors from './testdata/eip8-vectors.json' with { type: 'json' };

const keyA = hexToBytes(vectors.staticKeyA);
const keyB = hexToBytes(vectors.staticKeyB);
const idA = nodeIdFromPrivateKey(keyA);
const idB = nodeIdFromPrivateKey(keyB);
const randomness = { ephemeralPrivateKey: new Uint8Array(32).fill(7), iv: new Uint8Array(16).fill(3) };

const sha256Node = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};

test('concatKdf is sha256(counter || z) blocks from counter 1, truncated', (t) => {
  const z = new Uint8Array(32).map((_, i) => i);
  t.deepEqual(concatKdf(z, 32), sha256Node(Uint8Array.of(0, 0, 0, 1), z));
  const long = concatKdf(z, 40);
  t.deepEqual(long.subarray(0, 32), sha256Node(Uint8Array.of(0, 0, 0, 1), z));
  t.deepEqual(long.subarray(32), sha256Node(Uint8Array.of(0, 0, 0, 2), z).subarray(0, 8));
});

test('encrypt then decrypt returns the plaintext; output is R || iv || c || tag and deterministic', (t) => {
  const plaintext = new TextEncoder().encode('hello rlpx');
  const mac = Uint8Array.of(1, 2);
  const a = eciesEncrypt(idB, plaintext, randomness, mac);
  const b = eciesEncrypt(idB, plaintext, randomness, mac);
  t.deepEqual(a, b);
  t.is(a.length, plaintext.length + ECIES_OVERHEAD_BYTES);
  t.is(a[0], 4);
  t.deepEqual(a.subarray(65, 81), randomness.iv);
  t.notDeepEqual(a.subarray(81, 81 + plaintext.length), plaintext);
  t.deepEqual(eciesDecrypt(keyB, a, mac), plaintext);
});

test('decryption rejects a wrong key, wrong shared mac data and any flipped byte', (t) => {
  const plaintext = new Uint8Array(40).fill(9);
  const msg = eciesEncrypt(idB, plaintext, randomness, Uint8Array.of(5));
  t.throws(() => eciesDecrypt(keyA, msg, Uint8Array.of(5)), { instanceOf: EciesError });
  t.throws(() => eciesDecrypt(keyB, msg, Uint8Array.of(6)), { instanceOf: EciesError });
  t.throws(() => eciesDecrypt(keyB, msg), { instanceOf: EciesError });
  for (const i of [0, 10, 64, 70, 90, msg.length - 1]) {
    const bad = msg.slice();
    bad[i] ^= 1;
    t.throws(() => eciesDecrypt(keyB, bad, Uint8Array.of(5)), { instanceOf: EciesError }, `byte ${i}`);
  }
  t.throws(() => eciesDecrypt(keyB, msg.subarray(0, ECIES_OVERHEAD_BYTES - 1)), { instanceOf: EciesError });
});

test('decrypts the EIP-8 legacy and EIP-8 auth vectors addressed to node B', (t) => {
  const legacy = hexToBytes(vectors.auth1Legacy);
  t.is(eciesDecrypt(keyB, legacy).length, 194);
  const eip8 = hexToBytes(vectors.auth2Eip8);
  const body = eciesDecrypt(keyB, eip8.subarray(2), eip8.subarray(0, 2));
  t.is(body[0], 0xf8); // an RLP list follows
  t.throws(() => eciesDecrypt(keyB, eip8.subarray(2)), { instanceOf: EciesError });
});

test('interoperates with @ethereumjs/devp2p ECIES in both directions', (t) => {
  const theirs = new EthereumjsEcies(keyA, idA, idB);
  const plaintext = new Uint8Array(100).map((_, i) => i * 3);
  const mac = Uint8Array.of(0x01, 0x23);
  const fromThem = theirs._encryptMessage(plaintext, mac)!;
  t.deepEqual(eciesDecrypt(keyB, fromThem, mac), plaintext);
  const toThem = new EthereumjsEcies(keyB, idB, idA);
  const ours = eciesEncrypt(idB, plaintext, randomness, mac);
  t.deepEqual(toThem._decryptMessage(ours, mac), plaintext);
  t.deepEqual(concatBytes(ours.subarray(0, 1)), Uint8Array.of(4));
});
