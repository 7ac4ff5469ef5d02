/**
 * A worker thread's view of the node's trie node store: nodes are fetched from the node's thread on
 * first use and kept in a cache bounded in bytes.
 *
 * The store is content-addressed (a node's key is its hash, code's key its code hash), so a cached
 * value can never go stale: the cache needs no invalidation when the chain moves on, only eviction
 * (least recently used first). Writes a simulation makes (it normally makes none: its changes are
 * journalled and reverted) stay in an overlay that the end of the work drops, so nothing a worker
 * does reaches the node's state.
 */
import type { BatchDBOp, DB, EncodingOpts } from '@ethereumjs/util';
import { hexToBytes } from '../../crypto/bytes.ts';

/** Asks the node's thread for the value stored under `key` (undefined: not there). */
export type NodeFetch = (key: string) => Promise<Uint8Array | undefined>;

export const DEFAULT_NODE_CACHE_BYTES = 64 * 1024 * 1024;

export class RemoteNodeStore implements DB<string, string | Uint8Array> {
  private readonly cache = new Map<string, Uint8Array>();
  private cachedBytes = 0;
  /** Writes of the current work: a value, or null for a deletion. */
  private readonly overlay = new Map<string, Uint8Array | null>();
  private work = 0;
  readonly stats = { fetched: 0, hits: 0 };

  constructor(
    private readonly fetchNode: NodeFetch,
    private readonly maxCachedBytes: number = DEFAULT_NODE_CACHE_BYTES,
  ) {
    if (!(maxCachedBytes > 0)) throw new RangeError('maxCachedBytes must be positive');
  }

  async get(key: string, _opts?: EncodingOpts): Promise<Uint8Array | undefined> {
    const written = this.overlay.get(key);
    if (written !== undefined) return written ?? undefined;
    const cached = this.cache.get(key);
    if (cached !== undefined) {
      this.stats.hits++;
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached;
    }
    const value = await this.fetchNode(key);
    this.stats.fetched++;
    if (value !== undefined) this.remember(key, value);
    return value;
  }

  async put(key: string, val: string | Uint8Array, _opts?: EncodingOpts): Promise<void> {
    this.overlay.set(key, typeof val === 'string' ? hexToBytes(val) : val);
  }

  async del(key: string, _opts?: EncodingOpts): Promise<void> {
    this.overlay.set(key, null);
  }

  async batch(ops: BatchDBOp<string, string | Uint8Array>[]): Promise<void> {
    for (const op of ops) {
      if (op.type === 'put') await this.put(op.key, op.value);
      else await this.del(op.key);
    }
  }

  shallowCopy(): DB<string, string | Uint8Array> {
    return this;
  }

  open(): Promise<void> {
    return Promise.resolve();
  }

  /** The node's thread checked the root before it sent the work; a node missing later fails the read. */
  hasRoot(_root: Uint8Array): boolean {
    return true;
  }

  beginWork(): void {
    this.work++;
  }

  /** The end of the last open work drops its writes. */
  endWork(): void {
    if (this.work > 0) this.work--;
    if (this.work === 0) this.overlay.clear();
  }

  get cacheBytes(): number {
    return this.cachedBytes;
  }

  private remember(key: string, value: Uint8Array): void {
    this.cache.set(key, value);
    this.cachedBytes += value.length;
    for (const [oldKey, oldValue] of this.cache) {
      if (this.cachedBytes <= this.maxCachedBytes) break;
      this.cache.delete(oldKey);
      this.cachedBytes -= oldValue.length;
    }
  }
}
