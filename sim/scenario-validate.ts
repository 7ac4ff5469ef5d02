/**
 * Checks a scenario (a file's JSON, or one written in code through defineScenario) against itself
 * before a run: every node name against its network, every time against its duration, heights,
 * amounts and each step's arguments. The first problem throws a ScenarioError, one line naming the
 * file and the field's path ("file.json: steps[3].atMs ...").
 */
import { BUG_IDS, isBugId } from '../node/bugs/bug-switches.ts';
import { BESU_VERSIONS, isBesuVersion } from './bugs/version-names.ts';
import type { Scenario } from './scenario.ts';
import { Fields, NodeNames } from './scenario-fields.ts';
import { checkGenesis, checkNetwork, checkTransitions } from './scenario-validate-genesis.ts';
import { checkSteps } from './scenario-validate-steps.ts';
import { checkExpectations } from './scenario-validate-expect.ts';

export interface ValidateOptions {
  /** Names of Byzantine behaviours and custom steps the run will be given (RunOptions.behaviours / steps). */
  behaviours?: readonly string[];
  steps?: readonly string[];
}

const MAX_VALIDATORS = 200;
const MAX_OBSERVERS = 50;
const MAX_DURATION_MS = 7 * 24 * 3600_000;

export function validateScenario(input: unknown, source = 'scenario', extensions: ValidateOptions = {}): Scenario {
  const f = new Fields(source);
  if (typeof input !== 'object' || input === null || Array.isArray(input)) f.fail('(root)', 'must be an object');
  const s = input as Record<string, unknown>;
  checkIdentity(f, s);
  const validators = f.int('validators', s.validators, 1, MAX_VALIDATORS);
  const observers = s.observers === undefined ? 0 : f.int('observers', s.observers, 0, MAX_OBSERVERS);
  const durationMs = f.int('durationMs', s.durationMs, 1, MAX_DURATION_MS);
  checkNodeBehaviour(f, s);
  const names = new NodeNames(f, validators, observers);
  if (s.twins !== undefined) for (const twin of names.nodeList('twins', s.twins, true)) names.addTwinOf(twin);
  checkPerNode(f, names, s);
  const hasBaseGenesis = s.baseGenesis !== undefined;
  if (hasBaseGenesis) f.object('baseGenesis', s.baseGenesis);
  checkGenesis(f, names, s.genesis, hasBaseGenesis);
  checkNetwork(f, s.network);
  const privacyGroups = checkPrivacy(f, names, s.privacy);
  checkSteps({ f, names, durationMs, hasBaseGenesis, privacyGroups, behaviours: extensions.behaviours ?? [], customSteps: extensions.steps ?? [] }, s.steps);
  checkExpectations(f, names, s.expect, durationMs);
  return input as Scenario;
}

function checkIdentity(f: Fields, s: Record<string, unknown>): void {
  if (typeof s.name !== 'string' || s.name === '') f.fail('name', 'must be a non-empty string');
  if (typeof s.description !== 'string') f.fail('description', 'must be a string');
  if (s.seed !== undefined && !Number.isSafeInteger(s.seed)) f.fail('seed', 'must be an integer');
}

/** How the nodes behave: known bugs, Besu release line, wire layout, round-change and stored-history options. */
function checkNodeBehaviour(f: Fields, s: Record<string, unknown>): void {
  if (s.bugs !== undefined && (!Array.isArray(s.bugs) || !s.bugs.every(isBugId))) f.fail('bugs', `must be an array of bug ids (${BUG_IDS.join(', ')})`);
  if (s.besuVersion !== undefined && !isBesuVersion(s.besuVersion)) f.fail('besuVersion', `must be one of ${BESU_VERSIONS.join(', ')}`);
  if (s.storedHistoryCheck !== undefined && s.storedHistoryCheck !== 'refuse' && s.storedHistoryCheck !== 'warn') f.fail('storedHistoryCheck', "must be 'refuse' or 'warn'");
  if (s.wireLayout !== undefined) f.oneOf('wireLayout', s.wireLayout, ['besu26', 'legacy']);
  f.boolean('earlyRoundChange', s.earlyRoundChange);
}

/** Settings keyed by node: extra data and misconfigured nodes' transitions. */
function checkPerNode(f: Fields, names: NodeNames, s: Record<string, unknown>): void {
  if (s.minerExtraData !== undefined) {
    for (const [name, extra] of Object.entries(f.object('minerExtraData', s.minerExtraData))) {
      names.node(`minerExtraData.${name}`, name);
      if (typeof extra !== 'string') f.fail(`minerExtraData.${name}`, 'must be a string');
    }
  }
  if (s.misconfigured === undefined) return;
  f.array('misconfigured', s.misconfigured).forEach((m, i) => {
    const entry = f.object(`misconfigured[${i}]`, m);
    names.node(`misconfigured[${i}].node`, entry.node);
    checkTransitions(f, names, `misconfigured[${i}].transitions`, entry.transitions, { baseGenesis: s.baseGenesis !== undefined });
  });
}

/** The privacy section's groups (node names), for the private-tx steps. */
function checkPrivacy(f: Fields, names: NodeNames, value: unknown): string[][] {
  if (value === undefined) return [];
  const p = f.object('privacy', value);
  const nodes = names.nodeList('privacy.nodes', p.nodes);
  if (nodes.length > 64) f.fail('privacy.nodes', 'must list at most 64 nodes');
  const groups = f.array('privacy.groups', p.groups);
  if (groups.length > 64) f.fail('privacy.groups', 'must list at most 64 groups');
  groups.forEach((g, i) => {
    names.nodeList(`privacy.groups[${i}]`, g).forEach((member, j) => {
      if (!nodes.includes(member)) f.fail(`privacy.groups[${i}][${j}]:`, `'${member}' is not one of privacy.nodes`);
    });
  });
  return groups as string[][];
}
