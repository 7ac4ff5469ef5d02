/**
 * `fuzz --jobs N`: runs a campaign's cases in N worker processes. Cases are independent of one
 * another (sim/fuzz.ts), so a worker runs whole cases, shrinking included, and the campaign takes
 * the outcomes in index order: the report, the failures and their files are those of one process.
 *
 * At most one case per worker runs, and no case is sent more than LOOKAHEAD_PER_JOB * jobs
 * positions ahead of the next outcome the campaign waits for, so finished outcomes waiting for an
 * earlier, slower case stay bounded. With stopAtFirstFailure, a case whose outcome ends the campaign
 * (outcome.endsCampaign: a failure; hunting a bug, a counted find, known only once the case is
 * shrunk and replayed with the switch off) makes every later case unneeded: their workers are stopped and
 * nothing after it is sent.
 *
 * Processes rather than worker threads: a busy worker has to be stopped, and terminating a thread
 * inside a call into the native secp256k1 or keccak binding aborts the whole process (an uncaught
 * Napi::Error); killing a process is always safe. The IPC channel uses structured clone.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FuzzCaseOutcome, FuzzCaseRunner, FuzzCaseSpec } from '../sim/fuzz.ts';

export interface ToWorker {
  /** Position in the campaign's (or shard's) list of case indices. */
  position: number;
  caseIndex: number;
}

export type FromWorker =
  | { kind: 'outcome'; position: number; outcome: FuzzCaseOutcome }
  | { kind: 'threw'; position: number; message: string; stack?: string };

export const MAX_JOBS = 256;
const LOOKAHEAD_PER_JOB = 4;
// Run from the TypeScript sources (tsx), a worker loads them through tsx as well; run from the
// JavaScript compiled into dist/, it runs the compiled worker beside this file.
const fromSources = import.meta.url.endsWith('.ts');
const workerModule = fileURLToPath(new URL(fromSources ? './fuzz-worker.ts' : './fuzz-worker.js', import.meta.url));
const workerExecArgv = fromSources ? ['--import', import.meta.resolve('tsx')] : [];

interface Slot {
  worker: ChildProcess;
  exited: Promise<void>;
  /** The position it is running. */
  position?: number;
  /** Terminated by us: its exit is not an error. */
  stopped: boolean;
}

type Finished = { outcome: FuzzCaseOutcome } | { error: Error };

export function workerCaseRunner(jobs: number): FuzzCaseRunner {
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > MAX_JOBS) throw new RangeError(`jobs must be an integer from 1 to ${MAX_JOBS}, got ${jobs}`);
  return (spec, caseIndices, { timed }) => runInWorkers(jobs, spec, caseIndices, timed);
}

async function* runInWorkers(jobs: number, spec: FuzzCaseSpec, caseIndices: number[], timed: boolean): AsyncGenerator<FuzzCaseOutcome> {
  const lookahead = jobs * LOOKAHEAD_PER_JOB;
  const finished = new Map<number, Finished>();
  const slots: Slot[] = [];
  let nextToSend = 0;
  let nextToYield = 0;
  // Positions after the lowest one known to fail are not needed when the campaign stops there.
  let lastNeeded = caseIndices.length - 1;
  let broken: Error | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };

  const sendWork = () => {
    for (const slot of slots) {
      if (slot.position !== undefined || slot.stopped) continue;
      if (nextToSend > lastNeeded || nextToSend >= nextToYield + lookahead) return;
      slot.position = nextToSend;
      slot.worker.send({ position: nextToSend, caseIndex: caseIndices[nextToSend] } satisfies ToWorker);
      nextToSend++;
    }
  };
  const stop = (slot: Slot) => {
    slot.stopped = true;
    slot.worker.kill('SIGKILL');
  };

  const onMessage = (slot: Slot, message: FromWorker) => {
    if (message.kind === 'outcome' && message.outcome.endsCampaign && message.position < lastNeeded) {
      lastNeeded = message.position;
      for (const other of slots) if (other.position !== undefined && other.position > lastNeeded) stop(other);
    }
    slot.position = undefined;
    finished.set(
      message.position,
      message.kind === 'outcome' ? { outcome: message.outcome } : { error: Object.assign(new Error(message.message), message.stack ? { stack: message.stack } : {}) },
    );
    sendWork();
    notify();
  };

  for (let i = 0; i < Math.min(jobs, caseIndices.length); i++) {
    const worker = fork(workerModule, [JSON.stringify({ spec, timed })], { execArgv: workerExecArgv, serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const exited = new Promise<void>((resolve) => {
      worker.once('exit', () => resolve());
      // A process that never started has no exit to wait for.
      worker.once('error', () => worker.pid === undefined && resolve());
    });
    const slot: Slot = { worker, exited, stopped: false };
    worker.on('message', (message: FromWorker) => onMessage(slot, message));
    worker.on('error', (err) => {
      broken ??= err;
      notify();
    });
    worker.on('exit', (code, signal) => {
      if (slot.stopped) return;
      broken ??= new Error(`fuzz worker ${i} exited (${signal ?? `code ${code}`})`);
      notify();
    });
    slots.push(slot);
  }

  try {
    sendWork();
    while (nextToYield <= lastNeeded) {
      let next: Finished | undefined;
      while ((next = finished.get(nextToYield)) === undefined) {
        if (broken) throw broken;
        await new Promise<void>((resolve) => (wake = resolve));
      }
      finished.delete(nextToYield);
      nextToYield++;
      sendWork();
      if ('error' in next) throw next.error;
      yield next.outcome;
    }
  } finally {
    for (const slot of slots) stop(slot);
    await Promise.all(slots.map((slot) => slot.exited));
  }
}
