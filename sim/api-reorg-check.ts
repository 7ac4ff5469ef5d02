/**
 * What an API client of a node must have seen across head changes and reorganizations, derived
 * without the node's pub/sub or filter code, and a judge of recorded client streams against it.
 *
 * Sources: the node's trace (`block-imported` with status head, and the `reorg` that follows it with
 * the removed and added block hashes) and plain JSON-RPC reads (eth_getBlockByHash, eth_getLogs with
 * a blockHash, eth_getTransactionReceipt). What a correct client sees follows Besu:
 * - eth_subscribe logs and an eth_newFilter log filter both get the logs of a head change's
 *   BlockAddedEvent (DefaultBlockchain.handleChainReorg): first every log of the removed blocks with
 *   removed: true, newest first (blocks from the old head down, each block's logs last to first),
 *   then every log of the added blocks in chain order with removed: false. A plain head advancement
 *   carries the new block's logs.
 * - eth_subscribe newHeads gets each added block from the common ancestor up to the new head, lowest
 *   first, as eth_getBlockByHash(hash, false) answers it (NewBlockHeadersSubscriptionService).
 * Nothing here reads clocks or randomness.
 */
import type { Hex } from '../node/crypto/bytes.ts';

/** One change of a node's canonical head, as its trace tells it (atMs: virtual time of the run). */
export interface HeadChange {
  atMs: number;
  removed: Hex[];
  added: Hex[];
}

/** The trace lines the derivation reads, stamped with virtual time. */
export type HeadLine =
  | { atMs: number; kind: 'block-imported'; hash: Hex; status: string }
  | { atMs: number; kind: 'reorg'; removed: Hex[]; added: Hex[] };

export type RpcLog = Record<string, unknown> & { blockHash?: unknown; blockNumber?: unknown; logIndex?: unknown; transactionHash?: unknown; transactionIndex?: unknown; removed?: unknown };
export type RpcBlock = Record<string, unknown> & { hash?: unknown; number?: unknown; transactions?: unknown };

/** Plain reads of a node: none of them goes through pub/sub or filters. */
export interface ChainReads {
  /** eth_getBlockByHash(hash, false). */
  block(hash: Hex): Promise<RpcBlock | null>;
  /** eth_getLogs({ blockHash }). */
  logs(hash: Hex): Promise<RpcLog[]>;
  /** eth_getTransactionReceipt. */
  receipt(txHash: Hex): Promise<{ blockHash?: unknown; logs?: unknown } | null>;
}

export interface Stamped {
  atMs: number;
  result: unknown;
}

/** What the clients recorded; the filter's polls flattened, each log stamped with its poll's time. */
export interface RecordedStreams {
  logs: Stamped[];
  newHeads: Stamped[];
  filter: Stamped[];
}

interface Expected<T> {
  value: T;
  /** Human description, for messages. */
  what: string;
  /** The head change it belongs to: no client can see it earlier. */
  notBeforeMs: number;
}

export interface ExpectedStreams {
  logs: Expected<RpcLog>[];
  heads: Expected<RpcBlock>[];
  reorgs: number;
  removedLogs: number;
}

/** Head changes from a node's trace lines, in order; a reorg replaces the plain change its import made. */
export function headChanges(lines: readonly HeadLine[]): HeadChange[] {
  const out: HeadChange[] = [];
  for (const line of lines) {
    if (line.kind === 'block-imported') {
      if (line.status === 'head') out.push({ atMs: line.atMs, removed: [], added: [line.hash] });
      continue;
    }
    const head = line.added.at(-1);
    const plain = findLastIndex(out, (c) => c.removed.length === 0 && c.added.length === 1 && c.added[0] === head);
    const change = { atMs: line.atMs, removed: [...line.removed], added: [...line.added] };
    if (plain >= 0) out[plain] = { ...change, atMs: out[plain]!.atMs };
    else out.push(change);
  }
  return out;
}

function findLastIndex<T>(list: readonly T[], test: (x: T) => boolean): number {
  for (let i = list.length - 1; i >= 0; i--) if (test(list[i]!)) return i;
  return -1;
}

const num = (q: unknown) => (typeof q === 'string' && /^0x[0-9a-f]+$/i.test(q) ? Number(BigInt(q)) : NaN);

interface ReadBlock {
  hash: Hex;
  block: RpcBlock;
  logs: RpcLog[];
}

/** A block and its logs, with the reads checked against each other; a string says what is wrong. */
async function readBlock(reads: ChainReads, hash: Hex): Promise<ReadBlock | string> {
  const block = await reads.block(hash);
  if (!block || block.hash !== hash) return `eth_getBlockByHash(${hash}) answered ${block ? `block ${String(block.hash)}` : 'null'}`;
  const logs = await reads.logs(hash);
  const txs = Array.isArray(block.transactions) ? (block.transactions as unknown[]) : [];
  for (const log of logs) {
    const i = num(log.transactionIndex);
    if (log.blockHash !== hash || log.blockNumber !== block.number || txs[i] !== log.transactionHash)
      return `eth_getLogs(blockHash ${hash}) ${describeLog(log)} (transaction ${num(log.transactionIndex)} ${String(log.transactionHash)}) does not match eth_getBlockByHash`;
  }
  for (const tx of new Set(logs.map((l) => l.transactionHash as Hex))) {
    const receipt = await reads.receipt(tx);
    // Only a receipt of this very block can confirm its logs (a removed block's transaction may be in another block now).
    if (!receipt || receipt.blockHash !== hash) continue;
    const fromReceipt = Array.isArray(receipt.logs) ? (receipt.logs as RpcLog[]) : [];
    const fromLogs = logs.filter((l) => l.transactionHash === tx);
    const diff = fromReceipt.length !== fromLogs.length ? `${fromReceipt.length} logs, not ${fromLogs.length}` : fromLogs.map((l, i) => firstDifference(l, asRecord(fromReceipt[i]))).find((d) => d);
    if (diff) return `eth_getTransactionReceipt(${tx}) disagrees with eth_getLogs(blockHash ${hash}): ${diff}`;
  }
  return { hash, block, logs };
}

function describeLog(log: RpcLog): string {
  return `log ${num(log.logIndex)} of block ${num(log.blockNumber)} ${String(log.blockHash)}`;
}

/** What a correct client sees for these head changes, or what made the reads unusable. */
export async function expectedStreams(changes: readonly HeadChange[], reads: ChainReads): Promise<ExpectedStreams | string> {
  const out: ExpectedStreams = { logs: [], heads: [], reorgs: 0, removedLogs: 0 };
  for (const change of changes) {
    const removed: ReadBlock[] = [];
    const added: ReadBlock[] = [];
    for (const [hashes, into] of [[change.removed, removed], [change.added, added]] as const)
      for (const hash of hashes) {
        const read = await readBlock(reads, hash);
        if (typeof read === 'string') return read;
        into.push(read);
      }
    // Chain order from the blocks themselves, not from the order the trace lists them in.
    removed.sort((a, b) => num(b.block.number) - num(a.block.number));
    added.sort((a, b) => num(a.block.number) - num(b.block.number));
    const cause = change.removed.length > 0 ? `reorganization at ${change.atMs} ms` : `head change at ${change.atMs} ms`;
    if (change.removed.length > 0) out.reorgs++;
    for (const r of removed)
      for (const log of [...r.logs].reverse()) {
        out.logs.push({ value: { ...log, removed: true }, what: `removed ${describeLog(log)} (${cause}) with removed: true`, notBeforeMs: change.atMs });
        out.removedLogs++;
      }
    for (const a of added)
      for (const log of a.logs) out.logs.push({ value: { ...log, removed: false }, what: `${describeLog(log)} (${cause}) with removed: false`, notBeforeMs: change.atMs });
    for (const a of added) out.heads.push({ value: a.block, what: `new head ${num(a.block.number)} ${a.hash} (${cause})`, notBeforeMs: change.atMs });
  }
  return out;
}

function firstDifference(want: Record<string, unknown>, got: Record<string, unknown>): string | undefined {
  for (const key of new Set([...Object.keys(want), ...Object.keys(got)])) {
    const w = JSON.stringify(want[key]);
    const g = JSON.stringify(got[key]);
    if (w !== g) return `${key} is ${g ?? 'absent'}, should be ${w ?? 'absent'}`;
  }
  return undefined;
}

const asRecord = (x: unknown): Record<string, unknown> => (typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Record<string, unknown>) : {});

function judgeStream<T extends Record<string, unknown>>(
  label: string,
  item: string,
  want: readonly Expected<T>[],
  got: readonly Stamped[],
  sameItem: (w: T, g: Record<string, unknown>) => boolean,
  describeGot: (g: Record<string, unknown>) => string,
): string | undefined {
  for (let i = 0; i < Math.max(want.length, got.length); i++) {
    const w = want[i];
    const g = got[i];
    const n = `${item} ${i + 1}`;
    if (!g) return `${label}: ${n} missing: ${w!.what} (${got.length} arrived)`;
    const value = asRecord(g.result);
    if (!w) return `${label}: ${n} unexpected: ${describeGot(value)} at ${g.atMs} ms`;
    if (!sameItem(w.value, value)) return `${label}: ${n} should be ${w.what}, got ${describeGot(value)}`;
    const diff = firstDifference(w.value, value);
    if (diff) return `${label}: ${n} (${w.what}): ${diff}`;
    if (g.atMs < w.notBeforeMs) return `${label}: ${n} (${w.what}) arrived at ${g.atMs} ms, before its head change`;
  }
  return undefined;
}

const sameLog = (w: RpcLog, g: Record<string, unknown>) => w.blockHash === g.blockHash && w.logIndex === g.logIndex;
const describeGotLog = (g: Record<string, unknown>) => `${describeLog(g)} with removed: ${String(g.removed)}`;

/** The first wrong, missing or unexpected notification of the recorded streams (one line), or undefined. */
export function judgeStreams(node: string, expected: ExpectedStreams, streams: RecordedStreams): string | undefined {
  return (
    judgeStream(`${node} eth_subscribe logs`, 'notification', expected.logs, streams.logs, sameLog, describeGotLog) ??
    judgeStream(`${node} eth_newFilter logs (eth_getFilterChanges)`, 'log', expected.logs, streams.filter, sameLog, describeGotLog) ??
    judgeStream(
      `${node} eth_subscribe newHeads`,
      'notification',
      expected.heads,
      streams.newHeads,
      (w, g) => w.hash === g.hash,
      (g) => `head ${num(g.number)} ${String(g.hash)}`,
    )
  );
}
