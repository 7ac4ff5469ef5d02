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
import type { BugSwitches } from '../../bugs/bug-switches.ts';

export type Verdict = { ok: true } | { ok: false; reason: string };

const OK: Verdict = { ok: true };
const fail = (reason: string): Verdict => ({ ok: false, reason });

export interface ValidationContext {
  height: number;
  validators: Hex[];
  parentCoinbase: Hex;
  /** Highest round a round change may target (Besu's MAX_ALLOWED_ROUND). */
  maxRound: number;
  bugs: BugSwitches;
}

function isValidator(ctx: ValidationContext, a: Hex): boolean {
  return ctx.validators.includes(a);
}

export function expectedProposer(ctx: ValidationContext, round: number): Hex {
  return selectProposer(ctx.validators, ctx.parentCoinbase, round);
}

function validateRoundChangePayload(ctx: ValidationContext, rc: Signed<RoundChangePayload>, targetRound?: number): Verdict {
  const p = rc.payload;
  if (!isValidator(ctx, rc.author)) return fail(`round change from non-validator ${rc.author}`);
  if (p.sequence !== ctx.height) return fail(`round change for height ${p.sequence}, expected ${ctx.height}`);
  if (p.round <= 0) return fail('round change targets round 0');
  // ghsa-23rh: before Besu capped it, any positive target round was valid.
  if (p.round > ctx.maxRound && !ctx.bugs.has('ghsa-23rh')) return fail(`round change targets round ${p.round}, above ${ctx.maxRound}`);
  if (targetRound !== undefined && p.round !== targetRound) return fail(`round change targets round ${p.round}, expected ${targetRound}`);
  if (p.prepared && (p.prepared.preparedRound < 0 || p.prepared.preparedRound >= p.round))
    return fail(`prepared round ${p.prepared.preparedRound} not below target ${p.round}`);
  return OK;
}

function validatePrepares(
  ctx: ValidationContext,
  prepares: Signed<PreparePayload>[],
  round: number,
  digest: Hex,
): Verdict {
  const authors = new Set<Hex>();
  // besu-1671: the certificate's prepares were counted, not their distinct authors.
  const countMessages = ctx.bugs.has('besu-1671');
  let counted = 0;
  for (const p of prepares) {
    if (authors.has(p.author) && !countMessages) return fail(`duplicate prepare from ${p.author}`);
    authors.add(p.author);
    counted++;
    if (!isValidator(ctx, p.author)) return fail(`prepare from non-validator ${p.author}`);
    if (p.payload.sequence !== ctx.height || p.payload.round !== round) return fail('piggy-backed prepare for the wrong round');
    if (bytesToHex(p.payload.digest) !== digest) return fail('piggy-backed prepare for another block');
  }
  const size = countMessages ? counted : authors.size;
  if (size < quorumSize(ctx.validators.length)) return fail(`only ${size} prepares, quorum ${quorumSize(ctx.validators.length)}`);
  return OK;
}

/** Besu's ProposalValidator for a proposal whose block already passed block validation. */
export function validateProposal(ctx: ValidationContext, message: ProposalMessage, block: ProposedBlock): Verdict {
  const { payload, author } = message.signed;
  if (payload.sequence !== ctx.height) return fail(`proposal for height ${payload.sequence}, expected ${ctx.height}`);
  const proposer = expectedProposer(ctx, payload.round);
  if (author !== proposer) return fail(`proposal from ${author}, proposer for round ${payload.round} is ${proposer}`);
  if (block.number !== ctx.height) return fail(`proposed block number ${block.number}, expected ${ctx.height}`);

  if (payload.round === 0) {
    if (message.roundChanges.length > 0 || message.prepares.length > 0) return fail('round 0 proposal carries a justification');
    if (block.coinbase !== author) return fail('block coinbase is not the proposer');
    return OK;
  }

  const rcs = message.roundChanges;
  const rcAuthors = new Set<Hex>();
  for (const rc of rcs) {
    if (rcAuthors.has(rc.author)) return fail(`duplicate round change from ${rc.author}`);
    rcAuthors.add(rc.author);
    const v = validateRoundChangePayload(ctx, rc, payload.round);
    if (!v.ok) return v;
  }
  if (rcAuthors.size < quorumSize(ctx.validators.length)) return fail(`only ${rcAuthors.size} round changes, quorum ${quorumSize(ctx.validators.length)}`);

  const byPreparedRound = new Map<number, Hex>();
  let best: RoundChangePayload['prepared'];
  for (const rc of rcs) {
    const prepared = rc.payload.prepared;
    if (!prepared) continue;
    const hash = bytesToHex(prepared.preparedBlockHash);
    const seen = byPreparedRound.get(prepared.preparedRound);
    if (seen !== undefined && seen !== hash) return fail(`round changes disagree on the block prepared in round ${prepared.preparedRound}`);
    byPreparedRound.set(prepared.preparedRound, hash);
    if (!best || prepared.preparedRound > best.preparedRound) best = prepared;
  }

  if (!best) {
    if (message.prepares.length > 0) return fail('prepares attached but no round change was prepared');
    if (block.coinbase !== author) return fail('block coinbase is not the proposer');
    return OK;
  }
  const bestHash = bytesToHex(best.preparedBlockHash);
  // Besu's ProposalValidator: the block rewritten for the prepared round and that round's proposer.
  if (block.digestAsReproposed(best.preparedRound, expectedProposer(ctx, best.preparedRound)) !== bestHash) return fail('proposed block is not the block of the best prepared certificate');
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
    return prepared ? fail('prepared metadata without a block') : OK;
  }
  if (blockInvalid || !block) return fail('attached prepared block is invalid');
  if (!prepared) return fail('prepared block without prepared metadata');
  const hash = bytesToHex(prepared.preparedBlockHash);
  if (block.digest !== hash) return fail('prepared block hash does not match the metadata');
  return validatePrepares(ctx, message.prepares, prepared.preparedRound, hash);
}
