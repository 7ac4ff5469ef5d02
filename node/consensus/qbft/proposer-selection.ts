/**
 * Proposer selection (Besu: consensus/common/.../bft/blockcreation/BftProposerSelector.java, with
 * changeEachBlock = true as QBFT configures it).
 *
 * V = validators after the parent block, ascending; prev = parent's coinbase.
 * - prev ∈ V: proposer = V[(indexOf(prev) + round + 1) mod n]
 * - prev ∉ V (genesis coinbase 0x0…0, or a validator voted out): base = smallest v ∈ V with v > prev,
 *   wrapping to V[0]; proposer = V[(indexOf(base) + round) mod n].
 */
import type { Hex } from '../../crypto/bytes.ts';

const byAddress = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * @param validators validators after the parent block, any order (sorted here); lowercase hex
 * @param previousProposer the parent block's coinbase
 * @param round round number ≥ 0
 */
export function selectProposer(validators: readonly Hex[], previousProposer: Hex, round: number): Hex {
  if (!Number.isSafeInteger(round) || round < 0) throw new RangeError(`round must be a non-negative integer, got ${round}`);
  if (validators.length === 0) throw new Error('cannot select a proposer from an empty validator set');
  const sorted = [...validators].sort(byAddress);
  const n = sorted.length;
  const prevIndex = sorted.indexOf(previousProposer);
  if (prevIndex >= 0) return sorted[(prevIndex + round + 1) % n];
  let baseIndex = sorted.findIndex((v) => v > previousProposer);
  if (baseIndex < 0) baseIndex = 0;
  return sorted[(baseIndex + round) % n];
}
