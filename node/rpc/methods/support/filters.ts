/**
 * Installed filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter), after
 * Besu's FilterManager (besu: ethereum/api/.../jsonrpc/internal/filter/*.java, snapshot 3fd224e2):
 *
 * - Ids are 16 random bytes written as a quantity (FilterIdGenerator + Quantity.create(byte[]));
 *   ours come from the node's Random port, so a simulated run replays them.
 * - A filter expires 10 minutes after it was installed or last polled (Filter.DEFAULT_EXPIRE_DURATION;
 *   getFilterChanges / getFilterLogs reset the timer). Besu sweeps every 10 s; we sweep on every
 *   filter operation, reading time from the node's Clock port only, so a filter is gone exactly
 *   once its expiry has passed.
 * - Block filters collect the hash of every block that becomes canonical; pending-transaction
 *   filters every hash the pool accepts; log filters every matching log of blocks that become
 *   canonical whose number is <= the filter's numeric toBlock (a tag toBlock never excludes),
 *   plus, on a reorganization, the logs of the removed blocks with removed = true, first and
 *   newest first (blocks from the old head down, each block's logs last to first), as Besu's
 *   BlockAddedEvent lists them.
 * - Bounded (our addition): at most `maxFilters` filters (the oldest is uninstalled first) and at
 *   most `maxEntries` undelivered entries per filter (the oldest are dropped first).
 */
import type { ChainEntry } from '../../../chain/chain.ts';
import type { Hex } from '../../../crypto/bytes.ts';
import type { BlockParam, TopicFilter } from '../../params.ts';
import type { LogWithMeta } from '../../formatters/receipt.ts';

export interface LogQuery {
  addresses: Hex[];
  topics: TopicFilter;
}

export interface LogFilterSpec extends LogQuery {
  fromBlock: BlockParam;
  toBlock: BlockParam;
}

type FilterState =
  | { kind: 'block'; id: string; expiresAt: number; hashes: Hex[] }
  | { kind: 'pending'; id: string; expiresAt: number; hashes: Hex[] }
  | { kind: 'log'; id: string; expiresAt: number; spec: LogFilterSpec; events: Array<{ entry: ChainEntry; removed: boolean }> };

export interface FilterDeps {
  nowMs(): number;
  /** Uniform integer in [0, 256). */
  randomByte(): number;
  /** Matching logs of a block (removed = logs of a block a reorganization dropped). */
  logsOf(entry: ChainEntry, query: LogQuery, removed: boolean): Promise<LogWithMeta[]>;
}

export const FILTER_EXPIRY_MS = 10 * 60 * 1000;

export class FilterManager {
  private readonly filters = new Map<string, FilterState>();

  constructor(
    private readonly deps: FilterDeps,
    private readonly limits: { maxFilters: number; maxEntries: number; expiryMs: number } = {
      maxFilters: 10_000,
      maxEntries: 10_000,
      expiryMs: FILTER_EXPIRY_MS,
    },
  ) {}

  get size(): number {
    this.sweep();
    return this.filters.size;
  }

  private sweep(): void {
    const now = this.deps.nowMs();
    for (const [id, f] of this.filters) if (now > f.expiresAt) this.filters.delete(id);
  }

  private newId(): string {
    for (;;) {
      let v = 0n;
      for (let i = 0; i < 16; i++) v = (v << 8n) | BigInt(this.deps.randomByte() & 0xff);
      const id = `0x${v.toString(16)}`;
      if (!this.filters.has(id)) return id;
    }
  }

  private install(make: (id: string, expiresAt: number) => FilterState): string {
    this.sweep();
    while (this.filters.size >= this.limits.maxFilters) this.filters.delete(this.filters.keys().next().value as string);
    const id = this.newId();
    this.filters.set(id, make(id, this.deps.nowMs() + this.limits.expiryMs));
    return id;
  }

  installBlockFilter(): string {
    return this.install((id, expiresAt) => ({ kind: 'block', id, expiresAt, hashes: [] }));
  }

  installPendingTransactionFilter(): string {
    return this.install((id, expiresAt) => ({ kind: 'pending', id, expiresAt, hashes: [] }));
  }

  installLogFilter(spec: LogFilterSpec): string {
    return this.install((id, expiresAt) => ({ kind: 'log', id, expiresAt, spec, events: [] }));
  }

  uninstall(id: string): boolean {
    this.sweep();
    return this.filters.delete(id);
  }

  kindOf(id: string): 'block' | 'pending' | 'log' | undefined {
    this.sweep();
    return this.filters.get(id)?.kind;
  }

  /** Changes since the last poll, or undefined if there is no such filter (resets its expiry). */
  async changes(id: string): Promise<{ kind: 'block' | 'pending'; hashes: Hex[] } | { kind: 'log'; logs: LogWithMeta[] } | undefined> {
    this.sweep();
    const f = this.filters.get(id);
    if (!f) return undefined;
    f.expiresAt = this.deps.nowMs() + this.limits.expiryMs;
    if (f.kind !== 'log') {
      const hashes = f.hashes;
      f.hashes = [];
      return { kind: f.kind, hashes };
    }
    const events = f.events;
    f.events = [];
    const logs: LogWithMeta[] = [];
    for (const e of events) {
      const found = await this.deps.logsOf(e.entry, f.spec, e.removed);
      logs.push(...(e.removed ? found.reverse() : found));
    }
    return { kind: 'log', logs };
  }

  /** The log filter's spec (eth_getFilterLogs), resetting its expiry; undefined if not a log filter. */
  logFilter(id: string): LogFilterSpec | undefined {
    this.sweep();
    const f = this.filters.get(id);
    if (!f || f.kind !== 'log') return undefined;
    f.expiresAt = this.deps.nowMs() + this.limits.expiryMs;
    return f.spec;
  }

  private push<T>(list: T[], item: T): void {
    list.push(item);
    if (list.length > this.limits.maxEntries) list.splice(0, list.length - this.limits.maxEntries);
  }

  /** A new canonical head: `removed` left the canonical chain (highest first), `added` joined it (lowest first). */
  onNewHead(removed: ChainEntry[], added: ChainEntry[]): void {
    this.sweep();
    for (const f of this.filters.values()) {
      if (f.kind === 'block') for (const e of added) this.push(f.hashes, e.hash);
      else if (f.kind === 'log') {
        for (const e of removed) if (this.toBlockAllows(f.spec, e.number)) this.push(f.events, { entry: e, removed: true });
        for (const e of added) if (this.toBlockAllows(f.spec, e.number)) this.push(f.events, { entry: e, removed: false });
      }
    }
  }

  onPendingTransaction(hash: Hex): void {
    let any = false;
    for (const f of this.filters.values())
      if (f.kind === 'pending') {
        any = true;
        this.push(f.hashes, hash);
      }
    if (any) this.sweep();
  }

  private toBlockAllows(spec: LogFilterSpec, number: number): boolean {
    // BlockParameter.getNumber(): numbers, and 0 for "earliest"; other tags never exclude
    if (spec.toBlock.kind === 'tag') return spec.toBlock.tag !== 'earliest' || number === 0;
    return spec.toBlock.number >= BigInt(number);
  }
}
