/**
 * The invariant checkers of a run, fed one observation stream: the run model first, then each
 * checker. Each checker stops at its first violation; `violations()` lists those first
 * violations in checker order.
 */
import type { Observation } from './observation.ts';
import { RunModel } from './run-model.ts';
import { AgreementChecker } from './agreement.ts';
import { ValidityChecker } from './validity.ts';
import { AcceptanceChecker } from './acceptance.ts';
import { NonEquivocationChecker } from './non-equivocation.ts';
import { LockSafetyChecker } from './lock-safety.ts';
import { RoundTimerChecker } from './round-timer.ts';
import { LivenessChecker } from './liveness.ts';
import { HonestMessagesChecker } from './honest-messages.ts';
import { RoundStartChecker } from './round-start.ts';
import { BoundedStateChecker } from './bounded-state.ts';
import type { Checker, Violation } from './violation.ts';

export interface SuiteOptions {
  /** The network's genesis JSON (the world's), read by the checkers themselves. */
  genesis: Record<string, unknown>;
  /** Network latency the liveness bound allows for, on top of the timers (default 5 s). */
  latencyAllowanceMs?: number;
  /** Called at each checker's first violation, as it happens. */
  onViolation?: (v: Violation) => void;
  /** More checkers, judged after the built-in ones (the library's extension point). */
  extra?: readonly CheckerFactory[];
}

/**
 * Makes a custom checker for one run. It sees the same observations as the built-in checkers,
 * after the run model has taken each in; report violations through `onViolation` (or extend
 * ModelChecker, which does).
 */
export type CheckerFactory = (model: RunModel, onViolation: (v: Violation) => void) => Checker;

export const DEFAULT_LATENCY_ALLOWANCE_MS = 5_000;

export class CheckerSuite {
  readonly model: RunModel;
  readonly agreement: AgreementChecker;
  readonly validity: ValidityChecker;
  readonly acceptance: AcceptanceChecker;
  readonly nonEquivocation: NonEquivocationChecker;
  readonly lockSafety: LockSafetyChecker;
  readonly roundTimer: RoundTimerChecker;
  readonly liveness: LivenessChecker;
  readonly honestMessages: HonestMessagesChecker;
  readonly roundStart: RoundStartChecker;
  readonly boundedState: BoundedStateChecker;
  private readonly all: Checker[];
  private finished = false;

  constructor(opts: SuiteOptions) {
    const on = opts.onViolation;
    this.model = new RunModel(opts.genesis);
    this.agreement = new AgreementChecker(this.model, on);
    this.validity = new ValidityChecker(this.model, on);
    this.acceptance = new AcceptanceChecker(this.model, on);
    this.nonEquivocation = new NonEquivocationChecker(this.model, on);
    this.lockSafety = new LockSafetyChecker(this.model, on);
    this.roundTimer = new RoundTimerChecker(this.model, on);
    this.liveness = new LivenessChecker(this.model, opts.latencyAllowanceMs ?? DEFAULT_LATENCY_ALLOWANCE_MS, on);
    this.honestMessages = new HonestMessagesChecker(this.model, on);
    this.roundStart = new RoundStartChecker(this.model, on);
    this.boundedState = new BoundedStateChecker(this.model, on);
    const noop = () => {};
    const extra = (opts.extra ?? []).map((make) => make(this.model, on ?? noop));
    this.all = [this.agreement, this.validity, this.acceptance, this.nonEquivocation, this.honestMessages, this.lockSafety, this.roundTimer, this.roundStart, this.boundedState, this.liveness, ...extra];
  }

  observe(o: Observation): void {
    if (this.finished) return;
    this.model.observe(o);
    for (const c of this.all) c.observe(o);
  }

  /** The run ended at `endMs` (virtual ms since its start). */
  finish(endMs: number): void {
    if (this.finished) return;
    this.finished = true;
    for (const c of this.all) c.finish(endMs);
  }

  violations(): Violation[] {
    return this.all.flatMap((c) => (c.violation ? [c.violation] : []));
  }

  invariants(): { agreement: boolean; validity: boolean; liveness: boolean | null } {
    return { agreement: !this.agreement.violation, validity: !this.validity.violation, liveness: this.liveness.verdict() };
  }
}
