/** What a checker reports, and the shape every checker has. */
import { encodeTraceLine, type TraceLine } from '../trace.ts';
import type { Observation } from './observation.ts';
import type { RunModel } from './run-model.ts';

export const CHECKER_NAMES = ['agreement', 'validity', 'acceptance', 'honest-non-equivocation', 'honest-messages', 'lock-safety', 'round-timer', 'round-start', 'bounded-state', 'liveness'] as const;

export type CheckerName = (typeof CHECKER_NAMES)[number];

export interface Violation {
  /** One of CHECKER_NAMES, or a custom checker's own name. */
  checker: CheckerName | (string & {});
  /** Virtual ms since the run started. */
  atMs: number;
  node: string | null;
  height: number | null;
  round: number | null;
  reason: string;
  /** The offending trace line (JSON), or a description of the observed message. */
  line: string;
}

export interface Checker {
  readonly name: CheckerName | (string & {});
  observe(o: Observation): void;
  /** The run is over at `endMs` (virtual ms since its start): settle what is still open. */
  finish(endMs: number): void;
  /** The first violation, if any; a checker stops judging after it. */
  readonly violation: Violation | undefined;
}

export function lineText(line: TraceLine): string {
  const { t, node, ...event } = line;
  return encodeTraceLine(t, node, event);
}

/** Keeps the first violation and tells the listener about it. */
export abstract class FirstViolationChecker implements Checker {
  abstract readonly name: CheckerName | (string & {});
  private first: Violation | undefined;

  constructor(private readonly onViolation?: (v: Violation) => void) {}

  get violation(): Violation | undefined {
    return this.first;
  }

  protected get stopped(): boolean {
    return this.first !== undefined;
  }

  protected report(v: Omit<Violation, 'checker'>): void {
    if (this.first) return;
    this.first = { checker: this.name, ...v };
    this.onViolation?.(this.first);
  }

  abstract observe(o: Observation): void;

  finish(_endMs: number): void {}
}

/** A checker that judges against the run model (every checker of the suite). */
export abstract class ModelChecker extends FirstViolationChecker {
  constructor(
    protected readonly model: RunModel,
    onViolation?: (v: Violation) => void,
  ) {
    super(onViolation);
  }
}
