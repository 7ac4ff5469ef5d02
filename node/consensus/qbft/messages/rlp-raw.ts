/**
 * RLP helpers that keep items as their raw encodings, so signed bytes and blocks are hashed and
 * re-emitted exactly as received. Inputs to `listItems` must already have passed RLP.decode.
 */
import { concatBytes, intToBytes } from '../../../crypto/bytes.ts';

export const EMPTY_STRING = Uint8Array.of(0x80);
export const EMPTY_LIST = Uint8Array.of(0xc0);

export function isList(raw: Uint8Array): boolean {
  return raw[0] >= 0xc0;
}

function readLength(bytes: Uint8Array, start: number, count: number): number {
  let len = 0;
  for (let i = 0; i < count; i++) len = len * 256 + bytes[start + i];
  return len;
}

/** Offset of the payload and total length of the item starting at `offset`. */
function itemBounds(bytes: Uint8Array, offset: number): { payload: number; end: number } {
  const b = bytes[offset];
  let payload: number;
  let length: number;
  if (b < 0x80) return { payload: offset, end: offset + 1 };
  if (b <= 0xb7) [payload, length] = [offset + 1, b - 0x80];
  else if (b < 0xc0) [payload, length] = [offset + 1 + b - 0xb7, readLength(bytes, offset + 1, b - 0xb7)];
  else if (b <= 0xf7) [payload, length] = [offset + 1, b - 0xc0];
  else [payload, length] = [offset + 1 + b - 0xf7, readLength(bytes, offset + 1, b - 0xf7)];
  const end = payload + length;
  if (end > bytes.length) throw new Error('RLP item runs past the end of its input');
  return { payload, end };
}

/** The raw encodings of a list's items (subarrays of `raw`, no copies). */
export function listItems(raw: Uint8Array): Uint8Array[] {
  if (!isList(raw)) throw new Error('expected an RLP list');
  const { payload, end } = itemBounds(raw, 0);
  const items: Uint8Array[] = [];
  for (let offset = payload; offset < end; ) {
    const next = itemBounds(raw, offset).end;
    items.push(raw.subarray(offset, next));
    offset = next;
  }
  return items;
}

/** An RLP list whose items are given already encoded. */
export function encodeRawList(items: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const item of items) length += item.length;
  const lengthBytes = intToBytes(length);
  const prefix = length < 56 ? Uint8Array.of(0xc0 + length) : concatBytes(Uint8Array.of(0xf7 + lengthBytes.length), lengthBytes);
  return concatBytes(prefix, ...items);
}

/** The byte string an item encodes; throws if it is a list. */
export function stringOf(raw: Uint8Array, what: string): Uint8Array {
  if (isList(raw)) throw new Error(`${what} must be a byte string, got a list`);
  const { payload, end } = itemBounds(raw, 0);
  return raw.subarray(payload, end);
}
