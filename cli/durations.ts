/** Parses the CLI's durations and schedules: "90s", "10m", "1h", "500ms"; a bare number is seconds. */
import { UsageError } from '../node/cli/usage-error.ts';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDurationMs(text: string, what = 'duration'): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new UsageError(`${what}: '${text}' is not a duration (examples: 500ms, 90s, 10m, 1h)`);
  const ms = Math.round(Number(m[1]) * UNITS[m[2] ?? 's']);
  if (!Number.isSafeInteger(ms)) throw new UsageError(`${what}: '${text}' is too large`);
  return ms;
}

/** "20ms" -> fixed; "10-50ms" -> uniform. */
export function parseLatency(text: string): { kind: 'fixed'; ms: number } | { kind: 'uniform'; minMs: number; maxMs: number } {
  const range = /^(\d+)-(\d+)(ms|s)?$/.exec(text.trim());
  if (range) {
    const unit = range[3] ?? 'ms';
    const minMs = parseDurationMs(range[1] + unit, '--latency');
    const maxMs = parseDurationMs(range[2] + unit, '--latency');
    if (minMs > maxMs) throw new UsageError(`--latency: '${text}' has its minimum above its maximum`);
    return { kind: 'uniform', minMs, maxMs };
  }
  const single = /^\d+(ms|s)?$/.test(text.trim()) ? text.trim() + (/(ms|s)$/.test(text.trim()) ? '' : 'ms') : undefined;
  if (!single) throw new UsageError(`--latency: '${text}' is not a latency (examples: 20ms, 10-50ms)`);
  return { kind: 'fixed', ms: parseDurationMs(single, '--latency') };
}

/** "T1..T2" or "T" (open-ended). */
export function parseWindow(text: string, what: string): { fromMs: number; toMs?: number } {
  const [from, to, extra] = text.split('..');
  if (extra !== undefined || from === '') throw new UsageError(`${what}: '${text}' is not a time or a time range (T or T1..T2)`);
  const fromMs = parseDurationMs(from, what);
  if (to === undefined) return { fromMs };
  const toMs = parseDurationMs(to, what);
  if (toMs <= fromMs) throw new UsageError(`${what}: '${text}' ends before it starts`);
  return { fromMs, toMs };
}
