/**
 * `bugs check`: a known bug's scenario must pass with its switch off and fail with it on, and the
 * failure must be the bug's own doing (the two runs differ only in the switch).
 */
import { runScenario, type RunResult } from '../scenario-runner.ts';
import { switchOf, type KnownBug } from './known-bug.ts';

export interface BugCheck {
  id: string;
  /** The scenario passed with the switch off. */
  passesWithout: boolean;
  /** The scenario failed with the switch on. */
  failsWith: boolean;
  ok: boolean;
  /** Why the run with the switch on failed (its failed checks). */
  symptom: string[];
  /** Why the run with the switch off failed, if it did. */
  problems: string[];
  /** Checkers that reported a violation with the switch on. */
  checkers: string[];
}

export function failedChecks(r: RunResult): string[] {
  const out: string[] = [];
  for (const v of r.violations) out.push(`${v.checker}: ${v.reason}`);
  for (const e of r.expectations) if (!e.ok) out.push(`expected: ${e.text}`);
  for (const e of r.errors) out.push(`error: ${e.split('\n')[0]}`);
  return out;
}

export async function checkKnownBug(bug: KnownBug): Promise<BugCheck> {
  const without = await runScenario(bug.scenario, { bugs: [] });
  const withSwitch = await runScenario(bug.scenario, { bugs: [switchOf(bug)] });
  const passesWithout = without.ok;
  const failsWith = !withSwitch.ok;
  const checkers = [...new Set(withSwitch.violations.map((v) => v.checker))];
  const caught = bug.caughtBy.every((c) => checkers.includes(c));
  return { id: bug.id, passesWithout, failsWith, ok: passesWithout && failsWith && caught, symptom: failedChecks(withSwitch), problems: passesWithout ? [] : failedChecks(without), checkers };
}
