/**
 * Gauges and counters whose values are read when scraped (Besu's "supplied" gauges and counters:
 * MetricsSystem.createLongGauge / createIntegerGauge / createLabelledSuppliedGauge). A metric of
 * a disabled category is not registered at all, as Besu hands out a no-op metric for it.
 */
import { metricName, type MetricCategory } from './categories.ts';
import { checkMetricName, renderFamily, type MetricFamily, type MetricType, type Sample } from './exposition.ts';

/** A reading: one unlabelled value, labelled samples, or nothing (the family is then left out). */
export type Reading = number | readonly Sample[] | undefined;

/** More samples than this in one family is a bug in its reader, not something to serve. */
export const MAX_SAMPLES_PER_FAMILY = 1000;

interface Registered {
  name: string;
  help: string;
  type: MetricType;
  read: () => Reading;
}

export class MetricsRegistry {
  private readonly metrics = new Map<string, Registered>();

  /** `enabledCategories`: category names to register (lower case); undefined = all. */
  constructor(private readonly enabledCategories?: ReadonlySet<string>) {}

  gauge(category: MetricCategory, name: string, help: string, read: () => Reading): void {
    this.register(category, name, help, 'gauge', read);
  }

  /** `name` ends in `_total`, as Besu's counter names do. */
  counter(category: MetricCategory, name: string, help: string, read: () => Reading): void {
    this.register(category, name, help, 'counter', read);
  }

  names(): string[] {
    return [...this.metrics.keys()];
  }

  /**
   * Reads every metric (or those `include` keeps). A reader that throws, or returns too many or
   * malformed samples, costs only its own family, reported through `onError`.
   */
  collect(include: (name: string) => boolean = () => true, onError: (error: unknown) => void = () => {}): MetricFamily[] {
    return this.read(include, onError).map((r) => r.family);
  }

  /** The exposition text of what `collect` returns. */
  scrape(include: (name: string) => boolean = () => true, onError: (error: unknown) => void = () => {}): string {
    return this.read(include, onError)
      .map((r) => r.text)
      .join('');
  }

  private read(include: (name: string) => boolean, onError: (error: unknown) => void): { family: MetricFamily; text: string }[] {
    const out: { family: MetricFamily; text: string }[] = [];
    for (const m of this.metrics.values()) {
      if (!include(m.name)) continue;
      try {
        const reading = m.read();
        if (reading === undefined) continue;
        const samples = typeof reading === 'number' ? [{ value: reading }] : reading;
        if (samples.length > MAX_SAMPLES_PER_FAMILY) throw new RangeError(`${m.name}: ${samples.length} samples, more than ${MAX_SAMPLES_PER_FAMILY}`);
        const family = { name: m.name, help: m.help, type: m.type, samples };
        out.push({ family, text: renderFamily(family) });
      } catch (err) {
        onError(err);
      }
    }
    return out;
  }

  private register(category: MetricCategory, name: string, help: string, type: MetricType, read: () => Reading): void {
    if (this.enabledCategories && !this.enabledCategories.has(category.name)) return;
    const full = metricName(category, name);
    checkMetricName(full, type);
    if (this.metrics.has(full)) throw new Error(`metric ${full} is already registered`);
    this.metrics.set(full, { name: full, help, type, read });
  }
}
