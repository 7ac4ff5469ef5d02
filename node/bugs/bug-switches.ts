/**
 * Known-bug switches: real QBFT/IBFT bugs of Besu and GoQuorum, re-introduced on purpose so that
 * the simulator's checkers and fuzzer can be shown to find them. Every switch is off by default,
 * refused by the live node, and recorded in a simulated run's trace. The catalogue (titles, links,
 * root causes, reproducing scenarios) lives in sim/bugs/; here are only the ids. The node never
 * reads them itself: it asks the hook points that hooks.ts builds from them.
 */
import { VALIDATION_RULES, type ValidationRule } from '../runtime/validation-rules.ts';

export const BUG_IDS = [
  'besu-1671',
  'besu-1734',
  'besu-2095',
  'besu-2241',
  'besu-2449',
  'besu-2894',
  'besu-2901',
  'besu-6613',
  'besu-7642',
  'besu-8307',
  'besu-8384',
  'besu-9681',
  'besu-10052',
  'ghsa-23rh',
] as const;

/**
 * Planted switches: bugs Besu is not known to have had, planted to show that a test or the fuzzer
 * catches a mechanism no corpus entry covers. They have no corpus entry.
 */
export const PLANTED_BUG_IDS: readonly PlantedBugId[] = [
  // Blocks imported through the eth protocol (sync and NewBlock) skip the commit-seal rule.
  'plant-sync-seals',
  // The block period (block timer and header rule) is read at the parent's height: a block-period transition takes effect one block late.
  'plant-period-early',
  // eth_subscribe `logs` sends no `removed: true` notifications for the logs of blocks a reorganisation drops.
  'plant-pubsub-no-removed',
  // One validation rule of node/runtime/validation-rules.ts is not applied.
  ...VALIDATION_RULES.map((rule) => `plant-skip-${rule}` as const),
];

export type PlantedBugId = 'plant-sync-seals' | 'plant-period-early' | 'plant-pubsub-no-removed' | `plant-skip-${ValidationRule}`;

/** Known bugs that were a validation rule missing from Besu. */
const RULE_MISSING_IN: Partial<Record<ValidationRule, BugId>> = {
  'round-change-round-above-max': 'ghsa-23rh',
  'prepare-duplicate-author': 'besu-1671',
};

/** Whether a validation rule is applied with these switches on (BesuHooks.ruleEnforced is built from it). */
export function ruleEnforced(bugs: BugSwitches, rule: ValidationRule): boolean {
  if (bugs.size === 0) return true;
  const missingIn = RULE_MISSING_IN[rule];
  return !bugs.has(`plant-skip-${rule}`) && (missingIn === undefined || !bugs.has(missingIn));
}

export type BugId = (typeof BUG_IDS)[number] | PlantedBugId;

export type BugSwitches = ReadonlySet<BugId>;

export const NO_BUGS: BugSwitches = new Set();

export function isBugId(value: unknown): value is BugId {
  return typeof value === 'string' && ((BUG_IDS as readonly string[]).includes(value) || isPlantedBugId(value));
}

export function isPlantedBugId(value: unknown): value is PlantedBugId {
  return typeof value === 'string' && (PLANTED_BUG_IDS as readonly string[]).includes(value);
}

/** The switches for a list of ids; throws on an unknown id. */
export function bugSwitches(ids: readonly string[] | undefined): BugSwitches {
  if (!ids || ids.length === 0) return NO_BUGS;
  for (const id of ids) if (!isBugId(id)) throw new RangeError(`unknown bug id ${JSON.stringify(id)}; known: ${[...BUG_IDS, ...PLANTED_BUG_IDS].join(', ')}`);
  return new Set(ids as BugId[]);
}
