/**
 * qbft-lab as a library: `import { defineScenario, runScenario, fuzz, World } from 'qbft-lab'`.
 * The CLI is a layer over these same functions.
 *
 * Extension points (no fork needed):
 * - invariant checkers of your own: `runScenario(s, { checkers: [(model, report) => checker] })`,
 *   judged on the same observations as the built-in ones; extend `ModelChecker`;
 * - Byzantine behaviours of your own: `runScenario(s, { behaviours: { name: behaviour } })`, used
 *   by `{ do: 'byzantine', node, behaviour: name }` steps;
 * - scenario steps of your own: `runScenario(s, { steps: { name: (world, args) => ... } })`, run by
 *   `{ do: 'custom', name, args }` steps at their virtual time;
 * - all three also in `fuzz({ ..., extensions })`.
 */
import { validateScenario, type Scenario, type ValidateOptions } from './sim/scenario.ts';
import { runFuzz, type FuzzOptions, type FuzzReport } from './sim/fuzz.ts';

export { runScenario, type RunOptions, type RunResult, type NodeReport, type CustomStep } from './sim/scenario-runner.ts';
export {
  validateScenario,
  ScenarioError,
  type Scenario,
  type Step,
  type Expectation,
  type GenesisSpec,
  type TransitionStep,
  type ValidateOptions,
} from './sim/scenario.ts';
export { SCENARIOS, findScenario } from './scenarios/index.ts';
export { World, type WorldOptions, type SimNode } from './sim/world.ts';
export { scenarioArbitrary } from './sim/fuzz-arbitraries.ts';
export { type FuzzOptions, type FuzzReport, type FuzzFailure, type FuzzCaseInfo, type RunExtensions } from './sim/fuzz.ts';
export { CheckerSuite, type CheckerFactory } from './sim/checkers/suite.ts';
export { ModelChecker, FirstViolationChecker, CHECKER_NAMES, type Checker, type CheckerName, type Violation } from './sim/checkers/violation.ts';
export type { Observation } from './sim/checkers/observation.ts';
export type { RunModel, NodeState } from './sim/checkers/run-model.ts';
export { BYZANTINE_BEHAVIOURS, type ByzantineBehaviour } from './sim/byzantine.ts';
export type { Behaviour, ByzantineKit, Outgoing, Plan } from './sim/byzantine/kit.ts';
export { readTraceJsonl, parseTraceJsonl } from './sim/trace.ts';
export { NodeUnderTest, type NodeUnderTestOptions, type ProposalBlockRequest } from './sim/harness/node-under-test.ts';
export { ValidatorPeer, MessageFactory, MessageMismatch, type RoundId, type PreparedCertificate, type SentMessage } from './sim/harness/validator-peer.ts';
export { RoundPeers } from './sim/harness/round-peers.ts';
export { messageView, firstDifference, type MessageView } from './sim/harness/message-view.ts';
export type { HarnessGenesisOptions } from './sim/harness/harness-genesis.ts';
export type { TraceLine, TraceEvent } from './sim/trace-events.ts';

/** Checks a scenario written in code (as a scenario file is checked) and returns it typed. */
export function defineScenario<S extends Scenario>(scenario: S, extensions: ValidateOptions = {}): S {
  validateScenario(scenario, scenario.name || 'scenario', extensions);
  return scenario;
}

/**
 * A fuzz campaign in this process: random scenarios (or your own `arbitrary`), each judged by the
 * invariant checkers (and yours), failures shrunk and, with `failureDir`, written as scenario files.
 */
export function fuzz(opts: Omit<FuzzOptions, 'runCases'>): Promise<FuzzReport> {
  return runFuzz(opts);
}
