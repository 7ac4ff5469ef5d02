/**
 * The invariant checkers in a worker thread: the same CheckerSuite and ObservationFeed as in
 * process, fed the run's records in the order they happened (sim/parallel-checkers.ts sends them).
 *
 * Records: a trace line as its JSON text (with the block's RLP for a block import), a QBFT message
 * a node sent (each distinct buffer once), a held-state sample, or a marker. After each batch the
 * worker counts it in shared memory, which is how the sender bounds what waits here.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { CheckerSuite } from './suite.ts';
import { ObservationFeed } from './observation-feed.ts';
import type { Observation } from './observation.ts';
import type { TraceLine } from '../trace-events.ts';
import type { Violation } from './violation.ts';

export type CheckerRecord =
  | { k: 'line'; text: string; rlp?: Uint8Array }
  | { k: 'wire'; from: string; code: number; data: Uint8Array; nowMs: number }
  | { k: 'observe'; o: Observation }
  | { k: 'mark'; o: Observation };

export type ToCheckerWorker = { k: 'batch'; records: CheckerRecord[] } | { k: 'query' } | { k: 'finish'; endMs: number };

export interface CheckerOutcome {
  violations: Violation[];
  invariants: { agreement: boolean; validity: boolean; liveness: boolean | null };
  ruleMarks: Record<string, number>;
}

export type FromCheckerWorker =
  | { k: 'state'; violations: number; livenessPendingMs: number | undefined }
  | { k: 'done'; outcome: CheckerOutcome }
  | { k: 'failed'; message: string };

export interface CheckerWorkerInit {
  genesis: Record<string, unknown>;
  latencyAllowanceMs: number;
  originMs: number;
  /** Int32Array over a SharedArrayBuffer: [0] = batches handled. */
  progress: SharedArrayBuffer;
}

function serve(init: CheckerWorkerInit, port: NonNullable<typeof parentPort>): void {
  const suite = new CheckerSuite({ genesis: init.genesis, latencyAllowanceMs: init.latencyAllowanceMs });
  let rlp: Uint8Array | undefined;
  const feed = new ObservationFeed((o) => suite.observe(o), { originMs: init.originMs, blockRlp: () => rlp });
  const progress = new Int32Array(init.progress);
  const take = (r: CheckerRecord): void => {
    switch (r.k) {
      case 'line':
        rlp = r.rlp;
        feed.traceLine(JSON.parse(r.text) as TraceLine);
        rlp = undefined;
        break;
      case 'wire':
        feed.wireMessage(r.from, 'istanbul', r.code, r.data, r.nowMs);
        break;
      case 'observe':
        suite.observe(r.o);
        break;
      case 'mark':
        feed.marker(r.o);
        break;
    }
  };
  port.on('message', (m: ToCheckerWorker) => {
    try {
      if (m.k === 'batch') {
        for (const r of m.records) take(r);
        Atomics.add(progress, 0, 1);
        Atomics.notify(progress, 0);
      } else if (m.k === 'query') {
        port.postMessage({ k: 'state', violations: suite.violations().length, livenessPendingMs: suite.liveness.pendingDeadlineMs() } satisfies FromCheckerWorker);
      } else {
        suite.finish(m.endMs);
        const outcome: CheckerOutcome = { violations: suite.violations(), invariants: suite.invariants(), ruleMarks: suite.acceptance.markCounts() };
        port.postMessage({ k: 'done', outcome } satisfies FromCheckerWorker);
      }
    } catch (err) {
      Atomics.add(progress, 0, 1 << 20);
      Atomics.notify(progress, 0);
      port.postMessage({ k: 'failed', message: String((err as Error)?.message ?? err) } satisfies FromCheckerWorker);
    }
  });
}

if (parentPort !== null && (workerData as { checkerWorker?: CheckerWorkerInit } | undefined)?.checkerWorker !== undefined) {
  serve((workerData as { checkerWorker: CheckerWorkerInit }).checkerWorker, parentPort);
}
