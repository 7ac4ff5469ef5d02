/**
 * What the bench measures: the chain's block rate seen from a node that is not attacked, the
 * eth_blockNumber latency of the attacked node (from its own thread) and a process's resident memory.
 */
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { ProbeConfig, ProbeRecord } from './probe-worker.ts';
import { blockNumber } from './rpc.ts';
import { sleep } from './time.ts';

const HEIGHT_POLL_MS = 100;
const PROBE_INTERVAL_MS = 100;
/** A probe not answered by then counts as this latency (and as a timeout). */
export const PROBE_TIMEOUT_MS = 2_000;

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * Heights of one node over time, polled every HEIGHT_POLL_MS until stopped. Heights between two
 * observed increments are interpolated, so a rate over a short window is not quantised to whole
 * blocks, while a stall still shows as a long gap between increments.
 */
export class HeightWatcher {
  /** When each new height was first seen, oldest first. */
  private readonly increments: Array<{ atMs: number; height: number }> = [];
  private stopped = false;
  private readonly loop: Promise<void>;

  constructor(readonly port: number) {
    this.loop = this.poll();
  }

  private async poll(): Promise<void> {
    while (!this.stopped) {
      const height = await blockNumber(this.port, AbortSignal.timeout(PROBE_TIMEOUT_MS)).catch(() => undefined);
      if (height !== undefined && height > (this.increments.at(-1)?.height ?? -1)) this.increments.push({ atMs: Date.now(), height });
      await sleep(HEIGHT_POLL_MS);
    }
  }

  /** The chain's height at `atMs`, interpolated between the increments around it. */
  heightAt(atMs: number): number | undefined {
    const next = this.increments.findIndex((s) => s.atMs > atMs);
    if (next === 0) return undefined;
    const before = this.increments[next === -1 ? this.increments.length - 1 : next - 1];
    if (before === undefined) return undefined;
    const after = next === -1 ? undefined : this.increments[next]!;
    if (after === undefined) return before.height;
    return before.height + ((after.height - before.height) * (atMs - before.atMs)) / (after.atMs - before.atMs);
  }

  /** Waits (at most `timeoutMs`) for a height seen after `atMs`, so heightAt(atMs) can interpolate. */
  async seenPast(atMs: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((this.increments.at(-1)?.atMs ?? 0) <= atMs && Date.now() < deadline) await sleep(HEIGHT_POLL_MS);
  }

  /** How many new heights were seen after `atMs`. */
  incrementsSince(atMs: number): number {
    return this.increments.filter((s) => s.atMs > atMs).length;
  }

  latestHeight(): number | undefined {
    return this.increments.at(-1)?.height;
  }

  /** Blocks per second between two instants. */
  ratePerSecond(fromMs: number, toMs: number): number {
    const from = this.heightAt(fromMs);
    const to = this.heightAt(toMs);
    if (from === undefined || to === undefined || toMs <= fromMs) return NaN;
    return (to - from) / ((toMs - fromMs) / 1000);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }
}

export interface ProbeSummary {
  sent: number;
  answered: number;
  timeouts: number;
  errors: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

function summarize(record: ProbeRecord): ProbeSummary {
  const { sent, latenciesMs, timeouts, errors } = record;
  return {
    sent,
    answered: latenciesMs.length - timeouts - errors,
    timeouts,
    errors,
    p50Ms: percentile(latenciesMs, 50),
    p95Ms: percentile(latenciesMs, 95),
    maxMs: Math.max(...latenciesMs),
  };
}

const PROBE_WORKER_URL = new URL('./probe-worker.ts', import.meta.url);

/** The probe worker, which registers tsx before loading its TypeScript module (as off-loop/worker-simulator.ts does). */
function spawnProbeWorker(config: ProbeConfig): Worker {
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(PROBE_WORKER_URL.href)}); });`;
  return new Worker(boot, { eval: true, workerData: config });
}

/** node 0's eth_blockNumber latency, probed every PROBE_INTERVAL_MS from a worker thread (probe-worker.ts). */
export class Prober {
  private readonly worker: Worker;
  private readonly failed: Promise<never>;

  constructor(port: number) {
    this.worker = spawnProbeWorker({ port, intervalMs: PROBE_INTERVAL_MS, timeoutMs: PROBE_TIMEOUT_MS });
    this.failed = new Promise((_, reject) => this.worker.once('error', (err) => reject(new Error(`probe worker failed: ${err.message}`))));
    this.failed.catch(() => {});
  }

  /** Stops probing and waits for the probes in flight (at most PROBE_TIMEOUT_MS). */
  async stop(): Promise<ProbeSummary> {
    try {
      const answered = new Promise<ProbeRecord>((resolve) => this.worker.once('message', resolve));
      this.worker.postMessage('stop');
      return summarize(await Promise.race([answered, this.failed]));
    } finally {
      await this.worker.terminate();
    }
  }
}

/** VmRSS of a process in MiB (Linux /proc), or undefined when it cannot be read. */
export function rssMiB(pid: number): number | undefined {
  try {
    const kib = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib === undefined ? undefined : Number(kib) / 1024;
  } catch {
    return undefined;
  }
}

/** The largest VmRSS of a process seen while sampling every `everyMs`. */
export class RssPeak {
  peakMiB: number | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pid: number, everyMs = 250) {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  private sample(): void {
    const now = rssMiB(this.pid);
    if (now !== undefined && (this.peakMiB === undefined || now > this.peakMiB)) this.peakMiB = now;
  }

  stop(): number | undefined {
    clearInterval(this.timer);
    this.sample();
    return this.peakMiB;
  }
}
