/**
 * `npm run bench:attack`: hostile clients against a live 4-validator `qbft-lab network` on
 * localhost (issue 22). Each attack runs against node 0 of a fresh network (transfers seeded in a
 * few blocks) for a fixed window; the first network also measures the unattacked block rate. Per
 * attack it prints the block rate as a fraction of that baseline (read on node 3, which no attack
 * touches) and node 0's eth_blockNumber p95 latency (a probe every 100 ms), with the attack's own
 * figures; goals: fraction >= 0.9 and p95 < 250 ms. graphql-origin is a single check judged by
 * whether the node refused the mutation.
 *
 * Flags: --only NAME[,NAME] (repeatable), --seconds N (window per attack, default 30),
 * --strict (exit 1 when a goal is missed; otherwise the exit code is 0 whenever figures were
 * printed), --list, --bin PATH (another checkout's bin/qbft-lab.js, e.g. to measure before a
 * fix). Progress goes to stderr, figures to stdout.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Attack } from './bench-attack/attack.ts';
import { Bench, measuredWindow, runAttack, type AttackRow } from './bench-attack/harness.ts';
import { REPO_BIN } from './bench-attack/network.ts';
import { P2P_ATTACKS } from './bench-attack/p2p-attacks.ts';
import { printBaseline, printRow, printTable } from './bench-attack/report.ts';
import { ORIGIN_CHECK, RPC_ATTACKS } from './bench-attack/rpc-attacks.ts';

const ATTACKS: Attack[] = [...RPC_ATTACKS, ...P2P_ATTACKS, ORIGIN_CHECK];
const DEFAULT_WINDOW_S = 30;
const MIN_WINDOW_S = 5;

/** A bad flag: reported in one line, without a stack trace. */
class UsageError extends Error {}

interface Flags {
  only: string[];
  windowS: number;
  strict: boolean;
  list: boolean;
  /** The qbft-lab.js that runs the network. */
  bin: string;
}

function parseFlags(argv: string[]): Flags {
  const { values } = parseArgs({
    args: argv,
    options: { only: { type: 'string', multiple: true }, seconds: { type: 'string' }, strict: { type: 'boolean' }, list: { type: 'boolean' }, bin: { type: 'string' } },
  });
  const windowS = values.seconds === undefined ? DEFAULT_WINDOW_S : Number(values.seconds);
  if (!Number.isFinite(windowS) || windowS < MIN_WINDOW_S) throw new UsageError(`--seconds: '${values.seconds}' must be a number of at least ${MIN_WINDOW_S}`);
  const only = (values.only ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
  return { only, windowS, strict: values.strict === true, list: values.list === true, bin: resolve(values.bin ?? REPO_BIN) };
}

function selectAttacks(only: string[]): Attack[] {
  const unknown = only.filter((name) => !ATTACKS.some((a) => a.name === name));
  if (unknown.length > 0) throw new UsageError(`--only: unknown attack ${unknown.join(', ')} (known: ${ATTACKS.map((a) => a.name).join(', ')})`);
  return only.length === 0 ? ATTACKS : ATTACKS.filter((a) => only.includes(a.name));
}

/** The networks running now, closed on Ctrl-C. */
const running = new Set<Bench>();

async function onFreshNetwork<T>(bin: string, use: (bench: Bench) => Promise<T>): Promise<T> {
  const bench = await Bench.start(bin);
  running.add(bench);
  try {
    return await use(bench);
  } finally {
    running.delete(bench);
    await bench.close();
  }
}

async function measureBaseline(bench: Bench, windowMs: number): Promise<number> {
  process.stderr.write(`bench:attack: baseline, ${windowMs / 1000} s without attack\n`);
  const { window } = await measuredWindow(bench, windowMs, async () => ({ figures: {} }));
  printBaseline(window, windowMs / 1000);
  return window.blocksPerSecond;
}

function notRun(attack: Attack, err: unknown): AttackRow {
  return { attack, result: { figures: { error: String((err as Error)?.message ?? err).split('\n')[0]!.slice(0, 160) } }, pass: false };
}

/** Each attack on a fresh network (so no attack inherits another's damage); the baseline on the first one. */
async function runAll(flags: Flags, attacks: Attack[]): Promise<{ baseline: number; rows: AttackRow[] }> {
  const windowMs = flags.windowS * 1000;
  let baseline = NaN;
  const rows: AttackRow[] = [];
  for (const attack of attacks) {
    const row = await onFreshNetwork(flags.bin, async (bench) => {
      if (Number.isNaN(baseline)) baseline = await measureBaseline(bench, windowMs);
      return runAttack(bench, attack, windowMs, baseline);
    }).catch((err: unknown) => notRun(attack, err));
    printRow(row);
    rows.push(row);
  }
  return { baseline, rows };
}

async function main(argv: string[]): Promise<number> {
  const flags = parseFlags(argv);
  if (flags.list) {
    for (const a of ATTACKS) process.stdout.write(`${a.name.padEnd(22)} ${a.description}\n`);
    return 0;
  }
  const attacks = selectAttacks(flags.only);
  // The networks are process groups of their own, so Ctrl-C does not reach them: close them, then
  // exit (a network still starting is killed by the exit hook of network.ts).
  const onSignal = (): void => void Promise.all([...running].map((b) => b.close())).finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const { baseline, rows } = await runAll(flags, attacks);
  printTable(baseline, rows);
  return flags.strict && rows.some((r) => !r.pass) ? 1 : 0;
}

/** A usage mistake in one line; anything else with its stack. */
function describeFailure(err: unknown): string {
  const usage = err instanceof UsageError || (err as { code?: string })?.code?.startsWith('ERR_PARSE_ARGS');
  return usage ? (err as Error).message : String((err as Error)?.stack ?? err);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench:attack: ${describeFailure(err)}\n`);
    process.exit(2);
  },
);
