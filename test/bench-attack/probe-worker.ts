/**
 * The latency probe's own thread: the attack clients share the main thread's event loop, and a
 * probe timed there would count their work (RLPx handshakes, big JSON answers) as the node's.
 *
 * eth_blockNumber to one node every `intervalMs`, not waiting for earlier answers (a stalled node
 * then shows up as many slow probes rather than as a few missing ones); a probe not answered
 * within `timeoutMs` counts as that latency, so at most timeoutMs / intervalMs are in flight.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { blockNumber } from './rpc.ts';

export interface ProbeConfig {
  port: number;
  intervalMs: number;
  timeoutMs: number;
}

export interface ProbeRecord {
  sent: number;
  /** One per probe; a probe that failed or timed out counts as timeoutMs. */
  latenciesMs: number[];
  timeouts: number;
  errors: number;
}

class ProbeLoop {
  private readonly record: ProbeRecord = { sent: 0, latenciesMs: [], timeouts: 0, errors: 0 };
  private readonly inFlight = new Set<Promise<void>>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly config: ProbeConfig) {
    this.timer = setInterval(() => this.probe(), config.intervalMs);
    this.probe();
  }

  private probe(): void {
    this.record.sent++;
    const startMs = performance.now();
    const done = blockNumber(this.config.port, AbortSignal.timeout(this.config.timeoutMs)).then(
      () => void this.record.latenciesMs.push(performance.now() - startMs),
      (err: unknown) => this.onFailure(err),
    );
    this.inFlight.add(done);
    void done.finally(() => this.inFlight.delete(done));
  }

  private onFailure(err: unknown): void {
    this.record.latenciesMs.push(this.config.timeoutMs);
    if ((err as { name?: string })?.name === 'TimeoutError') this.record.timeouts++;
    else this.record.errors++;
  }

  /** Stops sending and waits for the probes in flight (at most timeoutMs). */
  async stop(): Promise<ProbeRecord> {
    clearInterval(this.timer);
    await Promise.all([...this.inFlight]);
    return this.record;
  }
}

if (parentPort) {
  const port = parentPort;
  const loop = new ProbeLoop(workerData as ProbeConfig);
  port.once('message', async () => port.postMessage(await loop.stop()));
}
