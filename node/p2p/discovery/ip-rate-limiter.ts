/**
 * Per-IP token buckets for incoming datagrams, checked before any signature recovery so a flood
 * from one address costs little. The set of tracked addresses is bounded: when it is full the
 * least recently active address is forgotten.
 */
interface Bucket {
  tokens: number;
  updatedMs: number;
}

export class IpRateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly packetsPerSecond: number,
    private readonly maxTrackedIps: number,
  ) {
    if (!(packetsPerSecond > 0)) throw new RangeError(`packetsPerSecond must be positive, got ${packetsPerSecond}`);
    if (!Number.isInteger(maxTrackedIps) || maxTrackedIps < 1) throw new RangeError(`maxTrackedIps must be a positive integer, got ${maxTrackedIps}`);
  }

  /** Takes one token for `ip` at `nowMs`; false when the address is over its rate. */
  allow(ip: string, nowMs: number): boolean {
    let bucket = this.buckets.get(ip);
    if (bucket) {
      this.buckets.delete(ip);
      const elapsedMs = Math.max(0, nowMs - bucket.updatedMs);
      bucket.tokens = Math.min(this.packetsPerSecond, bucket.tokens + (elapsedMs * this.packetsPerSecond) / 1000);
      bucket.updatedMs = nowMs;
    } else {
      if (this.buckets.size >= this.maxTrackedIps) this.buckets.delete(this.buckets.keys().next().value as string);
      bucket = { tokens: this.packetsPerSecond, updatedMs: nowMs };
    }
    // Re-inserting keeps the Map in least-recently-active order for eviction.
    this.buckets.set(ip, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  trackedIps(): number {
    return this.buckets.size;
  }
}
