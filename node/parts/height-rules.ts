/**
 * The rules in force at a height: block rewards, who receives the fees, the next block's place in
 * the fork schedule and base fee, and the consensus context (validators, block timer) of a height.
 */
import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { Hex } from '../crypto/bytes.ts';
import type { ChainEntry } from '../chain/chain.ts';
import type { QbftForkSchedule } from '../chain/fork-schedule.ts';
import type { Genesis } from '../chain/genesis.ts';
import { powBlockRewards } from '../chain/pow-import-rules.ts';
import type { ExecuteOptions, ExecutionEngine, Reward, Rewards } from '../execution/engine.ts';
import type { BesuHooks } from '../bugs/hooks.ts';
import type { HeightContext } from '../consensus/qbft/core-types.ts';
import type { Clock } from '../runtime/ports.ts';
import type { ValidatorSets } from '../validator-sets.ts';

export interface HeightRulesDeps {
  genesis: Genesis;
  schedule: QbftForkSchedule;
  common: Common;
  bft: boolean;
  hooks: BesuHooks;
  clock: Clock;
  head(): ChainEntry;
  engine(): ExecutionEngine;
  validators(): ValidatorSets;
}

export class HeightRules {
  constructor(private readonly deps: HeightRulesDeps) {}

  /**
   * Where the next block falls in the fork schedule: the head's child at the present time (Besu's
   * pool validates against getForNextBlockHeader(head, now)). Raw transactions decode under its fork.
   */
  nextBlockPosition(): { blockNumber: bigint; timestamp: bigint } {
    const head = this.deps.head().block.header;
    const nowSeconds = BigInt(Math.floor(this.deps.clock.nowMs() / 1000));
    return { blockNumber: head.number + 1n, timestamp: nowSeconds > head.timestamp ? nowSeconds : head.timestamp + 1n };
  }

  nextBaseFee(): bigint | undefined {
    const head = this.deps.head().block.header;
    return this.deps.engine().nextBaseFee(head, head.number + 1n, head.timestamp + 1n);
  }

  rewardFor(block: Block): Rewards {
    if (!this.deps.bft) return powBlockRewards(block, this.deps.common);
    return this.rewardAt(Number(block.header.number), Number(block.header.timestamp), block.header.coinbase.toString().toLowerCase() as Hex);
  }

  /** Besu pays transaction fees to the mining beneficiary when one is set (and COINBASE returns it). */
  executeOptions(block: Block): ExecuteOptions {
    if (!this.deps.bft) return { allowWithdrawalsAndBlobs: true };
    const beneficiary = this.deps.schedule.paramsAt(Number(block.header.number), Number(block.header.timestamp)).miningBeneficiary;
    return beneficiary ? { feeRecipient: beneficiary } : {};
  }

  /** QBFT block reward: `blockreward` to `miningbeneficiary` if set, else to the coinbase (options at the block's own number and timestamp). */
  rewardAt(blockNumber: number, timestampSeconds: number, coinbase: Hex): Reward | undefined {
    const params = this.deps.schedule.paramsAt(blockNumber, timestampSeconds);
    if (params.blockReward === 0n) return undefined;
    return { to: params.miningBeneficiary ?? coinbase, amountWei: params.blockReward };
  }

  async heightContext(head: ChainEntry): Promise<HeightContext> {
    const { schedule, hooks } = this.deps;
    const height = head.number + 1;
    // Besu's BlockTimer: the options at (height, parent timestamp), and a longer period that a
    // time-typed transition brings within one period applies already (else the block would fail
    // the period rule, judged at the block's own timestamp).
    const periodHeight = hooks.blockPeriodFromParentFork ? head.number : height;
    const byNumber = hooks.blockTimerForkByNumber;
    const params = byNumber ? schedule.paramsAt(periodHeight) : schedule.paramsAt(periodHeight, head.timestamp);
    const blockPeriodSeconds = byNumber ? params.blockPeriodSeconds : Math.max(params.blockPeriodSeconds, schedule.paramsAt(periodHeight, head.timestamp + params.blockPeriodSeconds).blockPeriodSeconds);
    // xblockperiodmilliseconds counts from now, not from the parent's timestamp.
    const blockTimerAtMs = params.blockPeriodMilliseconds ? this.deps.clock.nowMs() + params.blockPeriodMilliseconds : (head.timestamp + blockPeriodSeconds) * 1000;
    return {
      height,
      parentTimestampSeconds: head.timestamp,
      parentCoinbase: head.coinbase,
      validators: await this.deps.validators().forChildOf(head),
      blockTimerAtMs,
      blockPeriodSeconds,
      requestTimeoutMs: this.deps.genesis.qbft.requestTimeoutSeconds * 1000,
      emptyBlockPeriodSeconds: params.emptyBlockPeriodSeconds,
    };
  }
}
