/**
 * Metric categories, as Besu names them: a metric's name is the category's application prefix,
 * the category name, `_`, then the metric's own name (hyperledger/besu 3fd224e2:
 * metrics/core/.../metrics/BesuMetricCategory.java, StandardMetricCategory.java,
 * metrics/prometheus/CategorizedPrometheusCollector.java). `ethereum`, `jvm` and `process` have no
 * prefix, the other Besu categories `besu_`. `--metrics-category` takes category names in any case
 * (MetricCategoryRegistryImpl keys them upper-cased) and refuses unknown ones
 * (cli/options/MetricsOptions.validate).
 *
 * Besu exports no QBFT consensus metric at all (no MetricsSystem use in consensus/common,
 * consensus/qbft or consensus/qbft-core, in hyperledger/besu 3fd224e2 and besu-eth/besu 683880ba),
 * so round and round-change figures live in a category of qbft-lab's own, `qbft`, whose prefix
 * `qbftlab_` says the names are not Besu's.
 */
export interface MetricCategory {
  name: string;
  prefix: string;
}

const besu = (name: string): MetricCategory => ({ name, prefix: 'besu_' });
const plain = (name: string): MetricCategory => ({ name, prefix: '' });

export const CATEGORY = {
  BLOCKCHAIN: besu('blockchain'),
  ETHEREUM: plain('ethereum'),
  SYNCHRONIZER: besu('synchronizer'),
  TRANSACTION_POOL: besu('transaction_pool'),
  QBFT: { name: 'qbft', prefix: 'qbftlab_' },
} as const satisfies Record<string, MetricCategory>;

/** Every category name `--metrics-category` accepts: Besu's (so its configuration files work) and ours. */
export const KNOWN_CATEGORY_NAMES: readonly string[] = [
  'blockchain', 'ethereum', 'executors', 'network', 'peers', 'permissioning', 'rocksdb', 'private_rocksdb',
  'pruner', 'rpc', 'synchronizer', 'transaction_pool', 'block_processing', 'bal', 'bonsai_cache', 'jvm', 'process',
  CATEGORY.QBFT.name,
];

/** Besu's default `--metrics-category`: all but the RocksDB ones (BesuMetricCategory.DEFAULT_METRIC_CATEGORIES). */
export const DEFAULT_CATEGORY_NAMES: readonly string[] = KNOWN_CATEGORY_NAMES.filter((n) => n !== 'rocksdb' && n !== 'private_rocksdb');

export function metricName(category: MetricCategory, name: string): string {
  return `${category.prefix}${category.name}_${name}`;
}

/** The enabled category names (lower case); unknown names throw Besu's message. */
export function parseMetricCategories(names: readonly string[]): Set<string> {
  const lower = names.map((n) => n.toLowerCase());
  const unknown = names.filter((_, i) => !KNOWN_CATEGORY_NAMES.includes(lower[i]));
  if (unknown.length > 0) throw new Error(`--metrics-categories contains unknown categories: [${unknown.join(', ')}]`);
  return new Set(lower);
}
