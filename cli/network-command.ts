/**
 * `qbft-lab network --validators N`: N validators on the real clock, each with its own LevelDB store
 * and JSON-RPC endpoints. By default each validator is its own `qbft-lab node` process peered over
 * RLPx on 127.0.0.1 (P2P port 30303 + i); `--single-process` runs them on one event loop connected by
 * an in-process hub. Node 0 listens on Besu's default ports; node i on the defaults + 10*i
 * (--metrics-enabled: metrics on the base port + 1000, Besu's 9545 for node 0, + 10*i). Options
 * after `--` go to every node. The generated genesis funds Besu's well-known development accounts,
 * so any Besu tutorial works against it. The validator keys are the simulator's deterministic test
 * keys: never use this network for anything of value.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GenesisError, type Genesis } from '../node/chain/genesis.ts';
import { checkedForStart } from '../node/chain/genesis-checks.ts';
import { readGenesisFile } from '../node/cli/genesis-file.ts';
import { decodeExtraData } from '../node/chain/extra-data.ts';
import { LoopbackNetwork } from '../node/runtime/live-loopback-network.ts';
import { LiveLog } from '../node/runtime/live-log.ts';
import { startLiveNode, type LiveNode } from '../node/cli/live-node.ts';
import { TrieNodeStore } from '../node/execution/state-db.ts';
import { ExecutionMemo } from '../node/execution/execution-memo.ts';
import { parseNodeOptions } from '../node/cli/node-options.ts';
import { UsageError } from '../node/cli/usage-error.ts';
import { GENESIS_FORKS, buildSimGenesis, type GenesisFork } from '../sim/genesis-builder.ts';
import { BESU_TEST_ACCOUNTS, validatorKeys } from '../sim/keys.ts';
import type { Io } from './main.ts';
import { ProcessNetwork, type ProcessNodeSpec } from './process-network.ts';
import { networkPrivacyArgs, networkPrivacyKey, PRIVACY_APIS } from './network-privacy.ts';
import { choosePorts, DEFAULT_BASE_PORT, DEFAULT_P2P_BASE_PORT } from './network-ports.ts';

export interface NetworkFlags {
  validators?: string;
  'data-path'?: string;
  'block-period'?: string;
  /** Besu's emptyblockperiodseconds for the generated genesis: with no transaction waiting, a block only this often (default 0: off). */
  'empty-block-period'?: string;
  'request-timeout'?: string;
  'chain-id'?: string;
  /** Newest hardfork of the generated genesis (default: the newest this node runs). */
  fork?: string;
  'base-port'?: string;
  /** Node i's P2P (RLPx and discovery) port is this + i; default 30303, or any free one with --base-port 0. */
  'p2p-base-port'?: string;
  'rpc-api'?: string;
  'host-allowlist'?: string;
  'rpc-http-cors-origins'?: string;
  'metrics-enabled'?: boolean;
  'duration'?: string;
  'single-process'?: boolean;
  /** Privacy on every validator, each with a privacy key pair of its own (network-privacy.ts); adds PRIV,EEA to the default APIs. */
  privacy?: boolean;
}

/** What `network` enables unless --rpc-api says otherwise: Besu's defaults plus QBFT and TXPOOL (no ADMIN, MINER or DEBUG). */
export const NETWORK_DEFAULT_APIS = 'ETH,NET,WEB3,QBFT,TXPOOL';

export interface RunningNetwork {
  nodes: LiveNode[];
  httpPorts: number[];
  wsPorts: number[];
  graphqlPorts: number[];
  /** Bound metrics ports; empty without --metrics-enabled. */
  metricsPorts: number[];
  /** What the endpoints let in. */
  access: { apis: string; hostAllowlist: string; corsOrigins: string | undefined };
  /** What the user should know before using it: ports that moved, flags a kept genesis overrides. */
  notes: string[];
  genesis: Genesis;
  close(): Promise<void>;
}

/** The kept genesis, held to a node's start-up checks: a hand-edited file that no node could start from fails here, in one line. */
function networkGenesis(file: string): Genesis {
  try {
    return checkedForStart(readGenesisFile(file)).genesis;
  } catch (err) {
    if (err instanceof GenesisError) throw new UsageError(`${file}: ${err.message}`);
    throw err;
  }
}

function extraDataValidators(genesis: Genesis): string[] {
  return [...decodeExtraData(genesis.extraData).validators].sort();
}

function intFlag(text: string | undefined, flag: string, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${flag}: '${text}' must be an integer from ${min} to ${max}`);
  return n;
}

/** The newest fork this node runs, which a generated genesis enables from block 0 unless --fork says otherwise (as Hardhat and anvil do). */
export const NEWEST_FORK: GenesisFork = 'osaka';

function forkFlag(text: string | undefined): GenesisFork {
  if (text === undefined) return NEWEST_FORK;
  const name = text.toLowerCase();
  if (!(GENESIS_FORKS as readonly string[]).includes(name)) throw new UsageError(`--fork: '${text}' must be one of ${GENESIS_FORKS.join(', ')} (the default, ${NEWEST_FORK}, is the newest this node runs)`);
  return name as GenesisFork;
}

interface NetworkFiles {
  n: number;
  basePort: number;
  /** Node i listens for peers on p2pBasePort + i (0: any free port). */
  p2pBasePort: number;
  dataPath: string;
  genesisFile: string;
  genesis: Genesis;
  keys: ReturnType<typeof validatorKeys>;
  apis: string;
  hostAllowlist: string;
  corsOrigins: string | undefined;
  notes: string[];
}

/** Flags that only shape a new genesis: a kept one (an earlier start's) has its own values. */
function keptGenesisNotes(flags: NetworkFlags, genesisFile: string, genesis: Genesis): string[] {
  const kept = [
    { flag: '--block-period', given: flags['block-period'], has: genesis.qbft.blockPeriodSeconds, what: 'a block period' },
    { flag: '--empty-block-period', given: flags['empty-block-period'], has: genesis.qbft.emptyBlockPeriodSeconds, what: 'an empty-block period' },
  ];
  return kept
    .filter((k) => k.given !== undefined && Number(k.given) !== k.has)
    .map((k) => `${genesisFile} is kept from an earlier start, with ${k.what} of ${k.has} s: ${k.flag} ${k.given} applies to a new chain (another --data-path, or remove that directory)`);
}

/** The genesis (kept in the data path, so a restarted network resumes its chain), the ports and the access settings. */
async function prepareNetwork(flags: NetworkFlags, nowMs: number): Promise<NetworkFiles> {
  const n = intFlag(flags.validators, '--validators', 4, 1, 32);
  const requestedBase = intFlag(flags['base-port'], '--base-port', DEFAULT_BASE_PORT, 0, 65000);
  const requestedP2p = intFlag(flags['p2p-base-port'], '--p2p-base-port', requestedBase === 0 ? 0 : DEFAULT_P2P_BASE_PORT, 0, 65535 - (n - 1));
  const dataPath = flags['data-path'] ?? join('build', 'network');
  if (flags['metrics-enabled'] && requestedBase !== 0 && requestedBase + 1000 + 10 * (n - 1) > 65535)
    throw new UsageError(`--base-port ${requestedBase}: with --metrics-enabled, ${n} nodes need metrics ports up to ${requestedBase + 1000 + 10 * (n - 1)}, above 65535`);
  const emptyBlockPeriodSeconds = intFlag(flags['empty-block-period'], '--empty-block-period', 0, 0, 86_400);
  const ports = await choosePorts({
    n,
    basePort: requestedBase,
    baseExplicit: flags['base-port'] !== undefined,
    p2pBasePort: requestedP2p,
    p2pExplicit: flags['p2p-base-port'] !== undefined,
    metrics: flags['metrics-enabled'] === true,
  });
  const { basePort, p2pBasePort } = ports;
  const keys = validatorKeys(n);
  // The generated genesis is kept in the data path, so a restarted network resumes its chain.
  const genesisFile = join(dataPath, 'genesis.json');
  mkdirSync(dataPath, { recursive: true });
  const kept = existsSync(genesisFile);
  if (!kept) {
    const json = buildSimGenesis({
      validators: keys.map((k) => k.address),
      startTimeSeconds: Math.floor(nowMs / 1000),
      chainId: intFlag(flags['chain-id'], '--chain-id', 1337, 1, 2 ** 31),
      blockPeriodSeconds: intFlag(flags['block-period'], '--block-period', 1, 1, 3600),
      requestTimeoutSeconds: intFlag(flags['request-timeout'], '--request-timeout', 4, 1, 3600),
      emptyBlockPeriodSeconds,
      fork: forkFlag(flags.fork),
    });
    writeFileSync(genesisFile, JSON.stringify(json, null, 2));
  }
  const genesis = networkGenesis(genesisFile);
  const listed = extraDataValidators(genesis);
  if (listed.length !== n || listed.some((a, i) => a !== keys[i].address))
    throw new UsageError(`${genesisFile} was made for another validator set; use another --data-path or the same --validators`);
  const apis = flags['rpc-api'] ?? (flags.privacy ? `${NETWORK_DEFAULT_APIS},${PRIVACY_APIS}` : NETWORK_DEFAULT_APIS);
  // Besu's safe defaults: only local host names, no cross-origin pages; flags open them up.
  const hostAllowlist = flags['host-allowlist'] ?? 'localhost,127.0.0.1';
  const corsOrigins = flags['rpc-http-cors-origins'];
  const notes = [...ports.notes, ...(kept ? keptGenesisNotes(flags, genesisFile, genesis) : [])];
  return { n, basePort, p2pBasePort, dataPath, genesisFile, genesis, keys, apis, hostAllowlist, corsOrigins, notes };
}

/** `qbft-lab node` options of validator i (without key, P2P port and bootnodes). */
function nodeArgs(files: NetworkFiles, i: number, flags: NetworkFlags): string[] {
  const { basePort, apis, hostAllowlist, corsOrigins } = files;
  const port = (offset: number) => (basePort === 0 ? 0 : basePort + offset + 10 * i);
  return [
    '--data-path', join(files.dataPath, `v${i}`),
    '--rpc-http-enabled', '--rpc-http-port', String(port(0)), '--rpc-http-api', apis,
    '--rpc-ws-enabled', '--rpc-ws-port', String(port(1)), '--rpc-ws-api', apis,
    '--graphql-http-enabled', '--graphql-http-port', String(port(2)),
    '--host-allowlist', hostAllowlist,
    ...(corsOrigins !== undefined ? ['--rpc-http-cors-origins', corsOrigins] : []),
    '--min-gas-price', '0',
    ...(flags['metrics-enabled'] ? ['--metrics-enabled', '--metrics-port', String(port(1000))] : []),
    ...(flags.privacy ? networkPrivacyArgs(join(files.dataPath, `v${i}`), i) : []),
  ];
}

/** Each validator in its own `qbft-lab node` process, peered over RLPx. */
export async function startProcessNetwork(flags: NetworkFlags, nowMs: number, extraNodeArgs: readonly string[] = []): Promise<{ net: ProcessNetwork; files: NetworkFiles }> {
  const files = await prepareNetwork(flags, nowMs);
  const specs: ProcessNodeSpec[] = files.keys.map((key, i) => {
    const dataPath = join(files.dataPath, `v${i}`);
    mkdirSync(dataPath, { recursive: true });
    return {
      name: `v${i}`,
      address: key.address,
      privateKey: key.privateKey,
      dataPath,
      args: [...nodeArgs(files, i, flags), '--genesis-file', files.genesisFile, '--p2p-interface', '127.0.0.1', ...extraNodeArgs],
      p2pPort: files.p2pBasePort === 0 ? 0 : files.p2pBasePort + i,
    };
  });
  const net = new ProcessNetwork(specs);
  try {
    await net.start();
  } catch (err) {
    // A node that refuses to start stops its siblings; its own one-line reason is what the user needs.
    await net.close();
    throw refusal(err, net);
  }
  return { net, files };
}

/** The node that did not start and the last line it wrote on why (its refusal, without a stack trace). */
function refusal(err: unknown, net: ProcessNetwork): UsageError {
  // Nodes start one after another: the first without an enode is the one that failed.
  const failed = net.nodes.find((n) => n.enode === '') ?? net.nodes.at(-1)!;
  const said = [...failed.output]
    .reverse()
    .find((l) => /^qbft-lab: /.test(l.trim()))
    ?.trim()
    .replace(/^qbft-lab: /, '')
    .replace(/ \(see 'qbft-lab [^']*'\)$/, '');
  const why = said ?? String((err as Error)?.message ?? err).split('\n')[0];
  return new UsageError(`network: ${failed.spec.name} refused to start: ${why}`);
}

/** How often blocks come, as a dApp developer needs to know it. */
function blockTimingLine(genesis: Genesis): string {
  const { blockPeriodSeconds: period, emptyBlockPeriodSeconds: empty } = genesis.qbft;
  if (empty > period) return `Blocks every ${period} s while transactions wait; with none waiting, every ${empty} s (the empty-block period, --empty-block-period)`;
  return `Blocks every ${period} s, with or without transactions (--empty-block-period S: an idle chain makes a block every S s)`;
}

function titleLines(title: string, notes: readonly string[]): string[] {
  return [title, ...notes.map((note) => `note: ${note}`), ''];
}

export function describeProcessNetwork(net: ProcessNetwork, files: NetworkFiles): string {
  const lines = titleLines('qbft-lab network: QBFT validators on the real clock, one process each, peered over RLPx', files.notes);
  for (const node of net.nodes) {
    const metrics = node.metricsPort === undefined ? '' : `  metrics http://127.0.0.1:${node.metricsPort}/metrics`;
    lines.push(`  ${node.spec.name}  ${node.spec.address}  pid ${node.child?.pid ?? '-'}  http://127.0.0.1:${node.httpPort}  ws://127.0.0.1:${node.wsPort}  graphql http://127.0.0.1:${node.graphqlPort}/graphql${metrics}`);
    lines.push(`      ${node.enode}  data ${node.spec.dataPath}`);
    const privacyKey = networkPrivacyKey(node.spec.dataPath);
    if (privacyKey) lines.push(`      privacy key ${privacyKey}`);
  }
  lines.push('', `Genesis ${files.genesisFile}`, blockTimingLine(files.genesis));
  lines.push(`APIs ${files.apis}; host allowlist ${files.hostAllowlist}; CORS origins ${files.corsOrigins ?? 'none (web pages cannot call: see --rpc-http-cors-origins)'}`);
  lines.push('', "Funded accounts (Besu's public development keys; never use them on a real network):");
  for (const a of BESU_TEST_ACCOUNTS) lines.push(`  ${a.address}  0x${Buffer.from(a.privateKey).toString('hex')}`);
  return lines.join('\n');
}

async function rpcResult(port: number | undefined, method: string): Promise<unknown> {
  if (port === undefined) return undefined;
  try {
    const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }) });
    return ((await res.json()) as { result?: unknown }).result;
  } catch {
    return undefined;
  }
}

async function processStatusLine(net: ProcessNetwork): Promise<string> {
  const parts = await Promise.all(
    net.nodes.map(async (n) => {
      const height = await rpcResult(n.httpPort, 'eth_blockNumber');
      const peers = await rpcResult(n.httpPort, 'net_peerCount');
      return typeof height === 'string' ? `${n.spec.name} #${BigInt(height)} (${typeof peers === 'string' ? BigInt(peers) : '?'} peers)` : `${n.spec.name} down`;
    }),
  );
  return parts.join('  ');
}

export async function startNetwork(flags: NetworkFlags, nowMs: number): Promise<RunningNetwork> {
  const files = await prepareNetwork(flags, nowMs);
  const { n, keys, genesis, dataPath, apis, hostAllowlist, corsOrigins } = files;
  const hub = new LoopbackNetwork();
  const nodes: LiveNode[] = [];
  const close = async () => {
    for (const live of nodes.reverse()) await live.close();
    hub.close();
  };
  try {
    // The validators run in one process: one state store and one memo of block outcomes, so each
    // block is executed once (each node still checks every root of it).
    const sharedExecution = { store: new TrieNodeStore(), memo: new ExecutionMemo() };
    for (let i = 0; i < n; i++) {
      const name = `v${i}`;
      mkdirSync(join(dataPath, name), { recursive: true });
      const opts = parseNodeOptions(nodeArgs(files, i, flags));
      const live = await startLiveNode(opts, {
        name,
        genesis,
        sharedExecution,
        privateKey: keys[i].privateKey,
        transport: hub.attach(name, { address: keys[i].address }),
        log: new LiveLog({ name, level: 'warn' }),
      });
      nodes.push(live);
    }
  } catch (err) {
    await close();
    throw new UsageError(`network: v${nodes.length} refused to start: ${String((err as Error)?.message ?? err).split('\n')[0]}`);
  }
  return {
    nodes,
    httpPorts: nodes.map((l) => l.servers.httpPort ?? 0),
    wsPorts: nodes.map((l) => l.servers.wsPort ?? 0),
    graphqlPorts: nodes.map((l) => l.graphqlPort ?? 0),
    metricsPorts: flags['metrics-enabled'] ? nodes.map((l) => l.metricsPort ?? 0) : [],
    access: { apis, hostAllowlist, corsOrigins },
    notes: files.notes,
    genesis,
    close,
  };
}

export function describeNetwork(net: RunningNetwork): string {
  const lines = titleLines('qbft-lab network: QBFT validators on the real clock', net.notes);
  net.nodes.forEach((l, i) => {
    const metrics = net.metricsPorts[i] === undefined ? '' : `  metrics http://127.0.0.1:${net.metricsPorts[i]}/metrics`;
    lines.push(`  v${i}  ${l.node.address}  http://127.0.0.1:${net.httpPorts[i]}  ws://127.0.0.1:${net.wsPorts[i]}  graphql http://127.0.0.1:${net.graphqlPorts[i]}/graphql${metrics}`);
    const privacy = l.node.privacy();
    if (privacy) lines.push(`      privacy key ${privacy.config.publicKey}`);
  });
  lines.push(
    '',
    blockTimingLine(net.genesis),
    `APIs ${net.access.apis}; host allowlist ${net.access.hostAllowlist}; CORS origins ${net.access.corsOrigins ?? 'none (web pages cannot call: see --rpc-http-cors-origins)'}`,
  );
  lines.push('', "Funded accounts (Besu's public development keys; never use them on a real network):");
  for (const a of BESU_TEST_ACCOUNTS) lines.push(`  ${a.address}  0x${Buffer.from(a.privateKey).toString('hex')}`);
  return lines.join('\n');
}

export function statusLine(net: RunningNetwork): string {
  const node = net.nodes[0].node;
  const head = node.head();
  const stats = node.consensusStats()!;
  return `height ${head.number}  round ${stats.round ?? '-'}  round changes ${stats.roundChanges}  peers ${node.syncStatus().peers}  txpool ${node.poolSize()}`;
}

export async function networkCommand(flags: NetworkFlags, io: Io, nowMs: () => number, isTty: boolean, extraNodeArgs: readonly string[] = []): Promise<number> {
  if (flags['single-process'] && extraNodeArgs.length > 0) throw new UsageError(`network --single-process: node options after '--' apply only to separate processes`);
  const durationMs = flags.duration === undefined ? undefined : Number(flags.duration) * 1000;
  if (durationMs !== undefined && !(durationMs > 0)) throw new UsageError(`--duration: '${flags.duration}' must be a number of seconds above 0`);
  if (!flags['single-process']) {
    const { net, files } = await startProcessNetwork(flags, nowMs(), extraNodeArgs);
    io.out(describeProcessNetwork(net, files));
    await runUntilStopped(io, isTty, durationMs, () => processStatusLine(net), 1_000);
    if (isTty) process.stdout.write('\n');
    await net.close();
    return 0;
  }
  const net = await startNetwork(flags, nowMs());
  io.out(describeNetwork(net));
  await runUntilStopped(io, isTty, durationMs, async () => statusLine(net), 250);
  if (isTty) process.stdout.write('\n');
  await net.close();
  return 0;
}

async function runUntilStopped(io: Io, isTty: boolean, durationMs: number | undefined, status: () => Promise<string>, everyMs: number): Promise<void> {
  await new Promise<void>((resolve) => {
    let last = '';
    let busy = false;
    const tick = setInterval(() => {
      if (busy) return;
      busy = true;
      void status().then((line) => {
        busy = false;
        if (line === last) return;
        last = line;
        if (isTty) process.stdout.write(`\r${line}\u001b[K`);
        else io.out(line);
      });
    }, everyMs);
    const stop = () => {
      clearInterval(tick);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (durationMs !== undefined) setTimeout(stop, durationMs);
  });
}
