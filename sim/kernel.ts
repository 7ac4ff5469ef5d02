/**
 * The simulator kernel: virtual time and one event queue ordered by (virtual time, sequence).
 *
 * - Virtual time moves only when the queue moves it (and, at the end of `runUntil`, to the bound).
 * - Each event's handler runs to completion, promise included, before the next one starts. Then
 *   the kernel drains the microtask queue so that work the handler started without awaiting it
 *   (a `void this.foo()`) also finishes at the virtual time of its event. Drain modes:
 *     'tick' (default): await one `process.nextTick` turn. The kernel loop always runs inside a
 *       microtask (runUntil starts with `await null`), and Node runs a nextTick scheduled from a
 *       microtask only once V8's microtask queue is empty, so every pure promise chain is done.
 *       Not proof against handler code that itself calls process.nextTick and chains promises
 *       from there (node code under the simulator uses no Node scheduling APIs). ~0.3 µs.
 *     'immediate': await one turn of the event loop's check phase (drainImmediate below: the only
 *       use of a real-time primitive in sim/; it also drains nextTick queues). Bullet-proof, ~1.5 µs.
 *     'async': drainImmediate only after handlers that returned a thenable; nothing after
 *       synchronous ones. Cheapest for synchronous handlers, but un-awaited async work started by
 *       a synchronous handler then finishes during some later event, at another virtual time.
 *   Whatever the mode, a returned promise is awaited in full before the drain; in 'async' mode
 *   runUntil also drains once before it returns.
 */
import type { Clock, TimerHandle, Timers } from '../node/runtime/ports.ts';
import { EventQueue, type SimEvent } from './event-queue.ts';

export type DrainMode = 'tick' | 'immediate' | 'async';

export interface SimKernelOptions {
  startTimeMs: number;
  /** Lifetime cap on events run; `runUntil` rejects with SimLimitError when it is reached. Default: unbounded. */
  maxEvents?: number;
  /** Cap on live (scheduled, not yet run or cancelled) events; `schedule` throws SimLimitError beyond it. Default 5,000,000. */
  maxPending?: number;
  /** See the file comment. Default 'tick'. */
  drain?: DrainMode;
  /**
   * Called when a handler throws or rejects; the run then continues with the next event. Without
   * it, `runUntil` rejects with the handler's error (the kernel stays consistent: the failed event
   * is consumed and a later `runUntil` resumes after it).
   */
  onError?: (error: unknown, event: { atMs: number; seq: number; label: string | undefined }) => void;
}

export class SimLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SimLimitError';
  }
}

const DEFAULT_MAX_PENDING = 5_000_000;

/** The one place in sim/ that touches the real event loop (see the file comment). */
function drainImmediate(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

function drainTick(): Promise<void> {
  return new Promise<void>((resolve) => process.nextTick(resolve));
}

function isThenable(x: unknown): x is PromiseLike<unknown> {
  return x !== null && typeof x === 'object' && typeof (x as { then?: unknown }).then === 'function';
}

export class SimKernel {
  readonly clock: Clock;
  /** Events whose handler has been started (cancelled events are not counted). */
  eventsRun = 0;

  private now: number;
  private seq = 0;
  private readonly queue = new EventQueue();
  /** id -> event, for O(1) cancel; holds exactly the live cancellable events. */
  private readonly live = new Map<number, SimEvent>();
  /** owner -> ids of its live events. */
  private readonly owned = new Map<string, Set<number>>();
  private readonly maxEvents: number;
  private readonly maxPending: number;
  private readonly drainAfterSync: boolean;
  private readonly drain: () => Promise<void>;
  private readonly onError: SimKernelOptions['onError'];
  private running = false;
  private stopped = false;

  constructor(opts: SimKernelOptions) {
    if (!Number.isFinite(opts.startTimeMs)) throw new RangeError(`startTimeMs must be finite, got ${opts.startTimeMs}`);
    this.now = opts.startTimeMs;
    this.maxEvents = opts.maxEvents ?? Number.POSITIVE_INFINITY;
    this.maxPending = opts.maxPending ?? DEFAULT_MAX_PENDING;
    if (!(this.maxEvents >= 0)) throw new RangeError(`maxEvents must be >= 0, got ${opts.maxEvents}`);
    if (!(this.maxPending >= 1)) throw new RangeError(`maxPending must be >= 1, got ${opts.maxPending}`);
    const mode = opts.drain ?? 'tick';
    if (mode !== 'tick' && mode !== 'immediate' && mode !== 'async') throw new RangeError(`unknown drain mode ${String(mode)}`);
    this.drainAfterSync = mode !== 'async';
    this.drain = mode === 'tick' ? drainTick : drainImmediate;
    this.onError = opts.onError;
    const self = this;
    this.clock = { nowMs: () => self.now };
  }

  nowMs(): number {
    return this.now;
  }

  /** Live scheduled events (posted ones included). */
  pending(): number {
    return this.queue.size;
  }

  /** Virtual time of the next live event, or undefined when the queue is empty. */
  nextEventAtMs(): number | undefined {
    return this.queue.peek()?.atMs;
  }

  isRunning(): boolean {
    return this.running;
  }

  /**
   * Schedules `fn` at absolute virtual time `atMs`. A time in the past is clamped to now; NaN
   * throws; +Infinity is allowed (the event never runs). Ties run in scheduling order.
   */
  schedule(atMs: number, fn: () => void | Promise<void>, label?: string): number {
    return this.add(atMs, fn, label, undefined, true);
  }

  /**
   * As schedule, for an event that is never cancelled (a network delivery): no id, and no entry in
   * the id index, which at a million pending deliveries is a large part of the cost of an event.
   */
  post(atMs: number, fn: () => void | Promise<void>, label?: string): void {
    this.add(atMs, fn, label, undefined, false);
  }

  /** Cancels a scheduled event. Unknown, already-run or already-cancelled ids are ignored. O(1). */
  cancel(id: number): void {
    const ev = this.live.get(id);
    if (ev === undefined) return;
    this.live.delete(id);
    if (ev.owner !== undefined) this.owned.get(ev.owner)?.delete(id);
    this.queue.markCancelled(ev);
  }

  /**
   * A Timers port whose timers are tagged with `owner`. `cancelOwner(owner)` cancels the timers
   * pending at that moment; the port itself stays usable (a restarted node may get a fresh one
   * with the same owner name, or keep this one).
   */
  timers(owner: string): Timers {
    const kernel = this;
    return {
      setTimer(delayMs: number, fire: () => void | Promise<void>): TimerHandle {
        if (Number.isNaN(delayMs)) throw new RangeError(`timer delay is NaN (owner ${owner})`);
        const d = delayMs > 0 ? delayMs : 0;
        return kernel.add(kernel.now + d, fire, owner, owner, true);
      },
      cancelTimer(handle: TimerHandle): void {
        const ev = kernel.live.get(handle);
        // Only this owner's timers: a stale handle can never cancel someone else's event.
        if (ev !== undefined && ev.owner === owner) kernel.cancel(handle);
      },
    };
  }

  /** Cancels every pending event scheduled through `timers(owner)` (a crashed node's timers). */
  cancelOwner(owner: string): void {
    const ids = this.owned.get(owner);
    if (ids === undefined) return;
    this.owned.delete(owner);
    for (const id of ids) {
      const ev = this.live.get(id);
      if (ev === undefined) continue;
      this.live.delete(id);
      this.queue.markCancelled(ev);
    }
  }

  /** Live pending events of one owner. */
  pendingOf(owner: string): number {
    return this.owned.get(owner)?.size ?? 0;
  }

  /**
   * Runs events in (time, seq) order until the queue is empty, the next event lies after
   * `untilMs`, or `stop()` is called from a handler. Unless stopped, virtual time then advances to
   * `untilMs` (when finite and later than now), so `runUntil(t)` leaves the clock at `t`.
   */
  async runUntil(untilMs: number): Promise<void> {
    if (Number.isNaN(untilMs)) throw new RangeError('runUntil: untilMs is NaN');
    if (this.running) throw new Error('runUntil: the kernel is already running');
    this.running = true;
    this.stopped = false;
    const queue = this.queue;
    const drain = this.drain;
    try {
      // From here on the loop runs inside a microtask, which the 'tick' drain relies on.
      await null;
      for (;;) {
        if (this.stopped) break;
        const ev = queue.peek();
        if (ev === undefined || ev.atMs > untilMs) break;
        if (this.eventsRun >= this.maxEvents) {
          throw new SimLimitError(`event limit reached: ${this.maxEvents} events run (virtual time ${this.now})`);
        }
        queue.pop();
        if (ev.cancellable) {
          this.live.delete(ev.seq);
          if (ev.owner !== undefined) this.owned.get(ev.owner)?.delete(ev.seq);
        }
        this.now = ev.atMs;
        this.eventsRun++;
        let failed = false;
        let error: unknown;
        let async = false;
        try {
          const r = ev.fn();
          if (isThenable(r)) {
            async = true;
            await r;
          }
        } catch (e) {
          failed = true;
          error = e;
        }
        if (async || failed || this.drainAfterSync) await drain();
        if (failed) {
          if (this.onError === undefined) throw error;
          this.onError(error, { atMs: ev.atMs, seq: ev.seq, label: ev.label });
        }
      }
      if (!this.stopped && untilMs > this.now && untilMs !== Number.POSITIVE_INFINITY) this.now = untilMs;
      if (!this.drainAfterSync) await drainImmediate();
    } finally {
      this.running = false;
    }
  }

  /** Makes the current `runUntil` return after the running event's handler completes. */
  stop(): void {
    this.stopped = true;
  }

  private add(atMs: number, fn: () => void | Promise<void>, label: string | undefined, owner: string | undefined, cancellable: boolean): number {
    if (Number.isNaN(atMs)) throw new RangeError(`schedule: time is NaN (${label ?? 'unlabelled'})`);
    if (typeof fn !== 'function') throw new TypeError('schedule: fn must be a function');
    if (this.queue.size >= this.maxPending) {
      throw new SimLimitError(`pending event limit reached: ${this.maxPending} live events (${label ?? 'unlabelled'})`);
    }
    const seq = ++this.seq;
    const ev: SimEvent = { atMs: atMs > this.now ? atMs : this.now, seq, fn, label, owner, cancellable, cancelled: false };
    this.queue.push(ev);
    if (!cancellable) return seq;
    this.live.set(seq, ev);
    if (owner !== undefined) {
      let set = this.owned.get(owner);
      if (set === undefined) {
        set = new Set();
        this.owned.set(owner, set);
      }
      set.add(seq);
    }
    return seq;
  }
}
