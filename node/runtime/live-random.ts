/** OS randomness for the live node (node:crypto). */
import { randomBytes, randomInt } from 'node:crypto';
import type { Random } from './ports.ts';

/** randomInt's range limit: maxExclusive - min must be below 2^48. */
const RANDOM_INT_LIMIT = 2 ** 48;

export class LiveRandom implements Random {
  /** Uniform in [0, 1) with 53 random bits. */
  next(): number {
    const b = randomBytes(7);
    // 53 bits: 5 bits from the first byte, then 6 full bytes.
    let x = b[0]! & 0x1f;
    for (let i = 1; i < 7; i++) x = x * 256 + b[i]!;
    return x / 2 ** 53;
  }

  /** Uniform integer in [0, maxExclusive); maxExclusive must be a positive safe integer. */
  int(maxExclusive: number): number {
    if (!Number.isSafeInteger(maxExclusive) || maxExclusive <= 0) throw new RangeError(`int: maxExclusive must be a positive safe integer, got ${maxExclusive}`);
    if (maxExclusive < RANDOM_INT_LIMIT) return randomInt(maxExclusive);
    // Rejection sampling over 53 bits for the (rare) larger ranges.
    const limit = Math.floor(2 ** 53 / maxExclusive) * maxExclusive;
    for (;;) {
      const x = Math.floor(this.next() * 2 ** 53);
      if (x < limit) return x % maxExclusive;
    }
  }

  bytes(n: number): Uint8Array {
    return new Uint8Array(randomBytes(n));
  }
}
