/**
 * What follows a new chain head: the reorg's trace, the pool (included transactions out, those of
 * removed blocks back in), private transactions, the head listeners, side-chain pruning, and the
 * new-head event to consensus (held back while besu-8307's sync pause lasts).
 */
import type { Hex } from '../crypto/bytes.ts';
import type { Chain, ChainEntry, ReorgEvent } from '../chain/chain.ts';
import type { ExecutionEngine, TxReceipt } from '../execution/engine.ts';
import type { TxPool } from '../execution/tx-pool.ts';
import type { NodePrivacy } from '../privacy/node-privacy.ts';
import type { BesuHooks } from '../bugs/hooks.ts';
import type { HeightContext } from '../consensus/qbft/core-types.ts';
import type { QbftService } from '../consensus/qbft-service.ts';
import type { Log } from '../runtime/ports.ts';
import type { HeadListener } from '../view/node-view.ts';

export interface HeadFollowerDeps {
  bft: boolean;
  hooks: BesuHooks;
  /** False leaves new-head events to the caller (NodeConfig.deliverNewChainHeads). */
  deliverNewChainHeads: boolean;
  log: Log;
  chain(): Chain;
  engine(): ExecutionEngine;
  pool(): TxPool;
  privacy(): NodePrivacy | undefined;
  qbft(): QbftService;
  receiptsOf(entry: ChainEntry): Promise<TxReceipt[]>;
  heightContext(head: ChainEntry): Promise<HeightContext>;
}

export class HeadFollower {
  private readonly listeners: HeadListener[] = [];
  /**
   * besu-8307: Besu stopped its BFT mining coordinator while the node had a sync target
   * (dropping its timers and new-head events) and its restart after the sync did not rebuild the
   * height manager. New heads reach consensus again once the sync ends.
   */
  private consensusPausedForSync = false;

  constructor(private readonly deps: HeadFollowerDeps) {}

  subscribe(listener: HeadListener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  async onNewHead(reorg: ReorgEvent): Promise<void> {
    const chain = this.deps.chain();
    const head = chain.head();
    if (reorg.removed.length > 0) {
      const removedLogs = (await Promise.all(reorg.removed.map((e) => this.deps.receiptsOf(e).catch(() => [])))).reduce((n, rs) => n + rs.reduce((m, r) => m + r.logs.length, 0), 0);
      this.deps.log.trace({ kind: 'reorg', removed: reorg.removed.map((e) => e.hash), added: reorg.added.map((e) => e.hash), removedLogs });
    }
    await this.updatePool(reorg);
    const privacy = this.deps.privacy();
    if (privacy)
      try {
        await privacy.onReorg(reorg, chain.genesis.hash, (hash) => chain.get(hash));
      } catch (err) {
        this.deps.log.log('error', 'private transactions not processed', { head: head.hash, error: String(err) });
      }
    for (const l of this.listeners) l(head, reorg);
    chain.pruneSideChains(64);
    if (this.deps.bft && !this.consensusPausedForSync && this.deps.deliverNewChainHeads) void this.deps.qbft().onNewHead(await this.deps.heightContext(head));
  }

  onSyncing(syncing: boolean): void {
    if (!this.deps.bft || !this.deps.hooks.consensusPausesForSync) return;
    this.consensusPausedForSync = syncing;
    if (syncing) this.deps.qbft().suspendTimers();
  }

  /** Drops included transactions from the pool and returns those of blocks a reorg removed. */
  private async updatePool(reorg: ReorgEvent): Promise<void> {
    const pool = this.deps.pool();
    const included: Uint8Array[] = [];
    const senders = new Set<Hex>();
    for (const e of reorg.added)
      for (const tx of e.block.transactions) {
        const hash = tx.hash();
        included.push(hash);
        // The pool recovered the senders of the transactions it held; recover only the others.
        senders.add(pool.senderOf(hash) ?? (tx.getSenderAddress().toString().toLowerCase() as Hex));
      }
    const stateRoot = this.deps.chain().head().block.header.stateRoot;
    const nonces = new Map<Hex, bigint>();
    for (const sender of [...senders].sort()) nonces.set(sender, (await this.deps.engine().getAccount(stateRoot, sender))?.nonce ?? 0n);
    pool.onBlockImported(included, nonces);
    const removedTxs = reorg.removed.flatMap((e) => [...e.block.transactions]);
    if (removedTxs.length > 0) await this.deps.pool().readd(removedTxs);
  }
}
