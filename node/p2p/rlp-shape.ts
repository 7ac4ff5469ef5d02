/**
 * Strict shape checks for decoded RLP values, as the eth wire codecs need them: every accessor
 * throws a WireFormatError naming the field when the value is not what the message format says.
 */
import { RLP, type NestedUint8Array } from '@ethereumjs/rlp';
import { bytesToBigInt, bytesToHex, concatBytes, type Hex } from '../crypto/bytes.ts';

/** A decoded RLP item: a byte string or a (nested) list of them. */
export type RlpValue = Uint8Array | NestedUint8Array;

export class WireFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireFormatError';
  }
}

export function fail(message: string): never {
  throw new WireFormatError(message);
}

/** Decodes a whole message payload; trailing bytes, bad prefixes and oversized input are errors. */
export function decodeRlp(data: Uint8Array, maxBytes: number, what: string): RlpValue {
  if (data.length > maxBytes) fail(`${what}: ${data.length} bytes exceeds the limit of ${maxBytes}`);
  if (data.length === 0) fail(`${what}: empty payload`);
  try {
    return RLP.decode(data);
  } catch (e) {
    fail(`${what}: invalid RLP (${(e as Error).message})`);
  }
}

export function asList(v: RlpValue, what: string, minLen = 0, maxLen = Number.MAX_SAFE_INTEGER): RlpValue[] {
  if (!Array.isArray(v)) fail(`${what}: expected a list, got a byte string`);
  if (v.length < minLen || v.length > maxLen)
    fail(`${what}: expected ${minLen === maxLen ? minLen : `${minLen}..${maxLen}`} items, got ${v.length}`);
  return v;
}

export function asBytes(v: RlpValue, what: string, maxLen = Number.MAX_SAFE_INTEGER): Uint8Array {
  if (!(v instanceof Uint8Array)) fail(`${what}: expected a byte string, got a list`);
  if (v.length > maxLen) fail(`${what}: ${v.length} bytes exceeds ${maxLen}`);
  return v;
}

export function asFixedBytes(v: RlpValue, len: number, what: string): Uint8Array {
  const b = asBytes(v, what);
  if (b.length !== len) fail(`${what}: expected ${len} bytes, got ${b.length}`);
  return b;
}

export function asHash(v: RlpValue, what: string): Hex {
  return bytesToHex(asFixedBytes(v, 32, what));
}

/** An unsigned scalar of at most `maxBytes` bytes, minimal encoding (no leading zero byte). */
export function asUint(v: RlpValue, what: string, maxBytes = 32): bigint {
  const b = asBytes(v, what);
  if (b.length > maxBytes) fail(`${what}: integer wider than ${maxBytes} bytes`);
  if (b.length > 0 && b[0] === 0) fail(`${what}: integer with a leading zero byte`);
  return bytesToBigInt(b);
}

export function asSafeInt(v: RlpValue, what: string): number {
  const n = asUint(v, what, 8);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) fail(`${what}: integer out of range`);
  return Number(n);
}

/** A boolean as eth encodes it: the scalar 0 (empty string) or 1. */
export function asBool(v: RlpValue, what: string): boolean {
  const n = asUint(v, what, 1);
  if (n > 1n) fail(`${what}: expected 0 or 1, got ${n}`);
  return n === 1n;
}

/** A list whose every item is a byte string (e.g. a block header, a legacy transaction). */
export function asBytesList(v: RlpValue, what: string, minLen: number, maxLen: number): Uint8Array[] {
  const items = asList(v, what, minLen, maxLen);
  return items.map((x, i) => asBytes(x, `${what}[${i}]`));
}

/** The RLP list of already-encoded items (no re-encoding of the items). */
export function encodeListOfEncoded(encodedItems: Uint8Array[]): Uint8Array {
  const payload = concatBytes(...encodedItems);
  return concatBytes(listPrefix(payload.length), payload);
}

function listPrefix(len: number): Uint8Array {
  if (len <= 55) return Uint8Array.of(0xc0 + len);
  const lenBytes: number[] = [];
  for (let n = len; n > 0; n = Math.floor(n / 256)) lenBytes.unshift(n % 256);
  return Uint8Array.from([0xf7 + lenBytes.length, ...lenBytes]);
}
