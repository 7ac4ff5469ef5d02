/**
 * EIP-2124 fork identifier for the eth Status message: CRC32 over the genesis hash followed by
 * each passed fork activation point (block number or timestamp, 8 bytes big-endian; points at 0
 * and repeats are skipped), plus the next scheduled activation point (0 when none).
 * A QBFT network with every fork at genesis has forkId [crc32(genesisHash), 0].
 */
import { hexToBytes, type Hex } from '../crypto/bytes.ts';
import type { ForkId } from './eth-messages.ts';

const TABLE: Uint32Array = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 (IEEE), continuing from `crc` (0 for a fresh checksum). */
export function crc32(data: Uint8Array, crc = 0): number {
  let c = ~crc >>> 0;
  for (let i = 0; i < data.length; i++) c = TABLE[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

function u64(n: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, n);
  return out;
}

export function forkIdOf(genesisHash: Hex, passedForks: bigint[] = [], nextFork = 0n): ForkId {
  let c = crc32(hexToBytes(genesisHash));
  const points = [...new Set(passedForks.filter((f) => f > 0n))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const p of points) c = crc32(u64(p), c);
  const hash = new Uint8Array(4);
  new DataView(hash.buffer).setUint32(0, c);
  return { hash, next: nextFork };
}
