/**
 * A Twins-style generator (Bano et al., "Twins: BFT Systems Made Robust", 2020): some validator
 * keys run on two nodes at once (the key's original and its "-twin"), which is how Twins models
 * a Byzantine validator (double votes, double proposals) with honest code only. The generator
 * enumerates schedules and runs each as a scenario; honest nodes (every node whose key is not
 * twinned) must agree on every height in all of them as long as at most f keys are twinned.
 *
 * A schedule starts at `startMs` and is a sequence of `slots` time slots; each slot fixes
 * - a partition: which side each honest node is on, with every original on side A and every twin
 *   on side B (so the two copies of a key are split and can act as two different validators),
 *   or no partition at all;
 * - the leaders: for each twinned key, which copy may send proposals ('both', 'original' or
 *   'twin'; the other copy withholds its proposals), which decides whose proposal gets through
 *   when that key is the proposer of a round;
 * - its length, from `slotMsChoices` (against 1 s round timers and 1 s blocks, this sets which
 *   rounds and heights the slot spans).
 * After the last slot the network heals and runs for `tailMs`.
 *
 * Cases are numbered in mixed radix over the slots' choices. When there are more than maxCases
 * schedules, cases k = 0..maxCases-1 are taken at k * step mod total with step coprime to total,
 * so the selection spreads over every slot's choices; `slice` then picks a part of that list.
 */
import { maxFaulty } from '../node/consensus/qbft/quorum.ts';
import { runScenario, type RunResult } from './scenario-runner.ts';
import type { Scenario, Step } from './scenario.ts';

export type LeaderChoice = 'both' | 'original' | 'twin';

export interface TwinsOptions {
  /** Default 4. */
  validators?: number;
  /** Twinned validators. Default ['v3']. */
  twins?: string[];
  /** Default 2. */
  slots?: number;
  /** Default [800, 2500]. */
  slotMsChoices?: number[];
  /** Enumerate which copy of each twinned key leads (else both always may). Default true. */
  leaders?: boolean;
  /** Default 3500 (just before the first twinned key, v3 of four, proposes round 0 of height 4). */
  startMs?: number;
  /** Fault-free time after the last slot. Default 6000. */
  tailMs?: number;
  /** Default 1000. */
  maxCases?: number;
  /** Part of the selected cases to run. */
  slice?: { start: number; count: number };
  seed?: number;
  /** Called after each case runs. */
  onCase?: (info: TwinsCaseResult) => void;
}

export interface TwinsSlot {
  /** Side A per honest node (true) or B; undefined: no partition. */
  sides: boolean[] | undefined;
  leaders: LeaderChoice[];
  lengthMs: number;
}

export interface TwinsCase {
  index: number;
  slots: TwinsSlot[];
  scenario: Scenario;
}

export interface TwinsCaseResult {
  index: number;
  name: string;
  agreement: boolean;
  validity: boolean;
  liveness: boolean | null;
  errors: number;
  height: number;
}

export interface TwinsFailure {
  index: number;
  scenario: Scenario;
  reason: string;
  result: RunResult | null;
}

export interface TwinsReport {
  /** Schedules in the whole enumeration. */
  total: number;
  /** Cases run. */
  cases: number;
  /** Safety failures: agreement or validity violated, or the run threw or logged errors. */
  failures: TwinsFailure[];
  /** Cases whose liveness check ran and failed (reported, not counted as safety failures). */
  livenessFailures: number[];
}

const LEADER_CHOICES: readonly LeaderChoice[] = ['both', 'original', 'twin'];

interface Space {
  honest: string[];
  twins: string[];
  partitions: Array<boolean[] | undefined>;
  leaders: LeaderChoice[][];
  lengths: number[];
  perSlot: number;
  total: number;
}

function product<T>(lists: T[][]): T[][] {
  return lists.reduce<T[][]>((acc, list) => acc.flatMap((prefix) => list.map((x) => [...prefix, x])), [[]]);
}

function space(opts: TwinsOptions): Space {
  const n = opts.validators ?? 4;
  const twins = opts.twins ?? ['v3'];
  const validators = Array.from({ length: n }, (_, i) => `v${i}`);
  for (const t of twins) if (!validators.includes(t)) throw new RangeError(`twins: ${t} is not one of v0..v${n - 1}`);
  const honest = validators.filter((v) => !twins.includes(v));
  const partitions: Array<boolean[] | undefined> = [undefined, ...product(honest.map(() => [true, false]))];
  const leaders = opts.leaders === false ? [twins.map((): LeaderChoice => 'both')] : product(twins.map(() => [...LEADER_CHOICES]));
  const lengths = opts.slotMsChoices ?? [800, 2_500];
  const perSlot = partitions.length * leaders.length * lengths.length;
  return { honest, twins, partitions, leaders, lengths, perSlot, total: perSlot ** (opts.slots ?? 2) };
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** Which schedules of the enumeration are run, in order (before `slice`). */
export function selectedIndices(total: number, maxCases: number): number[] {
  if (total <= maxCases) return Array.from({ length: total }, (_, i) => i);
  let step = Math.ceil(total / maxCases);
  while (gcd(step, total) !== 1) step++;
  return Array.from({ length: maxCases }, (_, k) => (k * step) % total);
}

function decode(sp: Space, index: number, slots: number): TwinsSlot[] {
  const out: TwinsSlot[] = [];
  let rest = index;
  for (let s = 0; s < slots; s++) {
    let digit = rest % sp.perSlot;
    rest = Math.floor(rest / sp.perSlot);
    const p = digit % sp.partitions.length;
    digit = Math.floor(digit / sp.partitions.length);
    const l = digit % sp.leaders.length;
    const len = Math.floor(digit / sp.leaders.length);
    out.push({ sides: sp.partitions[p], leaders: sp.leaders[l], lengthMs: sp.lengths[len] });
  }
  return out;
}

function scenarioFor(sp: Space, opts: TwinsOptions, index: number, slots: TwinsSlot[]): Scenario {
  const startMs = opts.startMs ?? 3_500;
  const tailMs = opts.tailMs ?? 6_000;
  const steps: Step[] = [];
  const notes: string[] = [];
  let at = startMs;
  slots.forEach((slot, i) => {
    if (slot.sides) {
      const a = [...sp.honest.filter((_, k) => slot.sides![k]), ...sp.twins];
      const b = [...sp.honest.filter((_, k) => !slot.sides![k]), ...sp.twins.map((t) => `${t}-twin`)];
      steps.push({ atMs: at, do: 'partition', groups: [a, b] });
      notes.push(`${a.join(',')} | ${b.join(',')}`);
    } else {
      steps.push({ atMs: at, do: 'heal' });
      notes.push('connected');
    }
    sp.twins.forEach((t, k) => {
      const lead = slot.leaders[k];
      steps.push({ atMs: at, do: 'byzantine', node: t, behaviour: lead === 'twin' ? 'withhold-proposals' : 'none' });
      steps.push({ atMs: at, do: 'byzantine', node: `${t}-twin`, behaviour: lead === 'original' ? 'withhold-proposals' : 'none' });
      if (lead !== 'both') notes[notes.length - 1] += `, ${lead === 'twin' ? `${t}-twin` : t} leads`;
    });
    notes[notes.length - 1] = `slot ${i} ${slot.lengthMs} ms: ${notes[notes.length - 1]}`;
    at += slot.lengthMs;
  });
  steps.push({ atMs: at, do: 'heal' });
  for (const t of sp.twins) steps.push({ atMs: at, do: 'byzantine', node: t, behaviour: 'none' }, { atMs: at, do: 'byzantine', node: `${t}-twin`, behaviour: 'none' });
  return {
    name: `twins-${index}`,
    description: `Twins schedule ${index} (twinned: ${sp.twins.join(',')}): ${notes.join('; ')}; then healed`,
    seed: opts.seed ?? 1,
    validators: sp.honest.length + sp.twins.length,
    twins: [...sp.twins],
    genesis: { blockPeriodSeconds: 1, requestTimeoutSeconds: 1 },
    network: { latency: { kind: 'uniform', minMs: 5, maxMs: 30 } },
    durationMs: at + tailMs,
    steps,
    expect: [{ kind: 'no-fork' }],
  };
}

/** The schedules a run covers (after maxCases and slice). */
export function twinsCases(opts: TwinsOptions = {}): { total: number; cases: TwinsCase[] } {
  const sp = space(opts);
  const slots = opts.slots ?? 2;
  let indices = selectedIndices(sp.total, opts.maxCases ?? 1_000);
  if (opts.slice) indices = indices.slice(opts.slice.start, opts.slice.start + opts.slice.count);
  return {
    total: sp.total,
    cases: indices.map((index) => {
      const decoded = decode(sp, index, slots);
      return { index, slots: decoded, scenario: scenarioFor(sp, opts, index, decoded) };
    }),
  };
}

/** Runs the selected schedules and checks safety among the honest (non-twinned) validators. */
export async function runTwins(opts: TwinsOptions = {}): Promise<TwinsReport> {
  const { total, cases } = twinsCases(opts);
  const report: TwinsReport = { total, cases: 0, failures: [], livenessFailures: [] };
  for (const c of cases) {
    let result: RunResult | null = null;
    const reasons: string[] = [];
    try {
      result = await runScenario(c.scenario);
      if (!result.invariants.agreement) reasons.push('agreement violated (honest nodes imported different blocks at one height)');
      if (!result.invariants.validity) reasons.push('validity violated');
      if (result.errors.length > 0) reasons.push(`errors: ${result.errors[0].split('\n')[0]}`);
      if (result.invariants.liveness === false) report.livenessFailures.push(c.index);
    } catch (err) {
      reasons.push(`runScenario threw: ${String((err as Error)?.message ?? err)}`);
    }
    report.cases++;
    if (reasons.length > 0) report.failures.push({ index: c.index, scenario: c.scenario, reason: reasons.join('; '), result });
    opts.onCase?.({
      index: c.index,
      name: c.scenario.name,
      agreement: result?.invariants.agreement ?? false,
      validity: result?.invariants.validity ?? false,
      liveness: result?.invariants.liveness ?? null,
      errors: result?.errors.length ?? 1,
      height: result?.height ?? -1,
    });
  }
  return report;
}

/** Whether twinning these keys stays within the fault model (at most f twinned keys). */
export function withinFaultModel(opts: Pick<TwinsOptions, 'validators' | 'twins'>): boolean {
  return (opts.twins ?? ['v3']).length <= maxFaulty(opts.validators ?? 4);
}
