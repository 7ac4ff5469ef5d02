import test from 'ava';
import { bytesToHex } from '../../crypto/bytes.ts';
import { ecdhX, isValidNodeId, isValidPrivateKey, nodeIdFromPrivateKey, publicKeyOfNodeId } from './node-identity.ts';

const one = new Uint8Array(32);
one[31] = 1;
// The secp256k1 generator G: the public key of private key 1.
const G =
  '79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798' + '483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8';

test('the node id is the uncompressed public key without 0x04', (t) => {
  t.is(bytesToHex(nodeIdFromPrivateKey(one)), `0x${G}`);
  t.is(nodeIdFromPrivateKey(new Uint8Array(32).fill(7)).length, 64);
  t.throws(() => nodeIdFromPrivateKey(new Uint8Array(31)));
});

test('node id and key validation', (t) => {
  const id = nodeIdFromPrivateKey(one);
  t.true(isValidNodeId(id));
  t.false(isValidNodeId(new Uint8Array(64)));
  t.false(isValidNodeId(id.subarray(1)));
  const offCurve = id.slice();
  offCurve[63] ^= 1;
  t.false(isValidNodeId(offCurve));
  t.throws(() => publicKeyOfNodeId(offCurve));
  t.deepEqual(publicKeyOfNodeId(id)[0], 4);
  t.true(isValidPrivateKey(one));
  t.false(isValidPrivateKey(new Uint8Array(32)));
  t.false(isValidPrivateKey(new Uint8Array(32).fill(0xff)));
});

test('ECDH agrees from both sides and is the x coordinate', (t) => {
  const a = new Uint8Array(32).fill(3);
  const b = new Uint8Array(32).fill(4);
  const ab = ecdhX(a, nodeIdFromPrivateKey(b));
  t.deepEqual(ab, ecdhX(b, nodeIdFromPrivateKey(a)));
  t.is(ab.length, 32);
  // k * G has x = the first half of k's node id.
  t.deepEqual(ecdhX(a, nodeIdFromPrivateKey(one)), nodeIdFromPrivateKey(a).subarray(0, 32));
});
