/**
 * Rules for importing a chain that is not QBFT (an `ethash` genesis, as in Besu's `blocks import`
 * of a mainnet-style chain), with the proof-of-work checks off: no seal, nonce or difficulty
 * check, as Besu's import does when told to skip proof-of-work validation. Everything else that
 * decides the state is checked: links, number, timestamps, gas limit bounds, base fee, ommers, and
 * (in the engine) every execution root.
 *
 * Rewards follow Besu's mainnet specs: 5 ETH from Frontier, 3 ETH from Byzantium (EIP-649), 2 ETH
 * from Constantinople (EIP-1234), none from Paris on; each ommer pays its miner
 * reward * (8 + ommer number - block number) / 8, and the block's miner reward / 32 more per ommer.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { bytesToHex, equalBytes, type Hex } from '../crypto/bytes.ts';
import type { Reward } from './block-reward.ts';
import { decodingCommon } from './decoding-common.ts';
import { MAX_OMMERS, ommersHash } from './ommer-rules.ts';

const ETHER = 10n ** 18n;
const MAX_OMMER_DEPTH = 6n;
const MAX_EXTRA_DATA_BYTES = 32;
const MIN_GAS_LIMIT = 5000n;
const GAS_LIMIT_BOUND_DIVISOR = 1024n;
const ELASTICITY_MULTIPLIER = 2n;

/** The block's fork rules, from the shared frozen copy of the chain's Common (no copy per block). */
function forkAt(common: Common, header: BlockHeader): Common {
  return decodingCommon(common, { blockNumber: header.number, timestamp: header.timestamp });
}

export function powBaseReward(common: Common, header: BlockHeader): bigint {
  const c = forkAt(common, header);
  if (c.isActivatedEIP(3675)) return 0n;
  if (c.gteHardfork('constantinople')) return 2n * ETHER;
  if (c.gteHardfork('byzantium')) return 3n * ETHER;
  return 5n * ETHER;
}

export function powBlockRewards(block: Block, common: Common): Reward[] {
  const header = block.header;
  const base = powBaseReward(common, header);
  if (base === 0n) return [];
  const address = (h: BlockHeader) => h.coinbase.toString().toLowerCase() as Hex;
  const rewards: Reward[] = [{ to: address(header), amountWei: base + (base / 32n) * BigInt(block.uncleHeaders.length) }];
  for (const ommer of block.uncleHeaders)
    rewards.push({ to: address(ommer), amountWei: (base * (8n + ommer.number - header.number)) / 8n });
  return rewards;
}

export interface PowImportContext {
  parent: BlockHeader;
  common: Common;
  /** The base fee the engine expects for this block (undefined before London). */
  expectedBaseFee: bigint | undefined;
}

/** Returns why the block breaks a rule, or undefined when it passes. */
export function checkPowImportBlock(block: Block, ctx: PowImportContext): string | undefined {
  const h = block.header;
  const { parent } = ctx;
  if (h.number !== parent.number + 1n) return `number ${h.number} does not follow the parent's ${parent.number}`;
  if (h.timestamp <= parent.timestamp) return `timestamp ${h.timestamp} is not after the parent's ${parent.timestamp}`;
  if (h.extraData.length > MAX_EXTRA_DATA_BYTES) return `extraData is ${h.extraData.length} bytes, at most ${MAX_EXTRA_DATA_BYTES}`;
  if (h.gasUsed > h.gasLimit) return `gas used ${h.gasUsed} over the gas limit ${h.gasLimit}`;
  const c = forkAt(ctx.common, h);
  // At the London block the parent's limit is doubled (EIP-1559's elasticity) before the bound applies.
  const parentLimit = c.isActivatedEIP(1559) && parent.baseFeePerGas === undefined ? parent.gasLimit * ELASTICITY_MULTIPLIER : parent.gasLimit;
  const delta = h.gasLimit > parentLimit ? h.gasLimit - parentLimit : parentLimit - h.gasLimit;
  if (h.gasLimit < MIN_GAS_LIMIT || delta >= parentLimit / GAS_LIMIT_BOUND_DIVISOR)
    return `gas limit ${h.gasLimit} is out of bounds for the parent's ${parent.gasLimit}`;
  if (h.baseFeePerGas !== ctx.expectedBaseFee) return `base fee ${h.baseFeePerGas}, expected ${ctx.expectedBaseFee}`;
  if (block.uncleHeaders.length > MAX_OMMERS) return `${block.uncleHeaders.length} ommers, at most ${MAX_OMMERS}`;
  const bodyOmmersHash = ommersHash(block.uncleHeaders);
  if (!equalBytes(bodyOmmersHash, h.uncleHash)) return `ommers hash ${bytesToHex(h.uncleHash)} does not match the body (${bytesToHex(bodyOmmersHash)})`;
  for (const ommer of block.uncleHeaders)
    if (ommer.number >= h.number || h.number - ommer.number > MAX_OMMER_DEPTH) return `ommer ${ommer.number} is not within ${MAX_OMMER_DEPTH} blocks below ${h.number}`;
  return undefined;
}
