/**
 * Snappy (raw block format) for devp2p p2p v5 message data (EIP-706). The uncompressed length
 * is read from the stream's varint preamble and checked against the limit before anything is
 * decompressed; the stream is then walked once to check that its elements produce exactly that
 * length with in-range copy offsets, since snappyjs silently drops bytes written past the end
 * and leaves zeros when a stream comes up short.
 */
import { compress, uncompress } from 'snappyjs';

/** The spec's cap on one message's uncompressed data. */
export const MAX_UNCOMPRESSED_BYTES = 16 * 1024 * 1024;

export class SnappyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SnappyError';
  }
}

export function snappyCompress(data: Uint8Array): Uint8Array {
  return new Uint8Array(compress(data));
}

/** The declared uncompressed length and the preamble's size in bytes. */
export function snappyDeclaredLength(data: Uint8Array): { length: number; preambleBytes: number } {
  let length = 0;
  for (let i = 0; i < 5 && i < data.length; i++) {
    const b = data[i];
    length += (b & 0x7f) * 2 ** (7 * i);
    if (b < 0x80) {
      if (length > 0xffffffff) break;
      return { length, preambleBytes: i + 1 };
    }
  }
  throw new SnappyError('invalid uncompressed-length preamble');
}

/** Checks the element stream after the preamble produces exactly `declared` bytes. */
function checkElements(data: Uint8Array, start: number, declared: number): void {
  let pos = start;
  let produced = 0;
  while (pos < data.length) {
    const tag = data[pos++];
    const kind = tag & 3;
    if (kind === 0) {
      let len = (tag >>> 2) + 1;
      if (len > 60) {
        const extra = len - 60;
        if (pos + extra > data.length) throw new SnappyError('truncated literal length');
        len = 0;
        for (let i = 0; i < extra; i++) len += data[pos + i] * 2 ** (8 * i);
        len += 1;
        pos += extra;
      }
      if (pos + len > data.length) throw new SnappyError('literal runs past the end of the input');
      pos += len;
      produced += len;
    } else {
      let len: number;
      let offset: number;
      if (kind === 1) {
        if (pos + 1 > data.length) throw new SnappyError('truncated copy');
        len = ((tag >>> 2) & 7) + 4;
        offset = ((tag >>> 5) << 8) | data[pos];
        pos += 1;
      } else if (kind === 2) {
        if (pos + 2 > data.length) throw new SnappyError('truncated copy');
        len = (tag >>> 2) + 1;
        offset = data[pos] | (data[pos + 1] << 8);
        pos += 2;
      } else {
        if (pos + 4 > data.length) throw new SnappyError('truncated copy');
        len = (tag >>> 2) + 1;
        offset = data[pos] + data[pos + 1] * 2 ** 8 + data[pos + 2] * 2 ** 16 + data[pos + 3] * 2 ** 24;
        pos += 4;
      }
      if (offset === 0 || offset > produced) throw new SnappyError(`copy offset ${offset} outside the ${produced} bytes produced`);
      produced += len;
    }
    if (produced > declared) throw new SnappyError(`stream produces more than its declared ${declared} bytes`);
  }
  if (produced !== declared) throw new SnappyError(`stream produces ${produced} bytes, declared ${declared}`);
}

/** Decompresses, refusing (before decompressing) data declared larger than `maxBytes`. */
export function snappyDecompress(data: Uint8Array, maxBytes = MAX_UNCOMPRESSED_BYTES): Uint8Array {
  const { length, preambleBytes } = snappyDeclaredLength(data);
  if (length > maxBytes) throw new SnappyError(`uncompressed size ${length} exceeds the limit of ${maxBytes}`);
  checkElements(data, preambleBytes, length);
  try {
    return new Uint8Array(uncompress(data, maxBytes));
  } catch (e) {
    throw new SnappyError((e as Error).message);
  }
}
