/**
 * The behaviours behind the function hooks of hooks.ts: Besu's current one and the known bug's
 * alternative side by side, so that the node's code asks one hook and reads straight.
 */
import type { Block } from '@ethereumjs/block';
import { bytesToHex, type Hex } from '../crypto/bytes.ts';
import { committedSealHash } from '../chain/block-hashing.ts';
import type { QbftForkParams, QbftForkSchedule } from '../chain/fork-schedule.ts';

// ---- the mining beneficiary of a block the node creates

/** Besu: the fork at the block's number and timestamp, as import reads it. */
export function beneficiaryAtBlock(schedule: QbftForkSchedule, blockNumber: number, timestampSeconds: number): Hex | undefined {
  return schedule.paramsAt(blockNumber, timestampSeconds).miningBeneficiary;
}

/** besu-8384 (before Besu PR #8387): the BFT fork at the block's number alone, where a time-typed transition is never reached. */
export function beneficiaryAtNumber(schedule: QbftForkSchedule, blockNumber: number): Hex | undefined {
  return schedule.paramsAt(blockNumber).miningBeneficiary;
}

// ---- the header rules' contract mode

/** Besu: the validator selection mode in force at the header's fork. */
export function contractModeInForce(params: QbftForkParams): boolean {
  return params.validatorSelectionMode === 'contract';
}

/**
 * besu-2894 (before Besu PR #2874): contract mode only when the fork's transition itself named
 * `validatorselectionmode: contract` (the genesis fork: when it has a validator contract), so a
 * transition that changes anything else put a contract-mode chain back under block-header rules.
 */
export function contractModeNamedByFork(params: QbftForkParams, schedule: QbftForkSchedule, genesisContract: Hex | undefined): boolean {
  const transition = schedule.transitionAt(params.fromBlock);
  if (transition) return transition.validatorSelectionMode === 'contract';
  return params.fromBlock === 0 && genesisContract !== undefined;
}

// ---- a validated proposal block against the world state

/** The reason a proposal block that passed validation is rejected after all, or undefined. */
export type ProposalStateConflict = (block: Block, height: number) => string | undefined;

/** Besu: a proposal is validated on a throwaway world state, so no other proposal affects it. */
export const NO_PROPOSAL_STATE_CONFLICT: ProposalStateConflict = () => undefined;

/**
 * besu-7642 (one candidate cause, unconfirmed: Besu PR #7204): proposal validation persisted the
 * proposed block's world state on Bonsai, so after one proposal at a height had been validated, any
 * other block at that height failed on the moved state. The same block with only its round changed
 * still passes. One guard per node: it remembers the node's first validated proposal of a height.
 */
export function persistedProposalStateGuard(): ProposalStateConflict {
  let persisted: { height: number; identity: Hex } | undefined;
  return (block, height) => {
    const identity = bytesToHex(committedSealHash(block.header, 0));
    if (!persisted || persisted.height !== height) {
      persisted = { height, identity };
      return undefined;
    }
    return persisted.identity === identity ? undefined : 'world state already moved to another proposal of this height (persisted proposal state)';
  };
}
