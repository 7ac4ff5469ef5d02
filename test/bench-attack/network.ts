/**
 * The attacked network: `qbft-lab network --validators 4 --base-port 0` in its own process group
 * (so that closing it also reaches the validator processes it spawned), its endpoints read from
 * what it prints.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEnodeUrl } from '../../node/p2p/rlpx/enode.ts';
import { height, peerCount } from '../process-kit.ts';
import { sleep, waitUntil } from './time.ts';

/** This repository's entry point (dist/ when fresh, else the sources through tsx). */
export const REPO_BIN = fileURLToPath(new URL('../../bin/qbft-lab.js', import.meta.url));
const START_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 10_000;
const KEPT_OUTPUT_LINES = 60;
export const BENCH_RPC_APIS = 'ETH,NET,WEB3,QBFT,TXPOOL,DEBUG,TRACE';

export interface BenchNode {
  name: string;
  address: string;
  pid: number;
  httpPort: number;
  wsPort: number;
  graphqlPort: number;
  enode: string;
  p2pPort: number;
  nodeId: Uint8Array;
}

export interface BenchNetwork {
  nodes: BenchNode[];
  dataPath: string;
  genesisFile: string;
  /** Stops every process of the group (SIGTERM, then SIGKILL) and removes the data path. */
  close(): Promise<void>;
}

const NODE_LINE = /^\s+(v\d+)\s+(0x[0-9a-f]{40})\s+pid (\d+)\s+http:\/\/[\d.]+:(\d+)\s+ws:\/\/[\d.]+:(\d+)\s+graphql http:\/\/[\d.]+:(\d+)\/graphql/;
const ENODE_LINE = /^\s+(enode:\/\/\S+)\s+data /;

/** What the network command prints before its status lines, parsed as it arrives. */
class NetworkOutput {
  readonly nodes: BenchNode[] = [];
  readonly lines: string[] = [];
  described = false;
  private pending = '';

  push(chunk: Buffer): void {
    this.pending += chunk.toString('utf8');
    const lines = this.pending.split('\n');
    this.pending = lines.pop() ?? '';
    for (const line of lines) this.onLine(line);
  }

  private onLine(line: string): void {
    this.lines.push(line);
    if (this.lines.length > KEPT_OUTPUT_LINES) this.lines.shift();
    if (this.described) return;
    const node = NODE_LINE.exec(line);
    if (node) this.nodes.push(nodeFromLine(node));
    const enode = ENODE_LINE.exec(line);
    if (enode && this.nodes.length > 0) withEnode(this.nodes.at(-1)!, enode[1]!);
    if (line.startsWith('Funded accounts')) this.described = true;
  }
}

function nodeFromLine(m: RegExpExecArray): BenchNode {
  return { name: m[1]!, address: m[2]!, pid: Number(m[3]), httpPort: Number(m[4]), wsPort: Number(m[5]), graphqlPort: Number(m[6]), enode: '', p2pPort: 0, nodeId: new Uint8Array() };
}

function withEnode(node: BenchNode, enode: string): void {
  const parsed = parseEnodeUrl(enode);
  node.enode = enode;
  node.p2pPort = parsed.tcpPort;
  node.nodeId = parsed.nodeId;
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

/** SIGTERM to the whole group, SIGKILL to whatever is left after STOP_TIMEOUT_MS. */
async function stopGroup(child: ChildProcess): Promise<void> {
  const pgid = child.pid;
  if (pgid === undefined) return;
  signalGroup(pgid, 'SIGTERM');
  const gone = await waitUntil(() => !groupAlive(pgid), STOP_TIMEOUT_MS, 100);
  if (!gone) signalGroup(pgid, 'SIGKILL');
  await waitUntil(() => !groupAlive(pgid), 5_000, 100);
}

function spawnNetwork(bin: string, dataPath: string, validators: number): ChildProcess {
  const args = [bin, 'network', '--validators', String(validators), '--base-port', '0', '--data-path', dataPath, '--rpc-api', BENCH_RPC_APIS];
  return spawn(process.execPath, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
}

async function waitDescribed(child: ChildProcess, output: NetworkOutput, validators: number): Promise<void> {
  let exited = false;
  child.once('exit', () => void (exited = true));
  const ok = await waitUntil(() => exited || (output.described && output.nodes.length === validators && output.nodes.every((n) => n.enode !== '')), START_TIMEOUT_MS, 100);
  if (!ok || exited) throw new Error(`network did not start:\n${output.lines.slice(-20).join('\n')}`);
}

/** Every validator peered with the others and the chain past block 2. */
async function waitProducing(nodes: BenchNode[]): Promise<void> {
  const ready = async (): Promise<boolean> => {
    for (const n of nodes) if ((await peerCount(n.httpPort)) < nodes.length - 1 || (await height(n.httpPort)) < 2) return false;
    return true;
  };
  for (const deadline = Date.now() + START_TIMEOUT_MS; Date.now() < deadline; await sleep(250)) if (await ready().catch(() => false)) return;
  throw new Error('network started but did not peer and produce blocks');
}

/** `bin`: the qbft-lab.js to run, e.g. another checkout's, to compare builds. */
export async function startBenchNetwork(validators = 4, bin = REPO_BIN): Promise<BenchNetwork> {
  const dataPath = mkdtempSync(join(tmpdir(), 'qbft-lab-bench-attack-'));
  const child = spawnNetwork(bin, dataPath, validators);
  const output = new NetworkOutput();
  child.stdout!.on('data', (c: Buffer) => output.push(c));
  child.stderr!.on('data', (c: Buffer) => output.push(c));
  // Last resort if this process dies without running close(): no validator outlives the bench.
  const killOnExit = (): void => {
    signalGroup(child.pid!, 'SIGKILL');
    rmSync(dataPath, { recursive: true, force: true });
  };
  process.once('exit', killOnExit);
  const close = async (): Promise<void> => {
    await stopGroup(child);
    process.off('exit', killOnExit);
    rmSync(dataPath, { recursive: true, force: true });
  };
  try {
    await waitDescribed(child, output, validators);
    await waitProducing(output.nodes);
  } catch (err) {
    await close();
    throw err;
  }
  return { nodes: output.nodes, dataPath, genesisFile: join(dataPath, 'genesis.json'), close };
}
