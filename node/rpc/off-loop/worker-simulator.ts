/**
 * The RPC simulator of a live node, run on worker threads (simulator-worker.ts) so that no eth_call,
 * estimate, access list, proof or trace re-execution ever holds the node's event loop, where
 * consensus runs. Besu runs its JSON-RPC on Vert.x worker threads for the same reason.
 *
 * - Jobs queue first in first out (bounded) and run one per worker; a job whose request was given
 *   up (its budget timed out or its client left: request-budget.ts) is dropped from the queue, or,
 *   when already running, its worker is terminated and a fresh one takes its place. So a request
 *   never costs more worker time than its budget.
 * - The worker reads state from this thread's TrieNodeStore a node at a time (a Map lookup here);
 *   the job's state root is kept from pruning while it runs.
 * - Workers start on the first job and are kept; `close` ends them.
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import type { Genesis } from '../../chain/genesis.ts';
import type { Hex } from '../../crypto/bytes.ts';
import type { TrieNodeStore } from '../../execution/state-db.ts';
import { RpcError } from '../errors.ts';
import type { CallBlockContext, CallOptions, CallOutcome, CallRequest } from '../../execution/calls/call-types.ts';
import type { ReplayBlock, ReplayOptions, TxReplay } from '../../execution/calls/replay.ts';
import { PrecompileOverrideError } from '../../execution/calls/state-override.ts';
import type { SimulatorPort } from '../../execution/calls/transaction-simulator.ts';
import type { SimulateBlocksRequest, SimulateBlocksResult } from '../../execution/calls/block-simulator.ts';
import { TraceTooLargeError } from '../../execution/tracers/struct-logger.ts';
import { abandonReason, requestSignal, RequestAbandonedError } from './request-budget.ts';
import { DEFAULT_NODE_CACHE_BYTES } from './remote-node-store.ts';
import type { FromWorker, Job, Question, ToWorker, WireError, WireReplayBlock, WorkerInit } from './protocol.ts';

export interface WorkerSimulatorOptions {
  genesis: Genesis;
  store: TrieNodeStore;
  /** Canonical (QBFT) hash of block `n`, for BLOCKHASH. */
  hashes: (n: bigint) => Uint8Array | undefined;
  /** Worker threads (default 2). */
  workers?: number;
  /** Trie node cache of each worker, in bytes (default 64 MiB). */
  nodeCacheBytes?: number;
  /** Jobs waiting for a worker at most (default 4096); more answer an error at once. */
  maxQueuedJobs?: number;
  /** A worker died of something other than being ended: for the log. */
  onWorkerError?: (error: unknown) => void;
}

interface QueuedJob {
  id: number;
  job: Job;
  root: Uint8Array;
  signal: AbortSignal | undefined;
  onReplayed?: (block: number, replays: Array<TxReplay | undefined>) => boolean | void | Promise<boolean | void>;
  resolve(value: unknown): void;
  reject(error: Error): void;
  stopQueuedWatch?: () => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  current?: QueuedJob;
  stopAbortWatch?: () => void;
  releaseRoot?: () => void;
}

// Run from the TypeScript sources (tsx), a worker registers tsx before it loads its module.
const fromSources = import.meta.url.endsWith('.ts');
const workerUrl = new URL(fromSources ? './simulator-worker.ts' : './simulator-worker.js', import.meta.url);

function spawnWorker(init: WorkerInit): Worker {
  if (!fromSources) return new Worker(fileURLToPath(workerUrl), { workerData: init });
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(workerUrl.href)}); });`;
  return new Worker(boot, { eval: true, workerData: init });
}

function rebuiltError(e: WireError): Error {
  if (e.name === 'PrecompileOverrideError') return new PrecompileOverrideError(e.message);
  if (e.name === 'TraceTooLargeError') return new TraceTooLargeError(e.message);
  return new Error(e.message);
}

export class WorkerSimulator implements SimulatorPort {
  private readonly slots: Array<Slot | undefined>;
  private readonly queue: QueuedJob[] = [];
  private nextJobId = 0;
  private closed = false;
  private readonly init: WorkerInit;
  private readonly maxQueuedJobs: number;
  /** Totals for the tests and the bench. */
  readonly stats = { started: 0, done: 0, abandoned: 0, workersEnded: 0 };

  constructor(private readonly opts: WorkerSimulatorOptions) {
    const workers = opts.workers ?? 2;
    if (!(Number.isSafeInteger(workers) && workers >= 1)) throw new RangeError('workers must be a positive integer');
    this.slots = new Array<Slot | undefined>(workers).fill(undefined);
    this.maxQueuedJobs = opts.maxQueuedJobs ?? 4096;
    this.init = { genesis: { ...opts.genesis, alloc: new Map() }, nodeCacheBytes: opts.nodeCacheBytes ?? DEFAULT_NODE_CACHE_BYTES };
  }

  hasState(root: Uint8Array): boolean {
    return this.opts.store.hasRoot(root);
  }

  simulate(block: CallBlockContext, req: CallRequest, gasLimit: bigint, opts: CallOptions): Promise<CallOutcome> {
    return this.submit({ kind: 'simulate', block, req, gasLimit, opts }, block.stateRoot) as Promise<CallOutcome>;
  }

  proof(root: Uint8Array, number: bigint, timestamp: bigint, address: Hex, slots: Uint8Array[]) {
    return this.submit({ kind: 'proof', root, number, timestamp, address, slots }, root) as ReturnType<SimulatorPort['proof']>;
  }

  simulateBlocks(req: SimulateBlocksRequest): Promise<SimulateBlocksResult> {
    return this.submit({ kind: 'simulateBlocks', req }, req.base.stateRoot) as Promise<SimulateBlocksResult>;
  }

  async replayBlocks(
    parentRoot: Uint8Array,
    blocks: readonly ReplayBlock[],
    opts: ReplayOptions,
  ): Promise<void> {
    if (blocks.length === 0) return;
    const wire: WireReplayBlock[] = blocks.map((b) => ({
      number: b.header.number,
      timestamp: b.header.timestamp,
      header: b.header.serialize(),
      parentHash: b.parentHash,
      feeRecipient: b.feeRecipient,
      txs: b.txs.map((tx) => tx.serialize()),
    }));
    const wanted = blocks.map((b, bi) => b.txs.map((_tx, i) => opts.wanted(bi, i)));
    const job: Job = { kind: 'replay', parentRoot, blocks: wire, wanted, stateDiff: opts.stateDiff ?? false, structLogs: opts.structLogs };
    await this.submit(job, parentRoot, opts.onBlock);
  }

  /** Ends every worker; queued and running jobs fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const q of this.queue.splice(0)) q.reject(new Error('the node is shutting down'));
    await Promise.all(this.slots.map((slot, i) => (slot ? this.endWorker(i, new Error('the node is shutting down')) : undefined)));
  }

  private submit(job: Job, root: Uint8Array, onReplayed?: QueuedJob['onReplayed']): Promise<unknown> {
    const signal = requestSignal();
    if (this.closed) return Promise.reject(new Error('the node is shutting down'));
    if (signal?.aborted) return Promise.reject(new RequestAbandonedError(abandonReason(signal)));
    if (this.queue.length >= this.maxQueuedJobs) {
      return Promise.reject(new RpcError(-32603, `Internal error: more than ${this.maxQueuedJobs} executions are waiting`));
    }
    return new Promise((resolve, reject) => {
      const q: QueuedJob = { id: this.nextJobId++, job, root, signal, onReplayed, resolve, reject };
      this.queue.push(q);
      this.watchWhileQueued(q);
      this.pump();
    });
  }

  /** A job given up while it waits leaves the queue at once (its promise fails then too). */
  private watchWhileQueued(q: QueuedJob): void {
    const signal = q.signal;
    if (!signal) return;
    const onAbort = () => {
      const at = this.queue.indexOf(q);
      if (at < 0) return;
      this.queue.splice(at, 1);
      this.stats.abandoned++;
      q.reject(new RequestAbandonedError(abandonReason(signal)));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    q.stopQueuedWatch = () => signal.removeEventListener('abort', onAbort);
  }

  /** Gives waiting jobs to idle workers (starting workers as needed); drops given-up ones. */
  private pump(): void {
    for (let i = 0; i < this.slots.length && this.queue.length > 0; i++) {
      const slot = this.slots[i];
      if (slot && (slot.current || !slot.ready)) continue;
      const next = this.nextLiveJob();
      if (!next) return;
      this.start(i, next);
    }
  }

  private nextLiveJob(): QueuedJob | undefined {
    while (this.queue.length > 0) {
      const q = this.queue.shift()!;
      if (!q.signal?.aborted) return q;
      this.stats.abandoned++;
      q.reject(new RequestAbandonedError(abandonReason(q.signal)));
    }
    return undefined;
  }

  private start(index: number, q: QueuedJob): void {
    q.stopQueuedWatch?.();
    const slot = this.slots[index] ?? this.spawn(index);
    slot.current = q;
    slot.releaseRoot = this.opts.store.addRetainer(() => [q.root]);
    if (q.signal) {
      const onAbort = () => {
        this.stats.abandoned++;
        void this.endWorker(index, new RequestAbandonedError(abandonReason(q.signal!)));
      };
      q.signal.addEventListener('abort', onAbort, { once: true });
      slot.stopAbortWatch = () => q.signal!.removeEventListener('abort', onAbort);
    }
    this.stats.started++;
    if (slot.ready) this.post(slot, { kind: 'job', id: q.id, job: q.job });
  }

  private spawn(index: number): Slot {
    const worker = spawnWorker(this.init);
    worker.unref();
    const slot: Slot = { worker, ready: false };
    this.slots[index] = slot;
    worker.on('message', (m: FromWorker) => this.onMessage(index, slot, m));
    worker.on('error', (e) => {
      this.opts.onWorkerError?.(e);
      void this.endWorker(index, new Error(`the execution worker failed: ${e instanceof Error ? e.message : String(e)}`));
    });
    worker.on('exit', () => {
      if (this.slots[index] === slot) void this.endWorker(index, new Error('the execution worker stopped'));
    });
    return slot;
  }

  private onMessage(index: number, slot: Slot, m: FromWorker): void {
    if (this.slots[index] !== slot) return;
    switch (m.kind) {
      case 'ready':
        slot.ready = true;
        if (slot.current) this.post(slot, { kind: 'job', id: slot.current.id, job: slot.current.job });
        else this.pump();
        return;
      case 'ask':
        void this.answer(slot, m.askId, m.question);
        return;
      case 'done':
      case 'failed': {
        const q = slot.current;
        if (!q || q.id !== m.id) return;
        this.finish(slot);
        this.stats.done++;
        if (m.kind === 'done') q.resolve(m.value);
        else q.reject(rebuiltError(m.error));
        this.pump();
      }
    }
  }

  private async answer(slot: Slot, askId: number, question: Question): Promise<void> {
    let value: unknown;
    if (question.kind === 'node') value = this.opts.store.valueOf(question.key);
    else if (question.kind === 'hash') value = this.opts.hashes(question.number);
    else {
      const q = slot.current;
      value = q && q.id === question.jobId ? (await q.onReplayed?.(question.block, question.replays)) !== false : false;
    }
    this.post(slot, { kind: 'answer', askId, value });
  }

  private post(slot: Slot, m: ToWorker): void {
    slot.worker.postMessage(m);
  }

  private finish(slot: Slot): void {
    slot.stopAbortWatch?.();
    slot.releaseRoot?.();
    slot.stopAbortWatch = slot.releaseRoot = slot.current = undefined;
  }

  /** Terminates worker `index`, failing its job with `error`; the next job starts a fresh one. */
  private async endWorker(index: number, error: Error): Promise<void> {
    const slot = this.slots[index];
    if (!slot) return;
    this.slots[index] = undefined;
    this.stats.workersEnded++;
    const q = slot.current;
    this.finish(slot);
    q?.reject(error);
    await slot.worker.terminate();
    if (!this.closed) this.pump();
  }
}
