/**
 * Besu release lines and the known bugs each one had. A release line `X.Y` stands for its first
 * release, X.Y.0 (a bug fixed in X.Y.6 is behaviour of `X.Y`); `current` is Besu's main branch as
 * of August 2026 (besu-eth/besu 683880ba, after 26.8.0). Ranges come from the fix PRs' first
 * release tags and the reports (sources in each corpus entry); 20.10 predates QBFT, and its bugs
 * are IBFT 2.0 bugs of code QBFT inherited.
 */
import { KNOWN_BUGS } from './catalogue.ts';
import type { KnownBug } from './known-bug.ts';
import { BESU_VERSIONS, type BesuVersion } from './version-names.ts';

export { BESU_VERSIONS, isBesuVersion, type BesuVersion } from './version-names.ts';

/** Sortable number of a version string: 24.3 -> 24_03_00, 21.1.6 -> 21_01_06; main sorts last. */
function ordinal(version: string): number {
  if (version === 'current') return Number.MAX_SAFE_INTEGER;
  const [major = 0, minor = 0, patch = 0] = version.split('.').map(Number);
  return major * 10_000 + minor * 100 + patch;
}

/** Whether release line `version` had the bug (its first release lies in [since, fixedIn)). */
export function affects(bug: Pick<KnownBug, 'affected'>, version: BesuVersion): boolean {
  const at = ordinal(version);
  return at >= ordinal(bug.affected.since) && (bug.affected.fixedIn === undefined || at < ordinal(bug.affected.fixedIn));
}

/** The release lines a bug affects. */
export function versionsAffected(bug: Pick<KnownBug, 'affected'>): BesuVersion[] {
  return BESU_VERSIONS.filter((v) => affects(bug, v));
}

/** The corpus entries a release line had. */
export function bugsOfVersion(version: BesuVersion): KnownBug[] {
  return KNOWN_BUGS.filter((b) => affects(b, version));
}

/** The bug switches that make the node behave as a release line (an entry sharing another's switch adds nothing). */
export function switchesOfVersion(version: BesuVersion): string[] {
  return [...new Set(bugsOfVersion(version).map((b) => b.switchId ?? b.id))].sort();
}

/** The checkers that catch the bugs of a release line. */
export function checkersOfVersion(version: BesuVersion): string[] {
  return [...new Set(bugsOfVersion(version).flatMap((b) => b.caughtBy))].sort();
}
