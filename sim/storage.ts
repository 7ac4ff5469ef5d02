/**
 * Virtual storage for simulated nodes.
 *
 * Crash semantics: a `write` batch is validated, then applied atomically and synchronously at the
 * moment `write` is called; the returned promise is already resolved. So every batch whose
 * `write` call has been made is durable, whether or not its promise was awaited, and a batch is
 * never half applied. Volatile state lives only in the node object, which the cluster throws away
 * on a crash; `crash()` therefore changes no data (it only counts crashes) and the next
 * incarnation that opens the same name in a SimStoreDirectory finds every written batch.
 *
 * Values are copied in and out: callers can never alter stored bytes by mutating a buffer.
 */
import type { ChainHistory } from '../node/chain/chain.ts';
import type { Store, StoreKey } from '../node/runtime/ports.ts';

const DEFAULT_MAX_BYTES = 4 * 1024 * 1024 * 1024; // 4 GiB of keys + values per store
const MAX_KEY_CHARS = 4096;

export interface SimStoreOptions {
  /** Bound on sizeBytes(); a batch that would exceed it is rejected whole. Default 4 GiB. */
  maxBytes?: number;
}

export class SimStoreFullError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SimStoreFullError';
  }
}

function entrySize(key: string, value: Uint8Array): number {
  return key.length + value.length;
}

export class SimStore implements Store {
  /** Crashes observed by this store (informational). */
  crashes = 0;
  /** Blocks kept below the stored ones, shared and read-only (ChainHistory); gone with a wipe. */
  history: ChainHistory | undefined;
  private readonly data = new Map<StoreKey, Uint8Array>();
  /** Sorted keys, rebuilt lazily after inserts/deletes (value updates keep it valid). */
  private sorted: StoreKey[] | null = [];
  private bytes = 0;
  private readonly maxBytes: number;

  constructor(opts: SimStoreOptions = {}) {
    this.maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
    if (!(this.maxBytes >= 0)) throw new RangeError(`maxBytes must be >= 0, got ${opts.maxBytes}`);
  }

  async get(key: StoreKey): Promise<Uint8Array | undefined> {
    const v = this.data.get(key);
    return v === undefined ? undefined : v.slice();
  }

  /** Synchronous read for tests and invariant checkers (returns a copy). */
  getSync(key: StoreKey): Uint8Array | undefined {
    const v = this.data.get(key);
    return v === undefined ? undefined : v.slice();
  }

  async write(batch: Array<{ key: StoreKey; value: Uint8Array | undefined }>): Promise<void> {
    this.writeSync(batch);
  }

  /** Applies a batch atomically (all or nothing) right now; throws (nothing applied) on a bad entry or when full. */
  writeSync(batch: ReadonlyArray<{ key: StoreKey; value: Uint8Array | undefined }>): void {
    if (!Array.isArray(batch)) throw new TypeError('write: batch must be an array');
    // Validate and compute the resulting size first; apply only if everything is fine.
    // Later entries for the same key win, as in LevelDB batches.
    const final = new Map<StoreKey, Uint8Array | undefined>();
    for (const entry of batch) {
      const { key, value } = entry;
      if (typeof key !== 'string') throw new TypeError('write: key must be a string');
      if (key.length > MAX_KEY_CHARS) throw new RangeError(`write: key longer than ${MAX_KEY_CHARS} characters`);
      if (value !== undefined && !(value instanceof Uint8Array)) throw new TypeError(`write: value for ${key} must be a Uint8Array or undefined`);
      final.set(key, value);
    }
    let size = this.bytes;
    for (const [key, value] of final) {
      const old = this.data.get(key);
      if (old !== undefined) size -= entrySize(key, old);
      if (value !== undefined) size += entrySize(key, value);
    }
    if (size > this.maxBytes) throw new SimStoreFullError(`store full: batch would grow it to ${size} bytes (max ${this.maxBytes})`);
    for (const [key, value] of final) {
      if (value === undefined) {
        if (this.data.delete(key)) this.sorted = null;
      } else {
        if (this.sorted !== null && !this.data.has(key)) this.sorted = null;
        this.data.set(key, value.slice());
      }
    }
    this.bytes = size;
  }

  async keys(prefix: string): Promise<StoreKey[]> {
    return this.keysSync(prefix);
  }

  /** Keys starting with `prefix`, sorted by UTF-16 code units (byte order for ASCII keys). */
  keysSync(prefix: string): StoreKey[] {
    const sorted = this.sortedKeys();
    // lower bound of prefix
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    const out: StoreKey[] = [];
    for (let i = lo; i < sorted.length && sorted[i]!.startsWith(prefix); i++) out.push(sorted[i]!);
    return out;
  }

  /** Number of keys. */
  size(): number {
    return this.data.size;
  }

  /** Sum over entries of key length (characters) + value length (bytes). */
  sizeBytes(): number {
    return this.bytes;
  }

  /** Erases everything (a node restarted with an empty data directory). */
  wipe(): void {
    this.history = undefined;
    this.data.clear();
    this.sorted = [];
    this.bytes = 0;
  }

  /**
   * Marks a crash. Writes are durable once `write` is called (see the file comment), so no data
   * is lost or rolled back; only the counter changes.
   */
  crash(): void {
    this.crashes++;
  }

  private sortedKeys(): StoreKey[] {
    if (this.sorted === null) {
      const keys = [...this.data.keys()];
      keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      this.sorted = keys;
    }
    return this.sorted;
  }
}

/** Per-node stores that outlive node incarnations: a restarted node opens its name again. */
export class SimStoreDirectory {
  private readonly stores = new Map<string, SimStore>();
  private readonly opts: SimStoreOptions;

  constructor(opts: SimStoreOptions = {}) {
    this.opts = opts;
  }

  /** The store for `nodeName`, created empty on first open; the same object on every later open. */
  open(nodeName: string): SimStore {
    let s = this.stores.get(nodeName);
    if (s === undefined) {
      s = new SimStore(this.opts);
      this.stores.set(nodeName, s);
    }
    return s;
  }

  has(nodeName: string): boolean {
    return this.stores.has(nodeName);
  }

  /** Erases a node's data; the next open (or a holder of the old object) sees an empty store. */
  wipe(nodeName: string): void {
    this.stores.get(nodeName)?.wipe();
  }

  /** Calls crash() on the node's store, if it exists. */
  crash(nodeName: string): void {
    this.stores.get(nodeName)?.crash();
  }

  /** Node names, sorted. */
  names(): string[] {
    return [...this.stores.keys()].sort();
  }
}
