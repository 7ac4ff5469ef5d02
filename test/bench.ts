/**
 * `npm run bench`: prints one JSON line per figure. Simulation speed (simulated seconds per wall
 * second) for 4, 16, 64 and 100 validators with 1-second blocks, peak memory, fuzz runs per minute,
 * the building blocks (kernel events, block building) and the start-up of a node over 10,000
 * stored blocks; then the JSON-RPC figures of
 * bench-rpc.ts against live nodes (HTTP requests per second, WebSocket notification fan-out,
 * transfer throughput through the 4-validator network).
 *
 * First the speed goals (test/bench-goals.ts): each row of docs/benchmarks.md's goal table as the
 * qbft-lab command in its own process, with its goal and peak RSS.
 *
 * Flags: --quick (shorter runs), --sim-only, --rpc-only, --goals-only, --startup-only (only the start-up
 * figure), and bench-rpc.ts's --ganache PATH and --only http|stacks|ws|transfers.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { runScenario } from '../sim/scenario-runner.ts';
import type { Scenario } from '../sim/scenario.ts';
import { benchKernel } from '../sim/kernel-bench.ts';
import { rpcBenchFlags, runRpcBench } from './bench-rpc.ts';
import { runGoalBench } from './bench-goals.ts';
import { World, SIM_START_TIME_MS } from '../sim/world.ts';
import { SimKernel } from '../sim/kernel.ts';
import { SeededRandom } from '../sim/random.ts';
import type { SimStore } from '../sim/storage.ts';
import { buildSimGenesis } from '../sim/genesis-builder.ts';
import { validatorKeys } from '../sim/keys.ts';
import { parseGenesis } from '../node/chain/genesis.ts';
import { createNode } from '../node/node.ts';
import { LevelStore } from '../node/runtime/live-store.ts';
import type { Runtime, Store } from '../node/runtime/ports.ts';

const quick = process.argv.includes('--quick');
const startupOnly = process.argv.includes('--startup-only');
const goalsOnly = process.argv.includes('--goals-only');
const simPart = !process.argv.includes('--rpc-only') && !startupOnly && !goalsOnly;
const rpcPart = !process.argv.includes('--sim-only') && !startupOnly && !goalsOnly;
const goalPart = !process.argv.includes('--rpc-only') && !startupOnly;
const wallClock = () => performance.now();
let peakRssBytes = 0;
const sampleMemory = () => {
  peakRssBytes = Math.max(peakRssBytes, process.memoryUsage().rss);
};
const memoryTimer = setInterval(sampleMemory, 100);

function emit(figure: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify(figure, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)) + '\n');
}

async function simSpeed(validators: number, simulatedSeconds: number, gossip: boolean): Promise<void> {
  const scenario: Scenario = {
    name: `bench-${validators}`,
    description: 'benchmark',
    validators,
    network: { gossip, traceMessages: false, latency: { kind: 'uniform', minMs: 5, maxMs: 30 } },
    genesis: { requestTimeoutSeconds: validators > 16 ? 4 : 2 },
    durationMs: simulatedSeconds * 1000,
    steps: [],
    expect: [],
  };
  const start = performance.now();
  const r = await runScenario(scenario, { wallClock });
  const wallMs = performance.now() - start;
  sampleMemory();
  emit({
    figure: 'simulation-speed',
    validators,
    gossip,
    simulatedSeconds,
    wallSeconds: +(wallMs / 1000).toFixed(2),
    speedup: +(simulatedSeconds / (wallMs / 1000)).toFixed(1),
    height: r.height,
    ok: r.ok,
    messages: r.messages.sent,
  });
}

/**
 * Start-up of a node over a stored chain of `blocks` blocks (each pays a block reward, so every
 * block changes the state), in a fresh process: its own state store, no shared execution memo.
 * The chain is produced by one validator in the simulator, then the node's store is opened again
 * as is (SimStore) and copied into LevelDB (the live store); wall time to a started node.
 */
async function startupOverStoredChain(blocks: number): Promise<void> {
  const [key] = validatorKeys(1);
  const genesisJson = buildSimGenesis({ validators: [key.address], startTimeSeconds: SIM_START_TIME_MS / 1000, blockReward: '0x1' });
  const world = new World({ seed: 1, genesis: genesisJson, nodes: [{ name: 'v0', key }], traceMessages: false });
  const buildStart = performance.now();
  await world.startNode('v0');
  await world.runFor(blocks * 1000 + 500);
  const height = world.get('v0').node!.head().number;
  world.crash('v0');
  const buildSeconds = +((performance.now() - buildStart) / 1000).toFixed(1);
  const simStore = world.stores.open('v0') as SimStore;
  const startOn = async (store: Store): Promise<{ startupMs: number; executedBlocks: number }> => {
    const kernel = new SimKernel({ startTimeMs: world.kernel.nowMs() });
    const runtime: Runtime = {
      clock: { nowMs: () => kernel.nowMs() },
      timers: kernel.timers('v0'),
      random: new SeededRandom(1),
      transport: { localId: 'v0', peers: () => [], send: () => {}, setHandlers: () => {} },
      store,
      log: { log: () => {}, trace: () => {} },
    };
    const t0 = performance.now();
    const node = await createNode({ name: 'v0', genesis: parseGenesis(genesisJson), privateKey: key.privateKey }, runtime);
    const startupMs = performance.now() - t0;
    if (node.head().number !== height) throw new Error(`restarted at ${node.head().number}, stored head ${height}`);
    node.stop();
    return { startupMs: Math.round(startupMs), executedBlocks: node.executionStats().executed };
  };
  const sim = await startOn(simStore);
  emit({ figure: 'startup-stored-chain', store: 'sim', blocks: height, ...sim, buildSeconds });
  const dir = await mkdtemp(join(tmpdir(), 'qbft-lab-bench-'));
  try {
    const level = await LevelStore.open(dir);
    try {
      await level.write(simStore.keysSync('').map((k) => ({ key: k, value: simStore.getSync(k) })));
      emit({ figure: 'startup-stored-chain', store: 'leveldb', blocks: height, ...(await startOn(level)) });
    } finally {
      await level.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (goalPart) await runGoalBench(quick, emit);

if (simPart || startupOnly) await startupOverStoredChain(quick ? 2_000 : 10_000);

if (simPart) {
  const k = await benchKernel(quick ? 100_000 : 1_000_000);
  emit({ figure: 'kernel-events', eventsPerSecond: Math.round(k.eventsPerSecond), usPerEvent: +k.usPerEvent.toFixed(3) });

  await simSpeed(4, quick ? 60 : 600, true);
  await simSpeed(4, quick ? 60 : 600, false);
  await simSpeed(16, quick ? 20 : 120, false);
  await simSpeed(64, quick ? 10 : 30, false);
  await simSpeed(100, quick ? 5 : 20, false);

  try {
    const { benchBuild } = await import('../node/execution/engine-bench.ts');
    const b = await benchBuild(quick ? 100 : 500);
    emit({ figure: 'block-building', ...b });
  } catch (err) {
    emit({ figure: 'block-building', error: String((err as Error).message) });
  }

  try {
    const { runFuzz } = await import('../sim/fuzz.ts');
    const runs = quick ? 5 : 30;
    const report = await runFuzz({ runs, seed: 1, wallClock });
    emit({ figure: 'fuzz', runs: report.runs, failures: report.failures.length, runsPerMinute: report.runsPerMinute });
  } catch (err) {
    emit({ figure: 'fuzz', error: String((err as Error).message) });
  }
}

clearInterval(memoryTimer);
if (simPart) {
  sampleMemory();
  emit({ figure: 'peak-memory', rssMiB: Math.round(peakRssBytes / 1024 / 1024) });
}

if (rpcPart) await runRpcBench({ ...rpcBenchFlags(process.argv.slice(2)), quick, emit });
