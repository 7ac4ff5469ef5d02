/**
 * Blob fee figures of a block's fork (EIP-4844, with the blob schedule of EIP-7691/7840 and the
 * bpo forks): the update fraction, target and maximum come from the fork's Common, which carries
 * the genesis `blobSchedule` (node/chain/common.ts); the next block's excess blob gas is the block
 * library's, which also applies Osaka's EIP-7918 bound.
 */
import { paramsBlock, type BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';

/** A copy of `base` that knows the block library's parameters (the blob figures are among them). */
export function withBlockParams(base: Common): Common {
  const c = base.copy();
  c.updateParams(paramsBlock);
  return c;
}

/** A copy of `base` at the fork of block (number, timestamp), with the block library's parameters. */
export function commonAt(base: Common, number: number | bigint, timestamp: number | bigint): Common {
  const c = withBlockParams(base);
  c.setHardforkBy({ blockNumber: BigInt(number), timestamp: BigInt(timestamp) });
  return c;
}

/** Commons per fork, made once each: a fee history over 1024 blocks asks for one per block. */
export class ForkCommons {
  private readonly probe: Common;
  private readonly byFork = new Map<string, Common>();

  constructor(private readonly base: Common) {
    this.probe = base.copy();
  }

  at(number: number | bigint, timestamp: number | bigint): Common {
    this.probe.setHardforkBy({ blockNumber: BigInt(number), timestamp: BigInt(timestamp) });
    const fork = this.probe.hardfork();
    let common = this.byFork.get(fork);
    if (!common) this.byFork.set(fork, (common = commonAt(this.base, number, timestamp)));
    return common;
  }
}

/** EIP-4844 fake_exponential(1, excess, fraction): the blob base fee, in wei. */
export function blobBaseFeeAt(excessBlobGas: bigint, updateFraction: bigint): bigint {
  let i = 1n;
  let output = 0n;
  let acc = updateFraction;
  while (acc > 0n) {
    output += acc;
    acc = (acc * excessBlobGas) / (updateFraction * i);
    i++;
  }
  return output / updateFraction;
}

/** The blob base fee of a block from its own excess blob gas, under its fork's `common`. */
export function blobBaseFeeOf(header: BlockHeader, common: Common): bigint {
  return blobBaseFeeAt(header.excessBlobGas ?? 0n, common.param('blobGasPriceUpdateFraction'));
}

/** The blob base fee of the child of `parent`, whose fork is `childCommon`. */
export function nextBlobBaseFee(parent: BlockHeader, childCommon: Common): bigint {
  const excess = parent.excessBlobGas === undefined ? 0n : parent.calcNextExcessBlobGas(childCommon);
  return blobBaseFeeAt(excess, childCommon.param('blobGasPriceUpdateFraction'));
}

/** The most blob gas a block of this fork may use. */
export function maxBlobGasOf(common: Common): bigint {
  return common.param('maxBlobGasPerBlock');
}
