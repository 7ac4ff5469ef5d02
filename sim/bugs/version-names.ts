/** The Besu release lines `--besu-version` selects (no dependencies: the scenario validator reads them). */
export const BESU_VERSIONS = ['20.10', '21.1', '22.7', '23.10', '24.3', '24.7', '24.12', '25.2', '25.4', 'current'] as const;

export type BesuVersion = (typeof BESU_VERSIONS)[number];

export function isBesuVersion(value: unknown): value is BesuVersion {
  return typeof value === 'string' && (BESU_VERSIONS as readonly string[]).includes(value);
}
