/**
 * The JSON-RPC part of `npm run bench` (also `npm run bench:rpc` on its own), one JSON line per
 * figure, against live nodes on the real clock:
 *
 * - `rpc-http`: eth_blockNumber, eth_getBalance and eth_call requests per second over HTTP, with
 *   autocannon (32 keep-alive connections) run in a child process so that the load tool does not
 *   share the node's thread (as when ganache's figure was taken); each figure is the median of
 *   `rounds` runs, all rounds listed. Against a single-validator node and against node 0 of the
 *   live 4-validator network (whose validators run in the same process as its servers).
 *   `serverCpuUsPerRequest` is the node process's CPU time (user + system) per answered request:
 *   what the node spends, independent of how busy the machine is; `capacityPerCore` is its
 *   inverse. With `--ganache <path to ganache's CLI>` (or BENCH_GANACHE), ganache runs beside the
 *   single node and its eth_blockNumber rounds are interleaved with ours, for a same-machine
 *   comparison (target: at or above ganache; about 43k requests per second on the reference machine).
 * - `ws-fanout`: 100 WebSocket clients (a child process) subscribed to newHeads and to the logs of
 *   a contract that logs on every call, while logger transactions arrive at a steady rate: the
 *   notifications delivered per second and the latency from the node's head event (block import)
 *   to each client's receipt, p50 and p99, per kind. On the single node (one server) and on the
 *   network (clients spread over the four nodes).
 * - `transfer-throughput`: value transfers from 30 funded senders, signed beforehand and sent in
 *   JSON-RPC batches of 100 to node 0 as fast as it takes them, until all are included: transfers
 *   per second from the first send to the last inclusion (target: at least 400), with each
 *   block's count and the nodes' CPU per transfer (this process's, or the node processes' summed
 *   from /proc). The rate moves with the machine's load: compare nodeCpuMsPerTransfer across runs.
 * - `http-stacks`: the same requests through each HTTP stack of the endpoint, in the same run
 *   (bench-http-stacks.ts): the hand-written HTTP/1.1 front end, node:http, and hono.
 *
 * Flags: --quick (shorter runs), --ganache PATH, --only http|stacks|ws|transfers (repeatable),
 * --target single-validator|4-validator-network|4-validator-processes (repeatable).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Common } from '@ethereumjs/common';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { startNetwork, startProcessNetwork } from '../cli/network-command.ts';
import { sharedCommonFor } from '../node/chain/common.ts';
import { startLiveNode, type LiveNode } from '../node/cli/live-node.ts';
import { parseNodeOptions } from '../node/cli/node-options.ts';
import { parseGenesis } from '../node/chain/genesis.ts';
import { LiveLog } from '../node/runtime/live-log.ts';
import { bytesToHex, type Hex } from '../node/crypto/bytes.ts';
import { buildSimGenesis, LOGGER_CONTRACT } from '../sim/genesis-builder.ts';
import { BESU_TEST_ACCOUNTS, deterministicKey, validatorKeys, type NodeKey } from '../sim/keys.ts';
import { autocannonRound, requestBody, round2, summarize, type Figure, type LoadRound } from './bench-load.ts';
import { httpStackFigures } from './bench-http-stacks.ts';

export type { Figure };

export interface RpcBenchOptions {
  quick?: boolean;
  emit: (figure: Figure) => void;
  /** ganache's CLI, for the same-machine eth_blockNumber comparison. */
  ganache?: string;
  /** Parts to run (default all): 'http', 'stacks', 'ws', 'transfers'. */
  only?: ReadonlySet<string>;
  /** Targets to run (default all): 'single-validator', '4-validator-network', '4-validator-processes'. */
  targets?: ReadonlySet<string>;
}

/** The target eth_blockNumber rate: ganache on the reference machine. */
export const GANACHE_REFERENCE_RPS = 43_000;
export const TRANSFER_TARGET_PER_SECOND = 400;

const here = dirname(fileURLToPath(import.meta.url));
const wallNow = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const percentile = (sorted: number[], p: number): number => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!);
/** Progress on stderr (stdout carries only the figures). */
const progress = (text: string): void => void process.stderr.write(`bench: ${text}\n`);

/** What the bench needs of a running target: ports, the nodes (for head events), shutdown. */
interface Target {
  name: string;
  /** The nodes when they run in this process (empty when each is its own process). */
  nodes: LiveNode[];
  common: Common;
  httpPort: number;
  wsPorts: number[];
  /** Blocks node 0 imports from now on. */
  watchHeadsOfFirst(): HeadWatch;
  /** CPU time (user + system) the node processes have used so far, when they are other processes and it can be read. */
  childCpuMs?(): number | undefined;
  close(): Promise<void>;
}

interface HeadWatch {
  blocks: Array<{ node: number; number: number; txs: number; at: number }>;
  stop(): void;
}

// ---- targets ------------------------------------------------------------------------------------

/** One validator, its own chain; WebSocket connection limit raised for the fan-out clients. */
async function startSingleNode(): Promise<Target> {
  const key = validatorKeys(1)[0]!;
  const genesisJson = buildSimGenesis({ validators: [key.address], startTimeSeconds: Math.floor(Date.now() / 1000), chainId: 1337, blockPeriodSeconds: 1, requestTimeoutSeconds: 4 });
  const genesis = parseGenesis(JSON.stringify(genesisJson));
  const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-bench-single-'));
  const opts = parseNodeOptions([
    '--data-path', dir,
    '--rpc-http-enabled', '--rpc-http-port', '0', '--rpc-http-api', 'ETH,NET,WEB3,TXPOOL',
    '--rpc-ws-enabled', '--rpc-ws-port', '0', '--rpc-ws-api', 'ETH,NET,WEB3', '--rpc-ws-max-active-connections', '1000',
    '--host-allowlist', '*', '--min-gas-price', '0',
  ]);
  const live = await startLiveNode(opts, { name: 'single', genesis, privateKey: key.privateKey, log: new LiveLog({ name: 'single', level: 'warn' }), p2pEnabled: false });
  const target: Target = {
    name: 'single-validator',
    nodes: [live],
    common: live.node.common,
    httpPort: live.servers.httpPort!,
    wsPorts: [live.servers.wsPort!],
    watchHeadsOfFirst: () => watchHeads({ ...target, nodes: [live] }),
    close: () => live.close(),
  };
  return target;
}

async function startFourValidators(): Promise<Target> {
  const net = await startNetwork({ validators: '4', 'data-path': mkdtempSync(join(tmpdir(), 'qbft-lab-bench-')), 'base-port': '0', 'single-process': true }, Date.now());
  const target: Target = {
    name: '4-validator-network',
    nodes: net.nodes,
    common: net.nodes[0]!.node.common,
    httpPort: net.httpPorts[0]!,
    wsPorts: net.wsPorts,
    watchHeadsOfFirst: () => watchHeads({ ...target, nodes: [net.nodes[0]!] }),
    close: () => net.close(),
  };
  return target;
}

/** Four validators, each its own `qbft-lab node` process, peered over RLPx. */
async function startFourValidatorProcesses(): Promise<Target> {
  const { net, files } = await startProcessNetwork({ validators: '4', 'data-path': mkdtempSync(join(tmpdir(), 'qbft-lab-bench-procs-')), 'base-port': '0' }, Date.now());
  const port = net.nodes[0]!.httpPort!;
  return {
    name: '4-validator-processes',
    nodes: [],
    common: sharedCommonFor(files.genesis),
    httpPort: port,
    wsPorts: net.nodes.map((n) => n.wsPort!),
    watchHeadsOfFirst: () => pollHeads(port),
    childCpuMs: () => processesCpuMs(net.nodes.map((n) => n.child?.pid)),
    close: () => net.close(),
  };
}

/** Summed user + system CPU of processes from /proc/<pid>/stat (Linux); undefined where it cannot be read. */
function processesCpuMs(pids: Array<number | undefined>): number | undefined {
  let ticks = 0;
  for (const pid of pids) {
    if (pid === undefined) return undefined;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(rest[11]) + Number(rest[12]);
    } catch {
      return undefined;
    }
  }
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}
/** USER_HZ: 100 on every Linux build in common use. */
const CLOCK_TICKS_PER_SECOND = 100;

/** Blocks seen by polling node 0 over JSON-RPC (for nodes in other processes). */
function pollHeads(port: number): HeadWatch {
  const blocks: HeadWatch['blocks'] = [];
  let stopped = false;
  void (async () => {
    let next = Number(BigInt(await rpc(port, 'eth_blockNumber', []))) + 1;
    while (!stopped) {
      const head = Number(BigInt(await rpc(port, 'eth_blockNumber', [])));
      const at = wallNow();
      for (; next <= head; next++) blocks.push({ node: 0, number: next, txs: Number(BigInt(await rpc(port, 'eth_getBlockTransactionCountByNumber', [`0x${next.toString(16)}`]))), at });
      await sleep(20);
    }
  })();
  return { blocks, stop: () => void (stopped = true) };
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** ganache on a free port; resolves once it listens. */
async function startGanache(cli: string): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(cli, ['--port', String(port), '--logging.quiet', '--chain.chainId', '1337'], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('ganache did not start in 60 s')), 60_000);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Listening on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`ganache exited with ${code}`)));
  });
  return { port, child };
}

// ---- JSON-RPC over HTTP (the bench's own client) -------------------------------------------------

async function rpc(port: number, method: string, params: unknown[]): Promise<any> {
  const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const answer = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result;
}

/** eth_sendRawTransaction in batches of 100; throws on the first refused transaction. */
async function sendRaw(port: number, raws: Hex[]): Promise<void> {
  for (let i = 0; i < raws.length; i += 100) {
    const batch = raws.slice(i, i + 100).map((raw, j) => ({ jsonrpc: '2.0', id: i + j, method: 'eth_sendRawTransaction', params: [raw] }));
    const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) });
    const answers = (await res.json()) as Array<{ error?: { message: string } }>;
    const failed = answers.find((a) => a.error);
    if (failed) throw new Error(`eth_sendRawTransaction: ${failed.error!.message}`);
  }
}

function signed(common: Common, from: NodeKey, nonce: bigint, to: Hex, value: bigint, gasLimit = 21_000n, data?: Uint8Array): Hex {
  return bytesToHex(
    createFeeMarket1559Tx({ nonce, to, value, gasLimit, data, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n, chainId: 1337n }, { common }).sign(from.privateKey).serialize(),
  );
}

/** `count` bench senders, funded from Besu's development accounts; resolves once funded. */
async function fundSenders(target: Target, count: number): Promise<NodeKey[]> {
  const port = target.httpPort;
  const common = target.common;
  const senders = Array.from({ length: count }, (_, i) => deterministicKey('bench-sender', i));
  const raws: Hex[] = [];
  for (let k = 0; k < BESU_TEST_ACCOUNTS.length; k++) {
    const funder = BESU_TEST_ACCOUNTS[k]!;
    let nonce = BigInt(await rpc(port, 'eth_getTransactionCount', [funder.address, 'pending']));
    for (let i = k; i < count; i += BESU_TEST_ACCOUNTS.length) raws.push(signed(common, funder, nonce++, senders[i]!.address, 10n ** 22n));
  }
  progress(`funding ${count} senders on ${target.name}`);
  await sendRaw(port, raws);
  const deadline = Date.now() + 60_000;
  for (const s of senders) {
    while (BigInt(await rpc(port, 'eth_getBalance', [s.address, 'latest'])) === 0n) {
      if (Date.now() > deadline) throw new Error('bench senders not funded within 60 s');
      await sleep(100);
    }
  }
  return senders;
}

// ---- rpc-http -----------------------------------------------------------------------------------

async function httpFigures(target: Target, o: RpcBenchOptions, ganachePort?: number): Promise<void> {
  const seconds = o.quick ? 2 : 4;
  const rounds = o.quick ? 1 : 3;
  const connections = 32;
  const methods: Array<[string, unknown[]]> = [
    ['eth_blockNumber', []],
    ['eth_getBalance', [BESU_TEST_ACCOUNTS[0]!.address, 'latest']],
    ['eth_call', [{ to: LOGGER_CONTRACT, data: '0x' }, 'latest']],
  ];
  for (const [method, params] of methods) {
    const body = requestBody(method, params);
    progress(`rpc-http ${method} on ${target.name}`);
    await autocannonRound(target.httpPort, body, { seconds: 1, connections, measureCpu: false }); // warm-up
    const ours: LoadRound[] = [];
    const theirs: LoadRound[] = [];
    const compare = ganachePort !== undefined && method === 'eth_blockNumber';
    if (compare) await autocannonRound(ganachePort, body, { seconds: 1, connections, measureCpu: false });
    for (let i = 0; i < rounds; i++) {
      ours.push(await autocannonRound(target.httpPort, body, { seconds, connections, measureCpu: true }));
      if (compare) theirs.push(await autocannonRound(ganachePort, body, { seconds, connections, measureCpu: false }));
    }
    const figure: Figure = { figure: 'rpc-http', target: target.name, method, connections, seconds, loadTool: 'autocannon (child process)', ...summarize(ours) };
    if (method === 'eth_blockNumber') figure.targetRequestsPerSecond = GANACHE_REFERENCE_RPS;
    if (compare) {
      const g = summarize(theirs);
      figure.ganacheRequestsPerSecond = g.requestsPerSecond;
      figure.ganacheRounds = g.rounds;
      figure.ratioToGanache = round2((figure.requestsPerSecond as number) / (g.requestsPerSecond as number));
    }
    o.emit(figure);
  }
}

// ---- ws-fanout ----------------------------------------------------------------------------------

/** Records each node's head events (block import) by block hash, on this process's clock. */
function watchHeads(target: Target): { times: Map<string, number>; blocks: Array<{ node: number; number: number; txs: number; at: number }>; stop(): void } {
  const times = new Map<string, number>();
  const blocks: Array<{ node: number; number: number; txs: number; at: number }> = [];
  const detach: Array<() => void> = [];
  target.nodes.forEach((live, i) => {
    detach.push(
      live.node.onNewHead((_head, reorg) => {
        const at = wallNow();
        for (const e of reorg.added) {
          times.set(`${i}:${e.hash}`, at);
          blocks.push({ node: i, number: e.number, txs: e.block.transactions.length, at });
        }
      }),
    );
  });
  return { times, blocks, stop: () => detach.forEach((d) => d()) };
}

async function wsFanout(target: Target, o: RpcBenchOptions, senders: NodeKey[]): Promise<void> {
  const clients = 100;
  const seconds = o.quick ? 4 : 10;
  const logsPerSecond = 100;
  const common = target.common;
  const port = target.httpPort;

  // Logger calls, pre-signed: `logsPerSecond` a second, spread over the senders.
  const total = logsPerSecond * seconds;
  const nonces = await Promise.all(senders.map(async (s) => BigInt(await rpc(port, 'eth_getTransactionCount', [s.address, 'pending']))));
  const raws: Hex[] = [];
  for (let i = 0; i < total; i++) {
    const k = i % senders.length;
    raws.push(signed(common, senders[k]!, nonces[k]!++, LOGGER_CONTRACT, 0n, 30_000n));
  }

  progress(`ws-fanout on ${target.name}: ${clients} clients`);
  const urls = target.wsPorts.map((p) => `ws://127.0.0.1:${p}/`);
  const waiters: Array<() => void> = [];
  const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'bench-ws-clients.ts'), JSON.stringify({ urls, clients, logsAddress: LOGGER_CONTRACT })], { stdio: ['pipe', 'pipe', 'inherit'] });
  let closed = false;
  child.once('close', (code, signal) => {
    closed = true;
    if (code !== 0) progress(`bench-ws-clients exited: ${code ?? signal}`);
    waiters.splice(0).forEach((w) => w());
  });
  const lines: string[] = [];
  let partial = '';
  child.stdout!.on('data', (d: Buffer) => {
    partial += d.toString();
    let nl: number;
    while ((nl = partial.indexOf('\n')) >= 0) {
      lines.push(partial.slice(0, nl));
      partial = partial.slice(nl + 1);
      waiters.splice(0).forEach((w) => w());
    }
  });
  const nextLine = async (): Promise<string> => {
    while (lines.length === 0) {
      if (closed) throw new Error('bench-ws-clients exited');
      await new Promise<void>((r) => waiters.push(r));
    }
    return lines.shift()!;
  };
  const ready = JSON.parse(await nextLine()) as { ready: number };
  progress(`ws-fanout: ${ready.ready} clients subscribed; ${total} logger transactions over ${seconds} s`);

  const heads = watchHeads(target);
  const cpu0 = process.cpuUsage();
  const start = wallNow();
  const step = 100; // ms
  for (let i = 0; i < total; i += (logsPerSecond * step) / 1000) {
    const due = start + (i / logsPerSecond) * 1000;
    const wait = due - wallNow();
    if (wait > 0) await sleep(wait);
    await sendRaw(port, raws.slice(i, i + (logsPerSecond * step) / 1000));
  }
  const end = start + seconds * 1000;
  if (end > wallNow()) await sleep(end - wallNow());
  await sleep(2500); // the last blocks and their notifications
  const cpu = process.cpuUsage(cpu0);
  heads.stop();
  child.stdin!.write('stop\n');
  const report = JSON.parse(await nextLine()) as { heads: Record<string, number[]>; logs: Record<string, number[]>; errors: number };

  const latencies = (byBlock: Record<string, number[]>): { count: number; inWindow: number; sorted: number[]; unmatched: number } => {
    const all: number[] = [];
    let count = 0;
    let inWindow = 0;
    let unmatched = 0;
    for (const [key, receipts] of Object.entries(byBlock)) {
      count += receipts.length;
      for (const t of receipts) if (t >= start && t <= end) inWindow++;
      const imported = heads.times.get(key);
      if (imported === undefined) {
        unmatched += receipts.length;
        continue;
      }
      for (const t of receipts) all.push(t - imported);
    }
    all.sort((a, b) => a - b);
    return { count, inWindow, sorted: all, unmatched };
  };
  const h = latencies(report.heads);
  const l = latencies(report.logs);
  const blocksInWindow = heads.blocks.filter((b) => b.at >= start && b.at <= end);
  const clientsOn = (node: number): number => Array.from({ length: clients }, (_, c) => c % target.wsPorts.length).filter((k) => k === node).length;
  const summary = (x: { count: number; sorted: number[] }) => ({ notifications: x.count, p50Ms: round2(percentile(x.sorted, 50)), p99Ms: round2(percentile(x.sorted, 99)), maxMs: round2(x.sorted[x.sorted.length - 1] ?? NaN) });
  o.emit({
    figure: 'ws-fanout',
    target: target.name,
    clients: ready.ready,
    servers: target.wsPorts.length,
    subscriptions: 'newHeads + logs (one contract)',
    seconds,
    logTransactionsPerSecond: logsPerSecond,
    notificationsPerSecond: Math.round((h.inWindow + l.inWindow) / seconds),
    blocks: new Set(blocksInWindow.map((b) => b.number)).size,
    newHeads: summary(h),
    logs: summary(l),
    // Every client should get every block its node imported while watched.
    newHeadsExpected: heads.blocks.reduce((n, b) => n + clientsOn(b.node), 0),
    newHeadsReceived: h.sorted.length,
    unmatched: h.unmatched + l.unmatched,
    clientErrors: report.errors,
    nodeCpuPercent: round2(((cpu.user + cpu.system) / 1000 / (wallNow() - start)) * 100),
  });
}

// ---- transfer-throughput ------------------------------------------------------------------------

async function transferThroughput(target: Target, o: RpcBenchOptions, senders: NodeKey[]): Promise<void> {
  const perSender = o.quick ? 30 : 100;
  const port = target.httpPort;
  const common = target.common;
  const nonces = await Promise.all(senders.map(async (s) => BigInt(await rpc(port, 'eth_getTransactionCount', [s.address, 'pending']))));
  // Interleaved by sender, as independent wallets would send; each to the next sender.
  const raws: Hex[] = [];
  for (let i = 0; i < perSender; i++) {
    for (let k = 0; k < senders.length; k++) raws.push(signed(common, senders[k]!, nonces[k]! + BigInt(i), senders[(k + 1) % senders.length]!.address, 1n));
  }
  const transfers = raws.length;
  progress(`transfers on ${target.name}: ${transfers}`);
  // Let the chain settle on an empty block so the run starts right after a block.
  const heads = target.watchHeadsOfFirst();
  const cpu0 = process.cpuUsage();
  const childCpu0 = target.childCpuMs?.();
  const start = wallNow();
  await sendRaw(port, raws);
  const submitted = wallNow();
  let included = 0;
  const deadline = start + 120_000;
  const counted = new Set<number>();
  while (included < transfers && wallNow() < deadline) {
    await sleep(20);
    for (const b of heads.blocks) {
      if (counted.has(b.number)) continue;
      counted.add(b.number);
      included += b.txs;
    }
  }
  const done = wallNow();
  const cpu = process.cpuUsage(cpu0);
  const childCpu1 = target.childCpuMs?.();
  heads.stop();
  const blocks = heads.blocks.filter((b) => b.txs > 0);
  const cpuMs = target.nodes.length > 0 ? (cpu.user + cpu.system) / 1000 : childCpu0 !== undefined && childCpu1 !== undefined ? childCpu1 - childCpu0 : undefined;
  const wallSeconds = (done - start) / 1000;
  const lastInclusion = blocks.length > 0 ? blocks[blocks.length - 1]!.at : done;
  o.emit({
    figure: 'transfer-throughput',
    target: target.name,
    senders: senders.length,
    transfers,
    included,
    submitSeconds: round2((submitted - start) / 1000),
    wallSeconds: round2((lastInclusion - start) / 1000),
    transfersPerSecond: Math.round(included / ((lastInclusion - start) / 1000)),
    targetTransfersPerSecond: TRANSFER_TARGET_PER_SECOND,
    blocks: blocks.map((b) => ({ number: b.number, txs: b.txs, atSeconds: round2((b.at - start) / 1000) })),
    // The nodes' CPU (four validators, their pools, RPC, GC threads; this process, or the sum of
    // the node processes) per transfer: the figure that does not depend on how busy the machine is.
    nodeCpuPercent: cpuMs !== undefined ? round2((cpuMs / (done - start)) * 100) : null,
    nodeCpuMsPerTransfer: cpuMs !== undefined ? round2(cpuMs / Math.max(1, included)) : null,
    timedOut: included < transfers && wallSeconds >= 120,
  });
}

// ---- the run ------------------------------------------------------------------------------------

export async function runRpcBench(o: RpcBenchOptions): Promise<void> {
  const wants = (part: string) => o.only === undefined || o.only.size === 0 || o.only.has(part);
  const ganache = o.ganache !== undefined && wants('http') ? await startGanache(o.ganache) : undefined;
  try {
    const starts: Array<[string, () => Promise<Target>]> = [
      ['single-validator', startSingleNode],
      ['4-validator-network', startFourValidators],
      ['4-validator-processes', startFourValidatorProcesses],
    ];
    for (const [name, start] of starts) {
      const inProcess = start !== startFourValidatorProcesses;
      if (!inProcess && !wants('transfers')) continue;
      if (name !== 'single-validator' && !wants('http') && !wants('ws') && !wants('transfers')) continue;
      if (o.targets !== undefined && o.targets.size > 0 && !o.targets.has(name)) continue;
      const target = await start();
      try {
        await sleep(1500); // a block or two
        if (wants('http') && inProcess) await httpFigures(target, o, target.nodes.length === 1 ? ganache?.port : undefined);
        if (wants('stacks') && target.name === 'single-validator') await httpStackFigures(target.nodes[0]!, target.httpPort, o.quick ?? false, o.emit, progress);
        if (wants('ws') || wants('transfers')) {
          const senders = await fundSenders(target, 30);
          if (wants('ws') && inProcess) await wsFanout(target, o, senders);
          if (wants('transfers') && target.name !== 'single-validator') await transferThroughput(target, o, senders);
        }
      } finally {
        await target.close();
      }
    }
  } finally {
    ganache?.child.kill();
  }
}

export function rpcBenchFlags(argv: string[]): Omit<RpcBenchOptions, 'emit'> {
  const only = new Set<string>();
  const targets = new Set<string>();
  let ganache = process.env.BENCH_GANACHE || undefined;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--only') only.add(argv[++i] ?? '');
    if (argv[i] === '--target') targets.add(argv[++i] ?? '');
    if (argv[i] === '--ganache') ganache = argv[++i];
  }
  return { quick: argv.includes('--quick'), ganache, only, targets };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runRpcBench({ ...rpcBenchFlags(process.argv.slice(2)), emit: (f) => process.stdout.write(JSON.stringify(f) + '\n') });
}
