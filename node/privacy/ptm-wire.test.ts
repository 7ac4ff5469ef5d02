/**
 * ptm messages decode only in shape and within bounds: every field of a payload message has its
 * exact size or its ceiling, and a message over the size limit is refused before it is decoded.
 */
import test from 'ava';
import { RLP } from '@ethereumjs/rlp';
import { decodePtmMessage, encodeGroup, encodePtmMessage, MAX_PTM_PAYLOAD_BYTES, PTM_CODE } from './ptm-wire.ts';
import type { PrivacyGroup, PtmMessage } from './private-tx-manager.ts';

const key = (n: number) => Buffer.alloc(32, n).toString('base64');
const group: PrivacyGroup = { privacyGroupId: key(1), type: 'PANTHEON', name: 'g', description: '', members: [key(2), key(3)], seed: key(4) };
const envelope = { cipherText: new Uint8Array(40), cipherNonce: new Uint8Array(24), recipientNonce: new Uint8Array(24), box: new Uint8Array(48) };
const payload: PtmMessage = { kind: 'payload', key: key(5), senderKey: key(2), group, envelope };

const payloadWith = (fields: Partial<typeof envelope>) => {
  const e = { ...envelope, ...fields };
  return RLP.encode([Buffer.alloc(32, 5), Buffer.alloc(32, 2), encodeGroup(group), e.cipherText, e.cipherNonce, e.recipientNonce, e.box] as never);
};

test('messages round-trip', (t) => {
  for (const m of [payload, { kind: 'group', group }, { kind: 'delete-group', privacyGroupId: key(1) }, { kind: 'hello', publicKey: key(2), challenge: new Uint8Array(32).fill(1) }, { kind: 'proof', mac: new Uint8Array(32).fill(2) }] as const) {
    const { code, data } = encodePtmMessage(m);
    t.deepEqual(decodePtmMessage(code, data), m);
  }
});

test('a payload message with a field of the wrong size, or too large, is refused', (t) => {
  t.truthy(decodePtmMessage(PTM_CODE.payload, payloadWith({})));
  t.is(decodePtmMessage(PTM_CODE.payload, payloadWith({ cipherNonce: new Uint8Array(23) })), undefined);
  t.is(decodePtmMessage(PTM_CODE.payload, payloadWith({ recipientNonce: new Uint8Array(25) })), undefined);
  t.is(decodePtmMessage(PTM_CODE.payload, payloadWith({ box: new Uint8Array(49) })), undefined);
  t.is(decodePtmMessage(PTM_CODE.payload, payloadWith({ cipherText: new Uint8Array(MAX_PTM_PAYLOAD_BYTES + 17) })), undefined, 'ciphertext over the ceiling');
  t.is(decodePtmMessage(PTM_CODE.hello, RLP.encode([Buffer.alloc(32), Buffer.alloc(31)])), undefined, 'a short challenge');
  t.is(decodePtmMessage(PTM_CODE.proof, RLP.encode([Buffer.alloc(33)])), undefined, 'a long proof');
  t.is(decodePtmMessage(PTM_CODE.payload, RLP.encode(Array.from({ length: 8 }, () => Buffer.alloc(1)))), undefined, 'too many items');
  t.is(decodePtmMessage(PTM_CODE.payload, new Uint8Array(MAX_PTM_PAYLOAD_BYTES + 128 * 1024)), undefined, 'over the message size limit');
});
