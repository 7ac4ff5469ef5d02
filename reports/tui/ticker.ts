/**
 * The playback clock, handed to the replay view from outside: reports/ keeps no real timers (the
 * CLI passes one built on setInterval; tests pass one they advance by hand).
 */
export interface Ticker {
  /** Calls onTick about every intervalMs with the wall ms elapsed since the previous call; returns a stop function. */
  every(intervalMs: number, onTick: (elapsedMs: number) => void): () => void;
}

/** A ticker driven by hand: advance(ms) calls every running callback once with ms. */
export class ManualTicker implements Ticker {
  private readonly callbacks = new Set<(elapsedMs: number) => void>();

  every(_intervalMs: number, onTick: (elapsedMs: number) => void): () => void {
    this.callbacks.add(onTick);
    return () => this.callbacks.delete(onTick);
  }

  get running(): number {
    return this.callbacks.size;
  }

  advance(ms: number): void {
    for (const cb of [...this.callbacks]) cb(ms);
  }
}
