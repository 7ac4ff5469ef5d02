import test from 'ava';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, hexToBytes, utf8ToBytes, type Hex } from '../crypto/bytes.ts';
import { decodeExtraData, encodeExtraData, encodeExtraDataFromAddresses, vanityFrom, type QbftExtraData } from './extra-data.ts';

const ZERO_VANITY = '00'.repeat(32);
const addr = (n: number): Hex => `0x${n.toString(16).padStart(40, '0')}`;

function roundTrips(t: any, hex: Hex): QbftExtraData {
  const decoded = decodeExtraData(hexToBytes(hex));
  t.is(bytesToHex(encodeExtraData(decoded)), hex);
  return decoded;
}

// besu: app/src/test/java/org/hyperledger/besu/cli/subcommands/rlp/RLPSubCommandTest.java
test('RLPSubCommandTest canEncodeToQbftExtraData', (t) => {
  const validators: Hex[] = ['0xbe068f726a13c8d46c44be6ce9d275600e1735a4', '0x5ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193'];
  const expected: Hex = `0xf84fa0${ZERO_VANITY}ea94be068f726a13c8d46c44be6ce9d275600e1735a4945ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193c080c0`;
  t.is(bytesToHex(encodeExtraDataFromAddresses(validators)), expected);
  t.deepEqual(roundTrips(t, expected).validators, validators);
});

test('RLPSubCommandTest decodeQBFTWithoutPathMustWriteToStandardOutput', (t) => {
  const hex: Hex = `0xf84fa0${ZERO_VANITY}ea94241f804efb46f71acaa5be94a62f7798e89c3724946cdf72da457453063ea92e7fa5ac30afbcec28cdc080c0`;
  const decoded = roundTrips(t, hex);
  t.deepEqual(decoded.validators, ['0x241f804efb46f71acaa5be94a62f7798e89c3724', '0x6cdf72da457453063ea92e7fa5ac30afbcec28cd']);
  t.is(decoded.vote, undefined);
  t.is(decoded.round, 0);
  t.deepEqual(decoded.seals, []);
});

// besu: consensus/qbft/src/test/java/org/hyperledger/besu/consensus/qbft/QbftExtraDataCodecTest.java
const RAW_HEX_ENCODING_STRING: Hex = `0x${
  'f8f0a00102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20ea940000000000000000' +
  '000000000000000000000001940000000000000000000000000000000000000002d7940000000000000000' +
  '00000000000000000000000181ff83fedcbaf886b841000000000000000000000000000000000000000000' +
  '0000000000000000000001000000000000000000000000000000000000000000000000000000000000000a' +
  '00b841000000000000000000000000000000000000000000000000000000000000000a0000000000000000' +
  '00000000000000000000000000000000000000000000000100'
}`;

function seal(r: number, s: number, v: number): Uint8Array {
  const out = new Uint8Array(65);
  out[31] = r;
  out[63] = s;
  out[64] = v;
  return out;
}

test('QbftExtraDataCodecTest RAW_HEX_ENCODING_STRING', (t) => {
  const expected: QbftExtraData = {
    vanity: Uint8Array.from({ length: 32 }, (_, i) => i + 1),
    validators: [addr(1), addr(2)],
    vote: { recipient: addr(1), add: true },
    round: 0xfedcba,
    seals: [seal(1, 10, 0), seal(10, 1, 0)],
  };
  t.deepEqual(roundTrips(t, RAW_HEX_ENCODING_STRING), expected);
  t.is(bytesToHex(encodeExtraData(expected)), RAW_HEX_ENCODING_STRING);
});

// besu-docs: docs/private-networks/how-to/configure/consensus/qbft.md
test('docs genesis extraData (4 validators) and contract-mode genesis', (t) => {
  const validators: Hex[] = [
    '0x64a702e6263b7297a96638cac6ae65e6541f4169',
    '0x3923390ad55e90c237593b3b0e401f3b08a03185',
    '0xaefdb9a738c9f433e5b6b212a6d62f6370c2f692',
    '0xc7eeb9a4e00ce683cf93039b212648e01c6c6b78',
  ];
  const docs: Hex = `0xf87aa0${ZERO_VANITY}f854${validators.map((v) => '94' + v.slice(2)).join('')}c080c0`;
  t.deepEqual(roundTrips(t, docs).validators, validators);
  t.is(bytesToHex(encodeExtraDataFromAddresses(validators)), docs);

  const contractMode: Hex = `0xe5a0${ZERO_VANITY}c0c080c0`;
  t.deepEqual(roundTrips(t, contractMode).validators, []);
  t.is(bytesToHex(encodeExtraDataFromAddresses([])), contractMode);
});

const rawExtra = (vote: unknown, round: Uint8Array, tail: unknown[] = []) =>
  RLP.encode([new Uint8Array(32), [], vote as Uint8Array[], round, [], ...(tail as Uint8Array[])]);

test('round scalar: minimal encodings accepted, leading zero and oversize rejected', (t) => {
  t.is(decodeExtraData(rawExtra([], hexToBytes('0xdcba'))).round, 0xdcba);
  t.throws(() => decodeExtraData(rawExtra([], hexToBytes('0x00dcba'))), { message: /leading zero/ });
  t.throws(() => decodeExtraData(rawExtra([], hexToBytes('0x0100000000'))), { message: /4 bytes/ });
  t.throws(() => decodeExtraData(rawExtra([], hexToBytes('0x80000000'))), { message: /out of range/ });
});

test('votes: DROP written as 0x80, read from 0x80 or 0x00; ADD is 0xff; anything else rejected', (t) => {
  const recipient = hexToBytes(addr(1));
  const drop = encodeExtraData({ vanity: new Uint8Array(32), validators: [], vote: { recipient: addr(1), add: false }, round: 0, seals: [] });
  t.is(bytesToHex(drop), bytesToHex(rawExtra([recipient, new Uint8Array()], new Uint8Array())));
  t.deepEqual(decodeExtraData(drop).vote, { recipient: addr(1), add: false });
  const dropZero = rawExtra([recipient, Uint8Array.of(0)], new Uint8Array());
  t.deepEqual(decodeExtraData(dropZero).vote, { recipient: addr(1), add: false });
  t.deepEqual(decodeExtraData(rawExtra([recipient, Uint8Array.of(0xff)], new Uint8Array())).vote, { recipient: addr(1), add: true });
  t.throws(() => decodeExtraData(rawExtra([recipient, Uint8Array.of(1)], new Uint8Array())), { message: /invalid vote type/ });
  t.throws(() => decodeExtraData(rawExtra([recipient], new Uint8Array())), { message: /vote must have 2 items/ });
  t.throws(() => decodeExtraData(rawExtra(recipient, new Uint8Array())), { message: /vote must be a list/ });
});

test('trailing items in the extraData list are tolerated (leaveListLenient)', (t) => {
  const decoded = decodeExtraData(rawExtra([], Uint8Array.of(5), [Uint8Array.of(1), []]));
  t.is(decoded.round, 5);
  t.deepEqual(decoded.validators, []);
});

test('malformed extraData is rejected with a clear message', (t) => {
  t.throws(() => decodeExtraData(new Uint8Array()), { message: /extraData/ });
  t.throws(() => decodeExtraData(hexToBytes('0xdeadbeef')), { message: /invalid RLP/ });
  t.throws(() => decodeExtraData(utf8ToBytes('besu 26.1.0')), { message: /extraData/ });
  t.throws(() => decodeExtraData(RLP.encode([new Uint8Array(32), [], [], new Uint8Array()])), { message: /5 items/ });
  t.throws(() => decodeExtraData(RLP.encode([new Uint8Array(32), [new Uint8Array(19)], [], new Uint8Array(), []])), { message: /20 bytes/ });
  t.throws(() => decodeExtraData(RLP.encode([new Uint8Array(32), [], [], new Uint8Array(), [new Uint8Array(64)]])), { message: /65 bytes/ });
});

test('vanityFrom zero-left-pads and truncates to 32 bytes', (t) => {
  const text = utf8ToBytes('besu 26.1.0');
  const padded = vanityFrom(text);
  t.is(padded.length, 32);
  t.deepEqual(padded.subarray(32 - text.length), text);
  t.true(padded.subarray(0, 32 - text.length).every((b) => b === 0));
  const long = Uint8Array.from({ length: 40 }, (_, i) => i);
  t.deepEqual(vanityFrom(long), long.subarray(0, 32));
  t.deepEqual(vanityFrom(new Uint8Array()), new Uint8Array(32));
});
