/**
 * Real timers for the live node. Handles are small integers (never reused while the timer is
 * pending); a promise returned by a callback is awaited and its rejection reported through
 * `onError` (default: console.error), never left unhandled.
 */
import type { TimerHandle, Timers } from './ports.ts';

export interface LiveTimersOptions {
  /** Let the process exit while timers are pending (Node's timer.unref()). Default false. */
  unref?: boolean;
  /** Called when a timer callback throws or its promise rejects. */
  onError?: (error: unknown) => void;
}

export class LiveTimers implements Timers {
  private nextHandle = 1;
  private readonly pending = new Map<TimerHandle, ReturnType<typeof setTimeout>>();
  private readonly unref: boolean;
  private readonly onError: (error: unknown) => void;

  constructor(opts: LiveTimersOptions = {}) {
    this.unref = opts.unref ?? false;
    this.onError = opts.onError ?? ((e) => console.error('timer callback failed:', e));
  }

  setTimer(delayMs: number, fire: () => void | Promise<void>): TimerHandle {
    const handle = this.nextHandle++;
    const delay = Number.isFinite(delayMs) ? Math.max(0, delayMs) : 0;
    const t = setTimeout(() => {
      this.pending.delete(handle);
      try {
        const r = fire();
        if (r !== undefined && typeof (r as Promise<void>).then === 'function') (r as Promise<void>).catch(this.onError);
      } catch (e) {
        this.onError(e);
      }
    }, delay);
    if (this.unref) t.unref();
    this.pending.set(handle, t);
    return handle;
  }

  cancelTimer(handle: TimerHandle): void {
    const t = this.pending.get(handle);
    if (t === undefined) return;
    clearTimeout(t);
    this.pending.delete(handle);
  }

  /** Timers not yet fired or cancelled. */
  pendingCount(): number {
    return this.pending.size;
  }

  /** Cancels every pending timer (used at shutdown). */
  cancelAll(): void {
    for (const t of this.pending.values()) clearTimeout(t);
    this.pending.clear();
  }
}
