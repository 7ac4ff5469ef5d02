/** `--besu-version V`: the Besu release line a simulated network behaves as. */
import { UsageError } from '../node/cli/usage-error.ts';
import { BESU_VERSIONS, isBesuVersion, type BesuVersion } from '../sim/bugs/version-names.ts';

export function parseBesuVersion(text: unknown): BesuVersion | undefined {
  if (text === undefined) return undefined;
  if (!isBesuVersion(text)) throw new UsageError(`--besu-version: '${String(text)}' is not a Besu release line qbft-lab models (${BESU_VERSIONS.join(', ')})`);
  return text;
}
