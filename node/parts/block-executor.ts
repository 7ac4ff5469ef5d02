/**
 * Executes blocks on their parent's state and keeps the receipts of the blocks executed here
 * (bounded): a block's receipts come from that memory, else from the persisted receipts
 * (canonical blocks), else from executing it again.
 */
import type { Block } from '@ethereumjs/block';
import { bytesToHex, type Hex } from '../crypto/bytes.ts';
import type { BlockHasher, Chain, ChainEntry } from '../chain/chain.ts';
import type { ExecutionEngine, TxReceipt } from '../execution/engine.ts';
import type { StatePersistence } from '../execution/state-persistence.ts';
import type { TxPool } from '../execution/tx-pool.ts';
import type { HeightRules } from './height-rules.ts';

/** Receipts of this many executed blocks are kept in memory. */
const RECEIPTS_KEPT = 4096;

export interface BlockExecutorDeps {
  hashOf: BlockHasher;
  rules: HeightRules;
  engine(): ExecutionEngine;
  chain(): Chain;
  persistence(): StatePersistence;
  pool(): TxPool;
}

export class BlockExecutor {
  /** Receipts of executed blocks by on-chain hash (bounded); presence means "executed". */
  private readonly receipts = new Map<Hex, TxReceipt[]>();

  constructor(private readonly deps: BlockExecutorDeps) {}

  /** Executes a block on its parent's state unless it was executed here already; the problem, if any. */
  async execute(block: Block, parent: ChainEntry): Promise<string | undefined> {
    const hash = bytesToHex(this.deps.hashOf(block.header));
    if (this.receipts.has(hash)) return undefined;
    try {
      this.deps.pool().shareSenders(block.transactions);
      const result = await this.deps.engine().executeBlock(block, parent.block.header.stateRoot, this.deps.rules.rewardFor(block), this.deps.rules.executeOptions(block));
      this.remember(hash, result.receipts);
    } catch (err) {
      return `execution: ${(err as Error).message}`;
    }
    return undefined;
  }

  remember(hash: Hex, receipts: TxReceipt[]): void {
    if (this.receipts.size >= RECEIPTS_KEPT) this.receipts.delete(this.receipts.keys().next().value as Hex);
    this.receipts.set(hash, receipts);
  }

  /** Receipts of a block: executed here, else persisted (canonical blocks), else re-executed on demand. */
  async receiptsOf(entry: ChainEntry): Promise<TxReceipt[]> {
    const known = this.receipts.get(entry.hash);
    if (known) return known;
    if (entry.block.transactions.length === 0) return [];
    const stored = await this.deps.persistence().receiptsOf(entry.hash);
    if (stored && stored.length === entry.block.transactions.length) return stored;
    const parent = this.deps.chain().get(entry.parentHash);
    if (!parent) return [];
    const { rules } = this.deps;
    const result = await this.deps.engine().executeBlock(entry.block, parent.block.header.stateRoot, rules.rewardFor(entry.block), rules.executeOptions(entry.block));
    this.remember(entry.hash, result.receipts);
    return result.receipts;
  }
}
