import test from 'ava';
import { RLP } from '@ethereumjs/rlp';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, concatBytes, hexToBytes } from '../../crypto/bytes.ts';
import { nodeIdFromPrivateKey } from '../rlpx/node-identity.ts';
import { encodeEnr } from './enr.ts';
import {
  decodePacket,
  encodeNeighbours,
  encodePacket,
  MAX_PACKET_BYTES,
  type DecodedPacket,
  type NeighbourNode,
} from './packets.ts';
import vectors from './testdata/eip8-discv4-vectors.json' with { type: 'json' };

const vectorKey = hexToBytes(vectors.privateKey);
const vectorId = nodeIdFromPrivateKey(vectorKey);
const VECTOR_EXPIRATION = 0x43b9a355;

const key = new Uint8Array(32).fill(7);
const id = nodeIdFromPrivateKey(key);
const NOW = 1_700_000_000;

function decodeOk(bytes: Uint8Array, nowSeconds = NOW): DecodedPacket {
  const r = decodePacket(bytes, nowSeconds);
  if (!r.ok) throw new Error(`expected a valid packet, got: ${r.reason}`);
  return r.packet;
}

function reasonOf(bytes: Uint8Array, nowSeconds = NOW): string {
  const r = decodePacket(bytes, nowSeconds);
  if (r.ok) throw new Error('expected the packet to be rejected');
  return r.reason;
}

/** Recomputes only the outer hash after a change to the signed part (the signature stays). */
function withFixedHash(bytes: Uint8Array): Uint8Array {
  const out = bytes.slice();
  out.set(keccak_256(out.subarray(32)), 0);
  return out;
}

// ---- EIP-8 test vectors -------------------------------------------------------------------------

test('EIP-8 vector: ping version 4 with additional list elements', (t) => {
  const p = decodeOk(hexToBytes(vectors.pingVersion4), 0);
  t.deepEqual(p.senderId, vectorId);
  t.deepEqual(p.message, {
    type: 'ping',
    version: 4,
    from: { ip: '127.0.0.1', udpPort: 3322, tcpPort: 5544 },
    to: { ip: '::1', udpPort: 2222, tcpPort: 3333 },
    expiration: VECTOR_EXPIRATION,
    // the first additional element (0x01) sits where EIP-868 later put enr-seq
    enrSeq: 1n,
  });
  t.is(bytesToHex(p.hash), `0x${vectors.pingVersion4.slice(0, 64)}`);
});

test('EIP-8 vector: ping version 555 with additional elements and trailing data', (t) => {
  const p = decodeOk(hexToBytes(vectors.pingVersion555), 0);
  t.deepEqual(p.senderId, vectorId);
  t.deepEqual(p.message, {
    type: 'ping',
    version: 555,
    from: { ip: '2001:db8:3c4d:15::abcd:ef12', udpPort: 3322, tcpPort: 5544 },
    to: { ip: '2001:db8:85a3:8d3:1319:8a2e:370:7348', udpPort: 2222, tcpPort: 33338 },
    expiration: VECTOR_EXPIRATION,
  });
});

test('EIP-8 vector: pong with additional elements and trailing data', (t) => {
  const p = decodeOk(hexToBytes(vectors.pong), 0);
  t.deepEqual(p.senderId, vectorId);
  t.deepEqual(p.message, {
    type: 'pong',
    to: { ip: '2001:db8:85a3:8d3:1319:8a2e:370:7348', udpPort: 2222, tcpPort: 33338 },
    pingHash: hexToBytes('fbc914b16819237dcd8801d7e53f69e9719adecb3cc0e790c57e91ca4461c954'),
    expiration: VECTOR_EXPIRATION,
  });
});

test('EIP-8 vector: findnode with additional elements and trailing data', (t) => {
  const p = decodeOk(hexToBytes(vectors.findNode), 0);
  t.deepEqual(p.senderId, vectorId);
  t.deepEqual(p.message, { type: 'findNode', target: vectorId, expiration: VECTOR_EXPIRATION });
});

test('EIP-8 vector: neighbours with additional elements and trailing data', (t) => {
  const p = decodeOk(hexToBytes(vectors.neighbours), 0);
  t.deepEqual(p.senderId, vectorId);
  t.is(p.message.type, 'neighbours');
  if (p.message.type !== 'neighbours') return;
  t.is(p.message.expiration, VECTOR_EXPIRATION);
  t.deepEqual(
    p.message.nodes.map((n) => [n.ip, n.udpPort, n.tcpPort, bytesToHex(n.nodeId).slice(2, 18)]),
    [
      ['99.33.22.55', 4444, 4445, '3155e1427f85f10a'],
      ['1.2.3.4', 1, 1, '312c55512422cf9b'],
      ['2001:db8:3c4d:15::abcd:ef12', 3333, 3333, '38643200b172dcfe'],
      ['2001:db8:85a3:8d3:1319:8a2e:370:7348', 999, 1000, '8dcab8618c3253b5'],
    ],
  );
});

test('EIP-8 vectors are rejected as expired against the current time', (t) => {
  for (const name of ['pingVersion4', 'pingVersion555', 'pong', 'findNode', 'neighbours'] as const) {
    t.regex(reasonOf(hexToBytes(vectors[name]), VECTOR_EXPIRATION + 1), /expired/, name);
  }
  // expiration equal to now is still valid
  t.true(decodePacket(hexToBytes(vectors.findNode), VECTOR_EXPIRATION).ok);
});

// ---- round trips --------------------------------------------------------------------------------

test('ping, pong, findnode, neighbours, enrRequest and enrResponse round-trip', (t) => {
  const exp = NOW + 60;
  const ping = { type: 'ping', version: 4, from: { ip: '10.0.0.1', udpPort: 30303, tcpPort: 30304 }, to: { ip: 'fe80::1', udpPort: 1, tcpPort: 0 }, expiration: exp, enrSeq: 9n } as const;
  const encodedPing = encodePacket(ping, key);
  const decodedPing = decodeOk(encodedPing.bytes);
  t.deepEqual(decodedPing.message, ping);
  t.deepEqual(decodedPing.senderId, id);
  t.deepEqual(decodedPing.hash, encodedPing.hash);

  const pong = { type: 'pong', to: { ip: '127.0.0.1', udpPort: 30303, tcpPort: 0 }, pingHash: encodedPing.hash, expiration: exp, enrSeq: 1n } as const;
  t.deepEqual(decodeOk(encodePacket(pong, key).bytes).message, pong);
  const pongNoSeq = { type: 'pong', to: { ip: '127.0.0.1', udpPort: 30303, tcpPort: 0 }, pingHash: encodedPing.hash, expiration: exp } as const;
  t.deepEqual(decodeOk(encodePacket(pongNoSeq, key).bytes).message, pongNoSeq);

  const findNode = { type: 'findNode', target: id, expiration: exp } as const;
  t.deepEqual(decodeOk(encodePacket(findNode, key).bytes).message, findNode);

  const nodes: NeighbourNode[] = [
    { ip: '1.2.3.4', udpPort: 30303, tcpPort: 30303, nodeId: id },
    { ip: '2001:db8::1', udpPort: 1, tcpPort: 65535, nodeId: vectorId },
  ];
  const neighbours = { type: 'neighbours', nodes, expiration: exp } as const;
  t.deepEqual(decodeOk(encodePacket(neighbours, key).bytes).message, neighbours);

  const enrRequest = { type: 'enrRequest', expiration: exp } as const;
  const encodedRequest = encodePacket(enrRequest, key);
  t.deepEqual(decodeOk(encodedRequest.bytes).message, enrRequest);

  const enr = encodeEnr({ privateKey: key, seq: 5n, ip: '10.0.0.1', tcpPort: 30303, udpPort: 30301 });
  const response = decodeOk(encodePacket({ type: 'enrResponse', requestHash: encodedRequest.hash, enr }, key).bytes).message;
  t.is(response.type, 'enrResponse');
  if (response.type !== 'enrResponse') return;
  t.deepEqual(response.requestHash, encodedRequest.hash);
  t.like(response.enr, { seq: 5n, ip: '10.0.0.1', tcpPort: 30303, udpPort: 30301 });
  t.deepEqual(response.enr.nodeId, id);
  t.deepEqual(response.enr.encoded, enr);
});

test('ENRResponse whose record another key signed is rejected', (t) => {
  const otherEnr = encodeEnr({ privateKey: vectorKey, seq: 1n, ip: '127.0.0.1' });
  const bytes = encodePacket({ type: 'enrResponse', requestHash: new Uint8Array(32), enr: otherEnr }, key).bytes;
  t.regex(reasonOf(bytes), /not signed by the packet sender/);
});

test('endpoints with an empty ip or missing tcp port decode leniently; malformed ones are dropped from Ping', (t) => {
  // Besu writes an RLP null for an unknown host; DPT sends empty ports.
  const data = RLP.encode([
    Uint8Array.of(4),
    [new Uint8Array(0), new Uint8Array(0), new Uint8Array(0)],
    [hexToBytes('7f000001'), Uint8Array.of(0x75, 0x5f)],
    hexToBytes('6a000000'),
  ]);
  const bytes = signRaw(1, data);
  t.deepEqual(decodeOk(bytes).message, { type: 'ping', version: 4, from: { udpPort: 0, tcpPort: 0 }, to: { ip: '127.0.0.1', udpPort: 30047, tcpPort: 0 }, expiration: 0x6a000000 });

  const badFrom = signRaw(1, RLP.encode([Uint8Array.of(4), [Uint8Array.of(1, 2, 3), Uint8Array.of(1), Uint8Array.of(1)], [hexToBytes('7f000001'), Uint8Array.of(1), Uint8Array.of(1)], hexToBytes('6a000000')]));
  const m = decodeOk(badFrom).message;
  t.is(m.type, 'ping');
  t.false('from' in m);
});

/** A correctly hashed and signed packet of any type and data, for shapes encodePacket refuses. */
function signRaw(type: number, data: Uint8Array): Uint8Array {
  const typeAndData = concatBytes(Uint8Array.of(type), data);
  const rec = secp256k1.sign(keccak_256(typeAndData), key, { prehash: false, format: 'recovered' });
  const signed = concatBytes(rec.subarray(1), rec.subarray(0, 1), typeAndData);
  return concatBytes(keccak_256(signed), signed);
}

// ---- rejection ----------------------------------------------------------------------------------

test('a tampered hash is rejected', (t) => {
  const bytes = encodePacket({ type: 'findNode', target: id, expiration: NOW + 60 }, key).bytes;
  const tampered = bytes.slice();
  tampered[0] ^= 1;
  t.is(reasonOf(tampered), 'hash mismatch');
  const tamperedBody = bytes.slice();
  tamperedBody[bytes.length - 1] ^= 1;
  t.is(reasonOf(tamperedBody), 'hash mismatch');
});

test('a tampered signature or payload with a recomputed hash is not attributed to the signer', (t) => {
  const bytes = encodePacket({ type: 'findNode', target: id, expiration: NOW + 60 }, key).bytes;
  const badSig = bytes.slice();
  badSig[40] ^= 1;
  const r1 = decodePacket(withFixedHash(badSig), NOW);
  t.true(!r1.ok || bytesToHex(r1.packet.senderId) !== bytesToHex(id));

  const badPayload = bytes.slice();
  badPayload[110] ^= 1; // inside the target
  const r2 = decodePacket(withFixedHash(badPayload), NOW);
  t.true(r2.ok);
  if (r2.ok) t.not(bytesToHex(r2.packet.senderId), bytesToHex(id));

  const zeroSig = bytes.slice();
  zeroSig.fill(0, 32, 96);
  t.regex(reasonOf(withFixedHash(zeroSig)), /signature/);

  const badRecovery = bytes.slice();
  badRecovery[96] = 27;
  t.regex(reasonOf(withFixedHash(badRecovery)), /recovery id/);
});

test('oversize, short, unknown-type and malformed packets are rejected without throwing', (t) => {
  const big = new Uint8Array(MAX_PACKET_BYTES + 1);
  t.regex(reasonOf(big), /over 1280/);
  t.regex(reasonOf(new Uint8Array(97)), /shorter than a header/);
  t.regex(reasonOf(new Uint8Array(0)), /shorter than a header/);

  t.regex(reasonOf(signRaw(7, RLP.encode([hexToBytes('6a000000')]))), /unknown packet type 7/);
  t.regex(reasonOf(signRaw(0, RLP.encode([hexToBytes('6a000000')]))), /unknown packet type 0/);
  t.regex(reasonOf(signRaw(3, Uint8Array.of(0xf8))), /invalid RLP/);
  t.regex(reasonOf(signRaw(3, new Uint8Array(0))), /not a list/);
  t.regex(reasonOf(signRaw(3, RLP.encode([new Uint8Array(63), hexToBytes('6a000000')]))), /target is 63 bytes/);
  t.regex(reasonOf(signRaw(3, RLP.encode([id]))), /at least 2/);
  t.regex(reasonOf(signRaw(2, RLP.encode([[], new Uint8Array(31), hexToBytes('6a000000')]))), /ping-hash is 31 bytes/);
  t.regex(reasonOf(signRaw(4, RLP.encode([new Uint8Array(3), hexToBytes('6a000000')]))), /nodes is not a list/);
  t.regex(reasonOf(signRaw(5, RLP.encode([new Uint8Array(9)]))), /wider than 8 bytes/);

  // random garbage of every length never throws
  for (let len = 0; len < 300; len += 7) {
    const junk = new Uint8Array(len).map((_, i) => (i * 131 + len) & 0xff);
    t.false(decodePacket(junk, NOW).ok);
    t.false(decodePacket(withFixedHash(concatBytes(junk, new Uint8Array(98))), NOW).ok);
  }
});

test('malformed entries of a Neighbours packet are skipped, the rest kept', (t) => {
  const good = [hexToBytes('01020304'), Uint8Array.of(1), Uint8Array.of(2), id];
  const data = RLP.encode([[good, [hexToBytes('010203'), Uint8Array.of(1), Uint8Array.of(2), id], [hexToBytes('01020304'), Uint8Array.of(1), Uint8Array.of(2), id.subarray(1)], hexToBytes('01')], hexToBytes('6a000000')]);
  const m = decodeOk(signRaw(4, data)).message;
  t.deepEqual(m, { type: 'neighbours', nodes: [{ ip: '1.2.3.4', udpPort: 1, tcpPort: 2, nodeId: id }], expiration: 0x6a000000 });
});

// ---- Neighbours splitting -----------------------------------------------------------------------

test('16 IPv6 neighbours are split into packets of at most 1280 bytes that together carry all of them', (t) => {
  const nodes: NeighbourNode[] = Array.from({ length: 16 }, (_, i) => ({
    ip: `2001:db8:ffff:ffff:ffff:ffff:ffff:${(0xff00 + i).toString(16)}`,
    udpPort: 65535,
    tcpPort: 65534,
    nodeId: nodeIdFromPrivateKey(new Uint8Array(32).fill(i + 1)),
  }));
  const packets = encodeNeighbours(nodes, NOW + 60, key);
  t.true(packets.length >= 2);
  const received: NeighbourNode[] = [];
  for (const p of packets) {
    t.true(p.bytes.length <= MAX_PACKET_BYTES, `${p.bytes.length} bytes`);
    const m = decodeOk(p.bytes).message;
    if (m.type === 'neighbours') received.push(...m.nodes);
  }
  t.deepEqual(received, nodes);
  // the split is greedy: the first packet could not take one more node
  const first = decodeOk(packets[0]!.bytes).message;
  if (first.type === 'neighbours') {
    t.throws(() => encodePacket({ type: 'neighbours', nodes: nodes.slice(0, first.nodes.length + 1), expiration: NOW + 60 }, key), { message: /over 1280/ });
  }
});

test('an empty neighbour list still gives one packet; more than 16 is refused', (t) => {
  const packets = encodeNeighbours([], NOW + 60, key);
  t.is(packets.length, 1);
  t.deepEqual(decodeOk(packets[0]!.bytes).message, { type: 'neighbours', nodes: [], expiration: NOW + 60 });
  const n = { ip: '1.2.3.4', udpPort: 1, tcpPort: 1, nodeId: id };
  t.throws(() => encodeNeighbours(new Array(17).fill(n), NOW, key), { message: /at most 16/ });
});
