/**
 * One attack in a fixed window on a network of its own, during which node 0 is probed and the
 * block rate is read from node 3 (never attacked); then how long node 0 and the chain take to
 * recover.
 */
import { setMaxListeners } from 'node:events';
import type { Attack, AttackContext, AttackResult } from './attack.ts';
import { HeightWatcher, Prober, RssPeak, rssMiB, type ProbeSummary } from './measure.ts';
import { startBenchNetwork, type BenchNetwork } from './network.ts';
import { blockNumber } from './rpc.ts';
import { seedTransfers } from './transactions.ts';
import { deadline, sleep, waitUntil } from './time.ts';

export const GOAL_FRACTION_OF_BASELINE = 0.9;
export const GOAL_P95_MS = 250;
/** After a window, the attack's clients have this long to wind down. */
const RUN_GRACE_MS = 15_000;
const RECOVERY_CAP_MS = 30_000;
const RECOVERED_PROBES = 3;
/** The chain counts as producing with this many new blocks in the last PRODUCING_WINDOW_MS (block period 1 s). */
const PRODUCING_MIN_BLOCKS = 2;
const PRODUCING_WINDOW_MS = 3_000;
const SEED_ROUNDS = 4;
const SEED_TRANSFERS_PER_ACCOUNT_PER_ROUND = 40;
/** Index of the node that reads the block rate; no attack touches it. */
const OBSERVER = 3;

const progress = (text: string): void => void process.stderr.write(`bench:attack: ${text}\n`);

/** A fresh network under test, the observer's height watcher and the seeded blocks. */
export class Bench {
  private constructor(
    readonly net: BenchNetwork,
    readonly watcher: HeightWatcher,
    readonly blocksWithTxs: number[],
  ) {}

  static async start(bin: string): Promise<Bench> {
    progress(`starting a 4-validator network (${bin})`);
    const net = await startBenchNetwork(4, bin);
    const watcher = new HeightWatcher(net.nodes[OBSERVER]!.httpPort);
    try {
      progress(`seeding ${SEED_ROUNDS} rounds of ${SEED_TRANSFERS_PER_ACCOUNT_PER_ROUND * 3} transfers`);
      const blocks = await seedTransfers(net.nodes[2]!.httpPort, net.genesisFile, SEED_ROUNDS, SEED_TRANSFERS_PER_ACCOUNT_PER_ROUND);
      return new Bench(net, watcher, blocks);
    } catch (err) {
      await watcher.stop();
      await net.close();
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.watcher.stop();
    await this.net.close();
  }
}

export interface WindowFigures {
  blocksPerSecond: number;
  probes: ProbeSummary;
  rssBeforeMiB: number | undefined;
  rssPeakMiB: number | undefined;
  /** Observer's height minus node 0's at the window's end. */
  lagBlocks: number | string;
}

export interface AttackRow {
  attack: Attack;
  window?: WindowFigures;
  fractionOfBaseline?: number;
  result: AttackResult;
  pass: boolean;
  /** Seconds after the window until node 0 answered quickly and the chain made blocks again. */
  recoveryS?: number | string;
}

/** The signal every client of an attack watches: many listen at once, hence no listener limit. */
function windowSignal(windowMs: number): ReturnType<typeof deadline> {
  const window = deadline(windowMs);
  setMaxListeners(0, window.signal);
  return window;
}

function contextFor(bench: Bench, windowMs: number, signal: AbortSignal): AttackContext {
  return { net: bench.net, target: bench.net.nodes[0]!, genesisFile: bench.net.genesisFile, blocksWithTxs: bench.blocksWithTxs, windowMs, signal };
}

function withinMs<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

async function lagOfTarget(bench: Bench): Promise<number | string> {
  const target = await blockNumber(bench.net.nodes[0]!.httpPort, AbortSignal.timeout(2_000)).catch(() => undefined);
  const observer = bench.watcher.latestHeight();
  return target === undefined || observer === undefined ? 'v0 no answer' : observer - target;
}

function failedRun(err: unknown): AttackResult {
  return { figures: { error: String((err as Error)?.message ?? err).slice(0, 160) } };
}

/** `work` runs against node 0 for `windowMs` while node 0 is probed and the block rate is read. */
export async function measuredWindow(bench: Bench, windowMs: number, work: (ctx: AttackContext) => Promise<AttackResult>): Promise<{ window: WindowFigures; result: AttackResult }> {
  const target = bench.net.nodes[0]!;
  const startMs = Date.now();
  const window = windowSignal(windowMs);
  const ctx = contextFor(bench, windowMs, window.signal);
  const rssBeforeMiB = rssMiB(target.pid);
  const rss = new RssPeak(target.pid);
  const prober = new Prober(target.httpPort);
  const running = work(ctx).catch(failedRun);
  await sleep(windowMs);
  const endMs = Date.now();
  const probes = await prober.stop();
  const lagBlocks = await lagOfTarget(bench);
  const result = await withinMs(running, RUN_GRACE_MS, { figures: { error: `clients still running ${RUN_GRACE_MS / 1000} s after the window` } });
  const rssPeakMiB = rss.stop();
  window.close();
  await bench.watcher.seenPast(endMs, 10_000);
  return { window: { blocksPerSecond: bench.watcher.ratePerSecond(startMs, endMs), probes, rssBeforeMiB, rssPeakMiB, lagBlocks }, result };
}

async function fastProbe(port: number): Promise<boolean> {
  const startMs = performance.now();
  await blockNumber(port, AbortSignal.timeout(GOAL_P95_MS * 4));
  return performance.now() - startMs < GOAL_P95_MS;
}

/**
 * Seconds until node 0 answers quickly again, has caught up with the observer and the chain makes
 * blocks again (after a stall QBFT's doubling round timers can keep it stopped well after the
 * attack); undefined after RECOVERY_CAP_MS.
 */
export async function waitRecovered(bench: Bench): Promise<number | undefined> {
  const startMs = Date.now();
  const port = bench.net.nodes[0]!.httpPort;
  let fastInARow = 0;
  const recovered = async (): Promise<boolean> => {
    fastInARow = (await fastProbe(port).catch(() => false)) ? fastInARow + 1 : 0;
    if (fastInARow < RECOVERED_PROBES) return false;
    if (bench.watcher.incrementsSince(Date.now() - PRODUCING_WINDOW_MS) < PRODUCING_MIN_BLOCKS) return false;
    return (await blockNumber(port)) >= (bench.watcher.latestHeight() ?? Infinity) - 1;
  };
  const ok = await waitUntil(recovered, RECOVERY_CAP_MS, 200);
  return ok ? (Date.now() - startMs) / 1000 : undefined;
}

function judge(window: WindowFigures, fraction: number): boolean {
  return fraction >= GOAL_FRACTION_OF_BASELINE && window.probes.p95Ms < GOAL_P95_MS;
}

export async function runAttack(bench: Bench, attack: Attack, windowMs: number, baselineBlocksPerSecond: number): Promise<AttackRow> {
  progress(`${attack.name}: ${attack.description}`);
  if (!attack.measured) {
    const window = windowSignal(windowMs);
    const result = await attack.run(contextFor(bench, windowMs, window.signal)).catch(failedRun);
    window.close();
    return { attack, result, pass: result.verdict?.pass ?? false };
  }
  const { window, result } = await measuredWindow(bench, windowMs, (ctx) => attack.run(ctx));
  const fractionOfBaseline = window.blocksPerSecond / baselineBlocksPerSecond;
  const row: AttackRow = { attack, window, fractionOfBaseline, result, pass: judge(window, fractionOfBaseline) };
  const recoveryS = await waitRecovered(bench);
  row.recoveryS = recoveryS === undefined ? `> ${RECOVERY_CAP_MS / 1000}` : +recoveryS.toFixed(1);
  return row;
}
