/**
 * The QBFT message validation rules, by name, in the order the node applies them (Besu's
 * ProposalValidator, RoundChangeMessageValidator, their payload validators, RoundState and the
 * controller's known-validator check). Every rejection the node traces names its rule; every rule
 * has a planted switch (`plant-skip-<rule>`, node/bugs/) that turns it off, so a test or the
 * fuzzer can show the acceptance checker catches a node without it.
 * The names are trace vocabulary (a rejection event names its rule), so they sit with the trace
 * events below every part; node/consensus/qbft/rules.ts re-exports them.
 */
export const VALIDATION_RULES = [
  // Controller: a message whose signer is not a validator of its height is dropped.
  'author-not-validator',
  // Proposal payload, and a round-0 proposal's empty justification and coinbase.
  'proposal-not-proposer',
  'proposal-round0-justification',
  'proposal-coinbase',
  // A proposal's round changes as a list: distinct authors, a quorum of entries, one block per prepared round.
  'justification-duplicate-round-change',
  'justification-round-change-quorum',
  'justification-prepared-disagree',
  // Each round-change payload (in a justification or a ROUND-CHANGE of its own), then the justification's target.
  'round-change-not-validator',
  'round-change-wrong-height',
  'round-change-round-zero',
  'round-change-round-above-max',
  'round-change-prepared-round',
  'round-change-wrong-target',
  // The proposal against the best prepared round change.
  'justification-prepares-without-prepared',
  'justification-not-best-block',
  // Piggy-backed prepares (a proposal's, or a ROUND-CHANGE's prepared certificate): distinct authors, a quorum of entries, each one.
  'prepare-duplicate-author',
  'prepare-quorum',
  'prepare-not-validator',
  'prepare-wrong-round',
  'prepare-wrong-digest',
  // A ROUND-CHANGE's prepared block.
  'round-change-metadata-without-block',
  'round-change-block-without-metadata',
  'round-change-block-hash',
  // PREPARE and COMMIT messages against the round's proposal (Besu's RoundState).
  'prepare-not-proposal',
  'commit-not-proposal',
  'commit-seal-not-author',
] as const;

export type ValidationRule = (typeof VALIDATION_RULES)[number];

/**
 * Rejections that name no rule of the table, so the acceptance checker does not judge them: the
 * block itself failed the node's block validation (header rules and execution, which the checker
 * does not re-run; the validity checker judges every block a node imports instead), and two checks
 * the node's routing makes unreachable (messages reach validation only at their own height, and
 * block validation already requires the height's number).
 */
export const UNJUDGED_RULES = ['proposal-block-invalid', 'round-change-block-invalid', 'proposal-wrong-height', 'proposal-block-number'] as const;

export type UnjudgedRule = (typeof UNJUDGED_RULES)[number];

export type RejectionRule = ValidationRule | UnjudgedRule;
