/**
 * The privacy group id of an EEA-style private transaction (privateFrom + privateFor), as Besu
 * computes it (besu 25.4: ethereum/core/.../privacy/PrivacyGroupUtil.java): the distinct member keys,
 * ordered by Java's Arrays.hashCode of their bytes, RLP-encoded as a list, keccak256.
 */
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from '../crypto/keccak.ts';

/** java.util.Arrays.hashCode(byte[]): 31 * h + b over signed bytes, in 32-bit arithmetic. */
export function javaBytesHashCode(bytes: Uint8Array): number {
  let h = 1;
  for (const b of bytes) h = (Math.imul(31, h) + ((b << 24) >> 24)) | 0;
  return h;
}

export function eeaPrivacyGroupId(privateFrom: Uint8Array, privateFor: readonly Uint8Array[]): Uint8Array {
  const distinct: Uint8Array[] = [];
  const seen = new Set<string>();
  for (const key of [privateFrom, ...privateFor]) {
    const text = Buffer.from(key).toString('hex');
    if (seen.has(text)) continue;
    seen.add(text);
    distinct.push(key);
  }
  // A stable sort by hash code, as Java's List.sort is (ties keep their order).
  const sorted = distinct.map((key, i) => ({ key, i, h: javaBytesHashCode(key) })).sort((a, b) => a.h - b.h || a.i - b.i);
  return keccak256(RLP.encode(sorted.map((e) => e.key)));
}
