import test from 'ava';
import { snappyCompress, snappyDeclaredLength, snappyDecompress, SnappyError, MAX_UNCOMPRESSED_BYTES } from './snappy.ts';

const sample = (n: number) => new Uint8Array(n).map((_, i) => (i % 7 === 0 ? i & 0xff : 0x42));

test('compress / decompress round-trips, including empty and repetitive data', (t) => {
  for (const n of [0, 1, 60, 61, 300, 70_000]) {
    const data = sample(n);
    const c = snappyCompress(data);
    t.deepEqual(snappyDecompress(c), data, `n=${n}`);
    t.is(snappyDeclaredLength(c).length, n);
  }
  t.true(snappyCompress(new Uint8Array(10_000)).length < 1000);
});

test('decodes a hand-written stream: literal then overlapping copy', (t) => {
  // length 8, literal "ab" (tag (2-1)<<2), copy len 6 offset 2 (kind 1: ((6-4)<<2)|1, offset byte 2)
  const stream = Uint8Array.of(8, 0x04, 0x61, 0x62, (2 << 2) | 1, 2);
  t.deepEqual(new TextDecoder().decode(snappyDecompress(stream)), 'abababab');
});

test('the declared size is checked against the limit before decompressing', (t) => {
  // Preamble declares 16 MiB + 1 and nothing follows: only the length check can reject it this early.
  const declared = MAX_UNCOMPRESSED_BYTES + 1;
  const preamble: number[] = [];
  for (let v = declared; ; v = Math.floor(v / 128)) {
    if (v < 128) {
      preamble.push(v);
      break;
    }
    preamble.push((v & 0x7f) | 0x80);
  }
  t.throws(() => snappyDecompress(Uint8Array.from(preamble)), { instanceOf: SnappyError, message: /exceeds the limit/ });
  t.throws(() => snappyDecompress(snappyCompress(sample(100)), 99), { instanceOf: SnappyError, message: /exceeds the limit/ });
});

test('malformed streams are rejected rather than padded or truncated', (t) => {
  const bad = [
    Uint8Array.of(),
    Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x80, 0x01),
    Uint8Array.of(5, 0x04, 0x61, 0x62), // declares 5, produces 2
    Uint8Array.of(1, 0x04, 0x61, 0x62), // declares 1, produces 2
    Uint8Array.of(8, 0x04, 0x61), // literal past the end
    Uint8Array.of(8, 0x04, 0x61, 0x62, (2 << 2) | 1, 3), // offset beyond output
    Uint8Array.of(8, 0x04, 0x61, 0x62, (2 << 2) | 1, 0), // offset 0
    Uint8Array.of(8, 0x04, 0x61, 0x62, 0x02), // truncated copy
  ];
  for (const b of bad) t.throws(() => snappyDecompress(b), { instanceOf: SnappyError }, Array.from(b).join(','));
});
