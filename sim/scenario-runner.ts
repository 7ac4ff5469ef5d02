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
import type { CheckerSuite, CheckerFactory } from './checkers/suite.ts';
import type { Behaviour } from './byzantine/kit.ts';
import { isByzantineBehaviour } from './byzantine/names.ts';
import type { Violation } from './checkers/violation.ts';
import { bugSwitches, type BugSwitches } from '../node/bugs/bug-switches.ts';
import { isBesuVersion, switchesOfVersion } from './bugs/versions.ts';
import { TraceModel } from './run-model/trace-model.ts';
import { roleOfName } from './run-model/roster.ts';
import { addressOf, genesisFor, resolveKeys } from './scenario-genesis.ts';
import { applyStep, lastFaultMs, type CustomStep, type StepContext } from './scenario-steps.ts';
import { describeExpectation, honestRunning, judgeExpectation, keptKindsOf, roundChangeSummary, sampleTimesOf, type JudgeInput } from './scenario-expectations.ts';
import { chainReadsOf, nodeReports, type NodeReport } from './scenario-node-access.ts';
import { canJudgeInWorker, judgeInProcess, judgeInWorker, type RunJudges } from './run-judges.ts';
import type { CheckerOutcome } from './checkers/checker-worker.ts';

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
  /**
   * Run the invariant checkers in a worker thread, on the second core (sim/run-judges.ts). A run
   * the worker finds a violation in is run again with them in process; custom checkers and
   * onCheckers keep them in process.
   */
  checkersInWorker?: boolean;
}

/** Custom behaviours by name; a name of a built-in one is refused (it would be shadowed). */
function customBehaviours(given: RunOptions['behaviours']): Map<string, Behaviour> {
  const out = new Map(Object.entries(given ?? {}));
  for (const name of out.keys()) if (isByzantineBehaviour(name)) throw new Error(`custom Byzantine behaviour '${name}' has the name of a built-in one`);
  return out;
}

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
  if (opts.checkersInWorker === true && canJudgeInWorker(opts)) {
    const judged = await runJudged(s, opts, 'worker');
    if (judged !== undefined) return judged;
  }
  return (await runJudged(s, opts, 'in-process'))!;
}

/** One run of `s`; undefined when checkers in a worker could not judge it (see sim/run-judges.ts). */
async function runJudged(s: Scenario, opts: RunOptions, where: 'worker' | 'in-process'): Promise<RunResult | undefined> {
  const wallStart = opts.wallClock?.() ?? 0;
  const seed = opts.seed ?? s.seed ?? 1;
  const { world, genesis, bugs, names, genesisWith } = buildWorld(s, seed, opts);
  opts.onWorld?.(world);
  const privacyRun = s.privacy ? new PrivacyRun(world, s) : undefined;
  const apiRun = s.steps.some((st) => st.do === 'api-clients') ? new ApiClientsRun(world, s.durationMs) : undefined;
  const forkExpectation = s.expect.find((e) => e.kind === 'fork');
  const judgesOptions = { genesis, latencyAllowanceMs: latencyAllowanceMs(s.network), extra: opts.checkers, onCheckers: opts.onCheckers, expectsFork: forkExpectation !== undefined };
  const judges = where === 'worker' ? judgeInWorker(world, s, judgesOptions) : judgeInProcess(world, s, judgesOptions);
  try {
    return await runWith(judges, { s, seed, opts, world, bugs, names, genesisWith, privacyRun, apiRun, forkExpectation, wallStart });
  } finally {
    judges.close();
  }
}

interface RunParts {
  s: Scenario;
  seed: number;
  opts: RunOptions;
  world: World;
  bugs: BugSwitches;
  names: StepContext['names'];
  genesisWith: StepContext['genesisWith'];
  privacyRun: PrivacyRun | undefined;
  apiRun: ApiClientsRun | undefined;
  forkExpectation: Expectation | undefined;
  wallStart: number;
}

async function runWith(judges: RunJudges, p: RunParts): Promise<RunResult | undefined> {
  const { s, seed, opts, world, bugs, names, genesisWith, privacyRun, apiRun, forkExpectation, wallStart } = p;
  // The run model the expectations are judged from, fed the trace from its first line on.
  const model = new TraceModel({ maxMessages: 0, keepKinds: keptKindsOf(s.expect) });
  world.trace.subscribe((line) => model.add(line));
  recordRunStarted(world, s, seed, faultyNodes(s), bugs);

  await world.startAll();
  privacyRun?.schedule();
  const heightsAt = scheduleHeightSamples(world, model, s);
  const steps: StepContext = { world, names, genesisWith, markReconfigured: (node) => judges.mark({ type: 'node-reconfigured', node }), privacyRun, apiRun, customSteps: opts.steps, accountNonces: new Map() };
  for (const st of [...s.steps].sort((a, b) => a.atMs - b.atMs)) world.at(st.atMs, `step:${st.do}`, () => applyStep(st, steps));
  // After the steps of that moment (ties run in scheduling order): liveness is owed from here on.
  world.at(lastFaultMs(s.steps), 'faults-healed', () => judges.mark({ type: 'faults-healed' }));
  await world.runFor(s.durationMs);
  const atEnd = await judges.atScenarioEnd();
  if (atEnd === undefined) return undefined;

  const honestUp = honestRunning(model);
  // The reference chain: the honest running node with the highest head (the first such in node order).
  const reference = [...honestUp].sort((a, b) => model.heightOf(b) - model.heightOf(a))[0];
  const judgeInput: JudgeInput = {
    model,
    heightsAt,
    // Agreement as it stands at the scenario's end, for the fork expectations.
    agreementHeld: atEnd.agreementHeld,
    chain: chainReadsOf(world, reference),
    addressOf: (who) => addressOf(names, who),
    privacy: privacyRun,
    api: apiRun,
  };
  const expectations: RunFinishedEvent['expectations'] = [];
  for (const e of s.expect) expectations.push(await judgeExpectation(e, judgeInput));

  await judges.runOnToLivenessDeadline(s.durationMs);
  const outcome = await judges.finish(world.elapsedMs());
  if (outcome === undefined) return undefined;
  return finishRun({ s, seed, world, model, outcome, bugs, honestUp, expectations, forkExpectation, wallMs: Math.round((opts.wallClock?.() ?? 0) - wallStart) });
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

interface FinishedRun {
  s: Scenario;
  seed: number;
  world: World;
  model: TraceModel;
  outcome: CheckerOutcome;
  bugs: BugSwitches;
  honestUp: readonly string[];
  expectations: RunFinishedEvent['expectations'];
  forkExpectation: Expectation | undefined;
  wallMs: number;
}

/** The verdict: recorded as the trace's last line (before its hash is taken, so a trace file alone can be reported on) and returned. */
function finishRun(r: FinishedRun): RunResult {
  const { s, world, model, outcome } = r;
  const { agreement, validity, liveness } = outcome.invariants;
  const violations = outcome.violations;
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
    ruleMarks: outcome.ruleMarks,
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
