/**
 * A strict reader of the Prometheus text format 0.0.4 (prometheus.io/docs/instrumenting/
 * exposition_formats, "Text format details"), for checking what /metrics serves: HELP and TYPE
 * lines, samples with optional labels and timestamp, one group of lines per metric, a TYPE line
 * before its samples, no repeated series, a final newline. Histogram and summary suffixes are not
 * understood (qbft-lab serves gauges and counters); such samples count as untyped families.
 */
import { ExpositionError } from './exposition.ts';

export interface ParsedSample {
  labels: Record<string, string>;
  value: number;
  timestampMs?: number;
}

export interface ParsedFamily {
  name: string;
  help?: string;
  type: string;
  samples: ParsedSample[];
}

const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*/;

function parseValue(text: string, line: number): number {
  if (text === 'NaN') return NaN;
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) throw new ExpositionError(`line ${line}: '${text}' is not a value`);
  return Number(text);
}

function unescape(text: string, escapes: Record<string, string>, line: number): string {
  return text.replace(/\\(.)/g, (_, c: string) => {
    const out = escapes[c];
    if (out === undefined) throw new ExpositionError(`line ${line}: unknown escape \\${c}`);
    return out;
  });
}

/** Reads `{a="x",b="y"}` from the start of `rest`; returns the labels and what follows. */
function parseLabels(rest: string, line: number): { labels: Record<string, string>; rest: string } {
  const labels: Record<string, string> = {};
  let s = rest.slice(1);
  for (;;) {
    s = s.trimStart();
    if (s.startsWith('}')) return { labels, rest: s.slice(1) };
    const name = LABEL.exec(s)?.[0];
    if (name === undefined) throw new ExpositionError(`line ${line}: bad label name`);
    s = s.slice(name.length).trimStart();
    if (!s.startsWith('="')) throw new ExpositionError(`line ${line}: label ${name} without ="`);
    s = s.slice(2);
    let end = 0;
    while (end < s.length && s[end] !== '"') end += s[end] === '\\' ? 2 : 1;
    if (end >= s.length) throw new ExpositionError(`line ${line}: unterminated value of label ${name}`);
    if (name in labels) throw new ExpositionError(`line ${line}: label ${name} repeated`);
    labels[name] = unescape(s.slice(0, end), { '\\': '\\', '"': '"', n: '\n' }, line);
    s = s.slice(end + 1).trimStart();
    if (s.startsWith(',')) s = s.slice(1);
    else if (!s.startsWith('}')) throw new ExpositionError(`line ${line}: expected , or } after label ${name}`);
  }
}

export function parseExposition(text: string): Map<string, ParsedFamily> {
  const families = new Map<string, ParsedFamily>();
  if (text === '') return families;
  if (!text.endsWith('\n')) throw new ExpositionError('the exposition does not end with a newline');
  const finished = new Set<string>();
  const series = new Set<string>();
  const typed = new Set<string>();
  let current: string | undefined;
  const family = (name: string, line: number): ParsedFamily => {
    if (current !== name) {
      if (finished.has(name)) throw new ExpositionError(`line ${line}: lines of ${name} are not one group`);
      if (current !== undefined) finished.add(current);
      current = name;
    }
    let f = families.get(name);
    if (!f) families.set(name, (f = { name, type: 'untyped', samples: [] }));
    return f;
  };
  const lines = text.slice(0, -1).split('\n');
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    if (raw.startsWith('#')) {
      const m = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(raw);
      if (!m) return; // a plain comment
      const [, keyword, name, rest = ''] = m;
      if (!NAME.test(name) || NAME.exec(name)![0] !== name) throw new ExpositionError(`line ${line}: bad metric name '${name}'`);
      const f = family(name, line);
      if (keyword === 'HELP') {
        if (f.help !== undefined) throw new ExpositionError(`line ${line}: second HELP for ${name}`);
        f.help = unescape(rest, { '\\': '\\', n: '\n' }, line);
      } else {
        const type = rest.trim();
        if (!TYPES.has(type)) throw new ExpositionError(`line ${line}: unknown type '${type}'`);
        if (f.samples.length > 0 || typed.has(name)) throw new ExpositionError(`line ${line}: TYPE of ${name} after its samples or repeated`);
        f.type = type;
        typed.add(name);
      }
      return;
    }
    const name = NAME.exec(raw)?.[0];
    if (name === undefined) throw new ExpositionError(`line ${line}: no metric name`);
    let rest = raw.slice(name.length);
    let labels: Record<string, string> = {};
    if (rest.startsWith('{')) ({ labels, rest } = parseLabels(rest, line));
    const fields = rest.trim().split(/[ \t]+/);
    if (rest !== '' && !/^[ \t]/.test(rest)) throw new ExpositionError(`line ${line}: no space before the value`);
    if (fields.length < 1 || fields.length > 2 || fields[0] === '') throw new ExpositionError(`line ${line}: expected a value and an optional timestamp`);
    const sample: ParsedSample = { labels, value: parseValue(fields[0], line) };
    if (fields.length === 2) {
      if (!/^-?\d+$/.test(fields[1])) throw new ExpositionError(`line ${line}: bad timestamp '${fields[1]}'`);
      sample.timestampMs = Number(fields[1]);
    }
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (series.has(key)) throw new ExpositionError(`line ${line}: series ${name}${JSON.stringify(labels)} repeated`);
    series.add(key);
    family(name, line).samples.push(sample);
  });
  return families;
}
