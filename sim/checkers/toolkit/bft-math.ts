/**
 * QBFT arithmetic as the checkers apply it (Besu's BftHelpers and BftProposerSelector with
 * changeEachBlock = true, written from their documented behaviour):
 * - quorum(n) = ceil(2n/3), f(n) = floor((n-1)/3) (0 for an empty set);
 * - the proposer for (height, round): take the validators for the height in ascending address
 *   order and the proposer of the parent block (its coinbase). If that proposer is still a
 *   validator, the proposer is the one `round + 1` places after it; otherwise the rotation starts
 *   at the first validator above the old proposer's address (wrapping to the lowest) and moves
 *   `round` places on.
 */
import type { Hex } from './crypto.ts';

export function quorum(validatorCount: number): number {
  return Math.ceil((2 * validatorCount) / 3);
}

export function maxFaulty(validatorCount: number): number {
  return validatorCount <= 0 ? 0 : Math.floor((validatorCount - 1) / 3);
}

const ascending = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function sortedAddresses(addresses: Iterable<Hex>): Hex[] {
  return [...new Set([...addresses].map((a) => a.toLowerCase() as Hex))].sort(ascending);
}

export function proposerFor(validators: readonly Hex[], parentProposer: Hex, round: number): Hex {
  if (validators.length === 0) throw new Error('no validators to pick a proposer from');
  if (!Number.isSafeInteger(round) || round < 0) throw new RangeError(`bad round ${round}`);
  const ring = sortedAddresses(validators);
  const previous = parentProposer.toLowerCase();
  const at = ring.indexOf(previous as Hex);
  if (at >= 0) return ring[(at + round + 1) % ring.length]!;
  const above = ring.findIndex((v) => v > previous);
  const start = above < 0 ? 0 : above;
  return ring[(start + round) % ring.length]!;
}
