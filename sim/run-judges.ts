/**
 * The invariant checkers of one scenario run, wherever they run: in process (they may steer the
 * run: invariant-violated lines go into the trace as violations happen, and the liveness checker
 * decides how long the world runs on) or in a worker thread on the second core (sim/parallel-checkers.ts),
 * which can only report at the end. A worker run that finds anything to steer by, a violation or a
 * liveness deadline still open, is given up (so is one whose worker failed), and the runner runs
 * the scenario again in process: runs are deterministic, so the second is the same run, judged as
 * it always was.
 */
import type { World } from './world.ts';
import type { Scenario } from './scenario.ts';
import { CheckerSuite, type CheckerFactory } from './checkers/suite.ts';
import { attachCheckers } from './checkers/world-tap.ts';
import type { StateSample } from './checkers/observation.ts';
import type { CheckerOutcome } from './checkers/checker-worker.ts';
import { ParallelCheckers } from './parallel-checkers.ts';
import { heldStates } from './scenario-node-access.ts';

const STATE_SAMPLE_EVERY_MS = 500;

/**
 * When a scenario ends before its liveness deadline, the world runs on until the deadline, but at
 * most this much virtual time and this many kernel events more (a stalled chain costs few events;
 * a chain that grows while one node lags costs many).
 */
const LIVENESS_EXTENSION_CAP_MS = 24 * 3600_000;
const LIVENESS_EXTENSION_EVENT_BUDGET = 3_000_000;

export type Marker = { type: 'node-reconfigured'; node: string } | { type: 'faults-healed' };

export interface RunJudges {
  mark(o: Marker): void;
  /**
   * The scenario's time is up: whether agreement still holds, or undefined when these judges
   * cannot finish the run (the worker found something to steer by).
   */
  atScenarioEnd(): Promise<{ agreementHeld: boolean } | undefined>;
  /** Runs the world on to an open liveness deadline (bounded). */
  runOnToLivenessDeadline(durationMs: number): Promise<void>;
  /** The checkers' outcome at the run's end, or undefined as for atScenarioEnd. */
  finish(endMs: number): Promise<CheckerOutcome | undefined>;
  /** Stops listening to the world (and ends a worker). */
  close(): void;
}

export interface JudgesOptions {
  genesis: Record<string, unknown>;
  latencyAllowanceMs: number;
  extra?: readonly CheckerFactory[];
  onCheckers?: (checkers: CheckerSuite) => void;
  /** A fork the scenario expects: the agreement checker's violation leaves the trace as it was. */
  expectsFork: boolean;
}

/** Whether these options let the checkers run in a worker (custom checkers and suite observers need them in process). */
export function canJudgeInWorker(o: { checkers?: readonly CheckerFactory[]; onCheckers?: unknown }): boolean {
  return (o.checkers?.length ?? 0) === 0 && o.onCheckers === undefined;
}

/** Held per-round state, sampled twice a virtual second (off the block timers' phase) for the bounded-state checker. */
function scheduleStateSamples(world: World, s: Scenario, observe: (o: StateSample) => void): void {
  for (let t = STATE_SAMPLE_EVERY_MS / 2; t <= s.durationMs; t += STATE_SAMPLE_EVERY_MS) {
    world.at(t, 'state-sample', () => {
      for (const sample of heldStates(world, t)) observe(sample);
    });
  }
}

/** The checkers in this thread: they see the run as it happens and may steer it. */
export function judgeInProcess(world: World, s: Scenario, o: JudgesOptions): RunJudges {
  const checkers = new CheckerSuite({
    genesis: o.genesis,
    latencyAllowanceMs: o.latencyAllowanceMs,
    extra: o.extra,
    // One trace line per broken invariant; a fork the scenario expects leaves its trace as it was.
    onViolation: (v) => {
      if (v.checker === 'agreement' && o.expectsFork) return;
      world.trace.record(world.kernel.nowMs(), v.node, { kind: 'invariant-violated', checker: v.checker, atMs: v.atMs, height: v.height, round: v.round, reason: v.reason });
    },
  });
  const tap = attachCheckers(world, checkers);
  scheduleStateSamples(world, s, (sample) => checkers.observe(sample));
  o.onCheckers?.(checkers);
  return {
    mark: (m) => tap.mark(m),
    atScenarioEnd: async () => ({ agreementHeld: !checkers.agreement.violation }),
    runOnToLivenessDeadline: (durationMs) => runOn(world, checkers, durationMs),
    finish: async (endMs) => {
      checkers.finish(endMs);
      return { violations: checkers.violations(), invariants: checkers.invariants(), ruleMarks: checkers.acceptance.markCounts() };
    },
    close: () => tap.detach(),
  };
}

/** The checkers on the second core: nothing to steer by is allowed (see the file comment). */
export function judgeInWorker(world: World, s: Scenario, o: JudgesOptions): RunJudges {
  const checkers = new ParallelCheckers(world, { genesis: o.genesis, latencyAllowanceMs: o.latencyAllowanceMs });
  scheduleStateSamples(world, s, (sample) => checkers.observe(sample));
  return {
    mark: (m) => checkers.mark(m.type === 'faults-healed' ? { type: 'faults-healed', atMs: world.elapsedMs() } : { type: 'node-reconfigured', node: m.node, atMs: world.elapsedMs() }),
    atScenarioEnd: async () => {
      const state = await checkers.state().catch(() => undefined);
      return state?.violations === 0 && state.livenessPendingMs === undefined ? { agreementHeld: true } : undefined;
    },
    // Nothing is open: atScenarioEnd gave the run up otherwise.
    runOnToLivenessDeadline: async () => {},
    finish: async (endMs) => {
      const outcome = await checkers.finish(endMs).catch(() => undefined);
      return outcome?.violations.length === 0 ? outcome : undefined;
    },
    close: () => checkers.close(),
  };
}

/**
 * Liveness is judged against a deadline fixed when the faults ended: if the scenario ended first,
 * the world runs on until it (the expectations were judged at the scenario's end).
 */
async function runOn(world: World, checkers: CheckerSuite, durationMs: number): Promise<void> {
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
