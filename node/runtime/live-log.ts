/**
 * The live node's log: one line per entry on stderr (or a given sink), with an ISO timestamp, the
 * level, an optional node name, the message and its fields as `key=value`. Trace events (what the
 * simulator records in its trace) are written at debug level, so they show only with
 * `level: 'debug'`.
 */
import type { Log, LogLevel } from './ports.ts';
import type { NodeTraceEvent } from './trace-events.ts';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const LABEL: Record<LogLevel, string> = { debug: 'DEBUG', info: 'INFO ', warn: 'WARN ', error: 'ERROR' };

export interface LiveLogOptions {
  /** Entries below this level are dropped. Default 'info'. */
  level?: LogLevel;
  /** Shown on every line, e.g. the node's name in a multi-node process. */
  name?: string;
  /** Where lines go (each ends with '\n'). Default: process.stderr. */
  write?: (line: string) => void;
  /** Default: the wall clock. */
  nowMs?: () => number;
}

export function isLogLevel(s: string): s is LogLevel {
  return s === 'debug' || s === 'info' || s === 'warn' || s === 'error';
}

function formatValue(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]*$/.test(v) && v.length > 0 ? v : JSON.stringify(v);
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return '0x' + Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex');
  if (v instanceof Error) return JSON.stringify(v.stack ?? v.message);
  if (v === undefined) return 'undefined';
  try {
    return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x instanceof Uint8Array ? '0x' + Buffer.from(x).toString('hex') : x)) ?? String(v);
  } catch {
    return String(v);
  }
}

export function formatFields(fields: Record<string, unknown> | undefined): string {
  if (fields === undefined) return '';
  let out = '';
  for (const [k, v] of Object.entries(fields)) out += ` ${k}=${formatValue(v)}`;
  return out;
}

export class LiveLog implements Log {
  private readonly minRank: number;
  private readonly name: string | undefined;
  private readonly write: (line: string) => void;
  private readonly nowMs: () => number;

  constructor(opts: LiveLogOptions = {}) {
    this.minRank = RANK[opts.level ?? 'info'];
    this.name = opts.name;
    this.write = opts.write ?? ((line) => void process.stderr.write(line));
    this.nowMs = opts.nowMs ?? (() => Date.now());
  }

  enabled(level: LogLevel): boolean {
    return RANK[level] >= this.minRank;
  }

  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void {
    if (!this.enabled(level)) return;
    const ts = new Date(this.nowMs()).toISOString();
    const who = this.name === undefined ? '' : ` [${this.name}]`;
    this.write(`${ts} ${LABEL[level]}${who} ${message}${formatFields(fields)}\n`);
  }

  trace(event: NodeTraceEvent): void {
    if (!this.enabled('debug')) return;
    const { kind, ...rest } = event;
    this.log('debug', `trace ${kind}`, rest);
  }
}
