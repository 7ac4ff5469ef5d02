/**
 * The trace: an append-only list of events, written as JSON Lines and hashed.
 *
 * Line format: `{"t":<ms>,"node":"v0"|null,"kind":"...",...fields}`. Fields follow `kind` in the
 * order the event object lists them (insertion order; never sorted), so the producer fixes the
 * canonical form. Values: bigint -> decimal string ("12"), Uint8Array -> "0x..." hex, undefined
 * fields are left out, non-finite numbers -> null, Map -> array of [key, value], Set -> array;
 * nested objects and arrays follow the same rules. An event may not carry fields named `t` or
 * `node` (they would clash with the line's own).
 *
 * hash() is keccak-256 over every recorded line followed by '\n' — exactly the bytes of the JSONL
 * file when no line was left out — computed incrementally (batched updates of one streaming
 * hasher). The hasher is the native `keccak` binding when it loads (~270 MB/s here; it is checked
 * against noble at load) and @noble/hashes' keccak_256.create() otherwise (~20 MB/s, which would
 * cost ~7 µs per trace line); both give the same hash.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { Log, LogLevel } from '../node/runtime/ports.ts';
import type { NodeTraceEvent, LogTraceEvent } from '../node/runtime/trace-events.ts';
import type { TraceEvent, TraceLine } from './trace-events.ts';
import { bytesToHex, type Hex } from '../node/crypto/bytes.ts';
import type { SimKernel } from './kernel.ts';

const DEFAULT_MAX_EVENTS = 2_000_000;
const FLUSH_CHARS = 1 << 16;
const MAX_READ_BYTES = 512 * 1024 * 1024;

export type { TraceEvent, TraceLine } from './trace-events.ts';

export type TraceHasherKind = 'native' | 'noble';

interface StreamHasher {
  readonly kind: TraceHasherKind;
  update(text: string): void;
  /** Digest of everything so far; updates may continue. */
  peek(): Uint8Array;
}

interface NativeKeccak {
  update(data: string, encoding: 'utf8'): NativeKeccak;
  digest(): Buffer;
  _clone(): NativeKeccak;
}

type NativeFactory = (alg: 'keccak256') => NativeKeccak;

let nativeFactory: NativeFactory | null | undefined;

function loadNative(): NativeFactory | null {
  if (nativeFactory !== undefined) return nativeFactory;
  nativeFactory = null;
  try {
    const create = createRequire(import.meta.url)('keccak/bindings') as NativeFactory;
    const probe = 'qbft-lab trace hasher probe\n\u00e9';
    const a = create('keccak256').update(probe.slice(0, 9), 'utf8');
    const b = a._clone().update(probe.slice(9), 'utf8').digest();
    const want = keccak_256(new TextEncoder().encode(probe));
    if (bytesToHex(new Uint8Array(b.buffer, b.byteOffset, b.length)) === bytesToHex(want)) nativeFactory = create;
  } catch {
    nativeFactory = null;
  }
  return nativeFactory;
}

function createHasher(prefer: 'auto' | 'noble'): StreamHasher {
  const native = prefer === 'auto' ? loadNative() : null;
  if (native !== null) {
    const h = native('keccak256');
    return {
      kind: 'native',
      update: (text) => void h.update(text, 'utf8'),
      peek: () => {
        const d = h._clone().digest();
        return new Uint8Array(d.buffer, d.byteOffset, d.length);
      },
    };
  }
  const h = keccak_256.create();
  const enc = new TextEncoder();
  return {
    kind: 'noble',
    update: (text) => void h.update(enc.encode(text)),
    peek: () => h.clone().digest(),
  };
}

function replacer(this: unknown, key: string, value: unknown): unknown {
  // `value` is after toJSON (Buffer would already be {type,data}); look at the original.
  const orig = (this as Record<string, unknown>)[key];
  if (orig instanceof Uint8Array) return bytesToHex(orig);
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Map) return [...value.entries()];
  if (value instanceof Set) return [...value.values()];
  return value;
}

function encodeValue(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return `"${v.toString()}"`;
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    default:
      if (v === null) return 'null';
      if (v instanceof Uint8Array) return `"${bytesToHex(v)}"`;
      return JSON.stringify(v, replacer);
  }
}

const keyPrefixCache = new Map<string, string>();

/** `,"key":` for a field name, cached (field names come from code, so the cache stays small). */
function keyPrefix(key: string): string {
  let p = keyPrefixCache.get(key);
  if (p === undefined) {
    p = `,${JSON.stringify(key)}:`;
    if (keyPrefixCache.size < 10_000) keyPrefixCache.set(key, p);
  }
  return p;
}

/** The canonical JSON line for one event (no trailing newline). */
export function encodeTraceLine<E extends { readonly kind: string }>(timeMs: number, node: string | null, event: E): string {
  if (typeof event !== 'object' || event === null || typeof event.kind !== 'string') {
    throw new TypeError('trace: event must be an object with a string kind');
  }
  let line = `{"t":${encodeValue(timeMs) ?? 'null'},"node":${node === null ? 'null' : JSON.stringify(node)},"kind":${JSON.stringify(event.kind)}`;
  const keys = Object.keys(event);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key === 'kind') continue;
    if (key === 't' || key === 'node') throw new Error(`trace: event ${event.kind} has a field named "${key}", which the line format reserves`);
    const enc = encodeValue((event as unknown as Record<string, unknown>)[key]);
    if (enc !== undefined) line += keyPrefix(key) + enc;
  }
  return line + '}';
}

export class TraceRecorder {
  private readonly keepEvents: boolean;
  private readonly maxEvents: number;
  private readonly kept: string[] = [];
  private total = 0;
  private readonly hasher: StreamHasher;
  private pending = '';
  private listeners: Array<(line: TraceLine) => void> = [];
  private textListeners: Array<(text: string, node: string | null, event: TraceEvent) => void> = [];

  constructor(opts: { keepEvents?: boolean; maxEvents?: number; hasher?: 'auto' | 'noble' } = {}) {
    this.hasher = createHasher(opts.hasher ?? 'auto');
    this.keepEvents = opts.keepEvents ?? true;
    this.maxEvents = opts.maxEvents ?? DEFAULT_MAX_EVENTS;
    if (!(this.maxEvents >= 0)) throw new RangeError(`maxEvents must be >= 0, got ${opts.maxEvents}`);
  }

  record(timeMs: number, node: string | null, event: TraceEvent): void {
    const line = encodeTraceLine(timeMs, node, event);
    this.total++;
    this.pending += line + '\n';
    if (this.pending.length >= FLUSH_CHARS) this.flush();
    if (this.keepEvents && this.kept.length < this.maxEvents) this.kept.push(line);
    if (this.listeners.length > 0) {
      const obj = { t: timeMs, node, ...event } as TraceLine;
      for (const l of this.listeners) l(obj);
    }
    for (const l of this.textListeners) l(line, node, event);
  }

  /** Calls `listener` with every line recorded from now on, as its JSON text (and the event as given). Returns an unsubscribe function. */
  subscribeText(listener: (text: string, node: string | null, event: TraceEvent) => void): () => void {
    this.textListeners = [...this.textListeners, listener];
    return () => {
      this.textListeners = this.textListeners.filter((l) => l !== listener);
    };
  }

  /**
   * Calls `listener` with every event recorded from now on (the event object as given, with t and
   * node; not the re-parsed JSON). Returns an unsubscribe function.
   */
  subscribe(listener: (line: TraceLine) => void): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  /** keccak-256 over all recorded lines so far (each followed by '\n'). Recording may continue. */
  hash(): Hex {
    this.flush();
    return bytesToHex(this.hasher.peek());
  }

  /** Which keccak implementation hashes this trace. */
  hasherKind(): TraceHasherKind {
    return this.hasher.kind;
  }

  /** Events recorded (kept or not). */
  count(): number {
    return this.total;
  }

  /** true when some recorded lines were not kept (maxEvents reached or keepEvents false). */
  truncated(): boolean {
    return this.kept.length < this.total;
  }

  /** Kept lines, JSON Lines without newlines (a copy). */
  lines(): string[] {
    return this.kept.slice();
  }

  /** Writes the kept lines, each followed by '\n'. */
  writeJsonl(path: string): void {
    writeFileSync(path, this.kept.length === 0 ? '' : this.kept.join('\n') + '\n');
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    this.hasher.update(this.pending);
    this.pending = '';
  }
}

/** Reads a JSONL trace back (at most 512 MiB). Throws with the line number on a malformed line. */
export function readTraceJsonl(path: string): TraceLine[] {
  const size = statSync(path).size;
  if (size > MAX_READ_BYTES) throw new RangeError(`readTraceJsonl: ${path} is ${size} bytes (max ${MAX_READ_BYTES})`);
  return parseTraceJsonl(readFileSync(path, 'utf8'));
}

export function parseTraceJsonl(text: string): TraceLine[] {
  const out: TraceLine[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (raw.trim() === '') continue;
    let obj: unknown;
    try {
      obj = JSON.parse(raw);
    } catch (e) {
      throw new SyntaxError(`trace line ${i + 1}: ${(e as Error).message}`);
    }
    const o = obj as Record<string, unknown>;
    if (typeof o !== 'object' || o === null || Array.isArray(o) || typeof o.t !== 'number' || !(o.node === null || typeof o.node === 'string') || typeof o.kind !== 'string') {
      throw new SyntaxError(`trace line ${i + 1}: expected {"t":number,"node":string|null,"kind":string,...}`);
    }
    out.push(o as TraceLine);
  }
  return out;
}

const LEVELS: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export interface SimLogOptions {
  /** Also print log() calls of every level to stderr (prefixed with virtual time and node). */
  echo?: boolean;
  /** Lowest level that log() records into the trace as {kind:'log',level,message,fields}; 'none' records nothing. Default 'warn'. */
  recordLevel?: LogLevel | 'none';
}

/** The Log port of one simulated node: trace() records at the kernel's virtual time. */
export function simLog(trace: TraceRecorder, kernel: SimKernel, node: string, opts: SimLogOptions = {}): Log {
  const min = opts.recordLevel === 'none' ? Number.POSITIVE_INFINITY : LEVELS[opts.recordLevel ?? 'warn'];
  const echo = opts.echo ?? false;
  return {
    trace(event: NodeTraceEvent): void {
      trace.record(kernel.nowMs(), node, event);
    },
    log(level: LogLevel, message: string, fields?: Record<string, unknown>): void {
      const n = LEVELS[level] ?? LEVELS.error;
      if (echo) {
        const extra = fields === undefined ? '' : ' ' + (encodeValue(fields) ?? '');
        process.stderr.write(`[${kernel.nowMs()}] ${node} ${level}: ${message}${extra}\n`);
      }
      if (n < min) return;
      const ev: LogTraceEvent = { kind: 'log', level, message };
      if (fields !== undefined) ev.fields = fields;
      trace.record(kernel.nowMs(), node, ev);
    },
  };
}
