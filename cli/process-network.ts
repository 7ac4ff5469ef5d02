/**
 * `qbft-lab network` with each validator in its own OS process: every validator is a
 * `qbft-lab node` child process with its own data path, key file and ports, peered over RLPx on
 * 127.0.0.1. Node i is given the enode URLs of nodes 0..i-1 as bootnodes (kept connected), so the
 * validators form a full mesh without discovery, and a node that restarts is dialled again by the
 * nodes after it and dials the ones before it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bytesToHex } from '../node/crypto/bytes.ts';
import { NODE_STARTED_LINE } from './node-command.ts';

// From cli/ the entry point is ../bin; from the compiled dist/cli/ it is ../../bin (dist/ has no bin/).
const BIN = ['../bin/qbft-lab.js', '../../bin/qbft-lab.js'].map((rel) => fileURLToPath(new URL(rel, import.meta.url))).find((path) => existsSync(path))!;
const START_TIMEOUT_MS = 60_000;
const MAX_LOG_LINES = 200;

export interface ProcessNodeSpec {
  name: string;
  address: string;
  privateKey: Uint8Array;
  dataPath: string;
  /** `qbft-lab node` options, without --bootnodes and --p2p-port (added per start). */
  args: string[];
  /** 0 picks a free port at first start; a restart reuses the port the node got. */
  p2pPort: number;
}

export interface ProcessNode {
  readonly spec: ProcessNodeSpec;
  child: ChildProcess | undefined;
  enode: string;
  httpPort?: number;
  wsPort?: number;
  graphqlPort?: number;
  metricsPort?: number;
  /** The last lines the process wrote (stdout and stderr), for error messages. */
  readonly output: string[];
}

/** Starts one node process and resolves once it has printed its endpoints. */
export async function startNodeProcess(node: ProcessNode, bootnodes: readonly string[]): Promise<void> {
  const keyFile = join(node.spec.dataPath, 'key');
  if (!existsSync(keyFile)) writeFileSync(keyFile, bytesToHex(node.spec.privateKey), { mode: 0o600 });
  const args = [BIN, 'node', ...node.spec.args, '--p2p-port', String(node.spec.p2pPort), ...(bootnodes.length > 0 ? ['--bootnodes', bootnodes.join(',')] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  node.child = child;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${node.spec.name} did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    let started = false;
    let pending = '';
    const fail = (err: Error): void => {
      clearTimeout(timer);
      if (!started) reject(new Error(`${err.message}\n${node.output.slice(-20).join('\n')}`));
    };
    const onLine = (line: string): void => {
      node.output.push(line);
      if (node.output.length > MAX_LOG_LINES) node.output.splice(0, node.output.length - MAX_LOG_LINES);
      if (started) return;
      const url = /^\s*(Enode URL|JSON-RPC HTTP|JSON-RPC WS|GraphQL|Metrics)\s+(\S+)/.exec(line);
      if (url) {
        const port = Number(/:(\d+)(\/|$)/.exec(url[2])?.[1]);
        if (url[1] === 'Enode URL') node.enode = url[2];
        else if (url[1] === 'JSON-RPC HTTP') node.httpPort = port;
        else if (url[1] === 'JSON-RPC WS') node.wsPort = port;
        else if (url[1] === 'GraphQL') node.graphqlPort = port;
        else node.metricsPort = port;
      }
      if (line === NODE_STARTED_LINE) {
        started = true;
        clearTimeout(timer);
        node.spec.p2pPort = Number(/:(\d+)$/.exec(node.enode)?.[1] ?? node.spec.p2pPort);
        resolve();
      }
    };
    const reader = (chunk: Buffer): void => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const l of lines) onLine(l);
    };
    child.stdout!.on('data', reader);
    child.stderr!.on('data', reader);
    child.once('error', fail);
    child.once('exit', (code, signal) => {
      node.child = undefined;
      fail(new Error(`${node.spec.name} exited (${signal ?? `code ${code}`}) before it started`));
    });
  });
}

/** Sends `signal` and waits for the process to exit. */
export async function stopNodeProcess(node: ProcessNode, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  const child = node.child;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
  node.child = undefined;
}

export class ProcessNetwork {
  readonly nodes: ProcessNode[];

  constructor(specs: ProcessNodeSpec[]) {
    this.nodes = specs.map((spec) => ({ spec, child: undefined, enode: '', output: [] }));
  }

  /** Starts every node in order, each with the enodes of the nodes before it as bootnodes. */
  async start(): Promise<void> {
    for (let i = 0; i < this.nodes.length; i++) await this.startNode(i);
  }

  async startNode(i: number): Promise<void> {
    await startNodeProcess(this.nodes[i]!, this.nodes.slice(0, i).map((n) => n.enode));
  }

  /** `kill -9` (or another signal) of one node. */
  async stopNode(i: number, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    await stopNodeProcess(this.nodes[i]!, signal);
  }

  async close(): Promise<void> {
    await Promise.all(this.nodes.map((n) => stopNodeProcess(n)));
  }
}
