/**
 * The world state and the receipts of canonical blocks on the node's Store, so that a restarted
 * node re-executes only the blocks after its last persisted state (normally none).
 *
 * Layout (one atomic `write` per flush):
 * - `s:<key>`: a trie node or contract code, under the TrieNodeStore's own key (state-db.ts).
 * - `meta:state-head`: JSON {number, hash, stateRoot} of the block whose state was persisted last.
 * - `meta:state-root:<stateRoot>`: JSON {number, hash}, one per state root kept whole on disk: the
 *   last `keepRoots` distinct roots persisted (a restart after a reorg resumes from the newest one
 *   still canonical; recent states stay readable after a restart).
 * - `r:<blockHash>`: the receipts of a block with transactions (re-executing a block needs its
 *   parent's state, which a restarted node no longer holds).
 *
 * A flush writes the trie difference between the last persisted root and the new one
 * (`TrieNodeStore.nodesNewSince`), so its cost follows what changed: an empty block writes the
 * marker only. Nothing is journaled between flushes: the difference is computed from the tries,
 * which is right even when several engines share one in-memory store (a simulated world, a
 * one-process network) and this node never wrote the nodes itself. Nodes that fall out of every
 * kept root stay on disk until a sweep (amortised: once as many keys were written as were live
 * after the previous sweep) deletes every `s:` key the kept roots do not reach.
 *
 * On start `restore` reads every `s:` key back into the TrieNodeStore (the engine works on memory
 * only; reading lazily would need an asynchronous pruner and one backing Store per TrieNodeStore,
 * which a shared store does not have) and checks that a persisted root is whole before it is
 * used. Kept roots are pinned in the engine so the next difference has its base.
 *
 * After a failed flush the persistence stops for this run (a warning is logged): the marker then
 * stays behind and the next start re-executes from it, which is always correct. Every canonical
 * block at or below the marker has its receipts stored: they go in the batch that first moves the
 * marker past the block.
 */
import { RLP } from '@ethereumjs/rlp';
import type { TxReceipt } from '@ethereumjs/vm';
import { Mutex } from '../collections/mutex.ts';
import { bytesToBigInt, hexToBytes, intToBytes, type Hex } from '../crypto/bytes.ts';
import type { Store } from '../runtime/ports.ts';
import type { TrieNodeStore } from './state-db.ts';

export const STATE_HEAD_KEY = 'meta:state-head';
export const STATE_NODE_PREFIX = 's:';
export const STATE_ROOT_PREFIX = 'meta:state-root:';
export const RECEIPTS_PREFIX = 'r:';

/** A block and the state root of its state. */
export interface StateHead {
  number: number;
  hash: Hex;
  stateRoot: Hex;
}

/** A canonical block whose receipts go to disk with the next flush (only blocks with transactions). */
export interface ReceiptsToPersist {
  hash: Hex;
  receipts: () => Promise<TxReceipt[]>;
}

export interface FlushStats {
  /** `s:` keys written */
  nodes: number;
  /** `s:` keys deleted by a sweep */
  swept: number;
  /** blocks whose receipts were written */
  receiptBlocks: number;
}

export interface RestoredState {
  /** The newest persisted state on the stored canonical chain (the caller's `usable`), if any. */
  from?: StateHead;
  /** `s:` keys read back. */
  loaded: number;
}

export interface StatePersistenceOptions {
  store: Store;
  db: TrieNodeStore;
  /** Keep a root readable in memory (the engine's pin) while it is kept on disk. */
  pin(root: Uint8Array): void;
  unpin(root: Uint8Array): void;
  /** Distinct state roots kept whole on disk (default 16, at least 2). */
  keepRoots?: number;
  /** No sweep before this many `s:` keys were written since the previous one (default 10,000). */
  sweepFloor?: number;
  /** Reads in flight while loading the state (default 256). */
  loadConcurrency?: number;
  onWarning?(message: string, fields: Record<string, unknown>): void;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class StatePersistence {
  /** What the disk holds whole, oldest first; the last entry's root is the base of the next difference. */
  private kept: StateHead[] = [];
  /** The marker last written (or read back whole). */
  private head: StateHead | undefined;
  /** `meta:state-root:` keys to delete with the next flush (roots found incomplete on start). */
  private readonly staleRootKeys: string[] = [];
  private writtenSinceSweep = 0;
  private liveAtSweep = 0;
  private sweepDue = false;
  private failed = false;
  private readonly mutex = new Mutex();
  private readonly keepRoots: number;
  private readonly sweepFloor: number;
  private readonly loadConcurrency: number;
  readonly stats = { flushes: 0, nodesWritten: 0, sweeps: 0 };

  constructor(private readonly opts: StatePersistenceOptions) {
    this.keepRoots = Math.max(2, opts.keepRoots ?? 16);
    this.sweepFloor = opts.sweepFloor ?? 10_000;
    this.loadConcurrency = Math.max(1, opts.loadConcurrency ?? 256);
  }

  /** The marker last written or restored. */
  persistedHead(): StateHead | undefined {
    return this.head;
  }

  /** True once a write failed: nothing more is persisted in this run. */
  get stopped(): boolean {
    return this.failed;
  }

  /**
   * Reads the persisted state back into the TrieNodeStore and picks where to resume: the marker's
   * block if `usable` accepts it (on the stored canonical chain, same state root) and its state is
   * whole, else the newest such kept root. Without a marker (a data directory from before, or a
   * fresh one) nothing is read and `from` is undefined: the caller replays everything.
   */
  async restore(usable: (candidate: StateHead) => boolean): Promise<RestoredState> {
    const { store, db } = this.opts;
    const marker = parseHead(await store.get(STATE_HEAD_KEY));
    if (!marker) return { loaded: 0 };
    const kept: StateHead[] = [];
    for (const key of await store.keys(STATE_ROOT_PREFIX)) {
      const entry = parseRootEntry(key, await store.get(key));
      if (entry) kept.push(entry);
      else this.staleRootKeys.push(key);
    }
    // oldest first; the key order (by root) says nothing about age
    kept.sort((a, b) => a.number - b.number || (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
    const keys = await store.keys(STATE_NODE_PREFIX);
    const values: Array<readonly [string, Uint8Array]> = [];
    for (let i = 0; i < keys.length; i += this.loadConcurrency) {
      const chunk = keys.slice(i, i + this.loadConcurrency);
      const read = await Promise.all(chunk.map((k) => store.get(k)));
      for (let j = 0; j < chunk.length; j++) if (read[j] !== undefined) values.push([chunk[j].slice(STATE_NODE_PREFIX.length), read[j]!]);
    }
    // synchronous from here to the pins: no sweep of a shared store can run in between
    const loaded = db.load(values);
    const rootOf = (h: StateHead) => hexToBytes(h.stateRoot);
    const roots = kept.some((h) => h.stateRoot === marker.stateRoot) ? [...kept] : [...kept, marker];
    let whole = roots;
    if (db.reachable(roots.map(rootOf)).missing > 0) whole = roots.filter((h) => db.reachable([rootOf(h)]).missing === 0);
    const markerEntry = whole.find((h) => h.stateRoot === marker.stateRoot);
    // the marker's root last: it is the base of the next difference
    this.kept = whole.filter((h) => h !== markerEntry);
    if (markerEntry) {
      this.kept.push(markerEntry);
      this.head = marker;
    }
    while (this.kept.length > this.keepRoots) this.kept.shift();
    for (const h of kept) if (!this.kept.includes(h)) this.staleRootKeys.push(STATE_ROOT_PREFIX + h.stateRoot);
    for (const h of this.kept) this.opts.pin(rootOf(h));
    this.liveAtSweep = db.reachable(this.kept.map(rootOf)).keys.size;
    // garbage left by earlier runs that never swept: sweep with the first flush
    this.sweepDue = loaded > 2 * Math.max(this.liveAtSweep, this.sweepFloor);
    const byNumber = [...this.kept].sort((a, b) => b.number - a.number);
    const from = [marker, ...byNumber].find((h) => this.kept.some((k) => k.stateRoot === h.stateRoot) && usable(h));
    return { from, loaded };
  }

  /**
   * Writes, as one batch, the state of `head` (the difference from the last persisted root), the
   * receipts of `blocks`, the kept-roots bookkeeping and the marker. Flushes run one at a time in
   * call order. Returns undefined when nothing was written: persistence has stopped (a write
   * failed, receipts could not be had, or the state is incomplete in memory).
   */
  persist(head: StateHead, blocks: readonly ReceiptsToPersist[]): Promise<FlushStats | undefined> {
    return this.mutex.run(async () => {
      if (this.failed) return undefined;
      try {
        return await this.flush(head, blocks);
      } catch (err) {
        this.failed = true;
        this.opts.onWarning?.('state persistence stopped; the next start re-executes from the last persisted block', {
          block: head.number,
          error: String((err as Error)?.message ?? err),
        });
        return undefined;
      }
    });
  }

  /** Receipts persisted for a block (undefined: none stored). */
  async receiptsOf(blockHash: Hex): Promise<TxReceipt[] | undefined> {
    const raw = await this.opts.store.get(RECEIPTS_PREFIX + blockHash);
    return raw === undefined ? undefined : decodeReceipts(raw);
  }

  private async flush(head: StateHead, blocks: readonly ReceiptsToPersist[]): Promise<FlushStats | undefined> {
    const { store, db } = this.opts;
    const batch: Array<{ key: string; value: Uint8Array | undefined }> = [];
    let receiptBlocks = 0;
    for (const b of blocks) {
      batch.push({ key: RECEIPTS_PREFIX + b.hash, value: encodeReceipts(await b.receipts()) });
      receiptBlocks++;
    }
    const sameHead = this.head && this.head.hash === head.hash && this.head.stateRoot === head.stateRoot;
    if (sameHead && batch.length === 0 && this.staleRootKeys.length === 0) return { nodes: 0, swept: 0, receiptBlocks: 0 };

    const newRoot = hexToBytes(head.stateRoot);
    const base = this.kept.at(-1);
    const diff = db.nodesNewSince(newRoot, base && hexToBytes(base.stateRoot));
    // Skipping this flush but not the next would move the marker past blocks whose receipts are
    // not stored: stop instead (the next start re-executes from the last marker).
    if (diff.missing > 0) throw new Error(`the state of block ${head.number} is incomplete in memory (${diff.missing} keys missing)`);
    for (const [key, value] of diff.nodes) batch.push({ key: STATE_NODE_PREFIX + key, value });

    const kept = [...this.kept];
    const pinned: Uint8Array[] = [];
    const unpinned: Uint8Array[] = [];
    const existing = kept.findIndex((h) => h.stateRoot === head.stateRoot);
    if (existing >= 0) {
      // the state went back to a kept root (or stayed): it becomes the newest, the base of the next difference
      kept.push(...kept.splice(existing, 1));
    } else {
      kept.push(head);
      pinned.push(newRoot);
      batch.push({ key: STATE_ROOT_PREFIX + head.stateRoot, value: encoder.encode(JSON.stringify({ number: head.number, hash: head.hash })) });
      while (kept.length > this.keepRoots) {
        const old = kept.shift()!;
        unpinned.push(hexToBytes(old.stateRoot));
        batch.push({ key: STATE_ROOT_PREFIX + old.stateRoot, value: undefined });
      }
    }
    for (const key of this.staleRootKeys) batch.push({ key, value: undefined });
    batch.push({ key: STATE_HEAD_KEY, value: encoder.encode(JSON.stringify(head)) });

    // pin first: the difference's base and the new root must stay readable whatever happens next
    for (const r of pinned) this.opts.pin(r);
    let swept = 0;
    let sweptLive: number | undefined;
    this.writtenSinceSweep += diff.nodes.size;
    if (this.sweepDue || this.writtenSinceSweep > Math.max(this.sweepFloor, this.liveAtSweep)) {
      const reach = db.reachable(kept.map((h) => hexToBytes(h.stateRoot)));
      if (reach.missing === 0) {
        for (const key of await store.keys(STATE_NODE_PREFIX)) {
          if (reach.keys.has(key.slice(STATE_NODE_PREFIX.length))) continue;
          batch.push({ key, value: undefined });
          swept++;
        }
        sweptLive = reach.keys.size;
      }
    }
    try {
      await store.write(batch);
    } catch (err) {
      for (const r of pinned) this.opts.unpin(r);
      throw err;
    }
    for (const r of unpinned) this.opts.unpin(r);
    this.kept = kept;
    this.head = head;
    this.staleRootKeys.length = 0;
    if (sweptLive !== undefined) {
      this.liveAtSweep = sweptLive;
      this.writtenSinceSweep = 0;
      this.sweepDue = false;
      this.stats.sweeps++;
    }
    this.stats.flushes++;
    this.stats.nodesWritten += diff.nodes.size;
    return { nodes: diff.nodes.size, swept, receiptBlocks };
  }
}

function parseHead(raw: Uint8Array | undefined): StateHead | undefined {
  if (raw === undefined) return undefined;
  try {
    const v = JSON.parse(decoder.decode(raw)) as Partial<StateHead>;
    if (!Number.isSafeInteger(v.number) || (v.number as number) < 0) return undefined;
    if (!isHash(v.hash) || !isHash(v.stateRoot)) return undefined;
    return { number: v.number as number, hash: v.hash, stateRoot: v.stateRoot };
  } catch {
    return undefined;
  }
}

function parseRootEntry(key: string, raw: Uint8Array | undefined): StateHead | undefined {
  const stateRoot = key.slice(STATE_ROOT_PREFIX.length);
  if (!isHash(stateRoot) || raw === undefined) return undefined;
  try {
    const v = JSON.parse(decoder.decode(raw)) as Partial<StateHead>;
    if (!Number.isSafeInteger(v.number) || (v.number as number) < 0 || !isHash(v.hash)) return undefined;
    return { number: v.number as number, hash: v.hash, stateRoot };
  } catch {
    return undefined;
  }
}

function isHash(v: unknown): v is Hex {
  return typeof v === 'string' && /^0x[0-9a-f]{64}$/.test(v);
}

// ---- receipts codec --------------------------------------------------------------------------
// [statusOrStateRoot, cumulativeGas, bloom, logs, (blobGasUsed, blobGasPrice)?] per receipt:
// status as an RLP scalar (0 -> empty), a pre-Byzantium state root as its 32 bytes.

type Log = TxReceipt['logs'][number];

export function encodeReceipts(receipts: readonly TxReceipt[]): Uint8Array {
  return RLP.encode(
    receipts.map((r) => {
      const item: Array<Uint8Array | Log[]> = [
        'stateRoot' in r ? r.stateRoot : intToBytes((r as { status: 0 | 1 }).status),
        intToBytes(r.cumulativeBlockGasUsed),
        r.bitvector,
        r.logs,
      ];
      const blob = r as { blobGasUsed?: bigint; blobGasPrice?: bigint };
      if (blob.blobGasUsed !== undefined && blob.blobGasPrice !== undefined) item.push(intToBytes(blob.blobGasUsed), intToBytes(blob.blobGasPrice));
      return item as never;
    }),
  );
}

export function decodeReceipts(raw: Uint8Array): TxReceipt[] {
  const list = RLP.decode(raw) as unknown as Array<Array<Uint8Array | Log[]>>;
  if (!Array.isArray(list)) throw new Error('stored receipts: not a list');
  return list.map((item) => {
    if (!Array.isArray(item) || (item.length !== 4 && item.length !== 6)) throw new Error('stored receipts: malformed receipt');
    const [first, gas, bloom, logs] = item as [Uint8Array, Uint8Array, Uint8Array, Log[]];
    const base = { cumulativeBlockGasUsed: bytesToBigInt(gas), bitvector: bloom, logs };
    const receipt: TxReceipt = first.length === 32 ? { ...base, stateRoot: first } : { ...base, status: Number(bytesToBigInt(first)) as 0 | 1 };
    if (item.length === 6) Object.assign(receipt, { blobGasUsed: bytesToBigInt(item[4] as Uint8Array), blobGasPrice: bytesToBigInt(item[5] as Uint8Array) });
    return receipt;
  });
}
