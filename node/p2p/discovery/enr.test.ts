import test from 'ava';
import { RLP } from '@ethereumjs/rlp';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes } from '../../crypto/bytes.ts';
import { nodeIdFromPrivateKey } from '../rlpx/node-identity.ts';
import { decodeEnr, encodeEnr, enrFromText, enrToText, MAX_ENR_BYTES } from './enr.ts';
import vector from './testdata/eip778-enr-vector.json' with { type: 'json' };

const vectorKey = hexToBytes(vector.privateKey);

test('EIP-778 vector: signing the example content reproduces the example record', (t) => {
  const encoded = encodeEnr({ privateKey: vectorKey, seq: BigInt(vector.seq), ip: vector.ip, udpPort: vector.udpPort });
  t.is(enrToText(encoded), vector.text);
  const items = RLP.decode(encoded) as Uint8Array[];
  t.is(bytesToHex(items[0]!).slice(2), vector.signature);
  t.is(bytesToHex(items[7]!).slice(2), vector.secp256k1);
});

test('EIP-778 vector: the example record decodes and verifies', (t) => {
  const d = decodeEnr(enrFromText(vector.text));
  if (typeof d === 'string') return t.fail(d);
  t.is(d.seq, 1n);
  t.is(d.ip, '127.0.0.1');
  t.is(d.udpPort, 30303);
  t.is(d.tcpPort, undefined);
  t.deepEqual(d.nodeId, nodeIdFromPrivateKey(vectorKey));
  // the EIP's "node ID" is keccak256 of the 64-byte public key
  t.is(bytesToHex(keccak_256(d.nodeId)).slice(2), vector.nodeAddress);
});

test('records with a bad signature, unsorted keys, wrong scheme or excess size are rejected', (t) => {
  const items = RLP.decode(enrFromText(vector.text)) as Uint8Array[];
  const badSig = items.slice();
  badSig[0] = items[0]!.slice();
  badSig[0][5] ^= 1;
  t.regex(String(decodeEnr(RLP.encode(badSig))), /does not verify/);

  const otherSeq = items.slice();
  otherSeq[1] = Uint8Array.of(2);
  t.regex(String(decodeEnr(RLP.encode(otherSeq))), /does not verify/);

  const unsorted = [items[0]!, items[1]!, items[4]!, items[5]!, items[2]!, items[3]!, ...items.slice(6)];
  t.regex(String(decodeEnr(RLP.encode(unsorted))), /not sorted/);

  const v5 = items.slice();
  v5[3] = new TextEncoder().encode('v5');
  t.regex(String(decodeEnr(RLP.encode(v5))), /not v4/);

  t.regex(String(decodeEnr(new Uint8Array(MAX_ENR_BYTES + 1))), /over 300/);
  t.regex(String(decodeEnr(Uint8Array.of(0xf8))), /not valid RLP/);
  t.regex(String(decodeEnr(RLP.encode(new Uint8Array(3)))), /not a list/);
});

test('a local record with IPv6 address and both ports round-trips', (t) => {
  const key = new Uint8Array(32).fill(3);
  const d = decodeEnr(encodeEnr({ privateKey: key, seq: 1_700_000_000_000n, ip: '2001:db8::7', tcpPort: 30303, udpPort: 30301 }));
  if (typeof d === 'string') return t.fail(d);
  t.like(d, { seq: 1_700_000_000_000n, ip: '2001:db8::7', tcpPort: 30303, udpPort: 30301 });
  t.true(d.pairs.has('ip6'));
  t.false(d.pairs.has('ip'));
});
