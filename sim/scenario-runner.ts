/**
 * Runs a scenario in a fresh world and judges it: invariants (the independent checkers of
 * sim/checkers/, which read the trace and the wire as the run goes) and the scenario's own
 * expectations (sim/scenario-expectations.ts, judged from the run model its trace builds). The
 * steps are applied by sim/scenario-steps.ts. One seed drives everything, so a run replays exactly.
 */
import type { Hex } from '../node/crypto/bytes.ts';
import { World } from './world.ts';
import type { Expectation, Scenario } from './scenario.ts';
import type { RunFinishedEvent } from './trace-events.ts';
import { PrivacyRun, applyPrivacy } from './privacy-run.ts';
import { ApiClientsRun } from './api-clients.ts';
import { DEFAULT_REORDER_WINDOW_MS } from './network.ts';
import { CheckerSuite, type CheckerFactory } from './checkers/suite.ts';
import type { Behaviour } from './byzantine/kit.ts';
import { isByzantineBehaviour } from './byzantine/names.ts';
import { attachCheckers, type CheckerTap } from './checkers/world-tap.ts';
import type { Violation } from './checkers/violation.ts';
import { bugSwitches, type BugSwitches } from '../node/bugs/bug-switches.ts';
import { isBesuVersion, switchesOfVersion } from './bugs/versions.ts';
import { TraceModel } from './run-model/trace-model.ts';
import { roleOfName } from './run-model/roster.ts';
import { addressOf, genesisFor, resolveKeys } from './scenario-genesis.ts';
import { applyStep, lastFaultMs, type CustomStep, type StepContext } from './scenario-steps.ts';
import { describeExpectation, honestRunning, judgeExpectation, keptKindsOf, roundChangeSummary, sampleTimesOf, type JudgeInput } from './scenario-expectations.ts';
import { chainReadsOf, heldStates, nodeReports, type NodeReport } from './scenario-node-access.ts';

export { describeExpectation } from './scenario-expectations.ts';
export type { CustomStep } from './scenario-steps.ts';
export type { NodeReport } from './scenario-node-access.ts';

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
  invariants: RunFinishedEvent['invariants'];
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
  expectations: RunFinishedEvent['expectations'];
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

/** Runs the scenario `s` once and judges it. */
export async function runScenario(s: Scenario, opts: RunOptions = {}): Promise<RunResult> {
  const wallStart = opts.wallClock?.() ?? 0;
  const seed = opts.seed ?? s.seed ?? 1;
  const { world, genesis, bugs, names, genesisWith } = buildWorld(s, seed, opts);
  opts.onWorld?.(world);
  const privacyRun = s.privacy ? new PrivacyRun(world, s) : undefined;
  const apiRun = s.steps.some((st) => st.do === 'api-clients') ? new ApiClientsRun(world, s.durationMs) : undefined;
  const forkExpectation = s.expect.find((e) => e.kind === 'fork');
  const { checkers, tap } = attachSuite(world, genesis, s, opts, forkExpectation !== undefined);
  // The run model the expectations are judged from, fed the trace from its first line on.
  const model = new TraceModel({ maxMessages: 0, keepKinds: keptKindsOf(s.expect) });
  world.trace.subscribe((line) => model.add(line));
  recordRunStarted(world, s, seed, faultyNodes(s), bugs);

  await world.startAll();
  privacyRun?.schedule();
  const heightsAt = scheduleHeightSamples(world, model, s);
  const steps: StepContext = { world, names, genesisWith, markReconfigured: (node) => tap.mark({ type: 'node-reconfigured', node }), privacyRun, apiRun, customSteps: opts.steps, accountNonces: new Map() };
  for (const st of [...s.steps].sort((a, b) => a.atMs - b.atMs)) world.at(st.atMs, `step:${st.do}`, () => applyStep(st, steps));
  // After the steps of that moment (ties run in scheduling order): liveness is owed from here on.
  world.at(lastFaultMs(s.steps), 'faults-healed', () => tap.mark({ type: 'faults-healed' }));
  await world.runFor(s.durationMs);

  const honestUp = honestRunning(model);
  // The reference chain: the honest running node with the highest head (the first such in node order).
  const reference = [...honestUp].sort((a, b) => model.heightOf(b) - model.heightOf(a))[0];
  const judgeInput: JudgeInput = {
    model,
    heightsAt,
    // Agreement as it stands at the scenario's end, for the fork expectations.
    agreementHeld: !checkers.agreement.violation,
    chain: chainReadsOf(world, reference),
    addressOf: (who) => addressOf(names, who),
    privacy: privacyRun,
    api: apiRun,
  };
  const expectations: RunFinishedEvent['expectations'] = [];
  for (const e of s.expect) expectations.push(await judgeExpectation(e, judgeInput));

  await runOnToLivenessDeadline(world, checkers, s.durationMs);
  checkers.finish(world.elapsedMs());
  tap.detach();
  return finishRun({ s, seed, world, model, checkers, bugs, honestUp, expectations, forkExpectation, wallMs: Math.round((opts.wallClock?.() ?? 0) - wallStart) });
}

/** The world of a scenario: its nodes (misconfigured ones with their own genesis), network and bug switches. */
function buildWorld(s: Scenario, seed: number, opts: RunOptions): { world: World; genesis: Record<string, unknown>; bugs: BugSwitches; names: StepContext['names']; genesisWith: StepContext['genesisWith'] } {
  const { validators, nodes, names } = resolveKeys(s);
  applyPrivacy(s, nodes);
  const ofVersion = isBesuVersion(s.besuVersion) ? switchesOfVersion(s.besuVersion) : [];
  const bugs = bugSwitches([...new Set([...(s.bugs ?? []), ...(opts.bugs ?? []), ...ofVersion])].sort());
  for (const m of s.misconfigured ?? []) {
    const spec = nodes.find((n) => n.name === m.node);
    if (!spec) throw new Error(`misconfigured: no node named ${m.node}`);
    spec.genesis = genesisFor(s, validators, names, m.transitions);
  }
  const genesis = genesisFor(s, validators, names);
  const world = new World({
    seed,
    genesis,
    nodes,
    latency: s.network?.latency,
    loss: s.network?.loss,
    duplicate: s.network?.duplicate,
    reorder: s.network?.reorder,
    reorderWindowMs: s.network?.reorderWindowMs,
    gossip: s.network?.gossip,
    maxPeers: s.network?.maxPeers,
    traceMessages: s.network?.traceMessages,
    earlyRoundChange: s.earlyRoundChange,
    keepTrace: opts.keepTrace,
    wireLayout: s.wireLayout,
    bugs,
    behaviours: customBehaviours(opts.behaviours),
    storedHistoryCheck: s.storedHistoryCheck,
  });
  return { world, genesis, bugs, names, genesisWith: (transitions) => genesisFor(s, validators, names, transitions) };
}

/**
 * The invariant checkers, reading the run from its trace and its wire (never from the nodes'
 * own code), with the held-state samples the bounded-state checker needs.
 */
function attachSuite(world: World, genesis: Record<string, unknown>, s: Scenario, opts: RunOptions, expectsFork: boolean): { checkers: CheckerSuite; tap: CheckerTap } {
  const checkers = new CheckerSuite({
    genesis,
    latencyAllowanceMs: latencyAllowanceMs(s.network),
    extra: opts.checkers,
    // One trace line per broken invariant; a fork the scenario expects leaves its trace as it was.
    onViolation: (v) => {
      if (v.checker === 'agreement' && expectsFork) return;
      world.trace.record(world.kernel.nowMs(), v.node, { kind: 'invariant-violated', checker: v.checker, atMs: v.atMs, height: v.height, round: v.round, reason: v.reason });
    },
  });
  const tap = attachCheckers(world, checkers);
  // Held per-round state, sampled twice a virtual second (off the block timers' phase) for the bounded-state checker.
  for (let t = STATE_SAMPLE_EVERY_MS / 2; t <= s.durationMs; t += STATE_SAMPLE_EVERY_MS) {
    world.at(t, 'state-sample', () => {
      for (const sample of heldStates(world, t)) checkers.observe(sample);
    });
  }
  opts.onCheckers?.(checkers);
  return { checkers, tap };
}

/** Byzantine nodes, misconfigured nodes, twins and the nodes they twin: not held to the honest-node expectations. */
function faultyNodes(s: Scenario): Set<string> {
  const faulty = new Set<string>((s.misconfigured ?? []).map((m) => m.node));
  for (const twin of s.twins ?? []) faulty.add(twin).add(`${twin}-twin`);
  for (const st of s.steps) if (st.do === 'byzantine') faulty.add(st.node);
  return faulty;
}

/**
 * Every node's height in the run model at the times the expectations name. Samples are scheduled
 * before the steps, so a sample taken at a step's time sees the world just before it.
 */
function scheduleHeightSamples(world: World, model: TraceModel, s: Scenario): JudgeInput['heightsAt'] {
  const samples = new Map<number, Map<string, number>>();
  for (const t of sampleTimesOf(s.expect)) {
    if (t > s.durationMs) continue;
    world.at(t, 'sample', () => {
      samples.set(t, new Map(model.nodes().map((n) => [n.name, model.heightOf(n.name)])));
    });
  }
  return (atMs) => samples.get(atMs);
}

/**
 * Liveness is judged against a deadline fixed when the faults ended: if the scenario ended first,
 * the world runs on until it (the expectations were judged at the scenario's end).
 */
async function runOnToLivenessDeadline(world: World, checkers: CheckerSuite, durationMs: number): Promise<void> {
  const livenessDeadlineMs = checkers.liveness.pendingDeadlineMs();
  if (livenessDeadlineMs === undefined || livenessDeadlineMs <= world.elapsedMs()) return;
  const untilMs = Math.min(livenessDeadlineMs, durationMs + LIVENESS_EXTENSION_CAP_MS);
  const eventBudget = world.kernel.eventsRun + LIVENESS_EXTENSION_EVENT_BUDGET;
  checkers.liveness.onSettled = () => world.kernel.stop();
  while (checkers.liveness.pendingDeadlineMs() !== undefined && world.elapsedMs() < untilMs && world.kernel.eventsRun < eventBudget) {
    await world.runFor(Math.min(untilMs, world.elapsedMs() + 60_000));
  }
  checkers.liveness.onSettled = undefined;
}

interface FinishedRun {
  s: Scenario;
  seed: number;
  world: World;
  model: TraceModel;
  checkers: CheckerSuite;
  bugs: BugSwitches;
  honestUp: readonly string[];
  expectations: RunFinishedEvent['expectations'];
  forkExpectation: Expectation | undefined;
  wallMs: number;
}

/** The verdict: recorded as the trace's last line (before its hash is taken, so a trace file alone can be reported on) and returned. */
function finishRun(r: FinishedRun): RunResult {
  const { s, world, model, checkers } = r;
  const { agreement, validity, liveness } = checkers.invariants();
  const violations = checkers.violations();
  // Violations that count against the run (a fork the scenario expects does not).
  const counted = violations.filter((v) => !(v.checker === 'agreement' && r.forkExpectation));
  const stats = world.network.stats();
  const ok = counted.length === 0 && r.expectations.every((e) => e.ok) && world.errors.length === 0;
  const nodes = nodeReports(world);
  const height = Math.max(-1, ...r.honestUp.map((n) => model.heightOf(n)));
  const { roundChanges, maxRound } = roundChangeSummary(model);
  world.trace.record(world.kernel.nowMs(), null, {
    kind: 'run-finished',
    ok,
    height,
    roundChanges,
    maxRound,
    invariants: { agreement, validity, liveness },
    // Only when some count, so that traces of passing runs keep their hashes.
    ...(counted.length > 0 ? { violations: counted } : {}),
    expectations: r.expectations,
    errors: world.errors.map((e) => e.split('\n')[0]!.slice(0, 500)),
  });
  return {
    scenario: s.name,
    seed: r.seed,
    ok,
    validators: s.validators,
    simulatedMs: world.elapsedMs(),
    wallMs: r.wallMs,
    height,
    nodes,
    roundChanges,
    maxRound,
    messages: { sent: stats.sent, delivered: stats.delivered, dropped: stats.dropped },
    traceHash: world.trace.hash(),
    invariants: { agreement, validity, liveness },
    violations,
    expectedViolations: violations.filter((v) => !counted.includes(v)).map((v) => ({ checker: v.checker, expectation: describeExpectation(r.forkExpectation!) })),
    bugs: [...r.bugs],
    besuVersion: s.besuVersion ?? null,
    ruleMarks: checkers.acceptance.markCounts(),
    expectations: r.expectations,
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
      return { name, address: world.get(name).key.address, role: roleOfName(name), faulty: faulty.has(name) };
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
