import test from 'ava';
import { allMethods } from '../methods/index.ts';
import { NodeApi, canonicalHashes } from '../node-api.ts';
import { call, ok, startCluster, type Cluster } from '../methods/test-kit.ts';
import { WorkerSimulator } from './worker-simulator.ts';
import { RequestAbandonedError, withRequestSignal } from './request-budget.ts';
import { requestBudget } from '../transports/timeouts.ts';
import { BESU_TEST_ACCOUNTS } from '../../../sim/keys.ts';

/** Creation code that jumps to itself for ever: JUMPDEST PUSH1 0 JUMP. */
const LOOP_FOR_EVER = '0x5b600056';

function offLoopApi(cluster: Cluster, workers = 1): { api: NodeApi; simulator: WorkerSimulator } {
  const { node } = cluster;
  const simulator = new WorkerSimulator({ genesis: node.config.genesis, store: node.stateStore(), hashes: canonicalHashes(node), workers });
  return { api: new NodeApi(node, { clientVersion: 'qbft-lab/v0.1.0/test', simulator }), simulator };
}

let cluster: Cluster;
test.before(async () => {
  cluster = await startCluster();
});

test('calls, estimates, access lists, proofs and traces answer the same from a worker as on the node thread', async (t) => {
  const { api, simulator } = offLoopApi(cluster);
  try {
    const here = allMethods(cluster.api);
    const there = allMethods(api);
    const from = BESU_TEST_ACCOUNTS[0].address;
    const requests: Array<[string, unknown[]]> = [
      ['eth_call', [{ from, to: cluster.contract, data: '0x' + '00'.repeat(31) + '07' }, 'latest']],
      ['eth_call', [{ from, data: LOOP_FOR_EVER, gas: '0x30000' }, 'latest']],
      ['eth_estimateGas', [{ from, to: cluster.contract, data: '0x' + '00'.repeat(31) + '09' }]],
      ['eth_createAccessList', [{ from, to: cluster.contract, data: '0x' + '00'.repeat(31) + '05' }, 'latest']],
      ['eth_getProof', [cluster.contract, ['0x0'], 'latest']],
      ['debug_traceTransaction', [cluster.txs.logger, {}]],
      ['debug_traceTransaction', [cluster.txs.deploy, { tracer: 'callTracer' }]],
      ['trace_block', ['latest']],
      ['trace_filter', [{ fromBlock: '0x1', toBlock: 'latest', count: 2 }]],
      ['trace_replayBlockTransactions', ['latest', ['trace', 'stateDiff']]],
    ];
    for (const [method, params] of requests) t.deepEqual(await call(there, method, params), await call(here, method, params), method);
    t.true(simulator.stats.done >= requests.length);
  } finally {
    await simulator.close();
  }
});

test('a call that loops leaves the node thread free while it runs (on the node thread it holds it to the end)', async (t) => {
  const from = BESU_TEST_ACCOUNTS[0].address;
  const loop = { from, data: LOOP_FOR_EVER, gas: '0x2faf080' }; // 50,000,000 gas: seconds of work
  const { api, simulator } = offLoopApi(cluster);
  try {
    await ok(api, 'eth_chainId'); // nothing started yet
    let done = false;
    const budget = requestBudget(0);
    const running = withRequestSignal(budget.signal, () => call(allMethods(api), 'eth_call', [loop, 'latest'])).then(
      (r) => ((done = true), r),
      (e: unknown) => ((done = true), e),
    );
    await new Promise((resolve) => setTimeout(resolve, 0));
    t.false(done, 'the node thread turned while the worker ran the call');
    // Seen enough: give the request up rather than burn seconds of a core on the rest of the loop.
    budget.abandon('the test is done with it');
    t.true((await running) instanceof RequestAbandonedError);
  } finally {
    await simulator.close();
  }
  // The planted defect: the same call on the node's own thread; a timer cannot fire before it ends.
  let doneHere = false;
  const runningHere = call(allMethods(cluster.api), 'eth_call', [{ ...loop, gas: '0x1e8480' }, 'latest']).then((r) => ((doneHere = true), r));
  await new Promise((resolve) => setTimeout(resolve, 0));
  t.true(doneHere, 'on the node thread the call ran to its end before the timer');
  await runningHere;
});

test('a request given up ends its work: a queued job is dropped, a running one loses its worker, and the next call is served', async (t) => {
  const from = BESU_TEST_ACCOUNTS[0].address;
  const { api, simulator } = offLoopApi(cluster);
  const methods = allMethods(api);
  try {
    const budget = requestBudget(0);
    const calls = withRequestSignal(budget.signal, () =>
      [0, 1, 2].map(() => call(methods, 'eth_call', [{ from, data: LOOP_FOR_EVER, gas: '0x5f5e100' }, 'latest']).catch((e: unknown) => e)),
    );
    // wait until the first job runs on its worker
    for (let i = 0; i < 2000 && simulator.stats.started === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    budget.abandon('the client closed its connection');
    const answers = await Promise.all(calls);
    for (const a of answers) t.true(a instanceof RequestAbandonedError && a.message === 'the client closed its connection');
    t.is(simulator.stats.workersEnded, 1);
    t.is(simulator.stats.abandoned, 3);
    t.is(await ok(api, 'eth_call', [{ from, to: cluster.contract, data: '0x' + '00'.repeat(32) }, 'latest']), await ok(cluster.api, 'eth_call', [{ from, to: cluster.contract, data: '0x' + '00'.repeat(32) }, 'latest']));
  } finally {
    await simulator.close();
  }
});

test('a full queue answers at once instead of growing', async (t) => {
  const from = BESU_TEST_ACCOUNTS[0].address;
  const { node } = cluster;
  const simulator = new WorkerSimulator({ genesis: node.config.genesis, store: node.stateStore(), hashes: canonicalHashes(node), workers: 1, maxQueuedJobs: 2 });
  const methods = allMethods(new NodeApi(node, { simulator }));
  try {
    const budget = requestBudget(0);
    const calls = withRequestSignal(budget.signal, () => [0, 1, 2, 3].map(() => call(methods, 'eth_call', [{ from, data: LOOP_FOR_EVER, gas: '0x5f5e100' }, 'latest']).catch((e: unknown) => e)));
    const refused = await calls[3];
    t.regex((refused as { error: { message: string } }).error.message, /more than 2 executions are waiting/);
    budget.abandon('test over');
    await Promise.all(calls);
  } finally {
    await simulator.close();
  }
});

test('a queued job whose request is given up leaves the queue at once, while the job ahead of it runs on', async (t) => {
  const from = BESU_TEST_ACCOUNTS[0].address;
  const { api, simulator } = offLoopApi(cluster);
  const methods = allMethods(api);
  const loop = [{ from, data: LOOP_FOR_EVER, gas: '0x5f5e100' }, 'latest'];
  try {
    const running = requestBudget(0);
    const queued = requestBudget(0);
    const first = withRequestSignal(running.signal, () => call(methods, 'eth_call', loop).catch((e: unknown) => e));
    for (let i = 0; i < 2000 && simulator.stats.started === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    const second = withRequestSignal(queued.signal, () => call(methods, 'eth_call', loop).catch((e: unknown) => e));
    queued.abandon('the client closed its connection');
    t.true((await second) instanceof RequestAbandonedError);
    t.is(simulator.stats.workersEnded, 0, 'the running job was not touched');
    t.is(simulator.stats.started, 1);
    running.abandon('test over');
    t.true((await first) instanceof RequestAbandonedError);
  } finally {
    await simulator.close();
  }
});
