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
import type { BugSwitches } from '../bugs/bug-switches.ts';
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
  bugs: BugSwitches;
  reproposal: Reproposal | undefined;
  log: Log;
  headers: HeaderChecker;
  executor: BlockExecutor;
  chain(): Chain;
}

export class ProposalValidator {
  private readonly proposalCache = new Map<Hex, NodeProposedBlock | null>();
  /** See persistedProposalConflict. */
  private persistedProposal: { height: number; identity: Hex } | undefined;

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
      const reason = problem ?? this.persistedProposalConflict(block, height);
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

  /**
   * besu-7642 (one candidate cause, unconfirmed: Besu PR #7204): proposal validation persisted the
   * proposed block's world state on Bonsai, so after one proposal at a height had been validated, any
   * other block at that height failed on the moved state. The same block with only its round changed
   * still passes. Returns the rejection reason, or undefined.
   */
  private persistedProposalConflict(block: Block, height: number): string | undefined {
    if (!this.deps.bugs.has('besu-7642')) return undefined;
    const identity = bytesToHex(committedSealHash(block.header, 0));
    const persisted = this.persistedProposal;
    if (!persisted || persisted.height !== height) {
      this.persistedProposal = { height, identity };
      return undefined;
    }
    return persisted.identity === identity ? undefined : 'world state already moved to another proposal of this height (persisted proposal state)';
  }
}
