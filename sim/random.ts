/**
 * Seeded randomness for the simulator (seedrandom's Alea: ~7 ns a draw, 32-bit resolution for
 * next(), 53-bit for int() with large bounds).
 *
 * `fork(purpose)` derives an independent stream from (this stream's seed, purpose) only — never
 * from how many draws were made — so adding draws under one purpose does not shift any other.
 * Forks nest: `r.fork('net').fork('link')` has the seed path ['seed', 'net', 'link'].
 */
import seedrandom from 'seedrandom';
import type { Random } from '../node/runtime/ports.ts';

const MAX_BYTES = 1 << 24; // 16 MiB per bytes() call

export class SeededRandom implements Random {
  /** The derivation path: the root seed followed by fork purposes. */
  readonly path: readonly string[];
  private readonly prng: seedrandom.PRNG;

  constructor(seed: string | number, path?: readonly string[]) {
    if (typeof seed === 'number' && !Number.isFinite(seed)) throw new RangeError(`seed must be finite, got ${seed}`);
    if (typeof seed !== 'string' && typeof seed !== 'number') throw new TypeError('seed must be a string or a number');
    this.path = path ?? [String(seed)];
    // An unambiguous encoding of the whole path (a number seed n and the string `${n}` agree).
    this.prng = seedrandom.alea(JSON.stringify(this.path));
  }

  /** The root seed. */
  get seed(): string {
    return this.path[0]!;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.prng();
  }

  /** Uniform integer in [0, maxExclusive); maxExclusive a positive safe integer. */
  int(maxExclusive: number): number {
    if (!Number.isSafeInteger(maxExclusive) || maxExclusive <= 0) {
      throw new RangeError(`int(max): max must be a positive safe integer, got ${maxExclusive}`);
    }
    if (maxExclusive <= 0x1_0000_0000) return Math.floor(this.prng() * maxExclusive);
    return Math.floor(this.prng.double() * maxExclusive);
  }

  /** Uniform integer in [min, max] (both inclusive). */
  intBetween(min: number, max: number): number {
    if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || max < min) {
      throw new RangeError(`intBetween(${min}, ${max}): need safe integers with min <= max`);
    }
    return min + this.int(max - min + 1);
  }

  /** true with probability p (p <= 0: never draws, returns false; p >= 1: never draws, returns true). */
  chance(p: number): boolean {
    if (!(p > 0)) return false;
    if (p >= 1) return true;
    return this.prng() < p;
  }

  /** An independent stream derived from (this stream's path, purpose). */
  fork(purpose: string): SeededRandom {
    if (typeof purpose !== 'string') throw new TypeError('fork(purpose): purpose must be a string');
    return new SeededRandom(this.path[0]!, [...this.path, purpose]);
  }

  bytes(n: number): Uint8Array {
    if (!Number.isSafeInteger(n) || n < 0 || n > MAX_BYTES) throw new RangeError(`bytes(n): n must be an integer in [0, ${MAX_BYTES}], got ${n}`);
    const out = new Uint8Array(n);
    let i = 0;
    while (i < n) {
      let w = this.prng.int32();
      for (let k = 0; k < 4 && i < n; k++, i++) {
        out[i] = w & 0xff;
        w >>>= 8;
      }
    }
    return out;
  }

  pick<T>(arr: readonly T[]): T {
    if (arr.length === 0) throw new RangeError('pick: empty array');
    return arr[this.int(arr.length)]!;
  }

  /** Fisher-Yates shuffle into a new array. */
  shuffle<T>(arr: readonly T[]): T[] {
    const out = arr.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const t = out[i]!;
      out[i] = out[j]!;
      out[j] = t;
    }
    return out;
  }

  /** Normal deviate (Box-Muller). Always consumes exactly two draws. */
  normal(mean: number, sd: number): number {
    if (!Number.isFinite(mean) || !Number.isFinite(sd) || sd < 0) throw new RangeError(`normal(${mean}, ${sd}): need finite mean and sd >= 0`);
    const u1 = 1 - this.prng(); // (0, 1]
    const u2 = this.prng();
    return mean + sd * Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  }
}
