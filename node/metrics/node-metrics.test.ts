import test from 'ava';
import type { NodeView } from '../view/node-view.ts';
import { parseNodeOptions } from '../cli/node-options.ts';
import { UsageError } from '../cli/usage-error.ts';
import { parseExposition } from './exposition-parse.ts';
import { registerNodeMetrics } from './node-metrics.ts';
import { MetricsRegistry } from './registry.ts';

/** The parts of a node the collector reads, with values a test can move. */
function fakeNode(bft = true) {
  const state = {
    head: { number: 12, timestamp: 1_700_000_012, td: 13n, block: { header: { gasUsed: 21_000n, gasLimit: 30_000_000n }, transactions: [{}] } },
    sync: { syncing: false, highestKnown: 12, peers: 3 },
    poolSize: 2,
    stats: { height: 13, round: 1 as number | undefined, roundChanges: 4, maxRound: 2, rejected: 5, malformed: 6 },
  };
  const node = {
    bft,
    head: () => state.head,
    syncStatus: () => state.sync,
    poolSize: () => state.poolSize,
    consensusStats: () => state.stats,
  } as unknown as NodeView;
  return { node, state };
}

function values(registry: MetricsRegistry): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, f] of parseExposition(registry.scrape())) out[name] = f.samples[0].value;
  return out;
}

test('a node\'s state is served under Besu\'s names and qbft-lab\'s consensus names', (t) => {
  const { node } = fakeNode();
  const registry = new MetricsRegistry();
  registerNodeMetrics(registry, node);
  t.deepEqual(values(registry), {
    ethereum_blockchain_height: 12,
    ethereum_best_known_block_number: 12,
    ethereum_peer_count: 3,
    besu_blockchain_chain_head_timestamp: 1_700_000_012,
    besu_blockchain_chain_head_gas_used: 21_000,
    besu_blockchain_chain_head_gas_limit: 30_000_000,
    besu_blockchain_chain_head_transaction_count: 1,
    besu_blockchain_difficulty: 13,
    besu_synchronizer_in_sync: 1,
    besu_transaction_pool_transactions: 2,
    qbftlab_qbft_height: 13,
    qbftlab_qbft_round: 1,
    qbftlab_qbft_max_round: 2,
    qbftlab_qbft_round_changes_total: 4,
    qbftlab_qbft_messages_rejected_total: 5,
    qbftlab_qbft_messages_malformed_total: 6,
  });
  const types = parseExposition(registry.scrape());
  t.is(types.get('qbftlab_qbft_round_changes_total')!.type, 'counter');
  t.is(types.get('ethereum_blockchain_height')!.type, 'gauge');
});

test('values follow the node between scrapes; no round yet leaves the round gauge out', (t) => {
  const { node, state } = fakeNode();
  const registry = new MetricsRegistry();
  registerNodeMetrics(registry, node);
  state.head = { ...state.head, number: 13 };
  state.sync = { syncing: true, highestKnown: 20, peers: 1 };
  state.poolSize = 0;
  state.stats.round = undefined;
  state.stats.roundChanges = 5;
  const v = values(registry);
  t.is(v.ethereum_blockchain_height, 13);
  t.is(v.ethereum_best_known_block_number, 20);
  t.is(v.besu_synchronizer_in_sync, 0);
  t.is(v.besu_transaction_pool_transactions, 0);
  t.is(v.qbftlab_qbft_round_changes_total, 5);
  t.false('qbftlab_qbft_round' in v);
});

test('a chain without BFT has no consensus metrics; disabled categories are left out', (t) => {
  const plain = new MetricsRegistry();
  registerNodeMetrics(plain, fakeNode(false).node);
  t.false(plain.names().some((n) => n.startsWith('qbftlab_')));
  const only = new MetricsRegistry(new Set(['ethereum']));
  registerNodeMetrics(only, fakeNode().node);
  t.deepEqual(only.names(), ['ethereum_blockchain_height', 'ethereum_best_known_block_number', 'ethereum_peer_count']);
});

test('--metrics-* options: Besu\'s defaults, values, and refusals', (t) => {
  const defaults = parseNodeOptions([]).metrics;
  t.false(defaults.enabled);
  t.is(defaults.host, '127.0.0.1');
  t.is(defaults.port, 9545);
  t.true(defaults.categories.has('ethereum') && defaults.categories.has('qbft'));
  t.false(defaults.categories.has('rocksdb'), 'Besu leaves RocksDB metrics off by default');
  const set = parseNodeOptions(['--metrics-enabled', '--metrics-host', '0.0.0.0', '--metrics-port', '0', '--metrics-category', 'ETHEREUM,qbft']).metrics;
  t.deepEqual({ ...set, categories: [...set.categories] }, { enabled: true, host: '0.0.0.0', port: 0, categories: ['ethereum', 'qbft'] });
  t.throws(() => parseNodeOptions(['--metrics-category', 'ETHEREUM,NOPE']), { instanceOf: UsageError, message: '--metrics-categories contains unknown categories: [NOPE]' });
  t.throws(() => parseNodeOptions(['--metrics-port', 'x']), { instanceOf: UsageError, message: /--metrics-port/ });
});
