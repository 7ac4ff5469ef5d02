/**
 * Hex encodings used in results, as Besu writes them (besu: ethereum/api/.../results/Quantity.java):
 * quantities are minimal lowercase hex ("0x0" for zero), byte strings are full lowercase hex.
 */
import { bytesToHex, type Hex } from '../../crypto/bytes.ts';

/** Besu Quantity.create: minimal hex, "0x0" for zero. */
export function qty(value: bigint | number): Hex {
  const v = typeof value === 'number' ? BigInt(value) : value;
  if (v < 0n) throw new RangeError(`negative quantity ${v}`);
  return `0x${v.toString(16)}`;
}

/** Full hex of a byte string ("0x" when empty). */
export function data(bytes: Uint8Array): Hex {
  return bytesToHex(bytes);
}

/** A fixed-width value left-padded to `bytes` bytes (Besu Quantity.longToPaddedHex, Bytes32 values). */
export function padded(value: bigint, bytes: number): Hex {
  return `0x${value.toString(16).padStart(bytes * 2, '0')}`;
}

/** Lowercase hex of an address-like object (an @ethereumjs Address, or a hex string). */
export function addressHex(address: { toString(): string } | string): Hex {
  return address.toString().toLowerCase() as Hex;
}

/** Minimal hex of a byte string read as a big-endian number (Besu Quantity.create(byte[])). */
export function qtyOfBytes(bytes: Uint8Array): Hex {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return qty(v);
}
