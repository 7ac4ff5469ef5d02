/**
 * Besu's behaviour at the points where a known bug (or a planted one) changed it: each hook is one
 * small decision or behaviour that the node asks for at one place, named after what Besu does
 * there. `besuHooks(switches)` builds them once per node from its switches
 * (node/bugs/bug-switches.ts); with no switch on, every hook is Besu's current behaviour (main, as
 * of sim/bugs/versions.ts's `current`): each boolean false, each function Besu's own rule.
 * Beside each hook: its switches, the Besu releases that had the bug (from the first affected
 * release up to, not including, the fix; sim/bugs/catalogue.ts has the sources) and who asks.
 * The rest of the node never reads a switch (test/architecture-rules.ts, rule `bug-switch`).
 */
import type { Hex } from '../crypto/bytes.ts';
import type { QbftForkParams, QbftForkSchedule } from '../chain/fork-schedule.ts';
import { VALIDATION_RULES, type ValidationRule } from '../runtime/validation-rules.ts';
import { NO_BUGS, PLANTED_BUG_IDS, ruleEnforced, type BugId, type BugSwitches } from './bug-switches.ts';
import { beneficiaryAtNumber, beneficiaryAtBlock, contractModeInForce, contractModeNamedByFork, NO_PROPOSAL_STATE_CONFLICT, persistedProposalStateGuard, type ProposalStateConflict } from './bug-paths.ts';

export interface BesuHooks {
  // ---- the consensus core (node/consensus/)

  /**
   * Round 0 (and its round timer) begins with the height, not when the block timer expires.
   * besu-2095: 21.1.0 up to 21.1.6. Asked by HeightManager.start and onBlockTimer.
   */
  readonly roundZeroStartsWithHeight: boolean;
  /**
   * The header timestamp of a block the block timer asks for: Besu rounds the timer's time to the
   * second (PR #2265), so a timer firing a few ms early still gives parent + period.
   * besu-2241 truncates it: 1.0 up to 21.1.6. Asked by HeightManager.onBlockTimer.
   */
  blockTimestampSeconds(nowMs: number): number;
  /**
   * The proposer prepares its own proposal even when its validation of it failed.
   * besu-6613: 21.1.5 up to 24.12.0. Asked by HeightManager.proposeAndTransmit.
   */
  readonly proposerPreparesRejectedProposal: boolean;
  /**
   * Copies of one validator's prepare or commit each count toward the quorum.
   * besu-2449: 1.0 up to 21.7.0. Asked by HeightManager.newRoundState (RoundState).
   */
  readonly quorumCountsCopies: boolean;
  /**
   * Whether a validation rule (node/runtime/validation-rules.ts) is applied; Besu applies them all.
   * ghsa-23rh lacks round-change-round-above-max (1.0 up to 26.9.0); besu-1671 lacks
   * prepare-duplicate-author (1.0 up to 21.1.0); plant-skip-<rule> drops one rule (planted).
   * Asked by validation.ts (ValidationContext.enforced), RoundState and QbftService.process.
   */
  ruleEnforced(rule: ValidationRule): boolean;
  /**
   * A block timer expiry queued before a new chain head (of a block that arrived by sync) is
   * handled by the old height, unchecked against the head; Besu drops it.
   * besu-10052: 21.1.0 up to 26.4.0. Asked by QbftService.startHeight.
   */
  readonly blockTimerBeforeNewHead: boolean;
  /**
   * A round expiry queued in the same step as the block import runs after the import, against the
   * height just imported; Besu drops an expiry at or below the head.
   * besu-1734: 1.0 up to 20.10.2. Asked by QbftService.perform (commitBlock).
   */
  readonly roundExpiryAfterImport: boolean;

  // ---- the node's parts (node/parts/, node/validator-sets.ts, node/node.ts, rpc)

  /**
   * Every block is built with round 0 in its extraData, and a prepared block is re-proposed
   * unchanged; Besu writes the proposal's round.
   * besu-6613: 21.1.5 up to 24.12.0. Asked by BlockProducer.createBlock.
   */
  readonly blocksBuiltAtRoundZero: boolean;
  /**
   * The mining beneficiary of a block the node creates (fees, and the reward when there is one):
   * Besu reads it from the fork at the block's number and timestamp, as import does.
   * besu-8384 reads the fork at the number alone (a time-typed transition never reached it):
   * 24.3.0 up to 25.4.0. Asked by BlockProducer.buildProposalBlock.
   */
  blockCreatorBeneficiary(schedule: QbftForkSchedule, blockNumber: number, timestampSeconds: number): Hex | undefined;
  /**
   * The reason a validated proposal block is rejected because validating another proposal of its
   * height moved the world state; Besu validates on a throwaway state (never a reason).
   * besu-7642 (one candidate cause, unconfirmed) persisted it: 24.3.0 up to 24.7.0.
   * Asked by ProposalValidator.validateProposedBlock.
   */
  proposalStateConflict: ProposalStateConflict;
  /**
   * Whether a header is judged by the contract-mode header rules: Besu asks the selection mode in
   * force at the header's fork. besu-2894 asked whether that fork's transition itself named
   * contract mode (the genesis fork: whether it has a validator contract): 21.7.4 up to 21.10.1.
   * Asked by HeaderChecker.headerProblem.
   */
  headerRulesContractMode(params: QbftForkParams, schedule: QbftForkSchedule, genesisContract: Hex | undefined): boolean;
  /**
   * The block period (of the block timer and of the header rule) is read from the parent's fork,
   * so a block-period transition takes effect one block late; Besu reads the block's own.
   * plant-period-early (planted). Asked by HeightRules.heightContext and HeaderChecker.headerProblem.
   */
  readonly blockPeriodFromParentFork: boolean;
  /**
   * The block timer reads the fork at the height's number alone, without looking one period ahead
   * (a time-typed block-period transition never reaches it); Besu reads it at the parent's timestamp.
   * besu-9681: 24.3.0 up to 26.4.0. Asked by HeightRules.heightContext.
   */
  readonly blockTimerForkByNumber: boolean;
  /**
   * The validators after a block come from the fork in force at that block, not at the next one,
   * so a selection-mode transition acts a block late; Besu reads the next block's fork.
   * besu-2901: 21.7.4 up to 21.10.1. Asked by ValidatorSets.forChildOf.
   */
  readonly validatorsFromParentFork: boolean;
  /**
   * Consensus pauses (its timers suspended) while the node syncs, and a restarted validator can
   * keep a stale height; Besu's consensus keeps running.
   * besu-8307 (and besu-8425, same cause): 24.10.0 up to 25.3.0. Asked by HeadFollower.onSyncing.
   */
  readonly consensusPausesForSync: boolean;
  /**
   * Blocks imported through the eth protocol (sync, NewBlock) skip the commit-seal rule; Besu checks it.
   * plant-sync-seals (planted). Asked by node/node.ts (the sync's importBlock).
   */
  readonly syncedBlocksSkipSeals: boolean;
  /**
   * eth_subscribe `logs` sends no `removed: true` notifications for the logs of blocks a
   * reorganisation drops; Besu sends them. plant-pubsub-no-removed (planted).
   * Asked by Subscriptions (node/rpc/pubsub/subscriptions.ts).
   */
  readonly logsSubscriptionOmitsRemoved: boolean;
}

/** The switches that change each hook (a test turns each switch on and checks exactly these move). */
export const HOOK_SWITCHES: Readonly<Record<keyof BesuHooks, readonly BugId[]>> = {
  roundZeroStartsWithHeight: ['besu-2095'],
  blockTimestampSeconds: ['besu-2241'],
  proposerPreparesRejectedProposal: ['besu-6613'],
  quorumCountsCopies: ['besu-2449'],
  ruleEnforced: ['ghsa-23rh', 'besu-1671', ...PLANTED_BUG_IDS.filter((id) => id.startsWith('plant-skip-'))],
  blockTimerBeforeNewHead: ['besu-10052'],
  roundExpiryAfterImport: ['besu-1734'],
  blocksBuiltAtRoundZero: ['besu-6613'],
  blockCreatorBeneficiary: ['besu-8384'],
  proposalStateConflict: ['besu-7642'],
  headerRulesContractMode: ['besu-2894'],
  blockPeriodFromParentFork: ['plant-period-early'],
  blockTimerForkByNumber: ['besu-9681'],
  validatorsFromParentFork: ['besu-2901'],
  consensusPausesForSync: ['besu-8307'],
  syncedBlocksSkipSeals: ['plant-sync-seals'],
  logsSubscriptionOmitsRemoved: ['plant-pubsub-no-removed'],
};

const ALL_RULES_ENFORCED = (): boolean => true;
const roundedSeconds = (nowMs: number): number => Math.round(nowMs / 1000);
const truncatedSeconds = (nowMs: number): number => Math.floor(nowMs / 1000);

/** The rules a set of switches turns off; the same function for every node that applies them all. */
function ruleHook(switches: BugSwitches): (rule: ValidationRule) => boolean {
  const skipped = new Set(VALIDATION_RULES.filter((rule) => !ruleEnforced(switches, rule)));
  return skipped.size === 0 ? ALL_RULES_ENFORCED : (rule) => !skipped.has(rule);
}

/** The hooks of a node with these switches on; build once per node (besu-7642's hook holds that node's state). */
export function besuHooks(switches: BugSwitches): BesuHooks {
  const on = (id: BugId) => switches.has(id);
  return {
    roundZeroStartsWithHeight: on('besu-2095'),
    blockTimestampSeconds: on('besu-2241') ? truncatedSeconds : roundedSeconds,
    proposerPreparesRejectedProposal: on('besu-6613'),
    quorumCountsCopies: on('besu-2449'),
    ruleEnforced: ruleHook(switches),
    blockTimerBeforeNewHead: on('besu-10052'),
    roundExpiryAfterImport: on('besu-1734'),
    blocksBuiltAtRoundZero: on('besu-6613'),
    blockCreatorBeneficiary: on('besu-8384') ? beneficiaryAtNumber : beneficiaryAtBlock,
    proposalStateConflict: on('besu-7642') ? persistedProposalStateGuard() : NO_PROPOSAL_STATE_CONFLICT,
    headerRulesContractMode: on('besu-2894') ? contractModeNamedByFork : contractModeInForce,
    blockPeriodFromParentFork: on('plant-period-early'),
    blockTimerForkByNumber: on('besu-9681'),
    validatorsFromParentFork: on('besu-2901'),
    consensusPausesForSync: on('besu-8307'),
    syncedBlocksSkipSeals: on('plant-sync-seals'),
    logsSubscriptionOmitsRemoved: on('plant-pubsub-no-removed'),
  };
}

/** Besu's current behaviour at every hook: no switch on. */
export const CURRENT_BESU: BesuHooks = Object.freeze(besuHooks(NO_BUGS));

/** The hooks of a node config's switches (none: Besu's current behaviour). */
export function hooksOf(switches: BugSwitches | undefined): BesuHooks {
  return switches === undefined || switches.size === 0 ? CURRENT_BESU : besuHooks(switches);
}
