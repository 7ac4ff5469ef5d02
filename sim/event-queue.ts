/**
 * Simulator events ordered by (atMs, seq): one first-in-first-out bucket per distinct virtual
 * time, and a small binary min-heap over the distinct times. `seq` is unique and increases with
 * every schedule, so appending to a bucket keeps it in seq order and popping bucket by bucket gives
 * exactly the (atMs, seq) order: order comes from data, never from the host.
 *
 * Why buckets: a big network keeps about a million deliveries pending, spread over a few thousand
 * distinct milliseconds. A heap over every event pays log2(1e6) = 20 cache-missing comparisons per
 * push and pop; here a push is an array append plus, for a new time only, a heap push over the
 * times.
 *
 * Cancellation is lazy: a cancelled event stays in its bucket with `cancelled = true` (O(1)) and is
 * skipped when reached. A bucket is compacted when more than half of it (and at least
 * COMPACT_MIN entries) is cancelled and dropped when nothing in it is live; the time heap is
 * rebuilt when stale times pile up. Memory stays bounded by the number of live events even under
 * set-cancel-set timer churn.
 */

export interface SimEvent {
  readonly atMs: number;
  readonly seq: number;
  readonly fn: () => void | Promise<void>;
  readonly label: string | undefined;
  /** Owner tag (a node's timers); undefined for kernel-level events such as network deliveries. */
  readonly owner: string | undefined;
  /** false for events posted without an id (never cancelled). */
  readonly cancellable: boolean;
  cancelled: boolean;
}

const COMPACT_MIN = 64;

interface Bucket {
  events: SimEvent[];
  /** Index of the first entry not yet popped. */
  head: number;
  /** Live (not cancelled, not popped) entries. */
  live: number;
  /** Cancelled entries at or after head. */
  cancelled: number;
}

export class EventQueue {
  private readonly buckets = new Map<number, Bucket>();
  /** Min-heap of bucket times; may hold stale times whose bucket is gone (skipped when reached). */
  private times: number[] = [];
  private liveCount = 0;

  /** Live (not cancelled) events. */
  get size(): number {
    return this.liveCount;
  }

  /** Distinct virtual times with a bucket (for tests and figures). */
  get bucketCount(): number {
    return this.buckets.size;
  }

  push(ev: SimEvent): void {
    let bucket = this.buckets.get(ev.atMs);
    if (bucket === undefined) {
      bucket = { events: [], head: 0, live: 0, cancelled: 0 };
      this.buckets.set(ev.atMs, bucket);
      this.pushTime(ev.atMs);
    }
    bucket.events.push(ev);
    bucket.live++;
    this.liveCount++;
  }

  /** The earliest live event without removing it. */
  peek(): SimEvent | undefined {
    for (;;) {
      const times = this.times;
      if (times.length === 0) return undefined;
      const t = times[0]!;
      const bucket = this.buckets.get(t);
      if (bucket === undefined) {
        this.popTime();
        continue;
      }
      const events = bucket.events;
      while (bucket.head < events.length && events[bucket.head]!.cancelled) {
        bucket.head++;
        bucket.cancelled--;
      }
      if (bucket.head < events.length) return events[bucket.head];
      this.buckets.delete(t);
      this.popTime();
    }
  }

  /** Removes and returns the earliest live event. */
  pop(): SimEvent | undefined {
    const top = this.peek();
    if (top === undefined) return undefined;
    const bucket = this.buckets.get(top.atMs)!;
    bucket.head++;
    bucket.live--;
    this.liveCount--;
    if (bucket.head === bucket.events.length) {
      this.buckets.delete(top.atMs);
      this.popTime();
    } else if (bucket.head >= 4096 && bucket.head * 2 > bucket.events.length) {
      // Same-time events keep arriving (zero-latency chains): drop the consumed prefix.
      bucket.events = bucket.events.slice(bucket.head);
      bucket.head = 0;
    }
    return top;
  }

  /** Marks an event (known to be queued here and not yet run) cancelled. O(1) amortized. */
  markCancelled(ev: SimEvent): void {
    if (ev.cancelled) return;
    ev.cancelled = true;
    const bucket = this.buckets.get(ev.atMs);
    if (bucket === undefined) return;
    bucket.live--;
    bucket.cancelled++;
    this.liveCount--;
    if (bucket.live === 0) {
      // Its time stays in the heap as a stale entry until reached or rebuilt.
      this.buckets.delete(ev.atMs);
      if (this.times.length > 2 * this.buckets.size + COMPACT_MIN) this.rebuildTimes();
    } else if (bucket.cancelled >= COMPACT_MIN && bucket.cancelled * 2 > bucket.events.length - bucket.head) {
      bucket.events = bucket.events.slice(bucket.head).filter((e) => !e.cancelled);
      bucket.head = 0;
      bucket.cancelled = 0;
    }
  }

  clear(): void {
    for (const bucket of this.buckets.values()) for (const ev of bucket.events) ev.cancelled = true;
    this.buckets.clear();
    this.times = [];
    this.liveCount = 0;
  }

  private rebuildTimes(): void {
    const times = [...this.buckets.keys()];
    this.times = times;
    for (let i = (times.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  private pushTime(t: number): void {
    const times = this.times;
    let i = times.length;
    times.push(t);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = times[parent]!;
      if (p <= t) break;
      times[i] = p;
      i = parent;
    }
    times[i] = t;
  }

  private popTime(): void {
    const times = this.times;
    const last = times.pop()!;
    if (times.length === 0) return;
    times[0] = last;
    this.siftDown(0);
  }

  private siftDown(start: number): void {
    const times = this.times;
    const n = times.length;
    const t = times[start]!;
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      let child = times[l]!;
      if (r < n && times[r]! < child) {
        c = r;
        child = times[r]!;
      }
      if (!(child < t)) break;
      times[i] = child;
      i = c;
    }
    times[i] = t;
  }
}
