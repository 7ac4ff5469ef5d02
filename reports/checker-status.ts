/**
 * Every invariant checker's verdict on a run (ok, FAIL or n/a), and the words for a violation:
 * which checker, node, height, round and virtual time. Shared by the terminal output, the TUI's
 * plain replay and the reports, so that they all name the same checkers the same way.
 */
import { CHECKER_NAMES } from '../sim/checkers/violation.ts';

export interface ViolationFacts {
  checker: string;
  /** Virtual ms since the run started (absent when the source does not say). */
  atMs?: number;
  node: string | null;
  height: number | null;
  round?: number | null;
  reason: string;
}

export interface CheckerStatus {
  name: string;
  status: 'ok' | 'FAIL' | 'n/a';
  /** Set when the scenario declares this checker's violation as expected: the expectation's text. */
  expectedBy?: string;
}

export interface VerdictFacts {
  /** The violations that count against the run. */
  violations: readonly ViolationFacts[];
  /** null: liveness was not judged (the run ended too soon after its last fault, or too many were faulty). */
  liveness: boolean | null;
  /** Violations the scenario expects (a twins fork): they show as FAIL with the reason they do not fail the run. */
  expected: ReadonlyArray<{ checker: string; expectation: string }>;
}

/** The built-in checkers in their order, then custom checkers that reported a violation. */
export function checkerStatuses(f: VerdictFacts): CheckerStatus[] {
  const custom = [...new Set(f.violations.map((v) => v.checker))].filter((c) => !(CHECKER_NAMES as readonly string[]).includes(c));
  return [...CHECKER_NAMES, ...custom].map((name) => {
    const expected = f.expected.find((e) => e.checker === name);
    if (expected) return { name, status: 'FAIL', expectedBy: expected.expectation };
    if (f.violations.some((v) => v.checker === name)) return { name, status: 'FAIL' };
    return { name, status: name === 'liveness' && f.liveness === null ? 'n/a' : 'ok' };
  });
}

export function checkerStatusText(s: CheckerStatus): string {
  return `${s.name} ${s.status}${s.expectedBy ? ` (expected by this scenario: ${s.expectedBy})` : ''}`;
}

/** "agreement ok, validity ok, ..., round-start FAIL, ..., liveness n/a". */
export function checkerStatusLine(f: VerdictFacts): string {
  return checkerStatuses(f).map(checkerStatusText).join(', ');
}

/** The earliest violation (by virtual time; checker order among equals and unknown times). */
export function firstViolation<V extends ViolationFacts>(violations: readonly V[]): V | undefined {
  return violations.map((v, i) => ({ v, i })).sort((a, b) => (a.v.atMs ?? Infinity) - (b.v.atMs ?? Infinity) || a.i - b.i)[0]?.v;
}

/** Virtual ms since the start as seconds: 12345 -> "12.345 s". */
export function secondsText(ms: number): string {
  return `${(ms / 1000).toFixed(3)} s`;
}

/** "round-start on v0 at height 1, round 0, 0.000 s into the run: <the reason's first line>". */
export function violationText(v: ViolationFacts, maxReasonChars = 300): string {
  const where = [v.height !== null ? `height ${v.height}` : null, v.round !== null && v.round !== undefined ? `round ${v.round}` : null, v.atMs !== undefined ? `${secondsText(v.atMs)} into the run` : null].filter(Boolean);
  const reason = v.reason.split('\n')[0]!.slice(0, maxReasonChars);
  return `${v.checker}${v.node ? ` on ${v.node}` : ''}${where.length > 0 ? ` at ${where.join(', ')}` : ''}: ${reason}`;
}

/** "bug switches on: besu-2095, besu-2241; Besu 21.1" or undefined when the run had none. */
export function switchesText(bugs: readonly string[], besuVersion: string | null): string | undefined {
  const parts = [bugs.length > 0 ? `bug switches on: ${bugs.join(', ')}` : null, besuVersion ? `nodes behave as Besu ${besuVersion} (its known bugs switched on)` : null].filter(Boolean);
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/** describeExpectation({ kind: 'fork' }) (sim/scenario-runner.ts): a trace marks an expected fork only by it. */
export const FORK_EXPECTATION_TEXT = 'a fork is detected (different blocks imported at one height)';

/**
 * From a trace's verdict: a run whose agreement invariant failed without an agreement violation
 * counted against it expected that fork, as its `fork` expectation says.
 */
export function expectedFromVerdict(v: { invariants: { agreement: boolean }; violations: readonly ViolationFacts[]; expectations: ReadonlyArray<{ text: string }> }): Array<{ checker: string; expectation: string }> {
  const fork = v.expectations.find((e) => e.text === FORK_EXPECTATION_TEXT);
  if (v.invariants.agreement || !fork || v.violations.some((x) => x.checker === 'agreement')) return [];
  return [{ checker: 'agreement', expectation: fork.text }];
}
