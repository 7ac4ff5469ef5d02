/**
 * BENCHMARK ONLY — measures the kernel's per-event cost with real wall-clock time
 * (`performance.now`). Nothing in the simulation imports this file; it is called from the bench
 * script only.
 *
 * Workload: 64 actors, each an event that re-schedules itself at now + (1..16) ms (a fixed LCG,
 * no randomness from the host), so the heap holds ~64 entries, time ties are frequent, and one in
 * eight handlers also sets and cancels a timer (exercising lazy deletion).
 */
import { SimKernel, type DrainMode } from './kernel.ts';

export interface KernelBenchResult {
  eventsPerSecond: number;
  usPerEvent: number;
  events: number;
  handler: 'sync' | 'async';
  drain: DrainMode;
}

export async function benchKernel(
  events: number,
  opts: { handler?: 'sync' | 'async'; drain?: DrainMode } = {},
): Promise<KernelBenchResult> {
  const handler = opts.handler ?? 'sync';
  const drain = opts.drain ?? 'tick';
  const n = Math.max(1, Math.min(Math.floor(events), 100_000_000));
  const kernel = new SimKernel({ startTimeMs: 0, maxEvents: n, drain });
  const timers = kernel.timers('bench');
  let lcg = 12345;
  let scheduled = 0;
  const next = (): number => {
    lcg = (Math.imul(lcg, 1103515245) + 12345) >>> 0;
    return 1 + (lcg >>> 28);
  };
  const noop = (): void => {};
  const step = (): void => {
    if (scheduled >= n) return;
    scheduled++;
    kernel.schedule(kernel.nowMs() + next(), handler === 'sync' ? step : asyncStep, 'bench');
    if ((lcg & 7) === 0) timers.cancelTimer(timers.setTimer(1000, noop));
  };
  const asyncStep = async (): Promise<void> => {
    await Promise.resolve();
    step();
  };
  for (let i = 0; i < 64 && scheduled < n; i++) {
    scheduled++;
    kernel.schedule(next(), handler === 'sync' ? step : asyncStep, 'bench');
  }
  const t0 = performance.now(); // benchmark only
  await kernel.runUntil(Number.POSITIVE_INFINITY);
  const seconds = (performance.now() - t0) / 1000; // benchmark only
  const ran = kernel.eventsRun;
  return {
    eventsPerSecond: Math.round(ran / seconds),
    usPerEvent: (seconds * 1e6) / ran,
    events: ran,
    handler,
    drain,
  };
}
