/**
 * The checkers' own reading of QBFT's message validation rules (Besu's ProposalValidator,
 * RoundChangeMessageValidator and payload validators, RoundState, and the controller's
 * known-validator check), written from the protocol, not from the node. Each judge returns the
 * first rule a message breaks, in the order Besu applies them, or undefined when it breaks none.
 * The rule names are the vocabulary the node's traces use; the rules themselves are re-derived.
 */
import { quorum, proposerFor } from './bft-math.ts';
import { commitSealHash, decodeBlock, proposalDigest, type DecodedBlock } from './block.ts';
import type { Hex } from './crypto.ts';
import type { PreparePayload, QbftMessage, RoundChangePayload, Signed } from './qbft-messages.ts';

/** Every rule the judges below can name, in Besu's order. */
export const RULE_NAMES = [
  'author-not-validator',
  'proposal-not-proposer',
  'proposal-round0-justification',
  'proposal-coinbase',
  'justification-duplicate-round-change',
  'justification-round-change-quorum',
  'justification-prepared-disagree',
  'round-change-not-validator',
  'round-change-wrong-height',
  'round-change-round-zero',
  'round-change-round-above-max',
  'round-change-prepared-round',
  'round-change-wrong-target',
  'justification-prepares-without-prepared',
  'justification-not-best-block',
  'prepare-duplicate-author',
  'prepare-quorum',
  'prepare-not-validator',
  'prepare-wrong-round',
  'prepare-wrong-digest',
  'round-change-metadata-without-block',
  'round-change-block-without-metadata',
  'round-change-block-hash',
  'prepare-not-proposal',
  'commit-not-proposal',
  'commit-seal-not-author',
] as const;

export type RuleName = (typeof RULE_NAMES)[number];

/** Besu's cap on a round change's target round (the fix of GHSA-23rh-...: rounds above it are refused). */
export const MAX_ROUND_CHANGE_ROUND = 1000;

export interface Broken {
  rule: RuleName;
  reason: string;
}

/** What a node knew when it judged: its height and the validators and previous proposer for it. */
export interface JudgeContext {
  height: number;
  validators: readonly Hex[];
  parentCoinbase: Hex;
}

/** The proposal a node accepted for the round a PREPARE or COMMIT names. */
export interface RoundProposal {
  /** The digest prepares and commits must name. */
  digest: Hex;
  /** What commit seals sign: the block's committed-seal hash for the round. */
  sealHash: Hex;
}

const broken = (rule: RuleName, reason: string): Broken => ({ rule, reason });

function isValidator(ctx: JudgeContext, a: Hex | undefined): boolean {
  return a !== undefined && ctx.validators.includes(a);
}

const proposer = (ctx: JudgeContext, round: number): Hex => proposerFor(ctx.validators, ctx.parentCoinbase, round);

function roundChangePayload(ctx: JudgeContext, rc: Signed<RoundChangePayload>): Broken | undefined {
  const p = rc.payload;
  if (!isValidator(ctx, rc.signer)) return broken('round-change-not-validator', `a round change signed by ${rc.signer ?? 'nobody'}, not a validator`);
  if (p.height !== ctx.height) return broken('round-change-wrong-height', `a round change for height ${p.height}`);
  if (p.round === 0) return broken('round-change-round-zero', 'a round change to round 0');
  if (p.round > MAX_ROUND_CHANGE_ROUND) return broken('round-change-round-above-max', `a round change to round ${p.round}, above ${MAX_ROUND_CHANGE_ROUND}`);
  if (p.prepared && p.prepared.round >= p.round) return broken('round-change-prepared-round', `prepared round ${p.prepared.round} is not below the target round ${p.round}`);
  return undefined;
}

/** Distinct signers, then enough of them, then each one's signer, round and block. */
function prepares(ctx: JudgeContext, list: readonly Signed<PreparePayload>[], round: number, digest: Hex): Broken | undefined {
  const signers = new Set(list.map((p) => p.signer));
  if (signers.size !== list.length) return broken('prepare-duplicate-author', 'two prepares with one signer');
  const need = quorum(ctx.validators.length);
  if (list.length < need) return broken('prepare-quorum', `${list.length} prepares, quorum is ${need}`);
  for (const p of list) {
    if (!isValidator(ctx, p.signer)) return broken('prepare-not-validator', `a prepare signed by ${p.signer ?? 'nobody'}, not a validator`);
    if (p.payload.height !== ctx.height || p.payload.round !== round) return broken('prepare-wrong-round', `a prepare for ${p.payload.height}/${p.payload.round}, the certificate is for ${ctx.height}/${round}`);
    if (p.payload.digest !== digest) return broken('prepare-wrong-digest', `a prepare for block ${p.payload.digest}, the certificate names ${digest}`);
  }
  return undefined;
}

function decodedBlock(rlp: Uint8Array): DecodedBlock | undefined {
  try {
    const block = decodeBlock(rlp);
    return 'error' in block.extra ? undefined : block;
  } catch {
    return undefined;
  }
}

type ProposalMessage = Extract<QbftMessage, { kind: 'proposal' }>;
type RoundChangeMessage = Extract<QbftMessage, { kind: 'round-change' }>;

/** A PROPOSAL whose block the node found valid (block validity is not judged here); null when its block does not decode. */
export function judgeProposal(ctx: JudgeContext, m: ProposalMessage): Broken | undefined | null {
  const author = m.signed.signer;
  if (!isValidator(ctx, author)) return broken('author-not-validator', `signed by ${author ?? 'nobody'}, not a validator`);
  const round = m.signed.payload.round;
  const want = proposer(ctx, round);
  if (author !== want) return broken('proposal-not-proposer', `proposed by ${author}, the proposer of round ${round} is ${want}`);
  const block = decodedBlock(m.signed.payload.blockRlp);
  if (!block) return null;
  if (round === 0) {
    if (m.roundChanges.length > 0 || m.prepares.length > 0) return broken('proposal-round0-justification', 'a round-0 proposal with a justification');
    if (block.coinbase !== author) return broken('proposal-coinbase', `block coinbase ${block.coinbase} is not the proposer`);
    return undefined;
  }
  return justificationRoundChanges(ctx, m, round) ?? justificationPrepared(ctx, m, block, author);
}

/** Distinct signers, enough of them, one block per prepared round, each payload, and all for the proposal's round. */
function justificationRoundChanges(ctx: JudgeContext, m: ProposalMessage, round: number): Broken | undefined {
  const rcs = m.roundChanges;
  if (new Set(rcs.map((rc) => rc.signer)).size !== rcs.length) return broken('justification-duplicate-round-change', 'two round changes with one signer');
  const need = quorum(ctx.validators.length);
  if (rcs.length < need) return broken('justification-round-change-quorum', `${rcs.length} round changes, quorum is ${need}`);
  const blockOfRound = new Map<number, Hex>();
  for (const rc of rcs) {
    const prepared = rc.payload.prepared;
    if (!prepared) continue;
    const known = blockOfRound.get(prepared.round);
    if (known !== undefined && known !== prepared.digest) return broken('justification-prepared-disagree', `two round changes name different blocks prepared in round ${prepared.round}`);
    blockOfRound.set(prepared.round, prepared.digest);
  }
  for (const rc of rcs) {
    const bad = roundChangePayload(ctx, rc);
    if (bad) return bad;
  }
  const stray = rcs.find((rc) => rc.payload.round !== round);
  if (stray) return broken('round-change-wrong-target', `a round change to round ${stray.payload.round} justifying round ${round}`);
  return undefined;
}

function justificationPrepared(ctx: JudgeContext, m: ProposalMessage, block: DecodedBlock, author: Hex | undefined): Broken | undefined {
  let best: { round: number; digest: Hex } | undefined;
  for (const rc of m.roundChanges) {
    const prepared = rc.payload.prepared;
    if (prepared && (!best || prepared.round > best.round)) best = prepared;
  }
  if (!best) {
    if (m.prepares.length > 0) return broken('justification-prepares-without-prepared', 'prepares attached, but no round change says it prepared');
    if (block.coinbase !== author) return broken('proposal-coinbase', `block coinbase ${block.coinbase} is not the proposer`);
    return undefined;
  }
  if (commitSealHash(block, best.round) !== best.digest) return broken('justification-not-best-block', `the block is not the one prepared in round ${best.round} (${best.digest})`);
  return prepares(ctx, m.prepares, best.round, best.digest);
}

/** A ROUND-CHANGE whose attached block (if any) the node found valid; null when that block does not decode. */
export function judgeRoundChange(ctx: JudgeContext, m: RoundChangeMessage): Broken | undefined | null {
  if (!isValidator(ctx, m.signed.signer)) return broken('author-not-validator', `signed by ${m.signed.signer ?? 'nobody'}, not a validator`);
  const bad = roundChangePayload(ctx, m.signed);
  if (bad) return bad;
  const prepared = m.signed.payload.prepared;
  if (m.preparedBlockRlp === undefined) return prepared ? broken('round-change-metadata-without-block', 'prepared metadata without a block') : undefined;
  if (!prepared) return broken('round-change-block-without-metadata', 'a prepared block without prepared metadata');
  const block = decodedBlock(m.preparedBlockRlp);
  if (!block) return null;
  const digest = proposalDigest(block);
  if (digest !== prepared.digest) return broken('round-change-block-hash', `the attached block is ${digest}, the metadata names ${prepared.digest}`);
  return prepares(ctx, m.prepares, prepared.round, prepared.digest);
}

/** A PREPARE or COMMIT for a round whose proposal the node accepted. */
export function judgeVote(ctx: JudgeContext, m: Extract<QbftMessage, { kind: 'prepare' | 'commit' }>, proposal: RoundProposal, sealSigner: (seal: Uint8Array, hash: Hex) => Hex | undefined): Broken | undefined {
  const author = m.signed.signer;
  if (!isValidator(ctx, author)) return broken('author-not-validator', `signed by ${author ?? 'nobody'}, not a validator`);
  if (m.kind === 'prepare') return m.signed.payload.digest === proposal.digest ? undefined : broken('prepare-not-proposal', `a prepare for ${m.signed.payload.digest}, the round's proposal is ${proposal.digest}`);
  if (m.signed.payload.digest !== proposal.digest) return broken('commit-not-proposal', `a commit for ${m.signed.payload.digest}, the round's proposal is ${proposal.digest}`);
  const sealer = sealSigner(m.signed.payload.seal, proposal.sealHash);
  if (sealer !== author) return broken('commit-seal-not-author', `the commit seal is signed by ${sealer ?? 'nobody'}, the commit by ${author}`);
  return undefined;
}

/** The proposal a PREPARE or COMMIT of `round` is judged against, read from the proposal's block. */
export function roundProposalOf(blockRlp: Uint8Array, round: number): RoundProposal | undefined {
  const block = decodedBlock(blockRlp);
  return block ? { digest: proposalDigest(block), sealHash: commitSealHash(block, round) } : undefined;
}
