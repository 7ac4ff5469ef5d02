/**
 * The import pipeline of a sealed block: header and seal rules, execution, fork choice, the
 * transaction index moved with the head, the state flushed, then what follows a new head.
 */
import type { Block } from '@ethereumjs/block';
import { bytesToHex } from '../crypto/bytes.ts';
import { extraDataOf } from '../chain/block-hashing.ts';
import type { BlockHasher, Chain } from '../chain/chain.ts';
import type { Log } from '../runtime/ports.ts';
import type { ImportOutcome } from '../view/node-view.ts';
import type { BlockExecutor } from './block-executor.ts';
import type { HeadFollower } from './head-follower.ts';
import type { HeaderChecker } from './header-checker.ts';
import type { StateRestorer } from './state-restorer.ts';
import type { TxIndex } from './tx-index.ts';

export interface BlockImporterDeps {
  bft: boolean;
  hashOf: BlockHasher;
  log: Log;
  headers: HeaderChecker;
  executor: BlockExecutor;
  txIndex: TxIndex;
  restorer: StateRestorer;
  follower: HeadFollower;
  chain(): Chain;
}

export class BlockImporter {
  constructor(private readonly deps: BlockImporterDeps) {}

  /** Full validation (header, seals, execution) and fork choice for a sealed block. */
  async importBlock(block: Block, opts: { checkSeals?: boolean } = {}): Promise<ImportOutcome> {
    const { log, txIndex, restorer } = this.deps;
    const chain = this.deps.chain();
    const hash = bytesToHex(this.deps.hashOf(block.header));
    if (chain.has(hash)) return { ok: true, status: 'known' };
    const parent = chain.get(bytesToHex(block.header.parentHash));
    if (!parent) return { ok: false, reason: 'unknown parent' };
    let problem: string | undefined;
    try {
      problem = (await this.deps.headers.checkHeader(block, parent, opts.checkSeals ?? true)) ?? (await this.deps.executor.execute(block, parent));
    } catch (err) {
      problem = `validation: ${(err as Error).message}`;
    }
    if (problem) {
      log.trace({ kind: 'block-rejected', number: Number(block.header.number), hash, reason: problem });
      return { ok: false, reason: problem };
    }
    // The transaction index moves with the head: a block visible over RPC has its receipts found.
    const result = await chain.add(block, (reorg) => txIndex.indexReorg(reorg));
    const round = this.deps.bft ? extraDataOf(block.header).round : undefined;
    log.trace({ kind: 'block-imported', number: Number(block.header.number), hash, round, txs: block.transactions.length, status: result.status });
    if (result.status === 'head') {
      restorer.noteCanonical(result.reorg.added);
      await restorer.persistState(chain.head());
      await this.deps.follower.onNewHead(result.reorg);
    }
    return { ok: true, status: result.status };
  }
}
