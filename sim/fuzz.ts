/**
 * Property-based fuzzing of the node under the simulator: random clusters, network models and
 * fault schedules within what QBFT tolerates (see fuzz-arbitraries.ts) must keep agreement,
 * validity and liveness, without errors, and replay deterministically.
 *
 * How a campaign is driven
 * - Case j of a campaign with seed S is its own fc.check with numRuns 1 and seed
 *   caseSeedFor(S, j) (a fixed 32-bit mix of S and j). Cases are independent of one another, so
 *   a campaign replays exactly, shard i of k simply runs the cases j with j % k === i (and the k
 *   shards together run exactly the cases of the unsharded campaign, with the same outcomes),
 *   and any single case can be re-run alone. One fc.check over the whole campaign would make
 *   case j depend on the generator state left by cases 0..j-1, which fights sharding.
 * - When a case fails, that same fc.check shrinks it. Shrinking is bounded deterministically by
 *   a count of property runs (maxShrinkRuns): once it is spent the property answers "pass" to
 *   every further candidate, so fast-check stops at the smallest failure found so far. No wall
 *   clock is involved, so a campaign's failures are the same on every machine.
 * - The shrunk counterexample is written to <failureDir>/fuzz-failure-<seed>-<case>.json: a
 *   plain scenario with its `seed`, replayable with runScenario(validateScenario(JSON.parse(text))).
 *   Before the report is returned the file's text is replayed once and its trace hash compared
 *   with the failing run's (`reproduced`).
 * - Every `determinismEvery`-th case (default 10, by campaign case index) runs twice, the second
 *   time from a JSON round trip of the scenario, and must give the same trace hash.
 * - Hunting a bug (`bugs` switches on, `fuzz --bug`), a failure counts as a find only when one of the
 *   expected checkers (the corpus entry's caughtBy) is among the shrunk case's violations and the
 *   shrunk case passes when replayed without the switches; any other failure is reported with
 *   failure.find.counted false and the reason, and the campaign goes on. A failure first caught by
 *   an expected checker shrinks only to candidates an expected checker still catches.
 * - runFuzzCase runs one case to the end (shrinking included), so cases can run in other processes
 *   (`fuzz --jobs`, cli/fuzz-workers.ts): runFuzz takes their outcomes in index order, counts and
 *   writes them as it does its own, and the first failure is the one with the lowest index.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { runScenario, type RunOptions, type RunResult } from './scenario-runner.ts';
import { validateScenario, type Scenario } from './scenario.ts';
import { scenarioArbitrary } from './fuzz-arbitraries.ts';
import { RULE_NAMES } from './checkers/toolkit/qbft-rules.ts';
import type { Violation } from './checkers/violation.ts';

export interface FuzzOptions {
  runs: number;
  seed: number;
  /** Run only the cases j with j % count === index. */
  shard?: { index: number; count: number };
  /** Called after each case's first run (before any shrinking). */
  onCase?: (info: FuzzCaseInfo) => void;
  /** Where shrunk failures are written; without it nothing is written. */
  failureDir?: string;
  /** Wall-clock reader for wallMs and runsPerMinute (the CLI and benchmarks pass a real one). */
  wallClock?: () => number;
  /** Scenarios to test instead of scenarioArbitrary() (tests inject broken ones). */
  arbitrary?: fc.Arbitrary<Scenario>;
  /** Every n-th case (by case index) runs twice and must replay to the same trace hash; 0 turns it off. Default 10. */
  determinismEvery?: number;
  /** Property runs allowed for shrinking one failure. Default 60. */
  maxShrinkRuns?: number;
  /** Known-bug switches every case runs with (`fuzz --bug`); failures record them in their scenario. */
  bugs?: string[];
  /** With bugs: the checkers a find must be caught by (the corpus entry's caughtBy); without it any failure does. */
  expectedCheckers?: string[];
  /** End the campaign at the first failing case (after shrinking it); hunting a bug, at the first counted find. */
  stopAtFirstFailure?: boolean;
  /**
   * Runs the cases elsewhere (`fuzz --jobs`: worker processes) instead of one after another here;
   * the report is the same. onCase then sees each case in index order once its outcome is in.
   */
  runCases?: FuzzCaseRunner;
  /**
   * Your own checkers, steps and behaviours, given to every run (the library's extension points).
   * Functions cannot cross to worker processes: only with the cases run here (no runCases).
   */
  extensions?: RunExtensions;
}

export type RunExtensions = Pick<RunOptions, 'checkers' | 'steps' | 'behaviours'>;

export interface FuzzCaseInfo {
  caseIndex: number;
  caseSeed: number;
  name: string;
  description: string;
  seed: number | undefined;
  validators: number;
  durationMs: number;
  ok: boolean;
  reason?: string;
  height: number;
  maxRound: number;
  liveness: boolean | null;
  determinismChecked: boolean;
  wallMs?: number;
  /** The first run's coverage marks (rules broken by messages honest nodes judged), the rules with a count only. */
  ruleMarks?: Record<string, number>;
  /** The first run's violations (each checker's first), without their reasons: who caught what, where and when. */
  violations?: ViolationPlace[];
}

export type ViolationPlace = Pick<Violation, 'checker' | 'atMs' | 'node' | 'height' | 'round'>;

export interface FuzzFailure {
  caseIndex: number;
  caseSeed: number;
  /** The replayable scenario file, when a failureDir was given. */
  file?: string;
  /** The shrunk counterexample (with its seed). */
  scenario: Scenario;
  /** Its run (null when runScenario threw). */
  result: RunResult | null;
  reason: string;
  /** The case as first generated, before shrinking. */
  original: Scenario;
  shrinks: number;
  /** The written scenario, replayed from its JSON text, failed again with the same trace hash. */
  reproduced: boolean;
  /** Hunting a bug: whether this failure counts as finding it. */
  find?: FindJudgement;
}

/** A hunt's failure judged as a find: an expected checker fired and the shrunk case passes with the switches off. */
export interface FindJudgement {
  counted: boolean;
  /** The expected checker among the shrunk run's violations (the first one reported). */
  checker?: string;
  /** The shrunk case replayed without the bug switches passed. */
  switchOffReplayPassed: boolean;
  /** Why the failure is not counted (absent when it is). */
  notCounted?: string;
}

export interface FuzzReport {
  seed: number;
  shard?: { index: number; count: number };
  /** Cases run by this process (its shard of the campaign). */
  runs: number;
  failures: FuzzFailure[];
  /** Cases whose run could judge liveness / could not (the runner's liveness was null). */
  livenessChecked: number;
  livenessSkipped: number;
  /** Cases run twice for the determinism check. */
  determinismChecked: number;
  /** Every runScenario call, shrinking and determinism re-runs included. */
  simRuns: number;
  wallMs?: number;
  /** Cases per wall-clock minute. */
  runsPerMinute?: number;
  /** The bug switches the campaign ran with. */
  bugs?: string[];
  /** With bug switches: cases run until the first counted find, counting it (undefined: none found). */
  runsToFind?: number;
  /**
   * Coverage marks over the campaign's cases (first runs): per validation rule, the messages honest
   * nodes judged whose first broken rule it was. Every rule is listed, a rule no case exercised with 0.
   */
  ruleMarks: Record<string, number>;
  /** With bug switches: the first counted find. */
  find?: { caseIndex: number; checker?: string; switchOffReplayPassed: true };
}

export interface Verdict {
  ok: boolean;
  /** Why it failed ('' when ok). */
  reason: string;
  result: RunResult | null;
  /** runScenario calls made. */
  runs: number;
}

function nonZero(marks: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(marks).filter(([, n]) => n > 0));
}

/** The per-case fast-check seed: a fixed 32-bit mix of the campaign seed and the case index. */
export function caseSeedFor(seed: number, caseIndex: number): number {
  let h = Math.imul((seed | 0) ^ Math.floor(seed / 0x1_0000_0000), 0x9e37_79b1) ^ Math.imul(caseIndex + 1, 0x85eb_ca77);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb_352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846c_a68b);
  h ^= h >>> 16;
  return h >>> 1;
}

/** The campaign case indices a shard runs. */
export function caseIndices(runs: number, shard?: { index: number; count: number }): number[] {
  if (shard && (!Number.isInteger(shard.count) || shard.count < 1 || !Number.isInteger(shard.index) || shard.index < 0 || shard.index >= shard.count)) {
    throw new RangeError(`shard ${shard.index}/${shard.count}: need 0 <= index < count`);
  }
  const out: number[] = [];
  for (let j = 0; j < runs; j++) if (!shard || j % shard.count === shard.index) out.push(j);
  return out;
}

/** The scenario case j of a campaign starts from (what its fc.check generates first). */
export function generateCase(seed: number, caseIndex: number, arbitrary: fc.Arbitrary<Scenario> = scenarioArbitrary()): Scenario {
  return fc.sample(arbitrary, { seed: caseSeedFor(seed, caseIndex), numRuns: 1 })[0];
}

/** The fuzz property for one scenario: runs it (twice when checking determinism) and judges it. */
export async function judgeScenario(s: Scenario, opts: { determinism?: boolean; extensions?: RunExtensions } = {}): Promise<Verdict> {
  let result: RunResult;
  try {
    result = await runScenario(s, { ...opts.extensions, seed: s.seed });
  } catch (err) {
    return { ok: false, reason: `runScenario threw: ${String((err as Error)?.message ?? err)}`, result: null, runs: 1 };
  }
  const reasons: string[] = [];
  // Every invariant checker's first violation (agreement, validity, honest-non-equivocation, lock-safety, round-timer, liveness).
  for (const v of result.violations) reasons.push(`${v.checker} violated at ${v.atMs} ms${v.node ? ` on ${v.node}` : ''}${v.height !== null ? ` (height ${v.height}${v.round !== null ? `, round ${v.round}` : ''})` : ''}: ${v.reason}`);
  if (result.errors.length > 0) reasons.push(`errors: ${result.errors[0].split('\n')[0]}${result.errors.length > 1 ? ` (+${result.errors.length - 1} more)` : ''}`);
  const unmet = result.expectations.filter((e) => !e.ok).map((e) => e.text);
  if (unmet.length > 0) reasons.push(`unmet expectations: ${unmet.join('; ')}`);
  if (!result.ok && reasons.length === 0) reasons.push('run not ok');
  let runs = 1;
  if (reasons.length === 0 && opts.determinism) {
    runs++;
    try {
      const again = await runScenario(validateScenario(JSON.parse(JSON.stringify(s)), 'scenario', extensionNames(opts.extensions)), { ...opts.extensions, seed: s.seed });
      if (again.traceHash !== result.traceHash) reasons.push(`nondeterministic: trace hash ${result.traceHash} then ${again.traceHash}`);
    } catch (err) {
      reasons.push(`replay threw: ${String((err as Error)?.message ?? err)}`);
    }
  }
  return { ok: reasons.length === 0, reason: reasons.join('; '), result, runs };
}

function failureFileText(s: Scenario, seed: number, caseIndex: number, reason: string): string {
  const scenario = { ...s, description: `fuzz failure (campaign seed ${seed}, case ${caseIndex}): ${reason}. ${s.description}` };
  return JSON.stringify(scenario, null, 2) + '\n';
}

/** What one case needs besides its index: plain data, so a worker process can receive it. */
export interface FuzzCaseSpec {
  /** The campaign seed. */
  seed: number;
  /** Sorted known-bug switches every case runs with. */
  bugs?: string[];
  /** With bugs: the checkers a find must be caught by. */
  expectedCheckers?: string[];
  determinismEvery: number;
  maxShrinkRuns: number;
  /** Where the campaign writes failure files (the case names its file; the campaign writes it). */
  failureDir?: string;
  stopAtFirstFailure: boolean;
}

/** One case run to the end on its own: first run, shrinking and the replay of its failure file's text. */
export interface FuzzCaseOutcome {
  caseIndex: number;
  info: FuzzCaseInfo;
  /** The first run's liveness verdict; undefined when runScenario threw. */
  liveness: boolean | null | undefined;
  /** runScenario calls of the case, shrinking and the failure replay included. */
  simRuns: number;
  failure?: FuzzFailure;
  /** A campaign that stops at its first failure stops here (hunting a bug: at its first counted find). */
  endsCampaign: boolean;
  /** The text for failure.file, which the campaign writes when it takes the outcome. */
  failureText?: string;
}

/**
 * Runs the given cases somewhere else (cli/fuzz-workers.ts: worker processes) and yields one
 * outcome per index, in the order given. The campaign stops pulling when it is decided, so the
 * iterator's return() is where the runner stops its work.
 */
export type FuzzCaseRunner = (spec: FuzzCaseSpec, caseIndices: number[], opts: { timed: boolean }) => AsyncIterable<FuzzCaseOutcome>;

/** Case j of a campaign, independent of every other case (see the comment at the top). */
export async function runFuzzCase(
  spec: FuzzCaseSpec,
  caseIndex: number,
  opts: { arbitrary?: fc.Arbitrary<Scenario>; wallClock?: () => number; onFirstRun?: (info: FuzzCaseInfo) => void; extensions?: RunExtensions } = {},
): Promise<FuzzCaseOutcome> {
  const arbitrary = opts.arbitrary ?? scenarioArbitrary();
  const bugs = spec.bugs;
  // The switches go into each scenario, so a failure file replays with them on.
  const withBugs = (s: Scenario): Scenario => (bugs ? { ...s, bugs: [...new Set([...(s.bugs ?? []), ...bugs])].sort() } : s);
  const caseSeed = caseSeedFor(spec.seed, caseIndex);
  const determinism = spec.determinismEvery > 0 && caseIndex % spec.determinismEvery === 0;
  const caughtBy = (v: Verdict) => expectedCheckerOf(v.result, spec.expectedCheckers);
  let first: { scenario: Scenario; verdict: Verdict; info: FuzzCaseInfo } | undefined;
  let firstCaught = false;
  let lastFailure: { scenario: Scenario; verdict: Verdict } | undefined;
  let shrinkRuns = 0;
  let simRuns = 0;
  const caseStart = opts.wallClock?.();

  const property = fc.asyncProperty(arbitrary, async (s: Scenario) => {
    if (first) {
      if (shrinkRuns >= spec.maxShrinkRuns) return true;
      shrinkRuns++;
    }
    const verdict = await judgeScenario(withBugs(s), { determinism, extensions: opts.extensions });
    simRuns += verdict.runs;
    if (!first) {
      const info: FuzzCaseInfo = {
        caseIndex,
        caseSeed,
        name: s.name,
        description: s.description,
        seed: s.seed,
        validators: s.validators,
        durationMs: s.durationMs,
        ok: verdict.ok,
        ...(verdict.ok ? {} : { reason: verdict.reason }),
        height: verdict.result?.height ?? -1,
        maxRound: verdict.result?.maxRound ?? 0,
        liveness: verdict.result?.invariants.liveness ?? null,
        determinismChecked: determinism,
        ...(verdict.result ? { ruleMarks: nonZero(verdict.result.ruleMarks) } : {}),
        ...(verdict.result && verdict.result.violations.length > 0 ? { violations: verdict.result.violations.map(({ checker, atMs, node, height, round }) => ({ checker, atMs, node, height, round })) } : {}),
        ...(caseStart !== undefined ? { wallMs: Math.round(opts.wallClock!() - caseStart) } : {}),
      };
      first = { scenario: s, verdict, info };
      firstCaught = !verdict.ok && caughtBy(verdict) !== undefined;
      opts.onFirstRun?.(info);
    } else if (firstCaught && !verdict.ok && caughtBy(verdict) === undefined) {
      // Shrinking keeps to the failure the expected checker caught, not any failure on the way.
      return true;
    }
    if (!verdict.ok) lastFailure = { scenario: s, verdict };
    return verdict.ok;
  });

  const details = await fc.check(property, { seed: caseSeed, numRuns: 1 });
  if (!first) throw new Error(`fuzz case ${caseIndex}: fast-check ran no property run`);
  const outcome: FuzzCaseOutcome = { caseIndex, info: first.info, liveness: first.verdict.result?.invariants.liveness, simRuns, endsCampaign: false };
  if (!details.failed) return outcome;
  // The counterexample fast-check reports is the last candidate that failed.
  const shrunk = lastFailure ?? { scenario: details.counterexample![0], verdict: first.verdict };
  shrunk.scenario = withBugs(shrunk.scenario);
  const failure: FuzzFailure = {
    caseIndex,
    caseSeed,
    scenario: shrunk.scenario,
    result: shrunk.verdict.result,
    reason: shrunk.verdict.reason,
    original: withBugs(first.scenario),
    shrinks: details.numShrinks,
    reproduced: false,
  };
  const text = failureFileText(shrunk.scenario, spec.seed, caseIndex, shrunk.verdict.reason);
  if (spec.failureDir !== undefined) failure.file = join(spec.failureDir, `fuzz-failure-${spec.seed}-${caseIndex}.json`);
  const replay = await judgeScenario(validateScenario(JSON.parse(text), failure.file ?? 'fuzz failure', extensionNames(opts.extensions)), { extensions: opts.extensions });
  outcome.simRuns += replay.runs;
  failure.reproduced = !replay.ok && replay.result?.traceHash === shrunk.verdict.result?.traceHash;
  if (bugs) {
    const judged = await judgeFind(spec, shrunk.scenario, shrunk.verdict, opts.extensions);
    outcome.simRuns += judged.runs;
    failure.find = judged.find;
  }
  outcome.failure = failure;
  outcome.endsCampaign = spec.stopAtFirstFailure && (failure.find?.counted ?? true);
  outcome.failureText = text;
  return outcome;
}

/** The first of the expected checkers among a run's violations. */
function expectedCheckerOf(result: RunResult | null, expected: string[] | undefined): string | undefined {
  return result?.violations.map((v) => v.checker as string).find((c) => expected?.includes(c));
}

/** Whether a hunt's shrunk failure counts as a find: caught by an expected checker, and passing with the switches off. */
async function judgeFind(spec: FuzzCaseSpec, scenario: Scenario, verdict: Verdict, extensions?: RunExtensions): Promise<{ find: FindJudgement; runs: number }> {
  const expected = spec.expectedCheckers;
  // Without expected checkers any failure is caught; the first checker that fired names it.
  const checker = expected ? expectedCheckerOf(verdict.result, expected) : verdict.result?.violations[0]?.checker;
  const switches = new Set(spec.bugs);
  const rest = (scenario.bugs ?? []).filter((b) => !switches.has(b));
  const switchedOff: Scenario = { ...scenario, bugs: rest };
  if (rest.length === 0) delete switchedOff.bugs;
  const off = await judgeScenario(switchedOff, { extensions });
  const why: string[] = [];
  if (expected && checker === undefined) why.push(`none of the expected checkers (${expected.join(', ')}) fired`);
  if (!off.ok) why.push(`the shrunk case fails with the switch off too (${off.reason})`);
  const find: FindJudgement = { counted: why.length === 0, ...(checker ? { checker } : {}), switchOffReplayPassed: off.ok, ...(why.length > 0 ? { notCounted: why.join('; ') } : {}) };
  return { find, runs: off.runs };
}

async function* casesInThisProcess(spec: FuzzCaseSpec, indices: number[], opts: FuzzOptions): AsyncGenerator<FuzzCaseOutcome> {
  for (const caseIndex of indices) yield await runFuzzCase(spec, caseIndex, { arbitrary: opts.arbitrary, wallClock: opts.wallClock, onFirstRun: opts.onCase, extensions: opts.extensions });
}

function extensionNames(ext: RunExtensions | undefined): { steps: string[]; behaviours: string[] } {
  return { steps: Object.keys(ext?.steps ?? {}), behaviours: Object.keys(ext?.behaviours ?? {}) };
}

export async function runFuzz(opts: FuzzOptions): Promise<FuzzReport> {
  if (opts.extensions && opts.runCases) throw new RangeError('fuzz: extensions (functions) cannot go to worker processes; run the cases here (no runCases / --jobs 1)');
  if (!Number.isInteger(opts.runs) || opts.runs < 0) throw new RangeError(`runs must be a non-negative integer, got ${opts.runs}`);
  if (!Number.isSafeInteger(opts.seed)) throw new RangeError(`seed must be an integer, got ${opts.seed}`);
  if (opts.runCases && opts.arbitrary) throw new RangeError('runCases runs the built-in scenarioArbitrary(); it cannot take an arbitrary');
  const wallStart = opts.wallClock?.();
  const report: FuzzReport = { seed: opts.seed, runs: 0, failures: [], livenessChecked: 0, livenessSkipped: 0, determinismChecked: 0, simRuns: 0, ruleMarks: Object.fromEntries(RULE_NAMES.map((r) => [r, 0])) };
  const bugs = opts.bugs && opts.bugs.length > 0 ? [...opts.bugs].sort() : undefined;
  if (bugs) report.bugs = bugs;
  if (opts.shard) report.shard = { ...opts.shard };
  const spec: FuzzCaseSpec = {
    seed: opts.seed,
    ...(bugs ? { bugs } : {}),
    ...(bugs && opts.expectedCheckers ? { expectedCheckers: [...opts.expectedCheckers] } : {}),
    determinismEvery: opts.determinismEvery ?? 10,
    maxShrinkRuns: opts.maxShrinkRuns ?? 60,
    ...(opts.failureDir !== undefined ? { failureDir: opts.failureDir } : {}),
    stopAtFirstFailure: opts.stopAtFirstFailure ?? false,
  };
  const indices = caseIndices(opts.runs, opts.shard);
  const outcomes = opts.runCases ? opts.runCases(spec, indices, { timed: opts.wallClock !== undefined }) : casesInThisProcess(spec, indices, opts);

  let next = 0;
  let ended = false;
  for await (const outcome of outcomes) {
    if (outcome.caseIndex !== indices[next]) throw new Error(`fuzz: expected the outcome of case ${indices[next]}, got case ${outcome.caseIndex}`);
    next++;
    // Cases run here reported themselves after their first run; a runner's cases report in index order.
    if (opts.runCases) opts.onCase?.(outcome.info);
    report.runs++;
    report.simRuns += outcome.simRuns;
    for (const [rule, n] of Object.entries(outcome.info.ruleMarks ?? {})) report.ruleMarks[rule] = (report.ruleMarks[rule] ?? 0) + n;
    if (outcome.info.determinismChecked) report.determinismChecked++;
    if (outcome.liveness === null) report.livenessSkipped++;
    else if (outcome.liveness !== undefined) report.livenessChecked++;
    const failure = outcome.failure;
    if (!failure) continue;
    if (failure.file !== undefined) {
      mkdirSync(opts.failureDir!, { recursive: true });
      writeFileSync(failure.file, outcome.failureText!);
    }
    report.failures.push(failure);
    if (bugs && report.runsToFind === undefined && failure.find?.counted) {
      report.runsToFind = report.runs;
      report.find = { caseIndex: failure.caseIndex, ...(failure.find.checker ? { checker: failure.find.checker } : {}), switchOffReplayPassed: true };
    }
    if (outcome.endsCampaign) {
      ended = true;
      break;
    }
  }
  if (next < indices.length && !ended) {
    throw new Error(`fuzz: the case runner stopped after ${next} of ${indices.length} cases`);
  }

  if (opts.wallClock && wallStart !== undefined) {
    report.wallMs = Math.round(opts.wallClock() - wallStart);
    if (report.wallMs > 0) report.runsPerMinute = Math.round((report.runs * 60_000 * 10) / report.wallMs) / 10;
  }
  return report;
}
