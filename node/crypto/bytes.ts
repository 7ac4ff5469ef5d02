/** Byte helpers shared by every module. Hex strings are lowercase and 0x-prefixed. */

export type Hex = `0x${string}`;

const HEX_CHARS = '0123456789abcdef';
const BYTE_TO_HEX: string[] = Array.from({ length: 256 }, (_, i) => HEX_CHARS[i >> 4] + HEX_CHARS[i & 15]);

/**
 * Lowercase 0x-hex. Longer inputs go through Buffer's native encoder, which is faster and makes a
 * flat string: a string built by `+=` is a rope of one node per byte, and the hashes and keys a
 * node keeps in its maps would hold every node of it (tens of MB over an hour of simulation).
 */
export function bytesToHex(bytes: Uint8Array): Hex {
  if (bytes.length > 8) return ('0x' + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')) as Hex;
  let out = '0x';
  for (let i = 0; i < bytes.length; i++) out += BYTE_TO_HEX[bytes[i]];
  return out as Hex;
}

const NIBBLE = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) NIBBLE[48 + i] = i;
for (let i = 0; i < 6; i++) NIBBLE[65 + i] = NIBBLE[97 + i] = 10 + i;

export function hexToBytes(hex: string): Uint8Array {
  let s = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
  if (s.length % 2 === 1) s = '0' + s;
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) {
    const a = s.charCodeAt(2 * i);
    const b = s.charCodeAt(2 * i + 1);
    const hi = a < 128 ? NIBBLE[a] : -1;
    const lo = b < 128 ? NIBBLE[b] : -1;
    if (hi < 0 || lo < 0) throw new Error(`invalid hex string: ${hex.slice(0, 80)}`);
    out[i] = (hi << 4) | lo;
  }
  return out;
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let len = 0;
  for (const p of parts) len += p.length;
  const out = new Uint8Array(len);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** Minimal big-endian encoding of a non-negative integer (0 -> empty), as RLP scalars use. */
export function intToBytes(value: number | bigint): Uint8Array {
  let v = BigInt(value);
  if (v < 0n) throw new Error('negative integer');
  const out: number[] = [];
  while (v > 0n) {
    out.unshift(Number(v & 0xffn));
    v >>= 8n;
  }
  return Uint8Array.from(out);
}

/** A 32-byte big-endian word (a storage slot or key); the value is below 2^256. */
export function uint256ToBytes(value: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let v = value;
  for (let i = 31; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** Reads an RLP scalar: rejects leading zero bytes, as Besu's RLP input does. */
export function bytesToBigInt(bytes: Uint8Array): bigint {
  if (bytes.length > 0 && bytes[0] === 0) throw new Error('invalid scalar: leading zero byte');
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

export function bytesToSafeInt(bytes: Uint8Array, what = 'integer'): number {
  const v = bytesToBigInt(bytes);
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`${what} out of range`);
  return Number(v);
}

export function utf8ToBytes(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}
