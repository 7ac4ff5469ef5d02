/**
 * A live node's metrics, read from its state at scrape time, under Besu's names where Besu has
 * the figure (hyperledger/besu 3fd224e2; names confirmed unchanged in besu-eth/besu 683880ba):
 * - ethereum_blockchain_height, besu_blockchain_chain_head_{timestamp,gas_used,gas_limit,
 *   transaction_count}, besu_blockchain_difficulty (total difficulty of the head):
 *   ethereum/core/.../ethereum/chain/DefaultBlockchain.java (createGauges)
 * - ethereum_peer_count: ethereum/eth/.../eth/manager/EthPeers.java
 * - ethereum_best_known_block_number, besu_synchronizer_in_sync (1 when not syncing):
 *   ethereum/eth/.../eth/sync/DefaultSynchronizer.java
 * - besu_transaction_pool_transactions: the sequenced pool's size gauge,
 *   ethereum/eth/.../eth/transactions/sorter/AbstractPendingTransactionsSorter.java (qbft-lab's
 *   pool is modelled on that pool; Besu's layered pool reports
 *   besu_transaction_pool_number_of_transactions{layer=...} instead)
 * Besu has no consensus metric (see categories.ts); qbft-lab's own, from QbftService.stats:
 * qbftlab_qbft_height, qbftlab_qbft_round (absent until a round starts at the height),
 * qbftlab_qbft_max_round, qbftlab_qbft_round_changes_total (rounds above 0 started),
 * qbftlab_qbft_messages_rejected_total, qbftlab_qbft_messages_malformed_total.
 * Not served: ethereum_peer_limit (the node has no peer limit option yet), Besu's JVM/process
 * metrics, and the pool's added/removed counters.
 */
import type { NodeView } from '../view/node-view.ts';
import { CATEGORY } from './categories.ts';
import type { MetricsRegistry } from './registry.ts';

export function registerNodeMetrics(registry: MetricsRegistry, node: NodeView): void {
  const head = () => node.head();
  const { ETHEREUM, BLOCKCHAIN, SYNCHRONIZER, TRANSACTION_POOL, QBFT } = CATEGORY;

  registry.gauge(ETHEREUM, 'blockchain_height', 'Number of the canonical chain head', () => head().number);
  registry.gauge(ETHEREUM, 'best_known_block_number', 'Highest block number known from peers or the own chain', () => node.syncStatus().highestKnown);
  registry.gauge(ETHEREUM, 'peer_count', 'Connected peers', () => node.syncStatus().peers);

  registry.gauge(BLOCKCHAIN, 'chain_head_timestamp', 'Timestamp of the chain head block (seconds)', () => head().timestamp);
  registry.gauge(BLOCKCHAIN, 'chain_head_gas_used', 'Gas used by the chain head block', () => Number(head().block.header.gasUsed));
  registry.gauge(BLOCKCHAIN, 'chain_head_gas_limit', 'Gas limit of the chain head block', () => Number(head().block.header.gasLimit));
  registry.gauge(BLOCKCHAIN, 'chain_head_transaction_count', 'Transactions in the chain head block', () => head().block.transactions.length);
  registry.gauge(BLOCKCHAIN, 'difficulty', 'Total difficulty of the chain head', () => Number(head().td));

  registry.gauge(SYNCHRONIZER, 'in_sync', '1 when the node is not catching up with a peer, else 0', () => (node.syncStatus().syncing ? 0 : 1));

  registry.gauge(TRANSACTION_POOL, 'transactions', 'Transactions in the pool', () => node.poolSize());

  if (!node.bft) return;
  const stats = () => node.consensusStats()!;
  registry.gauge(QBFT, 'height', 'Height the consensus is working on', () => stats().height);
  registry.gauge(QBFT, 'round', 'Current round at the current height', () => stats().round);
  registry.gauge(QBFT, 'max_round', 'Highest round reached since the node started', () => stats().maxRound);
  registry.counter(QBFT, 'round_changes_total', 'Rounds above round 0 started since the node started', () => stats().roundChanges);
  registry.counter(QBFT, 'messages_rejected_total', 'Consensus messages that failed validation', () => stats().rejected);
  registry.counter(QBFT, 'messages_malformed_total', 'Consensus messages that could not be decoded', () => stats().malformed);
}
