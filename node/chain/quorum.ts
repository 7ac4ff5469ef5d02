/**
 * QBFT quorum arithmetic (Besu: consensus/common/.../bft/BftHelpers.java).
 *
 * - quorumSize(n) = ceil(2n/3)  (`calculateRequiredValidatorQuorum`, `Util.fastDivCeiling(2n, 3)`):
 *   prepares, commits, round changes, piggy-backed prepares and commit seals on import.
 * - earlyRoundChangeQuorum(n) = floor((n-1)/3) + 1  (`calculateRequiredFutureRCQuorum`, f+1).
 * - maxFaulty(n) = floor((n-1)/3)  (f).
 */

function checkCount(n: number): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`validator count must be a non-negative integer, got ${n}`);
}

/** ceil(2n/3): 1→1, 4→3, 5→4, 6→4, 7→5, 10→7, 100→67. */
export function quorumSize(n: number): number {
  checkCount(n);
  return Math.ceil((2 * n) / 3);
}

/** f+1 = floor((n-1)/3) + 1, the round-change count that lets a node jump ahead early. */
export function earlyRoundChangeQuorum(n: number): number {
  checkCount(n);
  return maxFaulty(n) + 1;
}

/** f = floor((n-1)/3); 0 for n = 0 (Java integer division truncates toward zero: (0-1)/3 = 0). */
export function maxFaulty(n: number): number {
  checkCount(n);
  return n === 0 ? 0 : Math.floor((n - 1) / 3);
}
