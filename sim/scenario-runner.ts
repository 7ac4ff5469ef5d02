/**
 * Runs a scenario in a fresh world and judges it: invariants (the independent checkers of
 * sim/checkers/, which read the trace and the wire as the run goes) and the scenario's own
 * expectations. One seed drives everything, so a run replays exactly.
 */
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { bytesToHex, type Hex } from '../node/crypto/bytes.ts';
import { encodeExtraDataFromAddresses } from '../node/chain/extra-data.ts';
import { buildSimGenesis, DEFAULT_VALIDATOR_CONTRACT, LOGGER_CONTRACT, type TransitionSpec } from './genesis-builder.ts';
import { BESU_TEST_ACCOUNTS, deterministicKey, validatorKeys, type NodeKey } from './keys.ts';
import { SIM_START_TIME_MS, World, type WorldNodeSpec } from './world.ts';
import type { Expectation, Scenario, Step, TransitionStep } from './scenario.ts';
import type { TraceLine } from './trace.ts';
import { parseGenesis } from '../node/chain/genesis.ts';
import { rpcClientFor } from './node-rpc-client.ts';
import { PrivacyRun, applyPrivacy } from './privacy-run.ts';
import { ApiClientsRun } from './api-clients.ts';
import { DEFAULT_REORDER_WINDOW_MS } from './network.ts';
import { CheckerSuite, type CheckerFactory } from './checkers/suite.ts';
import type { Behaviour } from './byzantine/kit.ts';
import { isByzantineBehaviour } from './byzantine/names.ts';
import { attachCheckers } from './checkers/world-tap.ts';
import type { Violation } from './checkers/violation.ts';
import { bugSwitches, type BugSwitches } from '../node/bugs/bug-switches.ts';
import { isBesuVersion, switchesOfVersion } from './bugs/versions.ts';

export interface NodeReport {
  name: string;
  address: Hex;
  height: number;
  head: Hex | null;
  status: 'up' | 'crashed';
}

export interface RunResult {
  scenario: string;
  seed: number;
  ok: boolean;
  validators: number;
  simulatedMs: number;
  wallMs: number;
  height: number;
  nodes: NodeReport[];
  roundChanges: number;
  maxRound: number;
  messages: { sent: number; delivered: number; dropped: number };
  traceHash: Hex;
  invariants: { agreement: boolean; validity: boolean; liveness: boolean | null };
  /** The first violation of each invariant checker (sim/checkers/), in checker order. */
  violations: Violation[];
  /** Violations the scenario declares as expected (they do not fail the run), with the expectation that declares each. */
  expectedViolations: Array<{ checker: string; expectation: string }>;
  /** The known-bug switches the nodes ran with (the scenario's, the run options' and the Besu version's), sorted. */
  bugs: string[];
  /** The Besu release line the nodes behaved as, when the scenario named one. */
  besuVersion: string | null;
  /** Coverage marks: per validation rule, the messages honest nodes judged whose first broken rule it was. */
  ruleMarks: Record<string, number>;
  expectations: Array<{ text: string; ok: boolean }>;
  errors: string[];
}

const STATE_SAMPLE_EVERY_MS = 500;

export interface RunOptions {
  seed?: number;
  /** Wall-clock reader for the wallMs figure (the CLI passes a real one; tests may omit it). */
  wallClock?: () => number;
  /** Keep every trace line in memory (for writing the trace out); the hash is computed either way. */
  keepTrace?: boolean;
  onWorld?: (world: World) => void;
  /** Sees the run's invariant checkers once they are attached (tests inspect them). */
  onCheckers?: (checkers: CheckerSuite) => void;
  /** Known-bug switches to run with, on top of the scenario's own `bugs` (fuzz --bug). */
  bugs?: readonly string[];
  /** Invariant checkers of your own, judged with the built-in ones; a violation fails the run. */
  checkers?: readonly CheckerFactory[];
  /** Steps of your own, run by `{ do: 'custom', name, args }` steps at their time. */
  steps?: Readonly<Record<string, CustomStep>>;
  /** Byzantine behaviours of your own, named by `{ do: 'byzantine', behaviour }` steps. */
  behaviours?: Readonly<Record<string, Behaviour>>;
}

/** Custom behaviours by name; a name of a built-in one is refused (it would be shadowed). */
function customBehaviours(given: RunOptions['behaviours']): Map<string, Behaviour> {
  const out = new Map(Object.entries(given ?? {}));
  for (const name of out.keys()) if (isByzantineBehaviour(name)) throw new Error(`custom Byzantine behaviour '${name}' has the name of a built-in one`);
  return out;
}

/** A custom scenario step: runs at its virtual time with the world and the step's `args`. */
export type CustomStep = (world: World, args: unknown) => void | Promise<void>;

const GIB = 10n ** 18n;

/**
 * When a scenario ends before its liveness deadline, the world runs on until the deadline, but at
 * most this much virtual time and this many kernel events more (a stalled chain costs few events;
 * a chain that grows while one node lags costs many).
 */
const LIVENESS_EXTENSION_CAP_MS = 24 * 3600_000;
const LIVENESS_EXTENSION_EVENT_BUDGET = 3_000_000;

/**
 * Network delay the liveness bound allows on top of the timers: a few message hops at the slowest
 * latency, and a few reordered (late) hops when the network reorders.
 */
function latencyAllowanceMs(network: Scenario['network']): number {
  const latency = network?.latency;
  const worst = !latency ? 30 : latency.kind === 'fixed' ? latency.ms : latency.kind === 'uniform' ? latency.maxMs : latency.meanMs + 6 * latency.sdMs;
  const late = network?.reorder ? 4 * (network.reorderWindowMs ?? DEFAULT_REORDER_WINDOW_MS) : 0;
  return 5_000 + 20 * Math.ceil(worst) + late;
}

function resolveKeys(s: Scenario): { validators: NodeKey[]; nodes: WorldNodeSpec[]; names: Map<string, NodeKey> } {
  const validators = validatorKeys(s.validators);
  const names = new Map<string, NodeKey>();
  const nodes: WorldNodeSpec[] = [];
  validators.forEach((key, i) => {
    names.set(`v${i}`, key);
    nodes.push({ name: `v${i}`, key, minerExtraData: s.minerExtraData?.[`v${i}`] });
  });
  for (let i = 0; i < (s.observers ?? 0); i++) {
    const key = deterministicKey('observer', i);
    names.set(`o${i}`, key);
    nodes.push({ name: `o${i}`, key });
  }
  for (const twin of s.twins ?? []) {
    const key = names.get(twin);
    if (!key) throw new Error(`twins: no node named ${twin}`);
    nodes.push({ name: `${twin}-twin`, key, minerExtraData: 'twin' });
  }
  return { validators, nodes, names };
}

function addressOf(names: Map<string, NodeKey>, who: string): Hex {
  if (/^0x[0-9a-fA-F]{40}$/.test(who)) return who.toLowerCase() as Hex;
  const m = /^account(\d)$/.exec(who);
  if (m) return BESU_TEST_ACCOUNTS[Number(m[1])].address;
  const key = names.get(who);
  if (!key) throw new Error(`no node or account named ${who}`);
  return key.address;
}

function transitionSpecs(steps: TransitionStep[] | undefined, names: Map<string, NodeKey>): { transitions: TransitionSpec[]; contracts: Array<{ address: Hex; validators: Hex[] }> } {
  const transitions: TransitionSpec[] = [];
  const contracts: Array<{ address: Hex; validators: Hex[] }> = [];
  for (const t of steps ?? []) {
    const spec: TransitionSpec = { block: t.block };
    if (t.blockPeriodSeconds !== undefined) spec.blockperiodseconds = t.blockPeriodSeconds;
    if (t.blockReward !== undefined) spec.blockreward = t.blockReward;
    if (t.miningBeneficiary !== undefined) spec.miningbeneficiary = t.miningBeneficiary === '' ? '' : addressOf(names, t.miningBeneficiary);
    if (t.validators) spec.validators = t.validators.map((v) => addressOf(names, v));
    if (t.validatorSelectionMode) spec.validatorselectionmode = t.validatorSelectionMode;
    if (t.contractValidators) {
      const address = DEFAULT_VALIDATOR_CONTRACT;
      contracts.push({ address, validators: t.contractValidators.map((v) => addressOf(names, v)) });
      spec.validatorselectionmode = 'contract';
      spec.validatorcontractaddress = address;
    }
    transitions.push(spec);
  }
  return { transitions, contracts };
}

/** A field a scenario file names by string (the schema cannot know which). */
function fieldOf(line: TraceLine, name: string): unknown {
  return Object.hasOwn(line, name) ? (line as unknown as Record<string, unknown>)[name] : undefined;
}

function genesisFor(s: Scenario, validators: NodeKey[], names: Map<string, NodeKey>, transitionsOverride?: TransitionStep[]): Record<string, unknown> {
  const g = s.genesis ?? {};
  const { transitions, contracts } = transitionSpecs(transitionsOverride ?? g.transitions, names);
  if (s.baseGenesis) {
    const adapted = adaptBaseGenesis(s.baseGenesis, validators, g);
    if (transitionsOverride === undefined) return adapted;
    // A node restarted (or misconfigured) with transitions of its own: they replace the file's.
    if (contracts.length > 0) throw new Error('contractValidators in a restart or misconfigured transition cannot be added to a base genesis file (its alloc is the operator\'s)');
    const key = (obj: Record<string, unknown>, name: string) => Object.keys(obj).find((k) => k.toLowerCase() === name) ?? name;
    const config = adapted[key(adapted, 'config')] as Record<string, unknown>;
    config[key(config, 'transitions')] = { qbft: transitions };
    return adapted;
  }
  return buildSimGenesis({
    validators: validators.map((k) => k.address),
    startTimeSeconds: SIM_START_TIME_MS / 1000,
    blockPeriodSeconds: g.blockPeriodSeconds,
    requestTimeoutSeconds: g.requestTimeoutSeconds,
    duplicateMessageLimit: g.duplicateMessageLimit,
    epochLength: g.epochLength,
    blockReward: g.blockReward,
    miningBeneficiary: g.miningBeneficiary ? addressOf(names, g.miningBeneficiary) : undefined,
    contractMode: g.contractMode,
    transitions,
    validatorContract: contracts[0],
  });
}

/** An operator's genesis with the simulated validators and start time put in. */
function adaptBaseGenesis(base: Record<string, unknown>, validators: NodeKey[], g: NonNullable<Scenario['genesis']>): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(base)) as Record<string, unknown>;
  const key = (obj: Record<string, unknown>, name: string) => Object.keys(obj).find((k) => k.toLowerCase() === name) ?? name;
  const config = (copy[key(copy, 'config')] ??= {}) as Record<string, unknown>;
  const qbft = (config[key(config, 'qbft')] ??= {}) as Record<string, unknown>;
  if (g.blockPeriodSeconds !== undefined) qbft[key(qbft, 'blockperiodseconds')] = g.blockPeriodSeconds;
  if (g.requestTimeoutSeconds !== undefined) qbft[key(qbft, 'requesttimeoutseconds')] = g.requestTimeoutSeconds;
  const extraKey = key(copy, 'extradata');
  const contractMode = Object.keys(qbft).some((k) => k.toLowerCase() === 'validatorcontractaddress');
  if (!contractMode) copy[extraKey] = bytesToHex(encodeExtraDataFromAddresses(validators.map((k) => k.address)));
  copy[key(copy, 'timestamp')] = '0x' + (SIM_START_TIME_MS / 1000).toString(16);
  return copy;
}

export function describeExpectation(e: Expectation): string {
  switch (e.kind) {
    case 'min-height': return `${e.nodes ? e.nodes.join(',') : 'honest nodes'} reach height ${e.height}`;
    case 'max-height': return `${e.nodes ? e.nodes.join(',') : 'honest nodes'} stay at or below height ${e.height}`;
    case 'height-by': return `${e.nodes ? e.nodes.join(',') : 'honest nodes'} at height >= ${e.height} by ${e.atMs} ms`;
    case 'round-changes': return `round changes ${e.min !== undefined ? `>= ${e.min}` : ''}${e.min !== undefined && e.max !== undefined ? ' and ' : ''}${e.max !== undefined ? `<= ${e.max}` : ''}`;
    case 'max-round': return `highest round ${e.min !== undefined ? `>= ${e.min}` : ''}${e.min !== undefined && e.max !== undefined ? ' and ' : ''}${e.max !== undefined ? `<= ${e.max}` : ''}`;
    case 'round-timeouts': return `round r's timer is requesttimeoutseconds * 2^r for rounds 0..${e.rounds}`;
    case 'validators-at': return `validators for block ${e.block} are ${e.validators.join(',')}`;
    case 'no-fork': return 'no two honest nodes import different blocks at one height';
    case 'fork': return 'a fork is detected (different blocks imported at one height)';
    case 'forked-off': return `${e.node} forks off the network's chain`;
    case 'reorg': return `${e.nodes ? e.nodes.join(',') : 'some node'} reorganizes onto the longer chain`;
    case 'balance-at-least': return `${e.account} holds at least ${e.wei} wei`;
    case 'balance-equals': return `${e.account} holds exactly ${e.wei} wei`;
    case 'transactions-included': return `at least ${e.min} transactions included`;
    case 'no-progress-between': return `no block is added between ${e.fromMs} ms and ${e.toMs} ms`;
    case 'trace-event': return `at least ${e.min} '${e.event}' event(s)${e.nonNullField ? ` with ${e.nonNullField} set` : ''}`;
    case 'removed-logs': return `${e.nodes ? e.nodes.join(',') : 'some node'} drops logs of blocks removed by a reorganization`;
    case 'private-logs': return `${e.nodes.join(',')} receive${e.min !== undefined ? ` at least ${e.min}` : ''} private logs through priv_subscribe${e.removed !== undefined ? `, at least ${e.removed} with removed: true` : ''}`;
    case 'no-private-state': return `${e.nodes.join(',')} hold no private receipt, log or state (non-members)`;
    case 'api-streams': return `API clients on ${e.nodes.join(',')} see every head change as Besu reports it (removed logs again with removed: true, new logs, new heads)${e.minRemovedLogs ? `, at least ${e.minRemovedLogs} removed logs` : ''}`;
  }
}

export async function runScenario(s: Scenario, opts: RunOptions = {}): Promise<RunResult> {
  const wallStart = opts.wallClock?.() ?? 0;
  const seed = opts.seed ?? s.seed ?? 1;
  const { validators, nodes, names } = resolveKeys(s);
  applyPrivacy(s, nodes);
  const ofVersion = isBesuVersion(s.besuVersion) ? switchesOfVersion(s.besuVersion) : [];
  const bugs = bugSwitches([...new Set([...(s.bugs ?? []), ...(opts.bugs ?? []), ...ofVersion])].sort());
  const misconfigured = new Set((s.misconfigured ?? []).map((m) => m.node));
  for (const m of s.misconfigured ?? []) {
    const spec = nodes.find((n) => n.name === m.node);
    if (!spec) throw new Error(`misconfigured: no node named ${m.node}`);
    spec.genesis = genesisFor(s, validators, names, m.transitions);
  }
  const networkGenesis = genesisFor(s, validators, names);
  const world = new World({
    seed,
    genesis: networkGenesis,
    nodes,
    latency: s.network?.latency,
    loss: s.network?.loss,
    duplicate: s.network?.duplicate,
    reorder: s.network?.reorder,
    reorderWindowMs: s.network?.reorderWindowMs,
    gossip: s.network?.gossip,
    traceMessages: s.network?.traceMessages,
    earlyRoundChange: s.earlyRoundChange,
    keepTrace: opts.keepTrace,
    wireLayout: s.wireLayout,
    bugs,
    behaviours: customBehaviours(opts.behaviours),
    storedHistoryCheck: s.storedHistoryCheck,
  });
  opts.onWorld?.(world);
  const privacyRun = s.privacy ? new PrivacyRun(world, s) : undefined;
  const apiRun = s.steps.some((st) => st.do === 'api-clients') ? new ApiClientsRun(world, s.durationMs) : undefined;

  const forkExpectation = s.expect.find((e) => e.kind === 'fork');
  const expectsFork = forkExpectation !== undefined;
  // The invariant checkers read the run from its trace and its wire, never from the nodes' own code.
  const checkers = new CheckerSuite({
    genesis: networkGenesis,
    latencyAllowanceMs: latencyAllowanceMs(s.network),
    extra: opts.checkers,
    // One trace line per broken invariant; a fork the scenario expects leaves its trace as it was.
    onViolation: (v) => {
      if (v.checker === 'agreement' && expectsFork) return;
      world.trace.record(world.kernel.nowMs(), v.node, { kind: 'invariant-violated', checker: v.checker, atMs: v.atMs, height: v.height, round: v.round, reason: v.reason });
    },
  });
  const checkerTap = attachCheckers(world, checkers);
  // Held per-round state, sampled twice a virtual second (off the block timers' phase) for the bounded-state checker.
  for (let t = STATE_SAMPLE_EVERY_MS / 2; t <= s.durationMs; t += STATE_SAMPLE_EVERY_MS) {
    world.at(t, 'state-sample', () => {
      for (const name of world.names()) {
        const sim = world.get(name);
        const held = sim.status === 'up' ? sim.node?.heldConsensusState() : undefined;
        if (!held) continue;
        checkers.observe({ type: 'state-sample', atMs: t, node: name, height: sim.node!.consensusStats()!.height, ...held });
      }
    });
  }
  opts.onCheckers?.(checkers);

  const faulty = new Set<string>([...misconfigured]);
  for (const twin of s.twins ?? []) faulty.add(twin).add(`${twin}-twin`);
  for (const st of s.steps) if (st.do === 'byzantine') faulty.add(st.node);
  const honest = (name: string) => !faulty.has(name);
  recordRunStarted(world, s, seed, faulty, bugs);

  const roundsStarted = new Map<string, number>();
  const timeouts: Array<{ round: number; timeoutMs: number }> = [];
  const reorgNodes = new Set<string>();
  const removedLogs = new Map<string, number>();
  const tracedKinds = new Set(s.expect.flatMap((e) => (e.kind === 'trace-event' ? [e.event] : [])));
  const traceCounts = new Map<string, TraceLine[]>();
  world.trace.subscribe((line: TraceLine) => {
    if (!line.node || !honest(line.node)) return;
    if (line.kind === 'round-started') {
      const round = line.round;
      if (round > 0) roundsStarted.set(`${line.height}/${round}`, round);
      if (timeouts.length < 10_000) timeouts.push({ round, timeoutMs: line.timeoutMs });
    } else if (line.kind === 'reorg') {
      reorgNodes.add(line.node);
      const logs = line.removedLogs;
      if (logs > 0) removedLogs.set(line.node, (removedLogs.get(line.node) ?? 0) + logs);
    }
    if (tracedKinds.has(line.kind)) {
      let list = traceCounts.get(line.kind);
      if (!list) traceCounts.set(line.kind, (list = []));
      if (list.length < 10_000) list.push(line);
    }
  });

  const accountNonces = new Map<number, bigint>();
  const samples = new Map<number, Map<string, number>>();
  const heightOf = (name: string) => world.nodes.get(name)?.node?.head().number ?? -1;
  const sample = (atMs: number) => {
    const m = new Map<string, number>();
    for (const name of world.names()) m.set(name, heightOf(name));
    samples.set(atMs, m);
  };

  const runStep = async (st: Step) => {
    switch (st.do) {
      case 'crash': world.crash(st.node); break;
      case 'restart':
        if (st.transitions) {
          world.get(st.node).genesis = parseGenesis(genesisFor(s, validators, names, st.transitions));
          checkerTap.mark({ type: 'node-reconfigured', node: st.node });
        }
        await world.restart(st.node, { wipe: st.wipe });
        break;
      case 'partition': world.partition(st.groups); break;
      case 'heal': world.heal(); break;
      case 'rpc': {
        const node = world.get(st.node).node;
        if (!node) {
          world.fail(`rpc ${st.method}: ${st.node} is not running`);
          break;
        }
        // Names of nodes in address parameters are resolved, so scenarios can say 'o0'.
        const params = (st.params ?? []).map((p) => (typeof p === 'string' && names.has(p) ? addressOf(names, p) : p));
        try {
          await rpcClientFor(node, (e) => world.trace.record(world.kernel.nowMs(), st.node, e)).request(st.method, params);
        } catch (err) {
          world.fail(`rpc ${st.method} on ${st.node}: ${(err as Error).message}`);
        }
        break;
      }
      case 'pause': world.pause(st.node); break;
      case 'resume': await world.resume(st.node); break;
      case 'clog': world.clog(st.from, st.to); break;
      case 'unclog': world.unclog(st.from, st.to); break;
      case 'byzantine': world.setByzantine(st.node, st.behaviour); break;
      case 'skew': world.setSkew(st.node, st.ms); break;
      case 'vote':
        for (const n of st.nodes) world.get(n).node?.proposeVote(addressOf(names, st.subject), st.add);
        world.trace.record(world.kernel.nowMs(), null, { kind: 'vote-queued', nodes: st.nodes, subject: st.subject, add: st.add });
        break;
      case 'discard-vote':
        for (const n of st.nodes) world.get(n).node?.discardVote(addressOf(names, st.subject));
        world.trace.record(world.kernel.nowMs(), null, { kind: 'vote-discarded', nodes: st.nodes, subject: st.subject });
        break;
      case 'transfer': {
        const accountIndex = st.fromAccount ?? 0;
        const account = BESU_TEST_ACCOUNTS[accountIndex];
        const target = st.node ? world.get(st.node) : [...world.nodes.values()].find((n) => n.status === 'up' && n.node);
        if (!target?.node) {
          world.fail(`transfer: no running node to submit to`);
          break;
        }
        for (let i = 0; i < st.count; i++) {
          const nonce = accountNonces.get(accountIndex) ?? 0n;
          accountNonces.set(accountIndex, nonce + 1n);
          const tx = createFeeMarket1559Tx(
            { nonce, to: st.to === 'logger' ? LOGGER_CONTRACT : st.to ? addressOf(names, st.to) : BESU_TEST_ACCOUNTS[(accountIndex + 1) % 3].address, value: BigInt(st.valueWei ?? '1'), gasLimit: st.to === 'logger' ? 40_000n : 21000n, maxFeePerGas: 100n * GIB / 10n ** 9n, maxPriorityFeePerGas: 1n, chainId: target.genesis.chainId },
            { common: target.node.common },
          ).sign(account.privateKey);
          const result = await target.node.submitTransaction(tx.serialize());
          if (!result.ok) world.fail(`transfer ${i} rejected: ${result.error}`);
        }
        break;
      }
      case 'private-tx':
        if (!privacyRun) world.fail(`private-tx on ${st.node}: the scenario has no privacy section`);
        else await privacyRun.step(st);
        break;
      case 'api-clients':
        await apiRun!.attach(st.node, st.pollEveryMs);
        break;
      case 'custom': {
        const step = opts.steps?.[st.name];
        if (!step) {
          world.fail(`custom step '${st.name}': the run was given no step of that name`);
          break;
        }
        world.trace.record(world.kernel.nowMs(), null, { kind: 'custom-step', name: st.name });
        await step(world, st.args);
        break;
      }
    }
  };

  await world.startAll();
  privacyRun?.schedule();
  const lastFaultMs = s.steps.filter((st) => st.do !== 'vote' && st.do !== 'discard-vote' && st.do !== 'transfer' && st.do !== 'rpc' && st.do !== 'private-tx' && st.do !== 'api-clients').reduce((m, st) => Math.max(m, st.atMs), 0);
  const sampleTimes = new Set<number>();
  for (const e of s.expect) {
    if (e.kind === 'height-by') sampleTimes.add(e.atMs);
    if (e.kind === 'no-progress-between') sampleTimes.add(e.fromMs).add(e.toMs);
  }
  // Samples are scheduled before steps, so a sample taken at a step's time sees the world just before it.
  for (const t of [...sampleTimes].sort((a, b) => a - b)) if (t <= s.durationMs) world.at(t, 'sample', () => sample(t));
  for (const st of [...s.steps].sort((a, b) => a.atMs - b.atMs)) world.at(st.atMs, `step:${st.do}`, () => runStep(st));
  // After the steps of that moment (ties run in scheduling order): liveness is owed from here on.
  world.at(lastFaultMs, 'faults-healed', () => checkerTap.mark({ type: 'faults-healed' }));
  await world.runFor(s.durationMs);

  const allNames = world.names();
  const honestUp = allNames.filter((n) => honest(n) && world.get(n).status === 'up');
  const reference = honestUp.map((n) => world.get(n).node!).sort((a, b) => b.head().number - a.head().number)[0];

  // Agreement as it stands at the scenario's end, for the fork expectations.
  const agreementAtEnd = !checkers.agreement.violation;
  const params = reference?.config.genesis.qbft;

  const expectations: Array<{ text: string; ok: boolean }> = [];
  // Why an expectation failed, when its judge can say (appended to its text).
  const failureNotes = new Map<Expectation, string>();
  for (const e of s.expect) {
    const ok = await judge(e);
    const note = failureNotes.get(e);
    expectations.push({ text: note ? `${describeExpectation(e)}: ${note}` : describeExpectation(e), ok });
  }

  async function judge(e: Expectation): Promise<boolean> {
    const pick = (list?: string[]) => list ?? honestUp;
    switch (e.kind) {
      case 'min-height': return pick(e.nodes).every((n) => heightOf(n) >= e.height);
      case 'max-height': return pick(e.nodes).every((n) => heightOf(n) <= e.height);
      case 'height-by': {
        const m = samples.get(e.atMs);
        return !!m && pick(e.nodes).every((n) => (m.get(n) ?? -1) >= e.height);
      }
      case 'round-changes': return (e.min === undefined || roundsStarted.size >= e.min) && (e.max === undefined || roundsStarted.size <= e.max);
      case 'max-round': {
        const r = Math.max(0, ...roundsStarted.values());
        return (e.min === undefined || r >= e.min) && (e.max === undefined || r <= e.max);
      }
      case 'round-timeouts': {
        if (!params) return false;
        for (let r = 0; r <= e.rounds; r++) {
          const seen = timeouts.filter((t) => t.round === r);
          if (seen.length === 0 || !seen.every((t) => t.timeoutMs === params.requestTimeoutSeconds * 1000 * 2 ** r)) return false;
        }
        return true;
      }
      case 'validators-at': {
        if (!reference) return false;
        const parent = reference.blockAt(e.block - 1);
        if (!parent) return false;
        const got = await reference.validatorsAfter(parent);
        const want = e.validators.map((v) => addressOf(names, v)).sort();
        return JSON.stringify(got) === JSON.stringify(want);
      }
      case 'no-fork': return agreementAtEnd;
      case 'fork': return !agreementAtEnd;
      case 'forked-off': {
        const node = world.get(e.node).node;
        if (!node || !reference) return false;
        const h = Math.min(node.head().number, reference.head().number);
        for (let i = 1; i <= h; i++) if (node.blockAt(i)!.hash !== reference.blockAt(i)!.hash) return true;
        return node.head().number + 3 < reference.head().number;
      }
      case 'reorg': return e.nodes ? e.nodes.every((n) => reorgNodes.has(n)) : reorgNodes.size > 0;
      case 'balance-at-least':
      case 'balance-equals': {
        if (!reference) return false;
        const account = await reference.account(reference.head().block.header.stateRoot, addressOf(names, e.account));
        const balance = account?.balance ?? 0n;
        return e.kind === 'balance-equals' ? balance === BigInt(e.wei) : balance >= BigInt(e.wei);
      }
      case 'no-progress-between': {
        const a = samples.get(e.fromMs);
        const b = samples.get(e.toMs);
        if (!a || !b) return false;
        return honestUp.every((n) => (a.get(n) ?? -1) === (b.get(n) ?? -1));
      }
      case 'trace-event': {
        const seen = traceCounts.get(e.event) ?? [];
        return seen.filter((line) => !e.nonNullField || fieldOf(line, e.nonNullField) != null).length >= e.min;
      }
      case 'private-logs':
        return !!privacyRun && e.nodes.every((n) => privacyRun.logsOf(n).added >= (e.min ?? 0) && privacyRun.logsOf(n).removed >= (e.removed ?? 0));
      case 'no-private-state':
        return !!privacyRun && e.nodes.every((n) => privacyRun.untouched(n));
      case 'api-streams': {
        const problems: string[] = [];
        for (const n of e.nodes) {
          const verdict = apiRun ? await apiRun.judge(n, e.minRemovedLogs) : { problem: 'the scenario has no api-clients step' };
          if (verdict.problem) problems.push(verdict.problem);
        }
        if (problems.length > 0) failureNotes.set(e, problems[0]!);
        return problems.length === 0;
      }
      case 'removed-logs': {
        const nodesWithRemoved = new Set(removedLogs.keys());
        return e.nodes ? e.nodes.every((n) => (removedLogs.get(n) ?? 0) > 0) : nodesWithRemoved.size > 0;
      }
      case 'transactions-included': {
        if (!reference) return false;
        let count = 0;
        for (let i = 1; i <= reference.head().number; i++) count += reference.blockAt(i)!.block.transactions.length;
        return count >= e.min;
      }
    }
  }

  // Liveness is judged against a deadline fixed when the faults ended: if the scenario ended first,
  // the world runs on until it (the expectations above were judged at the scenario's end).
  const livenessDeadlineMs = checkers.liveness.pendingDeadlineMs();
  if (livenessDeadlineMs !== undefined && livenessDeadlineMs > world.elapsedMs()) {
    const untilMs = Math.min(livenessDeadlineMs, s.durationMs + LIVENESS_EXTENSION_CAP_MS);
    const eventBudget = world.kernel.eventsRun + LIVENESS_EXTENSION_EVENT_BUDGET;
    checkers.liveness.onSettled = () => world.kernel.stop();
    while (checkers.liveness.pendingDeadlineMs() !== undefined && world.elapsedMs() < untilMs && world.kernel.eventsRun < eventBudget) {
      await world.runFor(Math.min(untilMs, world.elapsedMs() + 60_000));
    }
    checkers.liveness.onSettled = undefined;
  }
  checkers.finish(world.elapsedMs());
  checkerTap.detach();
  const { agreement, validity, liveness } = checkers.invariants();
  const violations = checkers.violations();
  // Violations that count against the run (a fork the scenario expects does not).
  const counted = violations.filter((v) => !(v.checker === 'agreement' && expectsFork));

  const stats = world.network.stats();
  const ok = counted.length === 0 && expectations.every((e) => e.ok) && world.errors.length === 0;
  const nodeReports: NodeReport[] = allNames.map((name) => {
    const sim = world.get(name);
    const head = sim.node?.head();
    return { name, address: sim.key.address, height: head?.number ?? -1, head: head?.hash ?? null, status: sim.status };
  });
  const height = Math.max(-1, ...honestUp.map(heightOf));
  const roundChanges = roundsStarted.size;
  const maxRound = Math.max(0, ...roundsStarted.values());
  // The run's verdict closes the trace (before its hash is taken), so a trace file alone can be reported on.
  world.trace.record(world.kernel.nowMs(), null, {
    kind: 'run-finished',
    ok,
    height,
    roundChanges,
    maxRound,
    invariants: { agreement, validity, liveness },
    // Only when some count, so that traces of passing runs keep their hashes.
    ...(counted.length > 0 ? { violations: counted } : {}),
    expectations,
    errors: world.errors.map((e) => e.split('\n')[0]!.slice(0, 500)),
  });
  return {
    scenario: s.name,
    seed,
    ok,
    validators: s.validators,
    simulatedMs: world.elapsedMs(),
    wallMs: Math.round((opts.wallClock?.() ?? 0) - wallStart),
    height,
    nodes: nodeReports,
    roundChanges,
    maxRound,
    messages: { sent: stats.sent, delivered: stats.delivered, dropped: stats.dropped },
    traceHash: world.trace.hash(),
    invariants: { agreement, validity, liveness },
    violations,
    expectedViolations: violations.filter((v) => !counted.includes(v)).map((v) => ({ checker: v.checker, expectation: describeExpectation(forkExpectation!) })),
    bugs: [...bugs],
    besuVersion: s.besuVersion ?? null,
    ruleMarks: checkers.acceptance.markCounts(),
    expectations,
    errors: world.errors,
  };
}

/**
 * The trace's first line: who is who (names, addresses, roles), the seed and the timing parameters,
 * so that a trace file can be read without the scenario that made it.
 */
function recordRunStarted(world: World, s: Scenario, seed: number, faulty: Set<string>, bugs: BugSwitches): void {
  const first = world.nodes.values().next().value;
  const qbft = first?.genesis.qbft;
  world.trace.record(world.kernel.nowMs(), null, {
    kind: 'run-started',
    scenario: s.name,
    seed,
    validators: s.validators,
    nodes: world.names().map((name) => {
      const role = /-twin$/.test(name) ? 'twin' : /^v\d+$/.test(name) ? 'validator' : 'observer';
      return { name, address: world.get(name).key.address, role, faulty: faulty.has(name) };
    }),
    blockPeriodSeconds: qbft?.blockPeriodSeconds,
    requestTimeoutSeconds: qbft?.requestTimeoutSeconds,
    epochLength: qbft?.epochLength,
    earlyRoundChange: s.earlyRoundChange === true,
    durationMs: s.durationMs,
    // Only when some are on, so that traces of runs without bug switches keep their hashes.
    ...(bugs.size > 0 ? { bugs: [...bugs] } : {}),
    ...(s.besuVersion !== undefined ? { besuVersion: s.besuVersion } : {}),
  });
}
