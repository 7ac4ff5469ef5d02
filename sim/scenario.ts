/**
 * The scenario language: a cluster, a genesis, a network, a timeline of steps and the outcomes
 * expected. Scenarios are plain data, so a TypeScript scenario and a JSON scenario file (such as
 * a shrunk property-test failure) are the same thing and replay the same way.
 */
import type { LatencyModel } from './network.ts';
import { BYZANTINE_BEHAVIOURS, isByzantineBehaviour, type ByzantineBehaviour } from './byzantine/names.ts';
import { BUG_IDS, isBugId } from '../node/bugs/bug-switches.ts';
import { BESU_VERSIONS, isBesuVersion } from './bugs/version-names.ts';

export interface GenesisSpec {
  blockPeriodSeconds?: number;
  requestTimeoutSeconds?: number;
  /** Besu's duplicatemessagelimit: how many message hashes the duplicate filter remembers. */
  duplicateMessageLimit?: number;
  epochLength?: number;
  blockReward?: string;
  /** Node name or address. */
  miningBeneficiary?: string;
  contractMode?: boolean;
  transitions?: TransitionStep[];
}

export interface TransitionStep {
  block: number;
  blockPeriodSeconds?: number;
  blockReward?: string;
  /** Node name or address; '' clears it. */
  miningBeneficiary?: string;
  validatorSelectionMode?: 'blockheader' | 'contract';
  /** Deploys a static validator contract listing these node names and switches to it. */
  contractValidators?: string[];
  /** Node names. */
  validators?: string[];
}

export type Step = { atMs: number } & (
  | { do: 'crash'; node: string }
  | { do: 'restart'; node: string; wipe?: boolean; transitions?: TransitionStep[] }
  | { do: 'partition'; groups: string[][] }
  | { do: 'heal' }
  | { do: 'pause'; node: string }
  | { do: 'resume'; node: string }
  | { do: 'clog'; from: string; to: string }
  | { do: 'unclog'; from: string; to: string }
  /** A built-in behaviour, or one the run was given in RunOptions.behaviours. */
  | { do: 'byzantine'; node: string; behaviour: ByzantineBehaviour | (string & {}) }
  | { do: 'skew'; node: string; ms: number }
  | { do: 'vote'; nodes: string[]; subject: string; add: boolean }
  | { do: 'discard-vote'; nodes: string[]; subject: string }
  | { do: 'rpc'; node: string; method: string; params?: unknown[] }
  | { do: 'transfer'; count: number; fromAccount?: number; valueWei?: string; node?: string; to?: 'logger' | string }
  /** A step the run was given in RunOptions.steps, by name; `args` is passed to it as is. */
  | { do: 'custom'; name: string; args?: unknown }
  /**
   * eea_sendRawTransaction on `node` (a member of privacy group `group`, an index into
   * `privacy.groups`): 'deploy' the lab's storage contract, or 'store' `value` in the group's
   * contract (the first one a deploy step made), which logs Stored(value).
   */
  | { do: 'private-tx'; node: string; group: number; action: 'deploy' | 'store'; value?: number }
  /**
   * Attaches API clients to `node` (sim/api-clients.ts): eth_subscribe `logs` and `newHeads`, and
   * an eth_newFilter log filter polled with eth_getFilterChanges every `pollEveryMs` (default 1000).
   */
  | { do: 'api-clients'; node: string; pollEveryMs?: number }
);

export type Expectation =
  | { kind: 'min-height'; height: number; nodes?: string[] }
  | { kind: 'max-height'; height: number; nodes?: string[] }
  | { kind: 'height-by'; atMs: number; height: number; nodes?: string[] }
  | { kind: 'round-changes'; min?: number; max?: number }
  | { kind: 'max-round'; min?: number; max?: number }
  | { kind: 'round-timeouts'; rounds: number }
  | { kind: 'validators-at'; block: number; validators: string[] }
  | { kind: 'no-fork' }
  | { kind: 'fork' }
  | { kind: 'forked-off'; node: string }
  | { kind: 'reorg'; nodes?: string[] }
  | { kind: 'balance-at-least'; account: string; wei: string }
  | { kind: 'balance-equals'; account: string; wei: string }
  | { kind: 'transactions-included'; min: number }
  | { kind: 'no-progress-between'; fromMs: number; toMs: number }
  | { kind: 'trace-event'; event: string; min: number; nonNullField?: string }
  | { kind: 'removed-logs'; nodes?: string[] }
  /** Private logs the run's priv_subscribe on each node received: at least `min`, at least `removed` with removed: true. */
  | { kind: 'private-logs'; nodes: string[]; min?: number; removed?: number }
  /** The nodes hold no private receipt and no private state of any group (non-members). */
  | { kind: 'no-private-state'; nodes: string[] }
  /**
   * The API clients of an `api-clients` step on each node saw every head change as Besu reports it
   * (the logs of removed blocks again with removed: true, the new branch's logs, new heads), judged
   * against the node's trace and plain RPC reads; and at least `minRemovedLogs` removed logs were owed.
   */
  | { kind: 'api-streams'; nodes: string[]; minRemovedLogs?: number };

export interface Scenario {
  name: string;
  description: string;
  seed?: number;
  validators: number;
  /** Non-validating nodes, named o0, o1, ... */
  observers?: number;
  genesis?: GenesisSpec;
  /**
   * A Besu genesis file to start from: its config, alloc and transitions are kept; its validator
   * list is replaced by simulated keys (their private keys are not known), keeping the count.
   */
  baseGenesis?: Record<string, unknown>;
  /**
   * `duplicate`: probability a message is delivered twice; `reorder`: probability of an extra delay
   * below `reorderWindowMs` (default 50), so copies and messages arrive out of order.
   */
  network?: { latency?: LatencyModel; loss?: number; duplicate?: number; reorder?: number; reorderWindowMs?: number; gossip?: boolean; traceMessages?: boolean };
  earlyRoundChange?: boolean;
  /** QBFT message layout the nodes emit: Besu >= 26.1 ('besu26', the default) or GoQuorum / Besu < 26.1 ('legacy'). */
  wireLayout?: 'besu26' | 'legacy';
  /** Validators that get a twin named "<name>-twin" running with the same key. */
  twins?: string[];
  /** Extra data (vanity source) per node name; twins default to "twin". */
  minerExtraData?: Record<string, string>;
  /** Nodes that run with these transitions instead of the network's (a misconfigured operator). */
  misconfigured?: Array<{ node: string; transitions: TransitionStep[] }>;
  /** Known-bug switches the nodes run with (ids from node/bugs/bug-switches.ts; see `qbft-lab bugs list`). */
  bugs?: string[];
  /** The Besu release line the nodes behave as: its known bugs are switched on (see `qbft-lab bugs list`). */
  besuVersion?: string;
  /**
   * A node restarted with a genesis that changes its stored blocks' rules: 'refuse' (qbft-lab's
   * default) keeps it down; 'warn' starts it anyway, as Besu does.
   */
  storedHistoryCheck?: 'refuse' | 'warn';
  /**
   * Privacy (an embedded private transaction manager) on `nodes`; each of `groups` (node names) is
   * created with priv_createPrivacyGroup on its first member at the start, and every member
   * subscribes to its logs (priv_subscribe) half a second later.
   */
  privacy?: { nodes: string[]; groups: string[][] };
  durationMs: number;
  steps: Step[];
  expect: Expectation[];
}

const STEP_KINDS = new Set(['custom', 'private-tx', 'api-clients', 'rpc', 'crash', 'restart', 'partition', 'heal', 'pause', 'resume', 'clog', 'unclog', 'byzantine', 'skew', 'vote', 'discard-vote', 'transfer']);
const EXPECT_KINDS = new Set([
  'min-height', 'max-height', 'height-by', 'round-changes', 'max-round', 'round-timeouts', 'validators-at', 'no-fork',
  'fork', 'forked-off', 'reorg', 'balance-at-least', 'balance-equals', 'transactions-included', 'no-progress-between',
  'trace-event', 'removed-logs', 'private-logs', 'no-private-state', 'api-streams',
]);

export class ScenarioError extends Error {}

/** Checks the shape of a scenario read from a file; errors name the field. */
export interface ValidateOptions {
  /** Names of Byzantine behaviours and custom steps the run will be given (RunOptions.behaviours / steps). */
  behaviours?: readonly string[];
  steps?: readonly string[];
}

export function validateScenario(input: unknown, source = 'scenario', extensions: ValidateOptions = {}): Scenario {
  const fail = (field: string, what: string): never => {
    throw new ScenarioError(`${source}: ${field} ${what}`);
  };
  if (typeof input !== 'object' || input === null || Array.isArray(input)) fail('(root)', 'must be an object');
  const s = input as Record<string, unknown>;
  if (typeof s.name !== 'string' || s.name === '') fail('name', 'must be a non-empty string');
  if (typeof s.description !== 'string') fail('description', 'must be a string');
  if (!Number.isInteger(s.validators) || (s.validators as number) < 1 || (s.validators as number) > 200) fail('validators', 'must be an integer from 1 to 200');
  if (s.observers !== undefined && (!Number.isInteger(s.observers) || (s.observers as number) < 0 || (s.observers as number) > 50)) fail('observers', 'must be an integer from 0 to 50');
  if (!Number.isInteger(s.durationMs) || (s.durationMs as number) <= 0 || (s.durationMs as number) > 7 * 24 * 3600_000) fail('durationMs', 'must be a positive integer (at most a week)');
  if (s.seed !== undefined && !Number.isSafeInteger(s.seed)) fail('seed', 'must be an integer');
  if (s.bugs !== undefined && (!Array.isArray(s.bugs) || !s.bugs.every(isBugId))) fail('bugs', `must be an array of bug ids (${BUG_IDS.join(', ')})`);
  if (s.besuVersion !== undefined && !isBesuVersion(s.besuVersion)) fail('besuVersion', `must be one of ${BESU_VERSIONS.join(', ')}`);
  if (s.storedHistoryCheck !== undefined && s.storedHistoryCheck !== 'refuse' && s.storedHistoryCheck !== 'warn') fail('storedHistoryCheck', "must be 'refuse' or 'warn'");
  // The network's node names, as the runner makes them: v0.., o0.., then "<name>-twin" per twin.
  const validatorCount = s.validators as number;
  const observerCount = (s.observers as number | undefined) ?? 0;
  const nodeNames = new Set<string>();
  for (let i = 0; i < validatorCount; i++) nodeNames.add(`v${i}`);
  for (let i = 0; i < observerCount; i++) nodeNames.add(`o${i}`);
  const range = (p: string, n: number) => (n === 1 ? `${p}0` : `${p}0..${p}${n - 1}`);
  const networkHas = () =>
    [range('v', validatorCount), ...(observerCount > 0 ? [range('o', observerCount)] : []), ...[...nodeNames].filter((n) => n.endsWith('-twin'))].join(', ');
  const node = (field: string, value: unknown): void => {
    if (typeof value !== 'string') fail(field, 'must be a node name');
    else if (!nodeNames.has(value)) fail(`${field}:`, `unknown node '${value}' (this network has ${networkHas()})`);
  };
  const nodeList = (field: string, value: unknown): void => {
    if (!Array.isArray(value)) fail(field, 'must be an array of node names');
    (value as unknown[]).forEach((n, j) => node(`${field}[${j}]`, n));
  };
  /** A node name, an address (0x + 40 hex digits) or a test account (account0..), as the runner resolves them. */
  const nodeOrAccount = (field: string, value: unknown): void => {
    if (typeof value === 'string' && (/^0x[0-9a-fA-F]{40}$/.test(value) || /^account\d$/.test(value))) return;
    node(field, value);
  };
  if (s.twins !== undefined) {
    nodeList('twins', s.twins);
    for (const twin of s.twins as string[]) nodeNames.add(`${twin}-twin`);
  }
  if (s.misconfigured !== undefined) {
    if (!Array.isArray(s.misconfigured)) fail('misconfigured', 'must be an array');
    (s.misconfigured as Array<Record<string, unknown>>).forEach((m, i) => node(`misconfigured[${i}].node`, m?.node));
  }
  if (s.privacy !== undefined) {
    const p = s.privacy as Record<string, unknown>;
    const names = (x: unknown) => Array.isArray(x) && x.length > 0 && x.length <= 64 && x.every((n) => typeof n === 'string' && /^[\w-]{1,32}$/.test(n));
    if (typeof p !== 'object' || p === null || !names(p.nodes)) fail('privacy.nodes', 'must be a non-empty array of node names');
    if (!Array.isArray(p.groups) || p.groups.length > 64 || !p.groups.every((g: unknown) => names(g) && (g as string[]).every((n) => (p.nodes as string[]).includes(n))))
      fail('privacy.groups', 'must be an array of groups whose members are privacy nodes');
    nodeList('privacy.nodes', p.nodes);
  }
  if (!Array.isArray(s.steps)) fail('steps', 'must be an array');
  if ((s.steps as unknown[]).length > 10_000) fail('steps', 'has more than 10000 entries');
  (s.steps as unknown[]).forEach((step, i) => {
    const st = step as Record<string, unknown>;
    if (typeof st !== 'object' || st === null) fail(`steps[${i}]`, 'must be an object');
    if (!Number.isInteger(st.atMs) || (st.atMs as number) < 0) fail(`steps[${i}].atMs`, 'must be a non-negative integer');
    if (!STEP_KINDS.has(st.do as string)) fail(`steps[${i}].do`, `must be one of ${[...STEP_KINDS].join(', ')}`);
    switch (st.do) {
      case 'crash': case 'restart': case 'pause': case 'resume': case 'byzantine': case 'skew': case 'rpc': case 'private-tx': case 'api-clients':
        node(`steps[${i}].node`, st.node);
        break;
      case 'partition':
        if (!Array.isArray(st.groups)) fail(`steps[${i}].groups`, 'must be an array of groups of node names');
        (st.groups as unknown[]).forEach((g, j) => nodeList(`steps[${i}].groups[${j}]`, g));
        break;
      case 'clog': case 'unclog':
        node(`steps[${i}].from`, st.from);
        node(`steps[${i}].to`, st.to);
        break;
      case 'vote': case 'discard-vote':
        nodeList(`steps[${i}].nodes`, st.nodes);
        nodeOrAccount(`steps[${i}].subject`, st.subject);
        break;
      case 'transfer':
        if (st.node !== undefined) node(`steps[${i}].node`, st.node);
        if (st.to !== undefined && st.to !== 'logger') nodeOrAccount(`steps[${i}].to`, st.to);
        break;
    }
    const customBehaviours = extensions.behaviours ?? [];
    if (st.do === 'byzantine' && !isByzantineBehaviour(st.behaviour) && !customBehaviours.includes(st.behaviour as string))
      fail(`steps[${i}].behaviour`, `must be one of ${[...BYZANTINE_BEHAVIOURS, ...customBehaviours].join(', ')}`);
    if (st.do === 'private-tx') {
      const groups = (s.privacy as { groups?: string[][] } | undefined)?.groups ?? [];
      if (!Number.isInteger(st.group) || (st.group as number) < 0 || (st.group as number) >= groups.length) fail(`steps[${i}].group`, 'must index privacy.groups');
      else if (!groups[st.group as number]!.includes(st.node as string)) fail(`steps[${i}].node`, `must be a member of privacy group ${st.group as number}`);
      if (st.action !== 'deploy' && st.action !== 'store') fail(`steps[${i}].action`, "must be 'deploy' or 'store'");
      if (st.value !== undefined && (!Number.isSafeInteger(st.value) || (st.value as number) < 0)) fail(`steps[${i}].value`, 'must be a non-negative integer');
    }
    if (st.do === 'api-clients' && st.pollEveryMs !== undefined && (!Number.isInteger(st.pollEveryMs) || (st.pollEveryMs as number) < 1))
      fail(`steps[${i}].pollEveryMs`, 'must be a positive integer');
    if (st.do === 'custom' && !(extensions.steps ?? []).includes(st.name as string))
      fail(`steps[${i}].name`, (extensions.steps ?? []).length === 0 ? 'names a custom step, and the run was given none' : `must be one of ${(extensions.steps ?? []).join(', ')}`);
  });
  if (!Array.isArray(s.expect)) fail('expect', 'must be an array');
  (s.expect as unknown[]).forEach((e, i) => {
    const ex = e as Record<string, unknown>;
    if (typeof ex !== 'object' || ex === null || !EXPECT_KINDS.has(ex.kind as string)) fail(`expect[${i}].kind`, `must be one of ${[...EXPECT_KINDS].join(', ')}`);
    if (ex.kind === 'forked-off') node(`expect[${i}].node`, ex.node);
    else if (ex.kind === 'validators-at') {
      if (!Array.isArray(ex.validators)) fail(`expect[${i}].validators`, 'must be an array of node names or addresses');
      (ex.validators as unknown[]).forEach((v, j) => nodeOrAccount(`expect[${i}].validators[${j}]`, v));
    } else if (ex.kind === 'balance-at-least' || ex.kind === 'balance-equals') nodeOrAccount(`expect[${i}].account`, ex.account);
    else if (ex.nodes !== undefined) nodeList(`expect[${i}].nodes`, ex.nodes);
  });
  return input as Scenario;
}
