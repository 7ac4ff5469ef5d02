/**
 * The invariant checkers of one run on the second core: a worker thread (sim/checkers/checker-worker.ts)
 * consumes the run's records as the run writes them, while this thread simulates.
 *
 * The worker's verdicts cannot reach back into the run while it goes on, so this is an optimistic
 * mode: the caller uses it only where the checkers do not steer the run, and when the worker finds
 * a violation (or liveness still waits for its deadline at the end) the caller runs the scenario
 * again with the checkers in process. Runs are deterministic, so that second run is the same run,
 * with its invariant-violated lines where the in-process checkers put them.
 *
 * The records are the in-process checkers' inputs, in the same order: trace lines (as JSON text;
 * a block import with the block's RLP from the importing node), each distinct QBFT message buffer a
 * node sends, held-state samples and markers. They go in batches; at most MAX_BATCHES_AHEAD wait in
 * the worker, beyond which this thread blocks until the worker catches up.
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { SIM_START_TIME_MS, type World } from './world.ts';
import { isQbftCode } from './checkers/toolkit/qbft-messages.ts';
import { OBSERVED_LINE_KINDS } from './checkers/observation-feed.ts';
import { importedBlockRlp } from './checkers/world-tap.ts';
import type { Observation } from './checkers/observation.ts';
import type { CheckerOutcome, CheckerRecord, CheckerWorkerInit, FromCheckerWorker, ToCheckerWorker } from './checkers/checker-worker.ts';
import type { Hex } from './checkers/toolkit/crypto.ts';

const BATCH_RECORDS = 2048;
const MAX_BATCHES_AHEAD = 32;
const CATCH_UP_WAIT_MS = 60_000;

const fromSources = import.meta.url.endsWith('.ts');
const workerUrl = new URL(fromSources ? './checkers/checker-worker.ts' : './checkers/checker-worker.js', import.meta.url);

function spawn(init: CheckerWorkerInit): Worker {
  const workerData = { checkerWorker: init };
  if (!fromSources) return new Worker(fileURLToPath(workerUrl), { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(workerUrl.href)}); });`;
  return new Worker(boot, { eval: true, workerData });
}

export class ParallelCheckers {
  private readonly worker: Worker;
  private readonly progress: Int32Array;
  private batch: CheckerRecord[] = [];
  private batchesSent = 0;
  private readonly seenBuffers = new WeakSet<Uint8Array>();
  private readonly detach: Array<() => void> = [];
  private failure: string | undefined;
  private replies: Array<(m: FromCheckerWorker) => void> = [];

  /** Attach before the run-started line is recorded. */
  constructor(
    world: World,
    opts: { genesis: Record<string, unknown>; latencyAllowanceMs: number },
  ) {
    const progress = new SharedArrayBuffer(4);
    this.progress = new Int32Array(progress);
    this.worker = spawn({ genesis: opts.genesis, latencyAllowanceMs: opts.latencyAllowanceMs, originMs: SIM_START_TIME_MS, progress });
    this.worker.on('message', (m: FromCheckerWorker) => this.reply(m));
    this.worker.on('error', (err) => this.reply({ k: 'failed', message: String(err?.message ?? err) }));
    // An exit before the last answer (a crash, or terminate) fails every question still open.
    this.worker.on('exit', (code) => this.reply({ k: 'failed', message: `the worker exited (code ${code})` }));
    this.detach.push(
      world.trace.subscribeText((text, node, event) => {
        // Lines the checkers read as nothing (most are message traffic) stay here.
        if (!OBSERVED_LINE_KINDS.has(event.kind)) return;
        this.push({ k: 'line', text, rlp: event.kind === 'block-imported' && node !== null ? importedBlockRlp(world, node, (event as { hash: Hex }).hash) : undefined });
      }),
      world.network.tap((from, m) => {
        if (m.protocol !== 'istanbul' || !isQbftCode(m.code) || this.seenBuffers.has(m.data)) return;
        this.seenBuffers.add(m.data);
        this.push({ k: 'wire', from, code: m.code, data: m.data, nowMs: world.kernel.nowMs() });
      }),
    );
  }

  /** A held-state sample (or any observation the runner makes itself). */
  observe(o: Observation): void {
    this.push({ k: 'observe', o });
  }

  mark(o: Observation): void {
    this.push({ k: 'mark', o });
  }

  /** Waits for the worker to take in everything so far; how many checkers have failed, and liveness's open deadline. */
  async state(): Promise<{ violations: number; livenessPendingMs: number | undefined }> {
    const m = await this.ask({ k: 'query' });
    if (m.k !== 'state') throw new Error(`checker worker: ${m.k === 'failed' ? m.message : 'unexpected reply'}`);
    return m;
  }

  /** The run is over at `endMs`: the checkers' outcome. The worker ends. */
  async finish(endMs: number): Promise<CheckerOutcome> {
    try {
      const m = await this.ask({ k: 'finish', endMs });
      if (m.k !== 'done') throw new Error(`checker worker: ${m.k === 'failed' ? m.message : 'unexpected reply'}`);
      return m.outcome;
    } finally {
      this.close();
    }
  }

  close(): void {
    for (const d of this.detach.splice(0)) d();
    void this.worker.terminate();
  }

  private push(r: CheckerRecord): void {
    this.batch.push(r);
    if (this.batch.length >= BATCH_RECORDS) this.flush();
  }

  private flush(): void {
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = [];
    // A failed worker takes nothing more; the caller learns of it when it asks, and judges in process.
    if (this.failure !== undefined) return;
    // Bounded: wait here while the worker is too far behind.
    while (this.batchesSent - Atomics.load(this.progress, 0) >= MAX_BATCHES_AHEAD) {
      if (Atomics.wait(this.progress, 0, Atomics.load(this.progress, 0), CATCH_UP_WAIT_MS) === 'timed-out') {
        this.failure = `no progress for ${CATCH_UP_WAIT_MS / 1000} s`;
        return;
      }
    }
    this.post({ k: 'batch', records: batch });
    this.batchesSent++;
  }

  private ask(m: ToCheckerWorker): Promise<FromCheckerWorker> {
    this.flush();
    if (this.failure !== undefined) return Promise.resolve({ k: 'failed', message: this.failure });
    return new Promise((resolve) => {
      this.replies.push(resolve);
      this.post(m);
    });
  }

  private post(m: ToCheckerWorker): void {
    this.worker.postMessage(m);
  }

  private reply(m: FromCheckerWorker): void {
    if (m.k === 'failed') {
      this.failure ??= m.message;
      for (const r of this.replies.splice(0)) r(m);
      return;
    }
    this.replies.shift()?.(m);
  }
}
