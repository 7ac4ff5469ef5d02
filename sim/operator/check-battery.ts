/**
 * `qbft-lab check`: a battery of scenarios sized to an operator's genesis (check-cases.ts), each
 * run on the operator's own genesis and judged by its expectations and the invariant checkers
 * every run gets. A case passes when its run is ok.
 */
import type { BesuVersion } from '../bugs/version-names.ts';
import { maxFaulty, quorumSize } from '../../node/consensus/qbft/quorum.ts';
import type { Scenario } from '../scenario.ts';
import { runScenario, type RunResult } from '../scenario-runner.ts';
import type { World } from '../world.ts';
import { planCheckBattery, type CheckCase } from './check-cases.ts';
import type { OperatorGenesis, StandIn } from './operator-genesis.ts';

export type CheckVerdict = 'pass' | 'fail' | 'skipped';

export interface CheckCaseResult {
  case: string;
  title: string;
  verdict: CheckVerdict;
  /** Highest head of the honest running nodes at the end; null when skipped. */
  height: number | null;
  /** Why it failed, what it showed, or why it was skipped. */
  detail: string;
  notes: string[];
  scenario?: string;
  simulatedMs?: number;
  wallMs?: number;
  traceHash?: string;
  expectations?: Array<{ text: string; ok: boolean }>;
  /** The run's violations: checker, virtual ms since the run started, node, height, round, reason's first line. */
  violations?: Array<{ checker: string; atMs: number; node: string | null; height: number | null; round: number | null; reason: string }>;
  errors?: string[];
}

export interface CheckReport {
  genesis: string;
  validators: number;
  f: number;
  quorum: number;
  selectionMode: 'blockheader' | 'contract';
  blockPeriodSeconds: number;
  requestTimeoutSeconds: number;
  transitions: number;
  standIns: StandIn[];
  seed: number;
  durationMs: number;
  ok: boolean;
  passed: number;
  failed: number;
  skipped: number;
  cases: CheckCaseResult[];
}

export interface CheckOptions {
  /** Caps or sets how long the fault cases run (default: long enough for every case and transition). */
  durationMs?: number;
  seed?: number;
  /** Keep each run's trace (for reports of failing cases). */
  keepTrace?: boolean;
  wallClock?: () => number;
  /** Sees each case's run once it is judged (the CLI writes reports of failing ones). */
  onRun?: (scenario: Scenario, result: RunResult, world: World) => void;
  /** The Besu release line the nodes behave as (its known bugs on). */
  besuVersion?: BesuVersion;
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.slice(0, 300);
}

export function caseDetail(r: RunResult): string {
  if (r.ok) return `${r.roundChanges} round change${r.roundChanges === 1 ? '' : 's'}, highest round ${r.maxRound}; ${r.expectations.length} expectations and the invariants held`;
  const parts = [
    ...r.expectations.filter((e) => !e.ok).map((e) => `expected: ${e.text}`),
    ...r.violations.map((v) => `${v.checker}: ${firstLine(v.reason)}`),
    ...r.errors.map((e) => `error: ${firstLine(e)}`),
  ];
  return parts.join('; ');
}

/** A failed case whose chain stopped just before a transition: say so, it is the likely cause. */
function stoppedAtTransition(r: RunResult, transitionBlocks: number[]): string {
  const block = r.height + 1;
  return !r.ok && transitionBlocks.includes(block) ? `; the chain stopped at block ${r.height}, just before the transition at block ${block}` : '';
}

async function runCase(c: CheckCase, scenario: Scenario, opts: CheckOptions, transitionBlocks: number[]): Promise<CheckCaseResult> {
  let world: World | undefined;
  const versioned = opts.besuVersion ? { ...scenario, besuVersion: opts.besuVersion } : scenario;
  const result = await runScenario(versioned, { seed: opts.seed, keepTrace: opts.keepTrace, wallClock: opts.wallClock, onWorld: (w) => (world = w) });
  if (world) opts.onRun?.(versioned, result, world);
  return {
    case: c.id,
    title: c.title,
    verdict: result.ok ? 'pass' : 'fail',
    height: result.height,
    detail: caseDetail(result) + stoppedAtTransition(result, transitionBlocks),
    notes: c.notes,
    scenario: scenario.description,
    simulatedMs: result.simulatedMs,
    wallMs: result.wallMs,
    traceHash: result.traceHash,
    expectations: result.expectations,
    violations: result.violations.map((v) => ({ checker: v.checker, atMs: v.atMs, node: v.node, height: v.height, round: v.round, reason: firstLine(v.reason) })),
    errors: result.errors.map(firstLine),
  };
}

export async function runCheckBattery(g: OperatorGenesis, opts: CheckOptions = {}): Promise<CheckReport> {
  const plan = planCheckBattery(g, { durationMs: opts.durationMs, seed: opts.seed });
  const cases: CheckCaseResult[] = [];
  for (const c of plan.cases) {
    if (!c.scenario) cases.push({ case: c.id, title: c.title, verdict: 'skipped', height: null, detail: c.skipped ?? 'skipped', notes: c.notes });
    else cases.push(await runCase(c, c.scenario, opts, plan.transitionBlocks));
  }
  const n = g.standIns.length;
  const count = (v: CheckVerdict) => cases.filter((c) => c.verdict === v).length;
  return {
    genesis: g.source,
    validators: n,
    f: maxFaulty(n),
    quorum: quorumSize(n),
    selectionMode: g.selectionModeAtGenesis,
    blockPeriodSeconds: g.simRules.qbft.blockPeriodSeconds,
    requestTimeoutSeconds: g.simRules.qbft.requestTimeoutSeconds,
    transitions: g.simRules.transitions.length,
    standIns: g.standIns,
    seed: opts.seed ?? 1,
    durationMs: plan.durationMs,
    ok: count('fail') === 0,
    passed: count('pass'),
    failed: count('fail'),
    skipped: count('skipped'),
    cases,
  };
}
