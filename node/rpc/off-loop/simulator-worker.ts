/**
 * A simulator worker thread: runs the RPC methods' EVM work (calls, estimates, access lists,
 * proofs, re-executions for traces) on its own TransactionSimulator, so none of it runs on the
 * node's event loop. State comes from the node's thread a trie node at a time (and stays cached:
 * nodes are content-addressed); ancestor hashes for BLOCKHASH likewise. One job runs at a time;
 * the node's thread sends the next when this one is done, and ends a job that overran its budget
 * by terminating the thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createBlockHeaderFromBytesArray } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { createTxFromRLP } from '@ethereumjs/tx';
import { createCommonFromGenesis } from '../../chain/common.ts';
import { decodingCommon } from '../../chain/decoding-common.ts';
import { TransactionSimulator } from '../../execution/calls/transaction-simulator.ts';
import type { ReplayBlock, TxReplay } from '../../execution/calls/replay.ts';
import { RemoteNodeStore } from './remote-node-store.ts';
import type { FromWorker, Job, Question, ToWorker, WireReplayBlock, WorkerInit } from './protocol.ts';

const port = parentPort;
if (!port) throw new Error('simulator-worker.ts runs as a worker thread');
const init = workerData as WorkerInit;
const send = (m: FromWorker) => port.postMessage(m);

const answers = new Map<number, (value: unknown) => void>();
let nextAskId = 0;
function ask<T>(question: Question): Promise<T> {
  const askId = nextAskId++;
  return new Promise<T>((resolve) => {
    answers.set(askId, resolve as (value: unknown) => void);
    send({ kind: 'ask', askId, question });
  });
}

const common = createCommonFromGenesis(init.genesis);
const store = new RemoteNodeStore((key) => ask<Uint8Array | undefined>({ kind: 'node', key }), init.nodeCacheBytes);
const simulator = new TransactionSimulator(common, store, (number) => ask<Uint8Array | undefined>({ kind: 'hash', number }));

function replayBlockOf(w: WireReplayBlock): ReplayBlock {
  const at = decodingCommon(common, { blockNumber: w.number, timestamp: w.timestamp });
  const header = createBlockHeaderFromBytesArray(RLP.decode(w.header) as Uint8Array[], { common: at, skipConsensusFormatValidation: true });
  const txs = w.txs.map((bytes) => createTxFromRLP(bytes, { common: header.common }));
  return { header, parentHash: w.parentHash, feeRecipient: w.feeRecipient, txs };
}

async function run(id: number, job: Job): Promise<unknown> {
  switch (job.kind) {
    case 'simulate':
      return simulator.simulate(job.block, job.req, job.gasLimit, job.opts);
    case 'proof':
      return simulator.proof(job.root, job.number, job.timestamp, job.address, job.slots);
    case 'simulateBlocks':
      return simulator.simulateBlocks(job.req);
    case 'replay': {
      // Each block's replays go back as soon as it is done; the node's answer says whether to go on.
      await simulator.replayBlocks(job.parentRoot, job.blocks.map(replayBlockOf), {
        wanted: (b, i) => job.wanted[b]?.[i] === true,
        stateDiff: job.stateDiff,
        structLogs: job.structLogs,
        onBlock: (block: number, replays: Array<TxReplay | undefined>) => ask<boolean>({ kind: 'replayed', jobId: id, block, replays }),
      });
      return undefined;
    }
  }
}

port.on('message', (m: ToWorker) => {
  if (m.kind === 'answer') {
    const resolve = answers.get(m.askId);
    answers.delete(m.askId);
    resolve?.(m.value);
    return;
  }
  run(m.id, m.job).then(
    (value) => send({ kind: 'done', id: m.id, value }),
    (e: unknown) => send({ kind: 'failed', id: m.id, error: { name: e instanceof Error ? e.constructor.name : 'Error', message: e instanceof Error ? e.message : String(e) } }),
  );
});
send({ kind: 'ready' });
