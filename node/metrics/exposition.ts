/**
 * The Prometheus text exposition format 0.0.4, as Besu's /metrics answers by default
 * (prometheus/client_java v1.5.0, the version Besu pins in platform/build.gradle:
 * prometheus-metrics-exposition-textformats/.../PrometheusTextFormatWriter.java, TextFormatUtil.java):
 * - per family `# HELP <name> <help>` (only when there is a help text; `\` and newline escaped),
 *   then `# TYPE <name> <gauge|counter>`, then one `<name>{label="value",...} <value>` per sample;
 *   a counter family is named with its `_total` suffix on all three lines;
 * - label values escape `\`, `"` and newline; families without samples are left out;
 * - values: NaN, +Inf, -Inf, otherwise the number. client_java prints Java doubles (`12.0`,
 *   `1.7E9`); JavaScript's shortest form (`12`, `1700000000`) is the same value to any parser.
 */

export const TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type MetricType = 'gauge' | 'counter';

export interface Sample {
  labels?: Readonly<Record<string, string>>;
  value: number;
}

export interface MetricFamily {
  name: string;
  help: string;
  type: MetricType;
  samples: readonly Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export class ExpositionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExpositionError';
  }
}

export function checkMetricName(name: string, type: MetricType): void {
  if (!METRIC_NAME.test(name)) throw new ExpositionError(`invalid metric name '${name}'`);
  if (type === 'counter' && !name.endsWith('_total')) throw new ExpositionError(`counter '${name}' must end in _total`);
}

export function checkLabelName(name: string): void {
  // Names starting with __ are reserved for Prometheus itself.
  if (!LABEL_NAME.test(name) || name.startsWith('__')) throw new ExpositionError(`invalid label name '${name}'`);
}

export function escapeLabelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\\' ? '\\\\' : c === '"' ? '\\"' : '\\n'));
}

export function escapeHelp(help: string): string {
  return help.replace(/[\\\n]/g, (c) => (c === '\\' ? '\\\\' : '\\n'));
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

function labelSet(labels: Readonly<Record<string, string>> | undefined): string {
  if (labels === undefined) return '';
  const names = Object.keys(labels);
  if (names.length === 0) return '';
  for (const name of names) checkLabelName(name);
  return `{${names.map((n) => `${n}="${escapeLabelValue(labels[n])}"`).join(',')}}`;
}

/** One family's lines (empty when it has no samples); throws on an invalid name or a repeated label set. */
export function renderFamily(family: MetricFamily): string {
  if (family.samples.length === 0) return '';
  checkMetricName(family.name, family.type);
  const lines: string[] = [];
  if (family.help !== '') lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`);
  lines.push(`# TYPE ${family.name} ${family.type}`);
  const seen = new Set<string>();
  for (const sample of family.samples) {
    if (typeof sample.value !== 'number') throw new ExpositionError(`${family.name}: value ${String(sample.value)} is not a number`);
    const labels = labelSet(sample.labels);
    if (seen.has(labels)) throw new ExpositionError(`${family.name}: label set ${labels || '{}'} appears twice`);
    seen.add(labels);
    lines.push(`${family.name}${labels} ${formatValue(sample.value)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The whole exposition; family names must be unique. */
export function renderExposition(families: readonly MetricFamily[]): string {
  const names = new Set<string>();
  let text = '';
  for (const family of families) {
    if (names.has(family.name)) throw new ExpositionError(`metric family '${family.name}' appears twice`);
    names.add(family.name);
    text += renderFamily(family);
  }
  return text;
}
