/**
 * `npm run bench`: prints one JSON line per figure. Simulation speed (simulated seconds per wall
 * second) for 4, 16, 64 and 100 validators with 1-second blocks, peak memory, fuzz runs per minute,
 * and the building blocks (kernel events, block building); then the JSON-RPC figures of
 * bench-rpc.ts against live nodes (HTTP requests per second, WebSocket notification fan-out,
 * transfer throughput through the 4-validator network).
 *
 * Flags: --quick (shorter runs), --sim-only, --rpc-only, and bench-rpc.ts's --ganache PATH and
 * --only http|ws|transfers.
 */
import { performance } from 'node:perf_hooks';
import { runScenario } from '../sim/scenario-runner.ts';
import type { Scenario } from '../sim/scenario.ts';
import { benchKernel } from '../sim/kernel-bench.ts';
import { rpcBenchFlags, runRpcBench } from './bench-rpc.ts';

const quick = process.argv.includes('--quick');
const simPart = !process.argv.includes('--rpc-only');
const rpcPart = !process.argv.includes('--sim-only');
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
