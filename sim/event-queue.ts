/**
 * A binary min-heap of simulator events ordered by (atMs, seq). `seq` is unique and increases
 * with every schedule, so two events at the same virtual time run in the order they were
 * scheduled: order comes from data, never from the host.
 *
 * Cancellation is lazy: a cancelled event stays in the heap with `cancelled = true` (O(1)) and is
 * skipped when it reaches the top. When cancelled entries pile up (more than half the heap and at
 * least COMPACT_MIN), the heap is rebuilt without them in O(n), so memory stays bounded by the
 * number of live events even under set-cancel-set timer churn.
 */

export interface SimEvent {
  readonly atMs: number;
  readonly seq: number;
  readonly fn: () => void | Promise<void>;
  readonly label: string | undefined;
  /** Owner tag (a node's timers); undefined for kernel-level events such as network deliveries. */
  readonly owner: string | undefined;
  cancelled: boolean;
}

const COMPACT_MIN = 1024;

function before(a: SimEvent, b: SimEvent): boolean {
  return a.atMs < b.atMs || (a.atMs === b.atMs && a.seq < b.seq);
}

export class EventQueue {
  private heap: SimEvent[] = [];
  private cancelledInHeap = 0;

  /** Entries in the heap, cancelled ones included. */
  get heapSize(): number {
    return this.heap.length;
  }

  /** Live (not cancelled) events. */
  get size(): number {
    return this.heap.length - this.cancelledInHeap;
  }

  push(ev: SimEvent): void {
    const heap = this.heap;
    let i = heap.length;
    heap.push(ev);
    // sift up
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (!before(ev, p)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = ev;
  }

  /** The earliest live event without removing it (drops cancelled entries found on top). */
  peek(): SimEvent | undefined {
    const heap = this.heap;
    while (heap.length > 0 && heap[0]!.cancelled) {
      this.removeTop();
      this.cancelledInHeap--;
    }
    return heap[0];
  }

  /** Removes and returns the earliest live event. */
  pop(): SimEvent | undefined {
    const top = this.peek();
    if (top !== undefined) this.removeTop();
    return top;
  }

  /** Marks an event (known to be in this heap and not yet run) cancelled. O(1) amortized. */
  markCancelled(ev: SimEvent): void {
    if (ev.cancelled) return;
    ev.cancelled = true;
    this.cancelledInHeap++;
    if (this.cancelledInHeap >= COMPACT_MIN && this.cancelledInHeap * 2 > this.heap.length) this.compact();
  }

  clear(): void {
    for (const ev of this.heap) ev.cancelled = true;
    this.heap = [];
    this.cancelledInHeap = 0;
  }

  private removeTop(): void {
    const heap = this.heap;
    const last = heap.pop()!;
    if (heap.length === 0) return;
    heap[0] = last;
    this.siftDown(0);
  }

  private compact(): void {
    const live = this.heap.filter((ev) => !ev.cancelled);
    // Floyd heapify: O(n); the resulting order of pops is fully determined by (atMs, seq).
    this.heap = live;
    this.cancelledInHeap = 0;
    for (let i = (live.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  private siftDown(start: number): void {
    const heap = this.heap;
    const n = heap.length;
    const ev = heap[start]!;
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      let child = heap[l]!;
      if (r < n) {
        const rc = heap[r]!;
        if (before(rc, child)) {
          c = r;
          child = rc;
        }
      }
      if (!before(child, ev)) break;
      heap[i] = child;
      i = c;
    }
    heap[i] = ev;
  }
}
