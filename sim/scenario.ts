/**
 * The scenario language: a cluster, a genesis, a network, a timeline of steps and the outcomes
 * expected. Scenarios are plain data, so a TypeScript scenario and a JSON scenario file (such as
 * a shrunk property-test failure) are the same thing and replay the same way. Times are virtual
 * milliseconds from the start of the run; sim/scenario-validate.ts checks a scenario before it runs.
 */
import type { LatencyModel } from './network.ts';
import type { ByzantineBehaviour } from './byzantine/names.ts';

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
  network?: { latency?: LatencyModel; loss?: number; duplicate?: number; reorder?: number; reorderWindowMs?: number; gossip?: boolean; traceMessages?: boolean; maxPeers?: number | 'all' };
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

export { ScenarioError } from './scenario-fields.ts';
export { validateScenario, type ValidateOptions } from './scenario-validate.ts';
