/**
 * The node's state across restarts: refuses a genesis configuration that changes the rules of
 * stored blocks, puts the persisted world state back (re-executing only the stored blocks after
 * it), and flushes the state and the receipts of new canonical blocks at every new head.
 */
import { bytesToHex } from '../crypto/bytes.ts';
import type { Chain, ChainEntry } from '../chain/chain.ts';
import { withConfig, type Genesis } from '../chain/genesis.ts';
import { StoredHistoryError, firstRulesChange } from '../chain/stored-rules.ts';
import type { ExecutionEngine } from '../execution/engine.ts';
import type { ReceiptsToPersist, StateHead, StatePersistence } from '../execution/state-persistence.ts';
import type { Log, Store } from '../runtime/ports.ts';
import type { BlockExecutor } from './block-executor.ts';
import type { HeightRules } from './height-rules.ts';

/** The genesis `config` the stored blocks were last accepted under. */
const STORED_CONFIG_KEY = 'meta:genesis-config';

/** While re-executing stored blocks on start, the state is persisted every this many blocks. */
const REPLAY_PERSIST_BLOCKS = 256;

export interface StateRestorerDeps {
  genesis: Genesis;
  storedHistoryCheck: 'refuse' | 'warn' | undefined;
  store: Store;
  log: Log;
  rules: HeightRules;
  executor: BlockExecutor;
  chain(): Chain;
  engine(): ExecutionEngine;
  persistence(): StatePersistence;
}

export class StateRestorer {
  /** Stored blocks re-executed on the last start (0 when the persisted state was at the head). */
  replayedOnStart = 0;
  /** Blocks that became canonical since the last state flush (drained by every flush). */
  private canonicalSinceFlush: ChainEntry[] = [];

  constructor(private readonly deps: StateRestorerDeps) {}

  /**
   * Refuses a genesis configuration that would change the rules of blocks already stored (a
   * transition, selection-mode switch or hardfork placed at or below the head), then records the
   * configuration the stored blocks are held to from now on.
   */
  async checkStoredRules(): Promise<void> {
    const { store, genesis } = this.deps;
    const chain = this.deps.chain();
    const head = chain.head().number;
    const raw = await store.get(STORED_CONFIG_KEY);
    if (raw !== undefined && head > 0) {
      const before = withConfig(genesis, JSON.parse(new TextDecoder().decode(raw)));
      const change = firstRulesChange(before, genesis, head, (n) => ({ number: n, timestamp: chain.timestampAt(n)! }));
      if (change && this.deps.storedHistoryCheck === 'warn')
        this.deps.log.log('warn', 'the genesis configuration changes the rules of stored blocks; starting anyway', { block: change.block, change: change.what, head });
      else if (change) throw new StoredHistoryError(change, head);
    }
    await store.write([{ key: STORED_CONFIG_KEY, value: new TextEncoder().encode(JSON.stringify(genesis.config)) }]);
  }

  /**
   * Puts the persisted world state back and re-executes only the stored canonical blocks after it
   * (none when the node stopped after a flush); without a usable persisted state (an older data
   * directory, a persisted block a reorg dropped and no older kept root) the whole stored chain.
   */
  async restoreState(): Promise<void> {
    const chain = this.deps.chain();
    const { from, loaded } = await this.deps.persistence().restore((candidate) => {
      const entry = chain.canonicalAt(candidate.number);
      return entry !== undefined && entry.hash === candidate.hash && bytesToHex(entry.block.header.stateRoot) === candidate.stateRoot;
    });
    const head = chain.head().number;
    this.deps.log.log('info', 'world state restored', { persistedBlock: from?.number ?? null, loadedKeys: loaded, replayBlocks: head - (from?.number ?? 0) });
    await this.replayStoredChain(from?.number ?? 0);
    await this.persistState(chain.head());
  }

  /** Re-executes the stored canonical chain after block `from` to rebuild state after a restart; never rewrites it. */
  private async replayStoredChain(from: number): Promise<void> {
    const { rules, executor } = this.deps;
    const chain = this.deps.chain();
    this.replayedOnStart = 0;
    for (let n = from + 1; n <= chain.head().number; n++) {
      const entry = chain.canonicalAt(n)!;
      const parent = chain.canonicalAt(n - 1)!;
      try {
        const result = await this.deps.engine().executeBlock(entry.block, parent.block.header.stateRoot, rules.rewardFor(entry.block), rules.executeOptions(entry.block));
        executor.remember(entry.hash, result.receipts);
      } catch (err) {
        throw new StoredHistoryError({ block: n, what: `it no longer executes: ${(err as Error).message}` }, chain.head().number);
      }
      this.replayedOnStart++;
      this.canonicalSinceFlush.push(entry);
      if (n % REPLAY_PERSIST_BLOCKS === 0) await this.persistState(entry);
    }
  }

  /** Blocks that joined the canonical chain: their receipts go out with the next flush. */
  noteCanonical(added: readonly ChainEntry[]): void {
    this.canonicalSinceFlush.push(...added);
  }

  /**
   * One atomic write of the state at `entry` (normally the new head) with the receipts of the
   * blocks that became canonical since the previous flush. The snapshot is taken now, so flushes
   * land in call order.
   */
  persistState(entry: ChainEntry): Promise<unknown> {
    const blocks: ReceiptsToPersist[] = [];
    for (const e of this.canonicalSinceFlush)
      if (e.block.transactions.length > 0) blocks.push({ hash: e.hash, receipts: () => this.deps.executor.receiptsOf(e) });
    this.canonicalSinceFlush = [];
    const head: StateHead = { number: entry.number, hash: entry.hash, stateRoot: bytesToHex(entry.block.header.stateRoot) };
    return this.deps.persistence().persist(head, blocks);
  }
}
