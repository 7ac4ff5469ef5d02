/** One entry of the known-bug corpus: a real QBFT/IBFT bug, its switch and a scenario that shows it. */
import type { BugId } from '../../node/bugs/bug-switches.ts';
import type { Scenario } from '../scenario.ts';
import type { CheckerName } from '../checkers/violation.ts';

export type BugSymptom = 'stall' | 'fork' | 'needless round changes' | 'rejected valid block' | 'unbounded memory' | 'invalid message accepted' | 'work on an imported height' | 'wrong validator set';

export interface KnownBug {
  /** The corpus id; also the switch's id unless `switchId` names another. */
  id: string;
  /**
   * When two reports share one root cause, the later entry re-uses the earlier one's switch and
   * shows it through its own scenario.
   */
  switchId?: BugId;
  title: string;
  /** The issue, pull request or advisory. */
  link: string;
  /** What the faulty code did, and how qbft-lab's switch re-introduces it. */
  rootCause: string;
  symptom: BugSymptom;
  /** The invariant checkers that must report it with the switch on (the fuzzer sees only these). */
  caughtBy: CheckerName[];
  /**
   * The Besu releases that had it: from `since` (the first release with the faulty code, or the
   * earliest one known affected) up to, not including, `fixedIn` (absent: not fixed on main).
   */
  affected: { since: string; fixedIn?: string };
  /**
   * Faithful: the switch re-introduces the bug's own mechanism, firing when the schedule makes it
   * fire. A stand-in approximates it (a forced race, an unconfirmed cause, a shared switch): `why`.
   */
  fidelity: { faithful: true } | { faithful: false; why: string };
  /** Passes with the switch off; fails with it on (the switch is added by the check, not listed here). */
  scenario: Scenario;
}

/** The node switch that re-introduces a corpus entry's bug. */
export function switchOf(bug: KnownBug): BugId {
  return bug.switchId ?? (bug.id as BugId);
}
