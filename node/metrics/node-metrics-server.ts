/** `--metrics-enabled`: a node's metrics registry and the HTTP endpoint serving it. */
import type { NodeView } from '../view/node-view.ts';
import { startMetricsHttp, type MetricsHttpServer } from './metrics-http.ts';
import { registerNodeMetrics } from './node-metrics.ts';
import { MetricsRegistry } from './registry.ts';

export interface NodeMetricsSettings {
  host: string;
  port: number;
  /** Enabled category names, lower case (parseMetricCategories). */
  categories: ReadonlySet<string>;
}

export async function startNodeMetricsServer(
  node: NodeView,
  settings: NodeMetricsSettings,
  hostAllowlist: readonly string[],
  onError: (error: unknown) => void,
): Promise<MetricsHttpServer> {
  const registry = new MetricsRegistry(settings.categories);
  registerNodeMetrics(registry, node);
  return startMetricsHttp({
    host: settings.host,
    port: settings.port,
    hostAllowlist,
    scrape: (include) => registry.scrape(include, onError),
    onError,
  });
}
