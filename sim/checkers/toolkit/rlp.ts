/**
 * The checkers' own RLP reader and list writer. Items keep their exact encoded bytes, because
 * signatures and block hashes cover bytes as they were written, not a re-encoding. Strict: only
 * canonical encodings are read (a single byte below 0x80 is never prefixed, long forms are used
 * only from 56 bytes on, lengths have no leading zero), which is what every honest encoder writes.
 */

export interface RlpItem {
  /** The whole encoding of the item (prefix included). */
  readonly raw: Uint8Array;
  /** The content: the bytes of a string, or the concatenated encodings of a list's items. */
  readonly content: Uint8Array;
  readonly isList: boolean;
}

function lengthAt(bytes: Uint8Array, start: number, count: number): number {
  if (start + count > bytes.length) throw new Error('rlp: length runs past the end of the input');
  if (bytes[start] === 0) throw new Error('rlp: length with a leading zero byte');
  let length = 0;
  for (let i = 0; i < count; i++) length = length * 256 + bytes[start + i]!;
  if (length < 56) throw new Error('rlp: long form used for a length below 56');
  return length;
}

/** The item that starts at `offset`, and the offset just after it. */
function itemAt(bytes: Uint8Array, offset: number): { item: RlpItem; end: number } {
  if (offset >= bytes.length) throw new Error('rlp: unexpected end of input');
  const first = bytes[offset]!;
  let contentStart: number;
  let length: number;
  let isList = false;
  if (first < 0x80) {
    const raw = bytes.subarray(offset, offset + 1);
    return { item: { raw, content: raw, isList: false }, end: offset + 1 };
  } else if (first <= 0xb7) {
    contentStart = offset + 1;
    length = first - 0x80;
    if (length === 1 && contentStart < bytes.length && bytes[contentStart]! < 0x80) throw new Error('rlp: single byte below 0x80 must not be prefixed');
  } else if (first <= 0xbf) {
    const count = first - 0xb7;
    contentStart = offset + 1 + count;
    length = lengthAt(bytes, offset + 1, count);
  } else if (first <= 0xf7) {
    isList = true;
    contentStart = offset + 1;
    length = first - 0xc0;
  } else {
    isList = true;
    const count = first - 0xf7;
    contentStart = offset + 1 + count;
    length = lengthAt(bytes, offset + 1, count);
  }
  const end = contentStart + length;
  if (end > bytes.length) throw new Error('rlp: item runs past the end of the input');
  return { item: { raw: bytes.subarray(offset, end), content: bytes.subarray(contentStart, end), isList }, end };
}

/** Reads `bytes` as exactly one item (nothing may follow it). */
export function readRlp(bytes: Uint8Array): RlpItem {
  const { item, end } = itemAt(bytes, 0);
  if (end !== bytes.length) throw new Error(`rlp: ${bytes.length - end} bytes after the item`);
  return item;
}

/** The items of a list; throws (naming `what`) when the item is a string. */
export function itemsOf(item: RlpItem, what: string): RlpItem[] {
  if (!item.isList) throw new Error(`${what} must be an RLP list`);
  const out: RlpItem[] = [];
  for (let offset = 0; offset < item.content.length; ) {
    const next = itemAt(item.content, offset);
    out.push(next.item);
    offset = next.end;
  }
  return out;
}

/** The bytes of a string item; throws (naming `what`) when the item is a list. */
export function bytesOf(item: RlpItem, what: string): Uint8Array {
  if (item.isList) throw new Error(`${what} must be an RLP string, got a list`);
  return item.content;
}

/** An unsigned integer scalar (big-endian, no leading zero; empty is 0), at most `maxBytes` long. */
export function scalarOf(item: RlpItem, what: string, maxBytes: number): number {
  const bytes = bytesOf(item, what);
  if (bytes.length > maxBytes) throw new Error(`${what} is longer than ${maxBytes} bytes`);
  if (bytes.length > 0 && bytes[0] === 0) throw new Error(`${what} has a leading zero byte`);
  let value = 0;
  for (const b of bytes) value = value * 256 + b;
  if (!Number.isSafeInteger(value)) throw new Error(`${what} is too large`);
  return value;
}

function lengthPrefix(length: number, shortBase: number, longBase: number): Uint8Array {
  if (length < 56) return Uint8Array.of(shortBase + length);
  const digits: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) digits.unshift(n % 256);
  return Uint8Array.of(longBase + digits.length, ...digits);
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The encoding of a byte string. */
export function encodeString(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 1 && bytes[0]! < 0x80) return bytes.slice();
  return concat([lengthPrefix(bytes.length, 0x80, 0xb7), bytes]);
}

/** The encoding of an unsigned integer scalar. */
export function encodeScalar(value: number): Uint8Array {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`rlp: scalar must be a non-negative safe integer, got ${value}`);
  const digits: number[] = [];
  for (let n = value; n > 0; n = Math.floor(n / 256)) digits.unshift(n % 256);
  return encodeString(Uint8Array.from(digits));
}

/** A list whose items are given already encoded. */
export function encodeList(encodedItems: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const i of encodedItems) length += i.length;
  return concat([lengthPrefix(length, 0xc0, 0xf7), ...encodedItems]);
}
