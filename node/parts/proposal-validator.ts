/**
 * Validates the block of a QBFT proposal (header rules without seals, then execution on the head)
 * and keeps the verdicts by committed-seal hash, except those that time may change.
 */
import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { bytesToHex, type Hex } from '../crypto/bytes.ts';
import { blockFromRlp, committedSealHash } from '../chain/block-hashing.ts';
import type { Chain } from '../chain/chain.ts';
import type { HeaderRule } from '../chain/header-rules.ts';
import type { BesuHooks } from '../bugs/hooks.ts';
import { proposedBlockFrom, type NodeProposedBlock, type Reproposal } from '../consensus/proposed-block.ts';
import type { Log } from '../runtime/ports.ts';
import type { BlockExecutor } from './block-executor.ts';
import type { HeaderChecker } from './header-checker.ts';

/** The one header rule whose verdict changes with time (a timestamp too far ahead of the clock). */
const TIME_DEPENDENT_RULE: HeaderRule = 'timestampFuture';
/** Verdicts kept, by committed-seal hash. */
const VERDICTS_KEPT = 256;

export interface ProposalValidatorDeps {
  common: Common;
  hooks: BesuHooks;
  reproposal: Reproposal | undefined;
  log: Log;
  headers: HeaderChecker;
  executor: BlockExecutor;
  chain(): Chain;
}

export class ProposalValidator {
  private readonly proposalCache = new Map<Hex, NodeProposedBlock | null>();

  constructor(private readonly deps: ProposalValidatorDeps) {}

  async validateProposedBlock(rlp: Uint8Array, height: number): Promise<NodeProposedBlock | undefined> {
    let block: Block;
    try {
      block = blockFromRlp(rlp, this.deps.common);
    } catch {
      return undefined;
    }
    const digest = bytesToHex(committedSealHash(block.header));
    const cached = this.proposalCache.get(digest);
    if (cached !== undefined) return cached ?? undefined;
    const head = this.deps.chain().head();
    let result: NodeProposedBlock | null = null;
    let timeDependent = false;
    if (Number(block.header.number) === height && bytesToHex(block.header.parentHash) === head.hash) {
      const problem = (await this.deps.headers.checkHeader(block, head, false)) ?? (await this.deps.executor.execute(block, head));
      const reason = problem ?? this.deps.hooks.proposalStateConflict(block, height);
      if (reason === undefined) result = proposedBlockFrom(block, rlp, this.deps.reproposal);
      else this.deps.log.trace({ kind: 'proposal-block-invalid', number: height, digest, reason });
      timeDependent = problem?.startsWith(`${TIME_DEPENDENT_RULE}:`) === true;
    }
    // A block from the future may become valid as time passes: that verdict depends on the clock, so it is not kept.
    if (timeDependent) return undefined;
    if (this.proposalCache.size >= VERDICTS_KEPT) this.proposalCache.delete(this.proposalCache.keys().next().value as Hex);
    this.proposalCache.set(digest, result);
    return result ?? undefined;
  }
}
