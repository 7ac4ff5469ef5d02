import test from 'ava';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, concatBytes, hexToBytes } from '../../crypto/bytes.ts';
import { ByteQueue } from './byte-queue.ts';
import { eciesDecrypt, eciesEncrypt } from './ecies.ts';
import {
  encodeAckPacket,
  encodeAuthPacket,
  HandshakeError,
  LEGACY_AUTH_PACKET_BYTES,
  makeAck,
  makeAuth,
  parseAckBody,
  parseAuthBody,
} from './handshake-messages.ts';
import { takeHandshakePacket } from './handshake-reader.ts';
import { nodeIdFromPrivateKey } from './node-identity.ts';
import { deriveSessionSecrets } from './session-secrets.ts';
import vectors from './testdata/eip8-vectors.json' with { type: 'json' };

const keyA = hexToBytes(vectors.staticKeyA);
const keyB = hexToBytes(vectors.staticKeyB);
const ephA = hexToBytes(vectors.ephemeralKeyA);
const ephB = hexToBytes(vectors.ephemeralKeyB);
const nonceA = hexToBytes(vectors.nonceA);
const nonceB = hexToBytes(vectors.nonceB);
const idA = nodeIdFromPrivateKey(keyA);
const idB = nodeIdFromPrivateKey(keyB);
const utf8 = (s: string) => new TextEncoder().encode(s);

function readAll(bytes: Uint8Array, kind: 'auth' | 'ack', key: Uint8Array) {
  const q = new ByteQueue(1 << 20);
  q.push(bytes);
  const got = takeHandshakePacket(q, kind, key);
  if (!got) throw new Error('packet incomplete');
  return { ...got, left: q.length };
}

const randomness = (seed: number, paddingBytes = 150) => ({
  ecies: { ephemeralPrivateKey: new Uint8Array(32).fill(seed), iv: new Uint8Array(16).fill(seed + 1) },
  padding: new Uint8Array(paddingBytes).fill(seed + 2),
});

for (const [name, hex, format, version] of [
  ['auth 1 (legacy)', vectors.auth1Legacy, 'legacy', 4],
  ['auth 2 (EIP-8)', vectors.auth2Eip8, 'eip8', 4],
  ['auth 3 (EIP-8, version 56, extra items)', vectors.auth3Eip8Version56, 'eip8', 56],
] as const) {
  test(`node B reads EIP-8 vector ${name}`, (t) => {
    const packet = hexToBytes(hex);
    const got = readAll(packet, 'auth', keyB);
    t.is(got.format, format);
    t.is(got.left, 0);
    t.deepEqual(got.packet, packet);
    const auth = parseAuthBody(keyB, got.body, got.format);
    t.deepEqual(auth.initiatorNodeId, idA);
    t.deepEqual(auth.initiatorNonce, nonceA);
    t.deepEqual(auth.initiatorEphemeralId, nodeIdFromPrivateKey(ephA));
    t.is(auth.version, version);
  });
}

for (const [name, hex, format, version] of [
  ['ack 1 (legacy)', vectors.ack1Legacy, 'legacy', 4],
  ['ack 2 (EIP-8)', vectors.ack2Eip8, 'eip8', 4],
  ['ack 3 (EIP-8, version 57, extra items)', vectors.ack3Eip8Version57, 'eip8', 57],
] as const) {
  test(`node A reads EIP-8 vector ${name}`, (t) => {
    const got = readAll(hexToBytes(hex), 'ack', keyA);
    t.is(got.format, format);
    const ack = parseAckBody(got.body, got.format);
    t.deepEqual(ack.recipientEphemeralId, nodeIdFromPrivateKey(ephB));
    t.deepEqual(ack.recipientNonce, nonceB);
    t.is(ack.version, version);
  });
}

test('both sides derive the EIP-8 secrets for (auth 2, ack 2): aes-secret, mac-secret and the MAC of "foo"', (t) => {
  const authPacket = hexToBytes(vectors.auth2Eip8);
  const ackPacket = hexToBytes(vectors.ack2Eip8);
  const common = { initiatorNonce: nonceA, recipientNonce: nonceB, authPacket, ackPacket };
  const b = deriveSessionSecrets({ ...common, role: 'recipient', ephemeralPrivateKey: ephB, remoteEphemeralId: nodeIdFromPrivateKey(ephA) });
  const a = deriveSessionSecrets({ ...common, role: 'initiator', ephemeralPrivateKey: ephA, remoteEphemeralId: nodeIdFromPrivateKey(ephB) });
  for (const s of [a, b]) {
    t.is(bytesToHex(s.aesSecret), `0x${vectors.auth2Ack2AesSecret}`);
    t.is(bytesToHex(s.macSecret), `0x${vectors.auth2Ack2MacSecret}`);
  }
  const foo = vectors.auth2Ack2IngressMacOfFooAtB;
  t.is(bytesToHex(b.ingressMac.clone().update(utf8('foo')).digest()).slice(2), foo);
  // A's egress MAC is B's ingress MAC.
  t.is(bytesToHex(a.egressMac.clone().update(utf8('foo')).digest()).slice(2), foo);
  t.is(bytesToHex(a.ingressMac.clone().update(utf8('foo')).digest()), bytesToHex(b.egressMac.clone().update(utf8('foo')).digest()));
  t.not(bytesToHex(a.ingressMac.clone().update(utf8('foo')).digest()).slice(2), foo);
});

test('our EIP-8 auth and ack round-trip and pass through a byte-at-a-time reader', (t) => {
  const auth = makeAuth({ localPrivateKey: keyA, remoteNodeId: idB, ephemeralPrivateKey: ephA, nonce: nonceA });
  const authPacket = encodeAuthPacket(auth, nodeIdFromPrivateKey(ephA), idB, 'eip8', randomness(11));
  t.is((authPacket[0] << 8) | authPacket[1], authPacket.length - 2);
  const q = new ByteQueue(1 << 20);
  let got: ReturnType<typeof takeHandshakePacket>;
  for (let i = 0; i < authPacket.length; i++) {
    t.is(takeHandshakePacket(q, 'auth', keyB), undefined);
    q.push(authPacket.subarray(i, i + 1));
  }
  q.push(Uint8Array.of(0xaa, 0xbb)); // the next frame's first bytes stay queued
  got = takeHandshakePacket(q, 'auth', keyB);
  t.truthy(got);
  t.is(q.length, 2);
  t.deepEqual(got!.packet, authPacket);
  const read = parseAuthBody(keyB, got!.body, 'eip8');
  t.deepEqual(read.initiatorNodeId, idA);
  t.deepEqual(read.initiatorNonce, nonceA);
  t.deepEqual(read.initiatorEphemeralId, nodeIdFromPrivateKey(ephA));

  const ack = makeAck({ ephemeralPrivateKey: ephB, nonce: nonceB });
  const ackPacket = encodeAckPacket(ack, idA, 'eip8', randomness(21, 100));
  const readAck = parseAckBody(readAll(ackPacket, 'ack', keyA).body, 'eip8');
  t.deepEqual(readAck.recipientEphemeralId, nodeIdFromPrivateKey(ephB));
  t.deepEqual(readAck.recipientNonce, nonceB);
});

test('our legacy auth has the layout of the EIP-8 legacy vector, and legacy packets round-trip', (t) => {
  const auth = makeAuth({ localPrivateKey: keyA, remoteNodeId: idB, ephemeralPrivateKey: ephA, nonce: nonceA });
  const packet = encodeAuthPacket(auth, nodeIdFromPrivateKey(ephA), idB, 'legacy', randomness(5));
  t.is(packet.length, LEGACY_AUTH_PACKET_BYTES);
  const ours = eciesDecrypt(keyB, packet);
  const theirs = eciesDecrypt(keyB, hexToBytes(vectors.auth1Legacy));
  // Everything but the signature (whose ECDSA nonce differs) is the same bytes.
  t.deepEqual(ours.subarray(65), theirs.subarray(65));
  const got = readAll(packet, 'auth', keyB);
  t.is(got.format, 'legacy');
  t.deepEqual(parseAuthBody(keyB, got.body, 'legacy').initiatorEphemeralId, nodeIdFromPrivateKey(ephA));
  const ackPacket = encodeAckPacket(makeAck({ ephemeralPrivateKey: ephB, nonce: nonceB }), idA, 'legacy', randomness(6));
  const ackGot = readAll(ackPacket, 'ack', keyA);
  t.is(ackGot.format, 'legacy');
  t.deepEqual(ackGot.body, eciesDecrypt(keyA, hexToBytes(vectors.ack1Legacy)));
});

test('hostile handshake packets are rejected with HandshakeError', (t) => {
  const q = new ByteQueue(1 << 20);
  q.push(Uint8Array.of(0x00, 0x10, 1, 2, 3));
  t.throws(() => takeHandshakePacket(q, 'auth', keyB), { instanceOf: HandshakeError });

  const auth2 = hexToBytes(vectors.auth2Eip8);
  const tampered = auth2.slice();
  tampered[100] ^= 0xff;
  t.throws(() => readAll(tampered, 'auth', keyB), { instanceOf: HandshakeError });
  t.throws(() => readAll(auth2, 'auth', keyA), { instanceOf: HandshakeError }, 'addressed to another key');

  // A well-encrypted EIP-8 auth whose body is not the expected list.
  const encryptBody = (body: Uint8Array) => {
    const size = body.length + 113;
    const prefix = Uint8Array.of(size >> 8, size & 0xff);
    return concatBytes(prefix, eciesEncrypt(idB, body, randomness(9).ecies, prefix));
  };
  const shortList = readAll(encryptBody(RLP.encode([new Uint8Array(65), idA, nonceA])), 'auth', keyB);
  t.throws(() => parseAuthBody(keyB, shortList.body, 'eip8'), { instanceOf: HandshakeError });
  const notRlp = readAll(encryptBody(Uint8Array.of(0xf9, 0xff)), 'auth', keyB);
  t.throws(() => parseAuthBody(keyB, notRlp.body, 'eip8'), { instanceOf: HandshakeError });
  const badV = makeAuth({ localPrivateKey: keyA, remoteNodeId: idB, ephemeralPrivateKey: ephA, nonce: nonceA });
  const sig = badV.signature.slice();
  sig[64] = 2;
  const badSig = readAll(encodeAuthPacket({ ...badV, signature: sig }, idA, idB, 'eip8', randomness(3)), 'auth', keyB);
  t.throws(() => parseAuthBody(keyB, badSig.body, 'eip8'), { instanceOf: HandshakeError });
  const badKey = readAll(encodeAuthPacket({ ...badV, initiatorNodeId: new Uint8Array(64).fill(1) }, idA, idB, 'eip8', randomness(3)), 'auth', keyB);
  t.throws(() => parseAuthBody(keyB, badKey.body, 'eip8'), { instanceOf: HandshakeError });
  const ackBad = readAll(encodeAckPacket({ recipientEphemeralId: new Uint8Array(64), recipientNonce: nonceB, version: 4 }, idA, 'eip8', randomness(4)), 'ack', keyA);
  t.throws(() => parseAckBody(ackBad.body, 'eip8'), { instanceOf: HandshakeError });
});
