/**
 * The manager's NaCl primitives agree with NaCl itself (vectors made with libsodium 1.0.18:
 * crypto_scalarmult_base, crypto_box_beforenm, crypto_box_easy_afternm, crypto_secretbox_easy; the
 * keys are NaCl's own test keys), and key proofs bind the challenge, both keys and both identities.
 */
import test from 'ava';
import { randomBytes } from '@noble/ciphers/utils.js';
import { xsalsa20poly1305 } from '@noble/ciphers/salsa.js';
import { boxKey, keyPairOf, keyProof, openEnvelope, privacyPublicKeyOf, proofHolds, type ProofParties } from './ptm-crypto.ts';
import { parsePrivacyPrivateKey, privacyPrivateKeyFileText } from './privacy-key-file.ts';

const hex = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));
const ALICE_SK = hex('77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a');
const BOB_SK = hex('5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb');
const BOB_PK = 'de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f';
const BOX_KEY = '1b27556473e985d462cd51197a9a46c76009549eac6474f206c4ee0844f68389';
const NONCE = Uint8Array.from({ length: 24 }, (_, i) => i);
const MESSAGE = new TextEncoder().encode('qbft-lab private payload');

test('X25519 keys and the box key are NaCl\'s (crypto_scalarmult_base, crypto_box_beforenm)', (t) => {
  t.is(Buffer.from(privacyPublicKeyOf(BOB_SK)).toString('hex'), BOB_PK);
  t.is(Buffer.from(boxKey(ALICE_SK, hex(BOB_PK))!).toString('hex'), BOX_KEY);
  t.is(Buffer.from(boxKey(BOB_SK, privacyPublicKeyOf(ALICE_SK))!).toString('hex'), BOX_KEY, 'both ends make the same key');
});

test("box and secretbox bytes are NaCl's (crypto_box_easy_afternm, crypto_secretbox_easy)", (t) => {
  t.is(Buffer.from(xsalsa20poly1305(hex(BOX_KEY), NONCE).encrypt(MESSAGE)).toString('hex'), 'aa3bb2c8bda0c67be72096b06e09f7ea742c36d1361a341f60f7ea17d5ebccbbc1b2b8991988cde9');
  t.is(Buffer.from(xsalsa20poly1305(new Uint8Array(32).fill(7), NONCE).encrypt(MESSAGE)).toString('hex'), 'bb4b57d00d9ec0c99d1a55a988e2fdfaeb7c8f3ba61903a7c5e0316247b735f2d584338e5e801dde');
});

test('a key of small order gives no box key (its shared secret is public)', (t) => {
  t.is(boxKey(ALICE_SK, new Uint8Array(32)), undefined);
  t.is(boxKey(ALICE_SK, Uint8Array.of(1, ...new Uint8Array(31))), undefined);
});

test('an envelope opens only with the right box key', (t) => {
  const masterKey = randomBytes(32);
  const cipherNonce = randomBytes(24);
  const recipientNonce = randomBytes(24);
  const key = boxKey(ALICE_SK, hex(BOB_PK))!;
  const envelope = { cipherText: xsalsa20poly1305(masterKey, cipherNonce).encrypt(MESSAGE), cipherNonce, recipientNonce, box: xsalsa20poly1305(key, recipientNonce).encrypt(masterKey) };
  t.deepEqual(openEnvelope(envelope, key)?.payload, MESSAGE);
  t.is(openEnvelope(envelope, boxKey(ALICE_SK, privacyPublicKeyOf(randomBytes(32)))!), undefined);
});

test('a key proof covers the challenge, both keys and both identities', (t) => {
  const key = boxKey(ALICE_SK, hex(BOB_PK))!;
  const challenge = randomBytes(32);
  const parties: ProofParties = { proverKey: hex(BOB_PK), proverId: 'bob', verifierKey: privacyPublicKeyOf(ALICE_SK), verifierId: 'alice' };
  const proof = keyProof(key, challenge, parties);
  t.true(proofHolds(keyProof(boxKey(BOB_SK, privacyPublicKeyOf(ALICE_SK))!, challenge, parties), proof), 'the prover makes what the verifier expects');
  const changed: Array<[string, Uint8Array]> = [
    ['challenge', keyProof(key, randomBytes(32), parties)],
    ['prover id', keyProof(key, challenge, { ...parties, proverId: 'mallory' })],
    ['verifier id', keyProof(key, challenge, { ...parties, verifierId: 'carol' })],
    ['roles swapped', keyProof(key, challenge, { proverKey: parties.verifierKey, proverId: 'alice', verifierKey: parties.proverKey, verifierId: 'bob' })],
    ['another box key', keyProof(boxKey(ALICE_SK, privacyPublicKeyOf(randomBytes(32)))!, challenge, parties)],
  ];
  for (const [what, other] of changed) t.false(proofHolds(other, proof), what);
  t.false(proofHolds(proof, proof.subarray(0, 16)), 'a short proof');
});

test("private key files: Tessera's unlocked JSON and bare base64 are read; locked keys and junk are refused", (t) => {
  const pair = keyPairOf(ALICE_SK);
  t.deepEqual(parsePrivacyPrivateKey(privacyPrivateKeyFileText(ALICE_SK)), { privateKey: ALICE_SK });
  t.deepEqual(parsePrivacyPrivateKey(`${Buffer.from(ALICE_SK).toString('base64')}\n`), { privateKey: ALICE_SK });
  t.regex((parsePrivacyPrivateKey('{"type":"argon2sbox","data":{}}') as { error: string }).error, /only unlocked keys/);
  t.regex((parsePrivacyPrivateKey('nonsense') as { error: string }).error, /32-byte private key/);
  t.is(pair.publicKey, Buffer.from(privacyPublicKeyOf(ALICE_SK)).toString('base64'));
});
