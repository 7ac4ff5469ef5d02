/**
 * Header validation of a sealed QBFT block against its parent, on plain facts (no ethereumjs
 * objects). Rules and their order follow Besu's QbftBlockHeaderValidationRulesetFactory
 * (consensus/qbft/.../QbftBlockHeaderValidationRulesetFactory.java); the first failing rule is
 * reported.
 *
 *  ancestry         AncestryValidationRule: parentHash == parent.hash, number == parent.number + 1
 *  gasUsage         GasUsageValidationRule: gasUsed ≤ gasLimit
 *  gasLimit         GasLimitRangeAndDeltaValidationRule(5000, 2^63-1): 5000 ≤ gasLimit ≤ 2^63-1 and
 *                   |parentGasLimit − gasLimit| < parentGasLimit / 1024 (integer division, strict),
 *                   where parentGasLimit = parent.gasLimit × 2 at the London fork block itself
 *                   (BaseFeeMarket INITIAL mode, slack coefficient 2); no baseFee before London.
 *  baseFee          (ours, only when ctx.expectedBaseFee is given) baseFeePerGas == expectedBaseFee.
 *                   Besu's QBFT ruleset has no base-fee value rule; omit it for strict parity.
 *  timestampFuture  TimestampBoundedByFutureParameter(1): timestamp ≤ now + 1 (only if nowSeconds given)
 *  mixHash          ConstantFieldValidationRule("MixHash", BftHelpers.EXPECTED_MIX_HASH)
 *  difficulty       ConstantFieldValidationRule("Difficulty", 1)
 *  validators       QbftValidatorsValidationRule: header mode: extraData validators strictly ascending
 *                   and equal to validatorsAfterParent; contract mode: no validators and no vote
 *  coinbase         BftCoinbaseValidationRule: coinbase ∈ validatorsAfterParent
 *  commitSeals      BftCommitSealsValidationRule (only if checkSeals, i.e. not light validation):
 *                   every seal recovers, no duplicate signers, count ≥ quorum(n), all ∈ validators
 *  timestampParent  TimestampMoreRecentThanParent(minimum gap), only if that gap is ≥ 1 s: the gap is
 *                   xblockperiodmilliseconds when set (> 0), else blockperiodseconds
 *                   (QbftProtocolScheduleBuilder.createBlockHeaderRuleset); in whole seconds (floor):
 *                   timestamp − parent.timestamp ≥ gap. Below 1 s there is no ordering rule at all:
 *                   a child may even carry its parent's timestamp.
 */
import type { Hex } from '../crypto/bytes.ts';
import { quorumSize } from './quorum.ts';

export const EXPECTED_MIX_HASH: Hex = '0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365';
export const MIN_GAS_LIMIT = 5000n;
export const MAX_GAS_LIMIT = (1n << 63n) - 1n;
export const GAS_LIMIT_BOUND_DIVISOR = 1024n;
export const LONDON_SLACK_COEFFICIENT = 2n;
export const ALLOWED_FUTURE_SECONDS = 1;

export interface HeaderFacts {
  number: number;
  parentHash: Hex;
  hash: Hex;
  timestamp: number;
  gasLimit: bigint;
  gasUsed: bigint;
  baseFeePerGas?: bigint;
  mixHash: Hex;
  difficulty: bigint;
  coinbase: Hex;
  extraValidators: Hex[];
  vote?: { recipient: Hex; add: boolean };
  round: number;
  seals: Uint8Array[];
}

export interface HeaderContext {
  parent: HeaderFacts;
  /** Validators after the parent (validator provider of the fork active at this block). */
  validatorsAfterParent: Hex[];
  /** Contract validator-selection mode in force at this block. */
  contractMode: boolean;
  /** blockperiodseconds in force at this block. */
  blockPeriodSeconds: number;
  /** xblockperiodmilliseconds in force at this block (> 0 replaces blockPeriodSeconds in the parent-distance rule). */
  blockPeriodMilliseconds?: number;
  /** Current time, for the future-timestamp rule (≤ now + 1); omitted = rule skipped. */
  nowSeconds?: number;
  /** Block number of the London fork, if the chain has a base-fee market. Omitted = no base-fee checks. */
  londonBlock?: number;
  /** If given, baseFeePerGas must equal it (not a Besu QBFT rule). */
  expectedBaseFee?: bigint;
  /** The hash the commit seals sign: committed-seal hash of this header with `round`. */
  committedSealHash: (round: number) => Uint8Array;
  /** Recovers the sealer's address; may throw on an unrecoverable seal. */
  recoverSealer: (hash: Uint8Array, seal: Uint8Array) => Hex;
  /** Full (sealed-block import) validation; false = light validation of a proposal. */
  checkSeals: boolean;
}

export type HeaderRule =
  | 'ancestry'
  | 'gasUsage'
  | 'gasLimit'
  | 'baseFee'
  | 'timestampFuture'
  | 'mixHash'
  | 'difficulty'
  | 'validators'
  | 'coinbase'
  | 'commitSeals'
  | 'timestampParent';

export type HeaderCheck = { ok: true } | { ok: false; rule: HeaderRule; reason: string };

const OK: HeaderCheck = { ok: true };
const fail = (rule: HeaderRule, reason: string): HeaderCheck => ({ ok: false, rule, reason });
type Rule = (h: HeaderFacts, ctx: HeaderContext) => HeaderCheck;

const ancestry: Rule = (h, { parent }) => {
  if (h.parentHash !== parent.hash) return fail('ancestry', `parentHash ${h.parentHash} is not the parent's hash ${parent.hash}`);
  if (h.number !== parent.number + 1) return fail('ancestry', `number ${h.number} is not parent number ${parent.number} + 1`);
  return OK;
};

const gasUsage: Rule = (h) =>
  h.gasUsed > h.gasLimit ? fail('gasUsage', `gas used ${h.gasUsed} exceeds gas limit ${h.gasLimit}`) : OK;

const gasLimit: Rule = (h, { parent, londonBlock }) => {
  if (h.gasLimit < MIN_GAS_LIMIT || h.gasLimit > MAX_GAS_LIMIT)
    return fail('gasLimit', `gas limit ${h.gasLimit} outside ${MIN_GAS_LIMIT}..${MAX_GAS_LIMIT}`);
  const feeMarket = londonBlock !== undefined && h.number >= londonBlock;
  if (londonBlock !== undefined && !feeMarket && h.baseFeePerGas !== undefined)
    return fail('gasLimit', 'baseFee present in a block without a base fee market');
  const parentLimit = feeMarket && h.number === londonBlock ? parent.gasLimit * LONDON_SLACK_COEFFICIENT : parent.gasLimit;
  const diff = parentLimit > h.gasLimit ? parentLimit - h.gasLimit : h.gasLimit - parentLimit;
  const bound = parentLimit / GAS_LIMIT_BOUND_DIVISOR;
  if (diff >= bound) return fail('gasLimit', `gas limit delta ${diff} not below bound ${bound} (parent limit ${parentLimit})`);
  return OK;
};

const baseFee: Rule = (h, { expectedBaseFee }) => {
  if (expectedBaseFee === undefined) return OK;
  if (h.baseFeePerGas !== expectedBaseFee) return fail('baseFee', `baseFee ${h.baseFeePerGas} is not the expected ${expectedBaseFee}`);
  return OK;
};

const timestampFuture: Rule = (h, { nowSeconds }) => {
  if (nowSeconds === undefined) return OK;
  const margin = nowSeconds + ALLOWED_FUTURE_SECONDS;
  return h.timestamp > margin ? fail('timestampFuture', `timestamp ${h.timestamp} is after now + ${ALLOWED_FUTURE_SECONDS} = ${margin}`) : OK;
};

const mixHash: Rule = (h) =>
  h.mixHash.toLowerCase() !== EXPECTED_MIX_HASH ? fail('mixHash', `mixHash ${h.mixHash} is not the BFT constant`) : OK;

const difficulty: Rule = (h) => (h.difficulty !== 1n ? fail('difficulty', `difficulty ${h.difficulty} is not 1`) : OK);

const validators: Rule = (h, ctx) => {
  const listed = h.extraValidators;
  if (ctx.contractMode) {
    if (listed.length > 0) return fail('validators', `contract mode: extraData lists ${listed.length} validators, expected none`);
    if (h.vote) return fail('validators', 'contract mode: extraData carries a vote');
    return OK;
  }
  for (let i = 1; i < listed.length; i++)
    if (!(listed[i - 1] < listed[i])) return fail('validators', 'extraData validators are not in strictly ascending order');
  const expected = [...new Set(ctx.validatorsAfterParent)].sort();
  if (listed.length !== expected.length || listed.some((v, i) => v !== expected[i]))
    return fail('validators', `extraData validators [${listed.join(',')}] differ from validators after parent [${expected.join(',')}]`);
  return OK;
};

const coinbase: Rule = (h, ctx) =>
  ctx.validatorsAfterParent.includes(h.coinbase) ? OK : fail('coinbase', `coinbase ${h.coinbase} is not a validator`);

const commitSeals: Rule = (h, ctx) => {
  if (!ctx.checkSeals) return OK;
  const hash = ctx.committedSealHash(h.round);
  const signers: Hex[] = [];
  for (let i = 0; i < h.seals.length; i++) {
    try {
      signers.push(ctx.recoverSealer(hash, h.seals[i]));
    } catch (e) {
      return fail('commitSeals', `seal ${i} does not recover: ${(e as Error).message}`);
    }
  }
  const distinct = new Set(signers);
  if (distinct.size !== signers.length) return fail('commitSeals', 'duplicate seals from one signer');
  const validatorSet = new Set(ctx.validatorsAfterParent);
  const needed = quorumSize(validatorSet.size);
  if (distinct.size < needed) return fail('commitSeals', `only ${distinct.size} seals, quorum is ${needed}`);
  const stranger = signers.find((s) => !validatorSet.has(s));
  if (stranger) return fail('commitSeals', `seal by non-validator ${stranger}`);
  return OK;
};

/** The smallest parent-to-child timestamp gap in seconds; 0 = no ordering rule. */
export function minimumParentGapSeconds(blockPeriodSeconds: number, blockPeriodMilliseconds?: number): number {
  const gapMs = blockPeriodMilliseconds !== undefined && blockPeriodMilliseconds > 0 ? blockPeriodMilliseconds : blockPeriodSeconds * 1000;
  return gapMs >= 1000 ? Math.floor(gapMs / 1000) : 0;
}

const timestampParent: Rule = (h, { parent, blockPeriodSeconds, blockPeriodMilliseconds }) => {
  const minimum = minimumParentGapSeconds(blockPeriodSeconds, blockPeriodMilliseconds);
  if (minimum === 0) return OK;
  const since = h.timestamp - parent.timestamp;
  const period = blockPeriodMilliseconds ? `${blockPeriodMilliseconds}ms` : `${blockPeriodSeconds}s`;
  return since < minimum ? fail('timestampParent', `timestamp only ${since}s after parent, minimum is ${minimum}s (block period ${period})`) : OK;
};

/** Besu's order; the first failure is returned. */
export const HEADER_RULES: ReadonlyArray<readonly [HeaderRule, Rule]> = [
  ['ancestry', ancestry],
  ['gasUsage', gasUsage],
  ['gasLimit', gasLimit],
  ['baseFee', baseFee],
  ['timestampFuture', timestampFuture],
  ['mixHash', mixHash],
  ['difficulty', difficulty],
  ['validators', validators],
  ['coinbase', coinbase],
  ['commitSeals', commitSeals],
  ['timestampParent', timestampParent],
];

export function validateHeader(h: HeaderFacts, ctx: HeaderContext): HeaderCheck {
  for (const [, rule] of HEADER_RULES) {
    const r = rule(h, ctx);
    if (!r.ok) return r;
  }
  return OK;
}
