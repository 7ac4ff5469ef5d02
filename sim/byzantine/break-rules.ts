/**
 * Breaks every QBFT validation rule (node/consensus/qbft/rules.ts), one hostile message per rule:
 * each is built so that the first check it fails, in the order an honest node checks, is the rule
 * it targets (with that rule switched off, the node rejects it under a later rule or accepts it).
 * Every one is invalid, so honest nodes reject them all and the cluster stays live and safe.
 * Hostile messages go out before the message that carries them, at most two per message (four with an own proposal above round 0):
 * - own round-0 PROPOSAL: a copy with a justification, a copy whose block names another coinbase;
 * - own PREPARE: a prepare for another digest, a prepare signed by a non-validator key, or a
 *   proposal for a later round: from a non-proposer, or as that round's proposer over a
 *   justification that breaks one rule (a duplicate, too few, two blocks for one prepared round;
 *   or, filled up to a quorum with round changes of keys no validator holds, a first round change
 *   that is a non-validator's, for another height, round 0, above the cap, or with a prepared round
 *   not below the target);
 * - own COMMIT: a commit for another digest, a commit sealed by a non-validator key, or a
 *   ROUND-CHANGE (round 0, above the cap, prepared round not below its target, or for the next
 *   round with a prepared certificate built from the round's genuine prepares that breaks one
 *   rule: metadata without block, block without metadata, a block of another digest, a duplicate
 *   prepare, a non-validator's, one for another round or digest, too few);
 * - own ROUND-CHANGE: tampered round changes as for a COMMIT, from its own certificate;
 * - own PROPOSAL above round 0, over its quorum of genuine round changes (only after round
 *   changes, when this node is the proposer): one more round change for the next round, prepares
 *   with no prepared round change, a block that is not the best prepared one, or a fresh block with
 *   another coinbase.
 * Blocks with another coinbase stay valid only while the coinbase earns nothing (no block reward,
 * no priority fees); otherwise honest nodes reject them as proposal-block-invalid.
 */
import { bytesToHex, hexToBytes, type Hex } from '../../node/crypto/bytes.ts';
import { keccak256 } from '../../node/crypto/keccak.ts';
import { blockFromRlp, committedSealHash, extraDataOf } from '../../node/chain/block-hashing.ts';
import {
  encodeMessage,
  messageCode,
  MessageCode,
  signPayload,
  type CommitMessage,
  type PreparedMetadata,
  type PreparePayload,
  type PrepareMessage,
  type ProposalMessage,
  type QbftMessage,
  type RoundChangeMessage,
  type RoundChangePayload,
  type Signed,
} from '../../node/consensus/qbft/messages.ts';
import { quorumSize } from '../../node/consensus/qbft/quorum.ts';
import type { ValidationRule } from '../../node/consensus/qbft/rules.ts';
import { signRemembered } from '../../node/consensus/qbft/signer-cache.ts';
import type { WireMessage } from '../../node/runtime/ports.ts';
import { FORGER_KEY, forgerKey, istanbul, variantBlock, type Behaviour, type ByzantineKit, type Outgoing, type Plan } from './kit.ts';

/** One above Besu's MAX_ALLOWED_ROUND. */
export const ROUND_ABOVE_MAX = 1001;
/** Hostile messages per own message (all four for an own proposal above round 0, which is rare). */
export const BREAK_RULES_PER_SEND = 2;

/** Rules broken by what goes out with an own PREPARE. */
export const ON_PREPARE = [
  'prepare-not-proposal',
  'author-not-validator',
  'proposal-not-proposer',
  'justification-duplicate-round-change',
  'justification-round-change-quorum',
  'justification-prepared-disagree',
  'round-change-not-validator',
  'round-change-wrong-height',
  'round-change-round-zero',
  'round-change-round-above-max',
  'round-change-prepared-round',
] as const satisfies readonly ValidationRule[];

/** Rules broken by a ROUND-CHANGE of its own (sent with an own COMMIT or ROUND-CHANGE). */
export const ON_ROUND_CHANGE = [
  'round-change-round-zero',
  'round-change-round-above-max',
  'round-change-prepared-round',
  'round-change-metadata-without-block',
  'round-change-block-without-metadata',
  'round-change-block-hash',
  'prepare-duplicate-author',
  'prepare-not-validator',
  'prepare-wrong-round',
  'prepare-wrong-digest',
  'prepare-quorum',
] as const satisfies readonly ValidationRule[];

/** The round-change rules that need no prepared certificate to break. */
const WITHOUT_CERTIFICATE = ['round-change-round-zero', 'round-change-round-above-max', 'round-change-prepared-round', 'round-change-metadata-without-block'] as const;

export const ON_COMMIT = ['commit-not-proposal', 'commit-seal-not-author', ...ON_ROUND_CHANGE] as const satisfies readonly ValidationRule[];

export const ON_ROUND_ZERO_PROPOSAL = ['proposal-round0-justification', 'proposal-coinbase'] as const satisfies readonly ValidationRule[];

/** Rules broken by a copy of an own proposal above round 0 (they need its genuine round changes). */
export const OPPORTUNISTIC = ['round-change-wrong-target', 'justification-prepares-without-prepared', 'justification-not-best-block', 'proposal-coinbase'] as const satisfies readonly ValidationRule[];

type PrepareRule = (typeof ON_PREPARE)[number];
type RoundChangeRule = (typeof ON_ROUND_CHANGE)[number];
type CommitRule = (typeof ON_COMMIT)[number];
type OpportunisticRule = (typeof OPPORTUNISTIC)[number];

export interface HostileMessage {
  rule: ValidationRule;
  message: WireMessage;
}

// ---- blocks, signing ----

interface BlockFacts {
  digest: Hex;
  coinbase: Hex;
  /** The height's validators from the block's extraData, sorted as proposer selection sorts them (none in contract mode). */
  validators: Hex[];
}

const factsByBlock = new WeakMap<Uint8Array, BlockFacts>();

function factsOf(kit: ByzantineKit, blockRlp: Uint8Array): BlockFacts {
  let facts = factsByBlock.get(blockRlp);
  if (!facts) {
    const header = blockFromRlp(blockRlp, kit.common).header;
    const validators = [...extraDataOf(header).validators].sort();
    facts = { digest: bytesToHex(committedSealHash(header)), coinbase: header.coinbase.toString().toLowerCase() as Hex, validators };
    factsByBlock.set(blockRlp, facts);
  }
  return facts;
}

/** A digest no block has, the same for the same arguments. */
const madeUp = (...parts: number[]): Uint8Array => keccak256(new TextEncoder().encode(`break-rules/${parts.join('/')}`));

const wire = (kit: ByzantineKit, m: QbftMessage): WireMessage => istanbul(messageCode(m), encodeMessage(m, kit.layout));

function roundChangePayload(key: Uint8Array, sequence: number, round: number, prepared?: PreparedMetadata): Signed<RoundChangePayload> {
  return signPayload({ kind: 'roundChange', sequence, round, prepared }, key);
}

function preparePayload(key: Uint8Array, sequence: number, round: number, digest: Uint8Array): Signed<PreparePayload> {
  return signPayload({ kind: 'prepare', sequence, round, digest }, key);
}

function proposal(kit: ByzantineKit, sequence: number, round: number, blockRlp: Uint8Array, roundChanges: Signed<RoundChangePayload>[], prepares: Signed<PreparePayload>[] = []): WireMessage {
  const signed = signPayload({ kind: 'proposal', sequence, round, blockRlp }, kit.privateKey, kit.layout);
  return wire(kit, { kind: 'proposal', signed, roundChanges, prepares });
}

// ---- the round a vote is cast in ----

interface Vote {
  sequence: number;
  round: number;
  digest: Uint8Array;
  /** The proposal voted for, when this node saw it. */
  proposal?: { blockRlp: Uint8Array; author: Hex; facts: BlockFacts };
}

function voteOf(kit: ByzantineKit, m: PrepareMessage | CommitMessage): Vote {
  const { sequence, round, digest } = m.signed.payload;
  const hex = bytesToHex(digest);
  const seen = kit.memory.proposalsAt(sequence, round).find((p) => factsOf(kit, p.blockRlp).digest === hex);
  return { sequence, round, digest, proposal: seen && { blockRlp: seen.blockRlp, author: seen.author, facts: factsOf(kit, seen.blockRlp) } };
}

/**
 * Proposers rotate one validator per round (proposer-selection.ts): from the proposer of the vote's
 * round, the next round above it this node proposes, and one it does not.
 */
function laterRounds(kit: ByzantineKit, vote: Vote): { own: number; other: number } | undefined {
  if (!vote.proposal) return undefined;
  const validators = vote.proposal.facts.validators;
  const n = validators.length;
  const from = validators.indexOf(vote.proposal.author);
  const to = validators.indexOf(kit.own);
  if (n < 2 || from < 0 || to < 0) return undefined;
  const steps = (to - from + n) % n || n;
  return { own: vote.round + steps, other: vote.round + (steps === 1 ? 2 : 1) };
}

// ---- with an own PREPARE ----

/**
 * A justification that breaks `rule` for a proposal of `round`. The list is checked as a whole first
 * (distinct authors, a quorum of entries, one block per prepared round), so round changes signed by
 * keys no validator holds fill it up to a quorum after the one that breaks the rule.
 */
function brokenJustification(kit: ByzantineKit, rule: PrepareRule, sequence: number, round: number, digest: Uint8Array, quorum: number): Signed<RoundChangePayload>[] | undefined {
  const own = (s: number, r: number, prepared?: PreparedMetadata) => roundChangePayload(kit.privateKey, s, r, prepared);
  const filled = (first: Signed<RoundChangePayload>) => [first, ...Array.from({ length: quorum - 1 }, (_, i) => roundChangePayload(forgerKey(i + 1), sequence, round))];
  switch (rule) {
    case 'justification-duplicate-round-change': {
      const rc = own(sequence, round);
      return [rc, rc];
    }
    case 'justification-round-change-quorum':
      return quorum > 1 ? [own(sequence, round)] : undefined;
    case 'justification-prepared-disagree': {
      const [first, second, ...rest] = filled(own(sequence, round, { preparedRound: round - 1, preparedBlockHash: digest }));
      if (!second) return undefined;
      const other = roundChangePayload(forgerKey(1), sequence, round, { preparedRound: round - 1, preparedBlockHash: madeUp(sequence, round - 1) });
      return [first!, other, ...rest];
    }
    case 'round-change-not-validator':
      return filled(roundChangePayload(FORGER_KEY, sequence, round));
    case 'round-change-wrong-height':
      return filled(own(sequence + 1, round));
    case 'round-change-round-zero':
      return filled(own(sequence, 0));
    case 'round-change-round-above-max':
      return filled(own(sequence, ROUND_ABOVE_MAX));
    case 'round-change-prepared-round':
      return filled(own(sequence, round, { preparedRound: round, preparedBlockHash: digest }));
    default:
      return undefined;
  }
}

function onPrepare(kit: ByzantineKit, rule: PrepareRule, vote: Vote): WireMessage | undefined {
  const { sequence, round, digest } = vote;
  if (rule === 'prepare-not-proposal') return wire(kit, { kind: 'prepare', signed: preparePayload(kit.privateKey, sequence, round, madeUp(sequence, round)) });
  if (rule === 'author-not-validator') return wire(kit, { kind: 'prepare', signed: preparePayload(FORGER_KEY, sequence, round, digest) });
  const rounds = laterRounds(kit, vote);
  if (!rounds || !vote.proposal) return undefined;
  if (rule === 'proposal-not-proposer') return proposal(kit, sequence, rounds.other, vote.proposal.blockRlp, []);
  const quorum = quorumOf(vote.proposal.facts);
  const justification = quorum === undefined ? undefined : brokenJustification(kit, rule, sequence, rounds.own, digest, quorum);
  return justification && proposal(kit, sequence, rounds.own, vote.proposal.blockRlp, justification);
}

// ---- ROUND-CHANGEs of its own, with an own COMMIT or ROUND-CHANGE ----

/** A prepared certificate this node holds genuinely. */
interface Certificate {
  round: number;
  digest: Uint8Array;
  blockRlp: Uint8Array;
  prepares: Signed<PreparePayload>[];
  /** Undefined when the validators are unknown (contract mode). */
  quorum: number | undefined;
}

function certificateOfVote(kit: ByzantineKit, vote: Vote): Certificate | undefined {
  if (!vote.proposal) return undefined;
  const { sequence, round, digest } = vote;
  // The node may send its commit before its own prepare: its prepare is signed here again (the same bytes).
  const others = kit.memory.preparesFor(sequence, round, bytesToHex(digest)).filter((p) => p.author !== kit.own);
  const prepares = [...others, preparePayload(kit.privateKey, sequence, round, digest)];
  return { round, digest, blockRlp: vote.proposal.blockRlp, prepares, quorum: quorumOf(vote.proposal.facts) };
}

function certificateOfRoundChange(kit: ByzantineKit, rc: RoundChangeMessage): Certificate | undefined {
  const prepared = rc.signed.payload.prepared;
  if (!prepared || !rc.preparedBlockRlp) return undefined;
  return { round: prepared.preparedRound, digest: prepared.preparedBlockHash, blockRlp: rc.preparedBlockRlp, prepares: rc.prepares, quorum: quorumOf(factsOf(kit, rc.preparedBlockRlp)) };
}

const quorumOf = (facts: BlockFacts): number | undefined => (facts.validators.length > 0 ? quorumSize(facts.validators.length) : undefined);

/** A ROUND-CHANGE of this node for `target` (or another round) that breaks `rule`. */
function brokenRoundChange(kit: ByzantineKit, rule: RoundChangeRule, sequence: number, target: number, cert: Certificate | undefined): WireMessage | undefined {
  const rc = (round: number, prepared?: PreparedMetadata, preparedBlockRlp?: Uint8Array, prepares: Signed<PreparePayload>[] = []) =>
    wire(kit, { kind: 'roundChange', signed: roundChangePayload(kit.privateKey, sequence, round, prepared), preparedBlockRlp, prepares });
  const claimed = cert && { preparedRound: cert.round, preparedBlockHash: cert.digest };
  switch (rule) {
    case 'round-change-round-zero':
      return rc(0);
    case 'round-change-round-above-max':
      return rc(ROUND_ABOVE_MAX);
    case 'round-change-prepared-round': {
      if (!cert) return rc(target, { preparedRound: target, preparedBlockHash: madeUp(sequence, target) });
      // At a prepared round above 0 the certificate is genuine for a round change to that same round.
      const round = Math.max(cert.round, 1);
      return rc(round, { preparedRound: round, preparedBlockHash: cert.digest }, cert.blockRlp, cert.prepares);
    }
    case 'round-change-metadata-without-block':
      return rc(target, claimed ?? { preparedRound: target - 1, preparedBlockHash: madeUp(sequence, target - 1) });
  }
  if (!cert || !claimed) return undefined;
  const ownless = cert.prepares.filter((p) => p.author !== kit.own);
  switch (rule) {
    case 'round-change-block-without-metadata':
      return rc(target, undefined, cert.blockRlp, cert.prepares);
    case 'round-change-block-hash':
      return rc(target, claimed, variantBlock(cert.blockRlp, kit.common), cert.prepares);
    case 'prepare-duplicate-author':
      return rc(target, claimed, cert.blockRlp, [...cert.prepares, cert.prepares[0]]);
    case 'prepare-not-validator':
      return rc(target, claimed, cert.blockRlp, [preparePayload(FORGER_KEY, sequence, cert.round, cert.digest), ...cert.prepares]);
    case 'prepare-wrong-round':
      return rc(target, claimed, cert.blockRlp, [preparePayload(kit.privateKey, sequence, cert.round + 1, cert.digest), ...ownless]);
    case 'prepare-wrong-digest':
      return rc(target, claimed, cert.blockRlp, [preparePayload(kit.privateKey, sequence, cert.round, madeUp(sequence, cert.round)), ...ownless]);
    case 'prepare-quorum':
      return cert.quorum === undefined ? undefined : rc(target, claimed, cert.blockRlp, cert.prepares.slice(0, cert.quorum - 1));
    default:
      return undefined;
  }
}

function onCommit(kit: ByzantineKit, rule: CommitRule, m: CommitMessage, vote: Vote, cert: () => Certificate | undefined): WireMessage | undefined {
  const { sequence, round, digest, commitSeal } = m.signed.payload;
  const commit = (d: Uint8Array, seal: Uint8Array) => wire(kit, { kind: 'commit', signed: signPayload({ kind: 'commit', sequence, round, digest: d, commitSeal: seal }, kit.privateKey) });
  if (rule === 'commit-not-proposal') return commit(madeUp(sequence, round), commitSeal);
  if (rule === 'commit-seal-not-author') return commit(digest, signRemembered(digest, FORGER_KEY));
  return brokenRoundChange(kit, rule, sequence, vote.round + 1, cert());
}

// ---- own proposals ----

function onRoundZeroProposal(kit: ByzantineKit, m: ProposalMessage, rule: (typeof ON_ROUND_ZERO_PROPOSAL)[number]): WireMessage | undefined {
  const { sequence, blockRlp } = m.signed.payload;
  if (rule === 'proposal-round0-justification') return wire(kit, { ...m, roundChanges: [roundChangePayload(kit.privateKey, sequence, 1)] });
  const block = withOtherCoinbase(kit, blockRlp, factsOf(kit, blockRlp));
  return block && proposal(kit, sequence, 0, block, []);
}

const otherValidator = (kit: ByzantineKit, facts: BlockFacts): Hex | undefined => facts.validators.find((v) => v !== kit.own);

/** Round changes for a proposal's round from other authors: those of its justification first, then others seen, valid as payloads. */
function othersRoundChanges(kit: ByzantineKit, m: ProposalMessage, validators: Hex[]): Signed<RoundChangePayload>[] {
  const { sequence, round } = m.signed.payload;
  const byAuthor = new Map<Hex, Signed<RoundChangePayload>>();
  const fits = (rc: Signed<RoundChangePayload>) => rc.author !== kit.own && validators.includes(rc.author) && (rc.payload.prepared?.preparedRound ?? -1) < round;
  for (const rc of [...m.roundChanges, ...kit.memory.roundChangesFor(sequence, round)]) if (fits(rc) && !byAuthor.has(rc.author)) byAuthor.set(rc.author, rc);
  return [...byAuthor.values()];
}

/** A copy of an own proposal above round 0 that keeps a quorum of round changes and breaks `rule` after them. */
function overQuorum(kit: ByzantineKit, m: ProposalMessage, rule: OpportunisticRule): WireMessage | undefined {
  const { sequence, round, blockRlp } = m.signed.payload;
  const facts = factsOf(kit, blockRlp);
  if (facts.validators.length === 0) return undefined;
  const quorum = quorumSize(facts.validators.length);
  const justified = m.roundChanges.filter((rc) => rc.author !== kit.own);
  const preparedOne = justified.find((rc) => rc.payload.prepared);
  const ownRc = (prepared?: PreparedMetadata) => roundChangePayload(kit.privateKey, sequence, round, prepared);
  switch (rule) {
    case 'round-change-wrong-target':
      // Every payload valid, one of them for the next round.
      return justified.length >= quorum - 1 ? proposal(kit, sequence, round, blockRlp, [...justified, roundChangePayload(kit.privateKey, sequence, round + 1)], m.prepares) : undefined;
    case 'justification-prepares-without-prepared': {
      const unprepared = othersRoundChanges(kit, m, facts.validators).filter((rc) => !rc.payload.prepared);
      if (unprepared.length < quorum - 1) return undefined;
      const prepares = [preparePayload(kit.privateKey, sequence, round, hexToBytes(facts.digest))];
      return proposal(kit, sequence, round, blockRlp, [...unprepared.slice(0, quorum - 1), ownRc()], prepares);
    }
    case 'justification-not-best-block':
      if (preparedOne) return proposal(kit, sequence, round, variantBlock(blockRlp, kit.common), m.roundChanges, m.prepares);
      return proposal(kit, sequence, round, blockRlp, [...justified, ownRc({ preparedRound: round - 1, preparedBlockHash: madeUp(sequence, round - 1) })]);
    case 'proposal-coinbase': {
      if (m.roundChanges.some((rc) => rc.payload.prepared) || m.prepares.length > 0) return undefined;
      const block = othersBlock(kit, sequence, round, facts.validators) ?? withOtherCoinbase(kit, blockRlp, facts);
      return block && proposal(kit, sequence, round, block, m.roundChanges);
    }
  }
}

/** Another validator's block of an earlier round at this height, moved to `round`: valid whatever its coinbase earned. */
function othersBlock(kit: ByzantineKit, sequence: number, round: number, validators: Hex[]): Uint8Array | undefined {
  for (let r = round - 1; r >= 0; r--) {
    const seen = kit.memory.proposalsAt(sequence, r).find((p) => {
      const coinbase = factsOf(kit, p.blockRlp).coinbase;
      return coinbase !== kit.own && validators.includes(coinbase);
    });
    if (seen) return variantBlock(seen.blockRlp, kit.common, { round, flip: false });
  }
  return undefined;
}

/** The block with another validator as coinbase: still valid only while the coinbase earns nothing in it. */
function withOtherCoinbase(kit: ByzantineKit, blockRlp: Uint8Array, facts: BlockFacts): Uint8Array | undefined {
  const other = otherValidator(kit, facts);
  return other && variantBlock(blockRlp, kit.common, { coinbase: other, flip: false });
}

// ---- the plan ----

/** Up to `most` rules of `list`, in turn from the next one, whose message could be built. */
function inTurn<R extends ValidationRule>(kit: ByzantineKit, key: string, list: readonly R[], salt: number, build: (rule: R) => WireMessage | undefined, most = BREAK_RULES_PER_SEND): HostileMessage[] {
  const start = kit.turn(`break-rules:${key}`, salt);
  const out: HostileMessage[] = [];
  for (let i = 0; i < list.length && out.length < most; i++) {
    const rule = list[(start + i) % list.length];
    const message = build(rule);
    if (message) out.push({ rule, message });
  }
  return out;
}

/** The hostile messages to send before an outgoing message (none for messages the node relays). */
export function hostileMessages(kit: ByzantineKit, out: Outgoing): HostileMessage[] {
  const m = out.own ? out.decoded() : undefined;
  if (!m) return [];
  const { sequence, round } = m.signed.payload;
  const salt = sequence + round;
  switch (m.kind) {
    case 'proposal':
      if (round === 0) return inTurn(kit, 'round-zero-proposal', ON_ROUND_ZERO_PROPOSAL, salt, (rule) => onRoundZeroProposal(kit, m, rule));
      // Rare (after round changes, when this node proposes): every rule it can break goes out.
      return inTurn(kit, 'proposal', OPPORTUNISTIC, salt, (rule) => overQuorum(kit, m, rule), OPPORTUNISTIC.length);
    case 'prepare': {
      const vote = voteOf(kit, m);
      return inTurn(kit, 'prepare', ON_PREPARE, salt, (rule) => onPrepare(kit, rule, vote));
    }
    case 'commit': {
      const vote = voteOf(kit, m);
      let cert: Certificate | undefined | null = null;
      const certificate = () => (cert === null ? (cert = certificateOfVote(kit, vote)) : cert);
      return inTurn(kit, 'commit', ON_COMMIT, salt, (rule) => onCommit(kit, rule, m, vote, certificate));
    }
    case 'roundChange': {
      const cert = certificateOfRoundChange(kit, m);
      const list: readonly RoundChangeRule[] = cert ? ON_ROUND_CHANGE : WITHOUT_CERTIFICATE;
      return inTurn(kit, cert ? 'round-change' : 'round-change-unprepared', list, salt, (rule) => brokenRoundChange(kit, rule, sequence, round, cert));
    }
  }
}

/** Sends the hostile messages first, counting each (and handing each to `onHostile`: tests tie them to rejections). */
export function planBreakRules(kit: ByzantineKit, out: Outgoing, onHostile?: (h: HostileMessage) => void): Plan {
  const hostile = hostileMessages(kit, out);
  for (const h of hostile) {
    kit.act(`break-rules:${h.rule}`);
    onHostile?.(h);
  }
  return [...hostile.map((h) => h.message), istanbul(out.code, out.data)];
}

export const breakRules: Behaviour = {
  observes: [MessageCode.PROPOSAL, MessageCode.PREPARE, MessageCode.ROUND_CHANGE],
  plan: (kit, out) => planBreakRules(kit, out),
};
