/**
 * API clients in a scenario run: an `api-clients` step attaches to a node, over its in-process
 * JSON-RPC connection, an eth_subscribe `logs` client, an eth_subscribe `newHeads` client and an
 * eth_newFilter (logs) client polled with eth_getFilterChanges every `pollEveryMs` of virtual time
 * (and once more when judged). Every notification and poll result is kept with its virtual time
 * (and goes to the trace as rpc-notification / rpc-call lines). The `api-streams` expectation
 * judges what they saw against sim/api-reorg-check.ts, which reads the node's trace and plain RPC
 * answers, never the pub/sub or filter code.
 */
import type { QbftNode } from '../node/node.ts';
import type { Hex } from '../node/crypto/bytes.ts';
import { expectedStreams, headChanges, judgeStreams, type ChainReads, type HeadLine, type RecordedStreams } from './api-reorg-check.ts';
import { rpcClientFor } from './node-rpc-client.ts';
import type { TraceLine } from './trace.ts';
import type { World } from './world.ts';

export const DEFAULT_FILTER_POLL_MS = 1_000;

type InProcessRpc = ReturnType<typeof rpcClientFor>;

interface Attached {
  node: QbftNode;
  client: InProcessRpc;
  filterId: string;
  streams: RecordedStreams;
  lines: HeadLine[];
  /** Set when the node the clients were attached to stopped. */
  detachedAtMs?: number;
}

export interface ApiVerdict {
  /** The first problem, one line; undefined when the streams are right. */
  problem?: string;
  reorgs: number;
  removedLogs: number;
}

export class ApiClientsRun {
  private readonly attached = new Map<string, Attached>();

  constructor(
    private readonly world: World,
    private readonly durationMs: number,
  ) {
    world.trace.subscribe((line) => this.onLine(line));
  }

  /** Subscribes and installs the filter on the node now, and schedules the polls. */
  async attach(name: string, pollEveryMs = DEFAULT_FILTER_POLL_MS): Promise<void> {
    const node = this.world.get(name).node;
    if (!node) return this.world.fail(`api-clients: ${name} is not running`);
    if (this.attached.has(name)) return this.world.fail(`api-clients: ${name} already has API clients`);
    const client = rpcClientFor(node, (e) => this.world.trace.record(this.world.kernel.nowMs(), name, e));
    const streams: RecordedStreams = { logs: [], newHeads: [], filter: [] };
    try {
      const logsId = await client.request('eth_subscribe', ['logs', {}]);
      const headsId = await client.request('eth_subscribe', ['newHeads']);
      const filterId = (await client.request('eth_newFilter', [{}])) as string;
      client.onNotification((n) => {
        const stamped = { atMs: this.world.elapsedMs(), result: n.result };
        if (n.subscription === logsId) streams.logs.push(stamped);
        else if (n.subscription === headsId) streams.newHeads.push(stamped);
      });
      this.attached.set(name, { node, client, filterId, streams, lines: [] });
    } catch (err) {
      return this.world.fail(`api-clients on ${name}: ${(err as Error).message}`);
    }
    for (let t = this.world.elapsedMs() + pollEveryMs; t <= this.durationMs; t += pollEveryMs) this.world.at(t, 'api-filter-poll', () => this.poll(name));
  }

  /** Judges the clients of `name` (after a last poll): streams right, and at least `minRemovedLogs` removed logs owed. */
  async judge(name: string, minRemovedLogs = 0): Promise<ApiVerdict> {
    const a = this.attached.get(name);
    if (!a) return { problem: `${name} has no API clients (no api-clients step ran on it)`, reorgs: 0, removedLogs: 0 };
    await this.poll(name);
    if (a.detachedAtMs !== undefined) return { problem: `${name}'s API clients lapsed at ${a.detachedAtMs} ms (the node stopped)`, reorgs: 0, removedLogs: 0 };
    const expected = await expectedStreams(headChanges(a.lines), this.reads(a.client));
    if (typeof expected === 'string') return { problem: `${name}: the plain reads disagree: ${expected}`, reorgs: 0, removedLogs: 0 };
    const { reorgs, removedLogs } = expected;
    const problem = judgeStreams(name, expected, a.streams);
    if (problem) return { problem, reorgs, removedLogs };
    if (removedLogs < minRemovedLogs) return { problem: `${name}: reorganizations removed ${removedLogs} logs while the API clients were attached, fewer than ${minRemovedLogs}`, reorgs, removedLogs };
    return { reorgs, removedLogs };
  }

  /** What the clients of `name` recorded so far. */
  streamsOf(name: string): RecordedStreams | undefined {
    return this.attached.get(name)?.streams;
  }

  private running(name: string, a: Attached): boolean {
    if (a.detachedAtMs !== undefined) return false;
    if (this.world.get(name).node === a.node) return true;
    a.detachedAtMs = this.world.elapsedMs();
    return false;
  }

  private async poll(name: string): Promise<void> {
    const a = this.attached.get(name);
    if (!a || !this.running(name, a)) return;
    const atMs = this.world.elapsedMs();
    try {
      const logs = await a.client.request('eth_getFilterChanges', [a.filterId]);
      for (const result of Array.isArray(logs) ? logs : []) a.streams.filter.push({ atMs, result });
    } catch (err) {
      this.world.fail(`api-clients on ${name}: eth_getFilterChanges: ${(err as Error).message}`);
    }
  }

  private onLine(line: TraceLine): void {
    if (line.node === null || (line.kind !== 'block-imported' && line.kind !== 'reorg')) return;
    const a = this.attached.get(line.node);
    if (!a || !this.running(line.node, a)) return;
    const atMs = this.world.elapsedMs();
    if (line.kind === 'block-imported') a.lines.push({ atMs, kind: line.kind, hash: line.hash, status: line.status });
    else a.lines.push({ atMs, kind: line.kind, removed: line.removed, added: line.added });
  }

  private reads(client: InProcessRpc): ChainReads {
    return {
      block: async (hash: Hex) => (await client.request('eth_getBlockByHash', [hash, false])) as Awaited<ReturnType<ChainReads['block']>>,
      logs: async (hash: Hex) => {
        const logs = await client.request('eth_getLogs', [{ blockHash: hash }]);
        return Array.isArray(logs) ? logs : [];
      },
      receipt: async (txHash: Hex) => (await client.request('eth_getTransactionReceipt', [txHash])) as Awaited<ReturnType<ChainReads['receipt']>>,
    };
  }
}
