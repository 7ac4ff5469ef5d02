/**
 * The QBFT options in force at each block: genesis `config.qbft`, then each `transitions.qbft`
 * entry in block order, inheriting what it does not name (besu:QbftForksSchedulesFactory,
 * ForksScheduleFactory, ForksSchedule).
 *
 * Besu quirk kept on purpose: a transition's `block` is compared with the block TIMESTAMP instead
 * of its number when the hardfork milestone in force at that value is time-based (e.g. with
 * `shanghaiTime: 0` every transition is time-typed; besu:ProtocolScheduleBuilder gives each
 * transition the milestone type of the hardfork below it, ForksSchedule.getFork compares by that
 * type; maintainers call it "working as designed", besu issues #10878, #9681). Callers pass a
 * timestamp as Besu's call sites do (PR #9785): the parent's for what concerns the next block (block
 * timer, validators after a block, votes, extraData at creation), the block's own for its header
 * rules, reward and beneficiary. Without a timestamp, block numbers are compared.
 * Validator overrides (`validators`) always apply by block number (BftValidatorOverrides).
 */
import type { Hex } from '../crypto/bytes.ts';
import type { Genesis, QbftTransition, ValidatorSelectionMode } from './genesis.ts';

export type ForkScheduleType = 'block' | 'time';

export interface QbftForkParams {
  fromBlock: number;
  /** How `fromBlock` is compared: with the block number, or (Besu quirk) with the block timestamp. */
  scheduleType: ForkScheduleType;
  blockPeriodSeconds: number;
  /** Only when > 0 (`xblockperiodmilliseconds`; 0 switches it off). */
  blockPeriodMilliseconds?: number;
  emptyBlockPeriodSeconds: number;
  blockReward: bigint;
  miningBeneficiary?: Hex;
  validatorSelectionMode: ValidatorSelectionMode;
  validatorContractAddress?: Hex;
  /** Only on the block whose transition lists them. */
  validators?: Hex[];
}

/** Milestone type ruling at `value`: the hardfork with the greatest activation value <= value; on a tie the later-defined (time-based) one wins, as in Besu's flattened milestone map. */
export function milestoneTypeAt(genesis: Genesis, value: number): ForkScheduleType {
  let best = 0;
  let type: ForkScheduleType = 'block'; // frontier at block 0
  for (const [name, block] of Object.entries(genesis.forkBlocks)) {
    if (name === 'dao') continue;
    if (block <= value && block >= best) {
      best = block;
      type = 'block';
    }
  }
  for (const time of Object.values(genesis.forkTimestamps)) {
    if (time <= value && time >= best) {
      best = time;
      type = 'time';
    }
  }
  return type;
}

function copyParams(p: QbftForkParams): QbftForkParams {
  const out = { ...p };
  if (p.validators) out.validators = [...p.validators];
  return out;
}

export class QbftForkSchedule {
  private readonly specs: QbftForkParams[];
  private readonly transitionsByBlock = new Map<number, QbftTransition>();

  constructor(genesis: Genesis) {
    const q = genesis.qbft;
    const initial: QbftForkParams = {
      fromBlock: 0,
      scheduleType: 'block',
      blockPeriodSeconds: q.blockPeriodSeconds,
      emptyBlockPeriodSeconds: q.emptyBlockPeriodSeconds,
      blockReward: q.blockReward,
      validatorSelectionMode: q.validatorContractAddress ? 'contract' : 'blockheader',
    };
    if (q.blockPeriodMilliseconds) initial.blockPeriodMilliseconds = q.blockPeriodMilliseconds;
    if (q.miningBeneficiary) initial.miningBeneficiary = q.miningBeneficiary;
    if (q.validatorContractAddress) initial.validatorContractAddress = q.validatorContractAddress;
    this.specs = [initial];
    const sorted = [...genesis.transitions].sort((a, b) => a.block - b.block);
    for (const t of sorted) {
      this.transitionsByBlock.set(t.block, t);
      this.specs.push(applyTransition(this.specs[this.specs.length - 1], t, milestoneTypeAt(genesis, t.block)));
    }
  }

  /** Options for the block with this number (and, for Besu's time-typed transitions, this timestamp). */
  paramsAt(blockNumber: number, timestamp?: number): QbftForkParams {
    let found = this.specs[0];
    // ForksSchedule.getFork: highest fork value first, the first whose value is reached wins.
    for (let i = this.specs.length - 1; i >= 0; i--) {
      const spec = this.specs[i];
      const value = spec.scheduleType === 'time' && timestamp !== undefined ? timestamp : blockNumber;
      if (value >= spec.fromBlock) {
        found = spec;
        break;
      }
    }
    const out = copyParams(found);
    delete out.validators;
    const validators = this.transitionsByBlock.get(blockNumber)?.validators;
    if (validators) out.validators = [...validators];
    return out;
  }

  transitionAt(blockNumber: number): QbftTransition | undefined {
    return this.transitionsByBlock.get(blockNumber);
  }

  /** True when some transition is compared with timestamps (see the header comment). */
  hasTimeTypedTransitions(): boolean {
    return this.specs.some((s) => s.scheduleType === 'time');
  }

  forks(): QbftForkParams[] {
    return this.specs.map(copyParams);
  }
}

function applyTransition(prev: QbftForkParams, t: QbftTransition, scheduleType: ForkScheduleType): QbftForkParams {
  const next: QbftForkParams = { ...prev, fromBlock: t.block, scheduleType };
  delete next.validators;
  if (t.blockPeriodSeconds !== undefined) next.blockPeriodSeconds = t.blockPeriodSeconds;
  if (t.emptyBlockPeriodSeconds !== undefined) next.emptyBlockPeriodSeconds = t.emptyBlockPeriodSeconds;
  if (t.blockPeriodMilliseconds !== undefined) {
    if (t.blockPeriodMilliseconds > 0) next.blockPeriodMilliseconds = t.blockPeriodMilliseconds;
    else delete next.blockPeriodMilliseconds;
  }
  if (t.blockReward !== undefined) next.blockReward = t.blockReward;
  if (t.miningBeneficiary !== undefined) {
    if (t.miningBeneficiary === null) delete next.miningBeneficiary;
    else next.miningBeneficiary = t.miningBeneficiary;
  }
  // The contract address is only read together with validatorselectionmode (QbftForksSchedulesFactory).
  if (t.validatorSelectionMode === 'blockheader') {
    next.validatorSelectionMode = 'blockheader';
    delete next.validatorContractAddress;
  } else if (t.validatorSelectionMode === 'contract' && t.validatorContractAddress) {
    next.validatorSelectionMode = 'contract';
    next.validatorContractAddress = t.validatorContractAddress;
  }
  if (t.validators) next.validators = [...t.validators];
  return next;
}
