/**
 * The empty-block period of a `config.qbft` section or a QBFT transition, under the names Besu has
 * read: `xemptyblockperiodseconds` (experimental, up to 26.4), `emptyblockperiodseconds` (26.5 on).
 * Besu 26.5 to 26.8 read both, the new name first, and warn about the old one (JsonBftConfigOptions,
 * BftFork, PR #10264); Besu's main branch reads only the new one (PR #11032). qbft-lab reads both as
 * the releases do, so a genesis written for any Besu release keeps its period.
 */
export const EMPTY_BLOCK_PERIOD_KEY = 'emptyblockperiodseconds';
export const DEPRECATED_EMPTY_BLOCK_PERIOD_KEY = 'xemptyblockperiodseconds';

/**
 * `section` has lower-cased keys; `readInt(key)` reads and checks one of them. Undefined: neither
 * name is set.
 */
export function readEmptyBlockPeriod(
  section: Record<string, unknown>,
  path: string,
  readInt: (key: string) => number,
  warn: (field: string, problem: string) => void,
): number | undefined {
  const hasNew = section[EMPTY_BLOCK_PERIOD_KEY] !== undefined;
  const hasOld = section[DEPRECATED_EMPTY_BLOCK_PERIOD_KEY] !== undefined;
  if (hasOld) {
    const field = `${path}.${DEPRECATED_EMPTY_BLOCK_PERIOD_KEY}`;
    if (hasNew) warn(field, `is ignored: ${EMPTY_BLOCK_PERIOD_KEY} is set too and wins, as in Besu`);
    else warn(field, `is Besu's deprecated name (since 26.5; Besu's main branch no longer reads it): rename it ${EMPTY_BLOCK_PERIOD_KEY}`);
  }
  if (hasNew) return readInt(EMPTY_BLOCK_PERIOD_KEY);
  return hasOld ? readInt(DEPRECATED_EMPTY_BLOCK_PERIOD_KEY) : undefined;
}
