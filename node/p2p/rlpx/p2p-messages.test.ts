import test from 'ava';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, hexToBytes } from '../../crypto/bytes.ts';
import { WireFormatError } from '../rlp-shape.ts';
import { describeDisconnectReason, DisconnectReason } from './disconnect-reasons.ts';
import { decodeDisconnect, decodeFrameData, decodeHello, encodeDisconnect, encodeFrameData, encodeHello, type Hello } from './p2p-messages.ts';
import vectors from './testdata/eip8-vectors.json' with { type: 'json' };

const hello: Hello = {
  protocolVersion: 5,
  clientId: 'qbft-lab/v0.1.0',
  capabilities: [
    { name: 'eth', version: 68 },
    { name: 'istanbul', version: 100 },
  ],
  listenPort: 30303,
  nodeId: new Uint8Array(64).fill(0xab),
};

test('Hello round-trips with the spec layout', (t) => {
  const encoded = encodeHello(hello);
  t.deepEqual(decodeHello(encoded), hello);
  const raw = RLP.decode(encoded) as unknown as [Uint8Array, Uint8Array, Uint8Array[][], Uint8Array, Uint8Array];
  t.deepEqual(raw[0], Uint8Array.of(5));
  t.deepEqual(raw[2][1], [new TextEncoder().encode('istanbul'), Uint8Array.of(100)]);
  t.deepEqual(raw[3], Uint8Array.of(0x76, 0x5f));
});

test('decodes the EIP-8 Hello vector with a newer version and extra list elements', (t) => {
  const h = decodeHello(hexToBytes(vectors.helloNewerVersionWithExtraElements));
  t.is(h.protocolVersion, 0x37);
  t.is(h.clientId, 'kneth/v0.91/plan9');
  t.deepEqual(h.capabilities, [
    { name: 'eth', version: 61 },
    { name: 'mork', version: 22 },
  ]);
  t.is(h.listenPort, 9999);
  t.is(h.nodeId.length, 64);
});

test('malformed Hellos throw WireFormatError', (t) => {
  const bad = [
    RLP.encode([Uint8Array.of(5), new Uint8Array(0), [], Uint8Array.of(1)]), // 4 items
    RLP.encode([Uint8Array.of(5), [], [], Uint8Array.of(1), new Uint8Array(64)]), // client id a list
    RLP.encode([Uint8Array.of(5), new Uint8Array(0), [[Uint8Array.of(1)]], Uint8Array.of(1), new Uint8Array(64)]), // capability of 1 item
    RLP.encode([Uint8Array.of(0, 5), new Uint8Array(0), [], Uint8Array.of(1), new Uint8Array(64)]), // leading zero
    Uint8Array.of(0xf8),
    new Uint8Array(0),
  ];
  for (const b of bad) t.throws(() => decodeHello(b), { instanceOf: WireFormatError }, bytesToHex(b));
});

test('Disconnect encodes [reason] and decodes every form clients send', (t) => {
  t.deepEqual(encodeDisconnect(DisconnectReason.BREACH_OF_PROTOCOL), Uint8Array.of(0xc1, 0x02));
  t.deepEqual(encodeDisconnect(DisconnectReason.REQUESTED), Uint8Array.of(0xc1, 0x80));
  t.is(decodeDisconnect(Uint8Array.of(0xc1, 0x0b)), 0x0b);
  t.is(decodeDisconnect(Uint8Array.of(0xc1, 0x80)), 0);
  t.is(decodeDisconnect(Uint8Array.of(0x04)), 4);
  t.is(decodeDisconnect(Uint8Array.of(0xc0)), undefined);
  t.is(decodeDisconnect(new Uint8Array(0)), undefined);
  t.is(decodeDisconnect(Uint8Array.of(0xf8)), undefined);
  t.is(describeDisconnectReason(0x0a), 'identity is the same as this node (0x0a)');
  t.is(describeDisconnectReason(0x0c), 'unknown reason (0x0c)');
});

test('frame data is RLP(message id) || data, with 0 as 0x80 and 0x00 accepted', (t) => {
  t.deepEqual(encodeFrameData(0, Uint8Array.of(0xc0)), Uint8Array.of(0x80, 0xc0));
  t.deepEqual(encodeFrameData(0x21, Uint8Array.of(1)), Uint8Array.of(0x21, 1));
  t.deepEqual(encodeFrameData(0x80, new Uint8Array(0)), Uint8Array.of(0x81, 0x80));
  t.deepEqual(decodeFrameData(Uint8Array.of(0x80, 7)), { messageId: 0, data: Uint8Array.of(7) });
  t.deepEqual(decodeFrameData(Uint8Array.of(0x00, 7)), { messageId: 0, data: Uint8Array.of(7) });
  t.deepEqual(decodeFrameData(Uint8Array.of(0x81, 0x90)), { messageId: 0x90, data: new Uint8Array(0) });
  for (const b of [Uint8Array.of(), Uint8Array.of(0x81, 0x05), Uint8Array.of(0x82, 0, 1), Uint8Array.of(0xc0), Uint8Array.of(0x82, 1)])
    t.throws(() => decodeFrameData(b), { instanceOf: WireFormatError });
});
