import test from 'ava';
import { CATEGORY, KNOWN_CATEGORY_NAMES, parseMetricCategories } from './categories.ts';
import { MAX_SAMPLES_PER_FAMILY, MetricsRegistry } from './registry.ts';
import { parseExposition } from './exposition-parse.ts';

test('names are Besu\'s: category prefix, category, metric name', (t) => {
  const r = new MetricsRegistry();
  r.gauge(CATEGORY.ETHEREUM, 'blockchain_height', 'h', () => 1);
  r.gauge(CATEGORY.BLOCKCHAIN, 'chain_head_timestamp', 'h', () => 1);
  r.gauge(CATEGORY.TRANSACTION_POOL, 'transactions', 'h', () => 1);
  r.gauge(CATEGORY.SYNCHRONIZER, 'in_sync', 'h', () => 1);
  r.counter(CATEGORY.QBFT, 'round_changes_total', 'h', () => 1);
  t.deepEqual(r.names(), [
    'ethereum_blockchain_height',
    'besu_blockchain_chain_head_timestamp',
    'besu_transaction_pool_transactions',
    'besu_synchronizer_in_sync',
    'qbftlab_qbft_round_changes_total',
  ]);
});

test('values are read at each scrape', (t) => {
  let height = 1;
  const r = new MetricsRegistry();
  r.gauge(CATEGORY.ETHEREUM, 'blockchain_height', 'h', () => height);
  t.is(parseExposition(r.scrape()).get('ethereum_blockchain_height')!.samples[0].value, 1);
  height = 5;
  t.is(parseExposition(r.scrape()).get('ethereum_blockchain_height')!.samples[0].value, 5);
});

test('a metric of a disabled category is not registered', (t) => {
  const r = new MetricsRegistry(new Set(['ethereum']));
  r.gauge(CATEGORY.ETHEREUM, 'peer_count', 'h', () => 0);
  r.gauge(CATEGORY.TRANSACTION_POOL, 'transactions', 'h', () => 0);
  t.deepEqual(r.names(), ['ethereum_peer_count']);
});

test('a failing, oversized or malformed reading costs only its own family', (t) => {
  const r = new MetricsRegistry();
  const errors: unknown[] = [];
  r.gauge(CATEGORY.ETHEREUM, 'a', 'h', () => {
    throw new Error('boom');
  });
  r.gauge(CATEGORY.ETHEREUM, 'b', 'h', () => Array.from({ length: MAX_SAMPLES_PER_FAMILY + 1 }, (_, i) => ({ labels: { i: String(i) }, value: i })));
  r.gauge(CATEGORY.ETHEREUM, 'c', 'h', () => [{ labels: { 'no-dashes': 'x' }, value: 1 }]);
  r.gauge(CATEGORY.ETHEREUM, 'd', 'h', () => undefined);
  r.gauge(CATEGORY.ETHEREUM, 'e', 'h', () => 2);
  const text = r.scrape(undefined, (e) => errors.push(e));
  t.deepEqual([...parseExposition(text).keys()], ['ethereum_e']);
  t.is(errors.length, 3);
  t.regex(String(errors[0]), /boom/);
  t.regex(String(errors[1]), /more than 1000/);
  t.regex(String(errors[2]), /invalid label name/);
});

test('a filter keeps only the named families', (t) => {
  const r = new MetricsRegistry();
  r.gauge(CATEGORY.ETHEREUM, 'a', 'h', () => 1);
  r.gauge(CATEGORY.ETHEREUM, 'b', 'h', () => 2);
  t.deepEqual([...parseExposition(r.scrape((n) => n === 'ethereum_b')).keys()], ['ethereum_b']);
});

test('registering a name twice or a bad name is a programming error', (t) => {
  const r = new MetricsRegistry();
  r.gauge(CATEGORY.ETHEREUM, 'a', 'h', () => 1);
  t.throws(() => r.gauge(CATEGORY.ETHEREUM, 'a', 'h', () => 1), { message: /already registered/ });
  t.throws(() => r.gauge(CATEGORY.ETHEREUM, 'a-b', 'h', () => 1), { message: /invalid metric name/ });
  t.throws(() => r.counter(CATEGORY.QBFT, 'round_changes', 'h', () => 1), { message: /_total/ });
});

test('--metrics-category names are case-insensitive; unknown ones are refused with Besu\'s wording', (t) => {
  t.deepEqual([...parseMetricCategories(['ETHEREUM', 'Transaction_Pool', 'qbft'])], ['ethereum', 'transaction_pool', 'qbft']);
  t.is(parseMetricCategories(KNOWN_CATEGORY_NAMES).size, KNOWN_CATEGORY_NAMES.length);
  t.throws(() => parseMetricCategories(['ethereum', 'FOO', 'bar']), { message: '--metrics-categories contains unknown categories: [FOO, bar]' });
});
