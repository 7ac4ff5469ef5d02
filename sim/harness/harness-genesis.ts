/**
 * The genesis of a NodeUnderTest, shaped as Besu's QBFT integration tests shape theirs
 * (TestContextBuilder): timestamp 0, gas limit 5000, the first validator (address order) as
 * coinbase, a 3-second block period, Berlin rules, epoch 10,000.
 */
import type { Hex } from '../../node/crypto/bytes.ts';
import { buildSimGenesis, type GenesisFork, type TransitionSpec } from '../genesis-builder.ts';

export interface HarnessGenesisOptions {
  blockPeriodSeconds?: number;
  /** Round 0's timeout, doubled each round (Besu's tests use 12 s). Default 12. */
  requestTimeoutSeconds?: number;
  epochLength?: number;
  gasLimit?: bigint;
  /** 'berlin' (Besu's test default) or a later fork active from genesis. */
  fork?: 'berlin' | GenesisFork;
  transitions?: TransitionSpec[];
  /** Besu's qbft genesis options by their own names (messagequeuelimit, futuremessageslimit, ...). */
  qbftOptions?: Record<string, number>;
  blockReward?: string;
  miningBeneficiary?: string;
}

export function harnessGenesis(validators: Hex[], o: HarnessGenesisOptions): Record<string, unknown> {
  const sorted = [...validators].sort();
  const fork = o.fork ?? 'berlin';
  const genesis = buildSimGenesis({
    validators: sorted,
    startTimeSeconds: 0,
    blockPeriodSeconds: o.blockPeriodSeconds ?? 3,
    requestTimeoutSeconds: o.requestTimeoutSeconds ?? 12,
    epochLength: o.epochLength ?? 10_000,
    gasLimit: o.gasLimit ?? 5000n,
    fork: fork === 'berlin' ? 'london' : fork,
    transitions: o.transitions,
    blockReward: o.blockReward,
    miningBeneficiary: o.miningBeneficiary,
  });
  const config = genesis.config as Record<string, unknown>;
  if (fork === 'berlin') delete config.londonBlock;
  Object.assign(config.qbft as Record<string, unknown>, o.qbftOptions ?? {});
  return { ...genesis, coinbase: sorted[0] };
}
