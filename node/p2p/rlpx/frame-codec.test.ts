import test from 'ava';
import { MAC as EthereumjsMac } from '@ethereumjs/devp2p';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { createDecipheriv } from 'node:crypto';
import { hexToBytes } from '../../crypto/bytes.ts';
import { DEFAULT_MAX_FRAME_BYTES, FrameDecoder, FrameEncoder, FrameTooLargeError, FramingError, MAX_FRAME_SIZE_FIELD } from './frame-codec.ts';
import { FrameMac } from './frame-mac.ts';
import { nodeIdFromPrivateKey } from './node-identity.ts';
import { deriveSessionSecrets, type SessionSecrets } from './session-secrets.ts';
import vectors from './testdata/eip8-vectors.json' with { type: 'json' };

function vectorSessions(): { a: SessionSecrets; b: SessionSecrets } {
  const common = {
    initiatorNonce: hexToBytes(vectors.nonceA),
    recipientNonce: hexToBytes(vectors.nonceB),
    authPacket: hexToBytes(vectors.auth2Eip8),
    ackPacket: hexToBytes(vectors.ack2Eip8),
  };
  const ephA = hexToBytes(vectors.ephemeralKeyA);
  const ephB = hexToBytes(vectors.ephemeralKeyB);
  return {
    a: deriveSessionSecrets({ ...common, role: 'initiator', ephemeralPrivateKey: ephA, remoteEphemeralId: nodeIdFromPrivateKey(ephB) }),
    b: deriveSessionSecrets({ ...common, role: 'recipient', ephemeralPrivateKey: ephB, remoteEphemeralId: nodeIdFromPrivateKey(ephA) }),
  };
}

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

function payload(n: number, seed: number): Uint8Array {
  return new Uint8Array(n).map((_, i) => (i * 31 + seed) & 0xff);
}

test('frames round-trip both ways through arbitrary TCP chunking', (t) => {
  const { a, b } = vectorSessions();
  const sizes = [1, 15, 16, 17, 31, 32, 33, 1000, 70_000, 3];
  for (const [from, to] of [
    [a, b],
    [b, a],
  ]) {
    const enc = new FrameEncoder(from);
    const dec = new FrameDecoder(to);
    const wire = sizes.map((n, i) => enc.encode(payload(n, i)));
    const stream = new Uint8Array(wire.reduce((n, w) => n + w.length, 0));
    let o = 0;
    for (const w of wire) stream.set(w, (o += w.length) - w.length);
    const rand = lcg(sizes.length);
    const got: Uint8Array[] = [];
    for (let i = 0; i < stream.length; ) {
      const n = 1 + Math.floor(rand() * 5000);
      got.push(...dec.push(stream.subarray(i, i + n)));
      i += n;
    }
    t.deepEqual(
      got.map((f) => f.length),
      sizes,
    );
    got.forEach((f, i) => t.deepEqual(f, payload(sizes[i], i)));
    t.is(dec.bufferedBytes, 0);
  }
});

test('a frame is header || header-mac || padded body || frame-mac with frame-size and [0, 0] in the header', (t) => {
  const { a } = vectorSessions();
  const enc = new FrameEncoder(a);
  const wire = enc.encode(payload(20, 1));
  t.is(wire.length, 16 + 16 + 32 + 16);
  const plain = new Uint8Array(createDecipheriv('aes-256-ctr', a.aesSecret, new Uint8Array(16)).update(wire.subarray(0, 16)));
  t.deepEqual(plain, Uint8Array.of(0, 0, 20, 0xc2, 0x80, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
});

test('the MAC matches @ethereumjs/devp2p\'s independent implementation', (t) => {
  const secret = new Uint8Array(32).fill(0x5a);
  const init = payload(50, 9);
  const theirs = new EthereumjsMac(secret);
  theirs.update(init);
  const ours = new FrameMac(keccak_256.create().update(init), secret);
  t.deepEqual(ours.digest16(), theirs.digest());
  const headerCt = payload(16, 3);
  theirs.updateHeader(headerCt);
  t.deepEqual(ours.updateHeader(headerCt), theirs.digest());
  const bodyCt = payload(64, 4);
  theirs.updateBody(bodyCt);
  t.deepEqual(ours.updateFrame(bodyCt), theirs.digest());
});

test('a tampered header or body fails the MAC and the decoder stays failed', (t) => {
  for (const index of [3, 20, 40, 70]) {
    const { a, b } = vectorSessions();
    const wire = new FrameEncoder(a).encode(payload(40, 2));
    wire[index] ^= 0x01;
    const dec = new FrameDecoder(b);
    const err = t.throws(() => dec.push(wire), { instanceOf: FramingError });
    t.regex(err!.message, index < 32 ? /header MAC/ : /frame MAC/);
    t.throws(() => dec.push(new Uint8Array(1)), { instanceOf: FramingError });
  }
});

test('an oversize frame is rejected from its header alone, before the body is buffered', (t) => {
  const { a, b } = vectorSessions();
  const wire = new FrameEncoder(a).encode(payload(2000, 2));
  const dec = new FrameDecoder(b, { maxFrameBytes: 1000 });
  t.throws(() => dec.push(wire.subarray(0, 32)), { instanceOf: FramingError, message: /exceeds the limit/ });
  t.is(DEFAULT_MAX_FRAME_BYTES, 16 * 1024 * 1024);
});

test('the encoder refuses empty and over-24-bit frames', (t) => {
  const { a } = vectorSessions();
  const enc = new FrameEncoder(a);
  t.throws(() => enc.encode(new Uint8Array(0)), { instanceOf: FramingError });
  t.throws(() => enc.encode(new Uint8Array(0x1000000)), { instanceOf: FramingError });
});

test('one large chunk holding many frames is decoded without exceeding the buffer bound', (t) => {
  const { a, b } = vectorSessions();
  const enc = new FrameEncoder(a);
  const dec = new FrameDecoder(b, { maxFrameBytes: 1024 });
  const frames = Array.from({ length: 3000 }, (_, i) => enc.encode(payload(1000, i)));
  const all = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
  let o = 0;
  for (const f of frames) {
    all.set(f, o);
    o += f.length;
  }
  t.true(all.length > 3 * 1024 * 1024);
  t.is(dec.push(all).length, 3000);
});

test('a header declaring a frame over the limit throws FrameTooLargeError with nothing of its body buffered', (t) => {
  const { a, b } = vectorSessions();
  const header = new FrameEncoder(a).encodeHeader(MAX_FRAME_SIZE_FIELD);
  const dec = new FrameDecoder(b, { maxFrameBytes: 2049 });
  const err = t.throws(() => dec.push(header), { instanceOf: FrameTooLargeError });
  t.like(err, { frameBytes: MAX_FRAME_SIZE_FIELD, limitBytes: 2049 });
  t.is(dec.bufferedBytes, 0);
});

test('a declared 16 MiB - 1 frame followed by 1 MiB in one chunk stops the decoder after its first 64 KiB piece', (t) => {
  const { a, b } = vectorSessions();
  const header = new FrameEncoder(a).encodeHeader(MAX_FRAME_SIZE_FIELD);
  const chunk = new Uint8Array(header.length + 1024 * 1024);
  chunk.set(header);
  const dec = new FrameDecoder(b, { maxFrameBytes: 2049 });
  t.throws(() => dec.push(chunk), { instanceOf: FrameTooLargeError });
  t.true(dec.bufferedBytes < 64 * 1024, `${dec.bufferedBytes} bytes held`);
});

test('decode() hands out one frame at a time, so a limit raised after a frame applies to the next header', (t) => {
  const { a, b } = vectorSessions();
  const enc = new FrameEncoder(a);
  const small = enc.encode(payload(100, 1));
  const large = enc.encode(payload(10_000, 2));
  const both = new Uint8Array(small.length + large.length);
  both.set(small);
  both.set(large, small.length);
  const lazy = new FrameDecoder(b, { maxFrameBytes: 2049 });
  const got: number[] = [];
  for (const frame of lazy.decode(both)) {
    got.push(frame.length);
    lazy.setMaxFrameBytes(DEFAULT_MAX_FRAME_BYTES);
  }
  t.deepEqual(got, [100, 10_000]);
  // push() reads every header of the chunk before any frame is looked at: the limit has not risen yet.
  const { b: b2 } = vectorSessions();
  t.throws(() => new FrameDecoder(b2, { maxFrameBytes: 2049 }).push(both), { instanceOf: FrameTooLargeError });
});
