/**
 * Where canonical transactions sit (bounded, moved with every reorg) and what the node remembers
 * about pooled ones (arrival time and source, pruned against the pool): JSON-RPC's look-ups.
 */
import { bytesToHex, type Hex } from '../crypto/bytes.ts';
import type { Chain, ChainEntry, ReorgEvent } from '../chain/chain.ts';
import type { TxPool } from '../execution/tx-pool.ts';
import type { Clock } from '../runtime/ports.ts';
import type { PooledTxMeta, TxLocation } from '../view/node-view.ts';

/** Canonical transactions indexed by hash at most (oldest blocks' entries are dropped first). */
export const TX_INDEX_LIMIT = 250_000;

export class TxIndex {
  /** Canonical transactions by hash (bounded by TX_INDEX_LIMIT, oldest inserted first out). */
  private readonly txIndex = new Map<Hex, TxLocation>();
  /** Pooled transactions' arrival time and source, by hash (pruned against the pool). */
  private readonly pooledMeta = new Map<Hex, PooledTxMeta>();

  /** The canonical block and position of a transaction, if it is in the (bounded) index. */
  transactionLocation(hash: Hex): TxLocation | undefined {
    return this.txIndex.get(hash.toLowerCase() as Hex);
  }

  /** Arrival time and source of a pooled transaction. */
  pooledTransactionMeta(hash: Hex): PooledTxMeta | undefined {
    return this.pooledMeta.get(hash.toLowerCase() as Hex);
  }

  /** Records the arrival of the pool's transactions (as remote ones) and forgets those it drops. */
  followPool(pool: TxPool, clock: Clock): void {
    pool.on('added', (tx) => {
      this.pooledMeta.set(bytesToHex(tx.hash()), { addedAtMs: clock.nowMs(), local: false });
      if (this.pooledMeta.size > 2 * pool.options.maxSize + 64) this.prunePooledMeta(pool);
    });
    pool.on('dropped', (tx) => {
      this.pooledMeta.delete(bytesToHex(tx.hash()));
    });
  }

  /** A pooled transaction came through this node's API. */
  markLocal(hash: Hex): void {
    const meta = this.pooledMeta.get(hash);
    if (meta) meta.local = true;
  }

  /** Keeps the index on the canonical chain: entries of removed blocks go, those of added blocks come. */
  indexReorg(reorg: ReorgEvent): void {
    for (const e of reorg.removed)
      for (const tx of e.block.transactions) {
        const hash = bytesToHex(tx.hash());
        if (this.txIndex.get(hash)?.blockHash === e.hash) this.txIndex.delete(hash);
      }
    for (const e of reorg.added) this.indexBlock(e);
  }

  /** Rebuilds the index from the stored canonical chain (after a restart), newest blocks kept. */
  rebuild(chain: Chain): void {
    this.txIndex.clear();
    const head = chain.head().number;
    // The blocks of a store's history have no transactions.
    const floor = chain.historyHeight;
    let first = head;
    for (let count = 0; first > floor; first--) {
      count += chain.canonicalAt(first)!.block.transactions.length;
      if (count >= TX_INDEX_LIMIT) break;
    }
    for (let n = Math.max(first, floor + 1); n <= head; n++) this.indexBlock(chain.canonicalAt(n)!);
  }

  private indexBlock(entry: ChainEntry): void {
    const txs = entry.block.transactions;
    for (let i = 0; i < txs.length; i++) {
      const hash = bytesToHex(txs[i].hash());
      this.txIndex.delete(hash); // re-insert at the end: newest last
      this.txIndex.set(hash, { blockHash: entry.hash, blockNumber: entry.number, index: i });
    }
    while (this.txIndex.size > TX_INDEX_LIMIT) this.txIndex.delete(this.txIndex.keys().next().value as Hex);
  }

  private prunePooledMeta(pool: TxPool): void {
    for (const hash of [...this.pooledMeta.keys()]) if (!pool.get(hash)) this.pooledMeta.delete(hash);
  }
}
