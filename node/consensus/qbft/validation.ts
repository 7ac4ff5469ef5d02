/**
 * QBFT message validation that needs no execution: who may propose, round-change certificates,
 * prepared certificates and piggy-backed prepares (Besu's ProposalValidator,
 * RoundChangeMessageValidator and their payload validators). Block validity itself is checked by
 * the node before a proposal reaches the state machine.
 */
import { bytesToHex, type Hex } from '../../crypto/bytes.ts';
import type { PreparePayload, ProposalMessage, RoundChangeMessage, RoundChangePayload, Signed } from './messages.ts';
import type { ProposedBlock } from './core-types.ts';
import { quorumSize } from './quorum.ts';
import { selectProposer } from './proposer-selection.ts';
import type { RejectionRule, ValidationRule } from './rules.ts';

export type Verdict = { ok: true } | { ok: false; rule: RejectionRule; reason: string };

export const OK: Verdict = { ok: true };
const fail = (rule: RejectionRule, reason: string): Verdict => ({ ok: false, rule, reason });

/** A rule that fails, when the node applies it (node/bugs/hooks.ts: Besu applies every rule). */
function breaks(ctx: ValidationContext, rule: ValidationRule, failed: boolean): boolean {
  return failed && ctx.enforced(rule);
}

export interface ValidationContext {
  height: number;
  validators: Hex[];
  parentCoinbase: Hex;
  /** Highest round a round change may target (Besu's MAX_ALLOWED_ROUND). */
  maxRound: number;
  /** Whether the node applies a rule (BesuHooks.ruleEnforced). */
  enforced: (rule: ValidationRule) => boolean;
}

function isValidator(ctx: ValidationContext, a: Hex): boolean {
  return ctx.validators.includes(a);
}

export function expectedProposer(ctx: ValidationContext, round: number): Hex {
  return selectProposer(ctx.validators, ctx.parentCoinbase, round);
}

/** Besu's RoundChangePayloadValidator: the signer, the height, the target round and the prepared round. */
function validateRoundChangePayload(ctx: ValidationContext, rc: Signed<RoundChangePayload>): Verdict {
  const p = rc.payload;
  if (breaks(ctx, 'round-change-not-validator', !isValidator(ctx, rc.author))) return fail('round-change-not-validator', `round change from non-validator ${rc.author}`);
  if (breaks(ctx, 'round-change-wrong-height', p.sequence !== ctx.height)) return fail('round-change-wrong-height', `round change for height ${p.sequence}, expected ${ctx.height}`);
  if (breaks(ctx, 'round-change-round-zero', p.round <= 0)) return fail('round-change-round-zero', 'round change targets round 0');
  // ghsa-23rh: before Besu capped it, any positive target round was valid.
  if (breaks(ctx, 'round-change-round-above-max', p.round > ctx.maxRound)) return fail('round-change-round-above-max', `round change targets round ${p.round}, above ${ctx.maxRound}`);
  if (breaks(ctx, 'round-change-prepared-round', p.prepared !== undefined && (p.prepared.preparedRound < 0 || p.prepared.preparedRound >= p.round)))
    return fail('round-change-prepared-round', `prepared round ${p.prepared!.preparedRound} not below target ${p.round}`);
  return OK;
}

/**
 * Besu's check of piggy-backed prepares: distinct authors, a quorum of entries, then each prepare's
 * signer, round and digest. besu-1671 is the missing author check: copies then count toward the quorum.
 */
function validatePrepares(ctx: ValidationContext, prepares: Signed<PreparePayload>[], round: number, digest: Hex): Verdict {
  const authors = new Set(prepares.map((p) => p.author));
  if (breaks(ctx, 'prepare-duplicate-author', authors.size !== prepares.length)) return fail('prepare-duplicate-author', 'duplicate prepare authors');
  const quorum = quorumSize(ctx.validators.length);
  if (breaks(ctx, 'prepare-quorum', prepares.length < quorum)) return fail('prepare-quorum', `only ${prepares.length} prepares, quorum ${quorum}`);
  for (const p of prepares) {
    if (breaks(ctx, 'prepare-not-validator', !isValidator(ctx, p.author))) return fail('prepare-not-validator', `prepare from non-validator ${p.author}`);
    if (breaks(ctx, 'prepare-wrong-round', p.payload.sequence !== ctx.height || p.payload.round !== round)) return fail('prepare-wrong-round', 'piggy-backed prepare for the wrong round');
    if (breaks(ctx, 'prepare-wrong-digest', bytesToHex(p.payload.digest) !== digest)) return fail('prepare-wrong-digest', 'piggy-backed prepare for another block');
  }
  return OK;
}

/** Besu's ProposalValidator for a proposal whose block already passed block validation. */
export function validateProposal(ctx: ValidationContext, message: ProposalMessage, block: ProposedBlock): Verdict {
  const { payload, author } = message.signed;
  if (payload.sequence !== ctx.height) return fail('proposal-wrong-height', `proposal for height ${payload.sequence}, expected ${ctx.height}`);
  const proposer = expectedProposer(ctx, payload.round);
  if (breaks(ctx, 'proposal-not-proposer', author !== proposer)) return fail('proposal-not-proposer', `proposal from ${author}, proposer for round ${payload.round} is ${proposer}`);
  if (block.number !== ctx.height) return fail('proposal-block-number', `proposed block number ${block.number}, expected ${ctx.height}`);

  if (payload.round === 0) {
    if (breaks(ctx, 'proposal-round0-justification', message.roundChanges.length > 0 || message.prepares.length > 0)) return fail('proposal-round0-justification', 'round 0 proposal carries a justification');
    if (breaks(ctx, 'proposal-coinbase', block.coinbase !== author)) return fail('proposal-coinbase', 'block coinbase is not the proposer');
    return OK;
  }
  const roundChanges = validateJustificationRoundChanges(ctx, message.roundChanges, payload.round);
  if (!roundChanges.ok) return roundChanges;
  return validateJustificationPrepared(ctx, message, block);
}

/**
 * Besu's validateRoundChanges: distinct authors, a quorum of entries, one block per prepared round
 * across them, each payload, and every one targeting the proposal's round, in that order.
 */
function validateJustificationRoundChanges(ctx: ValidationContext, rcs: Signed<RoundChangePayload>[], round: number): Verdict {
  const authors = new Set(rcs.map((rc) => rc.author));
  if (breaks(ctx, 'justification-duplicate-round-change', authors.size !== rcs.length)) return fail('justification-duplicate-round-change', 'duplicate round change authors');
  const quorum = quorumSize(ctx.validators.length);
  if (breaks(ctx, 'justification-round-change-quorum', rcs.length < quorum)) return fail('justification-round-change-quorum', `only ${rcs.length} round changes, quorum ${quorum}`);
  const disagreeing = roundWithTwoPreparedBlocks(rcs);
  if (breaks(ctx, 'justification-prepared-disagree', disagreeing !== undefined)) return fail('justification-prepared-disagree', `round changes disagree on the block prepared in round ${disagreeing}`);
  for (const rc of rcs) {
    const v = validateRoundChangePayload(ctx, rc);
    if (!v.ok) return v;
  }
  const stray = rcs.find((rc) => rc.payload.round !== round);
  if (breaks(ctx, 'round-change-wrong-target', stray !== undefined)) return fail('round-change-wrong-target', `round change targets round ${stray!.payload.round}, expected ${round}`);
  return OK;
}

/** A prepared round two round changes name different blocks for (Besu's metadataIsConsistentAcrossRoundChanges). */
function roundWithTwoPreparedBlocks(rcs: Signed<RoundChangePayload>[]): number | undefined {
  const blockOfRound = new Map<number, Hex>();
  for (const rc of rcs) {
    const prepared = rc.payload.prepared;
    if (!prepared) continue;
    const hash = bytesToHex(prepared.preparedBlockHash);
    const seen = blockOfRound.get(prepared.preparedRound);
    if (seen !== undefined && seen !== hash) return prepared.preparedRound;
    blockOfRound.set(prepared.preparedRound, hash);
  }
  return undefined;
}

/** The best prepared certificate the round changes name, and the proposal's block and prepares against it. */
function validateJustificationPrepared(ctx: ValidationContext, message: ProposalMessage, block: ProposedBlock): Verdict {
  const author = message.signed.author;
  let best: RoundChangePayload['prepared'];
  for (const rc of message.roundChanges) {
    const prepared = rc.payload.prepared;
    if (prepared && (!best || prepared.preparedRound > best.preparedRound)) best = prepared;
  }
  if (!best) {
    if (breaks(ctx, 'justification-prepares-without-prepared', message.prepares.length > 0)) return fail('justification-prepares-without-prepared', 'prepares attached but no round change was prepared');
    if (breaks(ctx, 'proposal-coinbase', block.coinbase !== author)) return fail('proposal-coinbase', 'block coinbase is not the proposer');
    return OK;
  }
  const bestHash = bytesToHex(best.preparedBlockHash);
  // Besu's ProposalValidator: the block rewritten for the prepared round and that round's proposer.
  const reproposed = block.digestAsReproposed(best.preparedRound, expectedProposer(ctx, best.preparedRound));
  if (breaks(ctx, 'justification-not-best-block', reproposed !== bestHash)) return fail('justification-not-best-block', 'proposed block is not the block of the best prepared certificate');
  return validatePrepares(ctx, message.prepares, best.preparedRound, bestHash);
}

/** Besu's RoundChangeMessageValidator; `block` is the attached prepared block if it validated. */
export function validateRoundChange(
  ctx: ValidationContext,
  message: RoundChangeMessage,
  block: ProposedBlock | undefined,
  blockInvalid: boolean,
): Verdict {
  const v = validateRoundChangePayload(ctx, message.signed);
  if (!v.ok) return v;
  const prepared = message.signed.payload.prepared;
  if (message.preparedBlockRlp === undefined) {
    // Besu looks at nothing else here: prepares riding along without a block are not checked.
    if (breaks(ctx, 'round-change-metadata-without-block', prepared !== undefined)) return fail('round-change-metadata-without-block', 'prepared metadata without a block');
    return OK;
  }
  if (blockInvalid || !block) return fail('round-change-block-invalid', 'attached prepared block is invalid');
  if (!prepared) return ctx.enforced('round-change-block-without-metadata') ? fail('round-change-block-without-metadata', 'prepared block without prepared metadata') : OK;
  const hash = bytesToHex(prepared.preparedBlockHash);
  if (breaks(ctx, 'round-change-block-hash', block.digest !== hash)) return fail('round-change-block-hash', 'prepared block hash does not match the metadata');
  return validatePrepares(ctx, message.prepares, prepared.preparedRound, hash);
}
