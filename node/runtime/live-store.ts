/**
 * The live node's persistent store: LevelDB (classic-level) in a directory.
 *
 * - `write` applies a batch atomically (one LevelDB write batch) with `sync: true`, so once its
 *   promise resolves the batch is on disk: a kill -9 (or power loss, as far as fsync goes) after
 *   that loses nothing, and a batch is never half applied.
 * - Keys are strings stored as UTF-8 (lone surrogates are rejected: they would not round-trip);
 *   values are bytes, copied in and out. Within a batch, later entries for a key win.
 * - `keys(prefix)` scans the prefix range and returns the keys sorted by UTF-16 code units, the
 *   same order as the simulator's store (LevelDB's byte order differs only for non-BMP keys).
 * - LevelDB locks the directory: a second open of the same directory, in this process or another,
 *   fails until the first is closed.
 */
import { mkdir } from 'node:fs/promises';
import { ClassicLevel } from 'classic-level';
import type { Store, StoreKey } from './ports.ts';

const MAX_KEY_CHARS = 4096;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export interface LevelStoreOptions {
  /** LevelDB's block cache in bytes (classic-level default 8 MiB). */
  cacheSize?: number;
  /** LevelDB's write buffer in bytes (classic-level default 4 MiB). */
  writeBufferSize?: number;
}

export class LevelStoreClosedError extends Error {
  constructor() {
    super('LevelStore is closed');
    this.name = 'LevelStoreClosedError';
  }
}

function checkKey(key: unknown, what: string): asserts key is string {
  if (typeof key !== 'string') throw new TypeError(`${what}: key must be a string`);
  if (key.length > MAX_KEY_CHARS) throw new RangeError(`${what}: key longer than ${MAX_KEY_CHARS} characters`);
  if (LONE_SURROGATE.test(key)) throw new RangeError(`${what}: key has a lone surrogate (not valid UTF-8)`);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export class LevelStore implements Store {
  readonly dir: string;
  private readonly db: ClassicLevel<string, Uint8Array>;
  private closed = false;

  private constructor(dir: string, db: ClassicLevel<string, Uint8Array>) {
    this.dir = dir;
    this.db = db;
  }

  /** Opens (creating if needed) the store in `dir`. Fails if another handle holds the directory. */
  static async open(dir: string, opts: LevelStoreOptions = {}): Promise<LevelStore> {
    await mkdir(dir, { recursive: true });
    const db = new ClassicLevel<string, Uint8Array>(dir, {
      keyEncoding: 'utf8',
      valueEncoding: 'view',
      createIfMissing: true,
      ...(opts.cacheSize !== undefined ? { cacheSize: opts.cacheSize } : {}),
      ...(opts.writeBufferSize !== undefined ? { writeBufferSize: opts.writeBufferSize } : {}),
    });
    await db.open();
    return new LevelStore(dir, db);
  }

  isClosed(): boolean {
    return this.closed;
  }

  async get(key: StoreKey): Promise<Uint8Array | undefined> {
    this.checkOpen();
    checkKey(key, 'get');
    const v = await this.db.get(key);
    return v === undefined ? undefined : new Uint8Array(v);
  }

  async write(batch: Array<{ key: StoreKey; value: Uint8Array | undefined }>): Promise<void> {
    this.checkOpen();
    if (!Array.isArray(batch)) throw new TypeError('write: batch must be an array');
    const ops: Array<{ type: 'put'; key: string; value: Uint8Array } | { type: 'del'; key: string }> = [];
    for (const entry of batch) {
      const { key, value } = entry;
      checkKey(key, 'write');
      if (value === undefined) ops.push({ type: 'del', key });
      else if (value instanceof Uint8Array) ops.push({ type: 'put', key, value: value.slice() });
      else throw new TypeError(`write: value for ${key} must be a Uint8Array or undefined`);
    }
    if (ops.length === 0) return;
    await this.db.batch(ops, { sync: true });
  }

  async keys(prefix: string): Promise<StoreKey[]> {
    this.checkOpen();
    if (typeof prefix !== 'string') throw new TypeError('keys: prefix must be a string');
    const out: StoreKey[] = [];
    const range = prefix === '' ? {} : { gte: prefix };
    for await (const key of this.db.keys(range)) {
      if (!key.startsWith(prefix)) break;
      out.push(key);
    }
    return out.sort(cmp);
  }

  /** Closes the database (pending operations finish first). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.db.close();
  }

  private checkOpen(): void {
    if (this.closed) throw new LevelStoreClosedError();
  }
}
