/** Names of the Byzantine behaviours (no dependencies, so the scenario validator can check them cheaply). */
export const HOSTILE_BEHAVIOURS = [
  'equivocate',
  'silent',
  'invalid-justification',
  'forge-commit-seal',
  'conflicting-prepared',
  'ignore-lock',
  'replay-old',
  'duplicate-authors',
  'wrong-height',
  'malformed-rlp',
  'round-change-flood',
  'withhold-proposals',
  'forge-blocks',
  'break-rules',
] as const;

export type HostileBehaviour = (typeof HOSTILE_BEHAVIOURS)[number];
/** 'none' makes a Byzantine node honest again. */
export type ByzantineBehaviour = HostileBehaviour | 'none';

export const BYZANTINE_BEHAVIOURS: readonly ByzantineBehaviour[] = [...HOSTILE_BEHAVIOURS, 'none'];

export function isByzantineBehaviour(value: unknown): value is ByzantineBehaviour {
  return typeof value === 'string' && (BYZANTINE_BEHAVIOURS as readonly string[]).includes(value);
}
