/**
 * A node's timers that can be frozen, as a stop-the-world pause freezes a process: timers that
 * come due while paused fire, in order, when the pause ends.
 */
import type { TimerHandle, Timers } from '../node/runtime/ports.ts';

export class PausableTimers implements Timers {
  private paused = false;
  private deferred: Array<() => void | Promise<void>> = [];

  constructor(private readonly inner: Timers) {}

  setTimer(delayMs: number, fire: () => void | Promise<void>): TimerHandle {
    return this.inner.setTimer(delayMs, () => {
      if (!this.paused) return fire();
      this.deferred.push(fire);
    });
  }

  cancelTimer(handle: TimerHandle): void {
    this.inner.cancelTimer(handle);
  }

  pause(): void {
    this.paused = true;
  }

  /** Ends the pause; the returned promise settles once every deferred timer has run. */
  async resume(): Promise<void> {
    this.paused = false;
    const due = this.deferred;
    this.deferred = [];
    for (const fire of due) await fire();
  }
}
