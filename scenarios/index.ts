/** The named scenarios shipped with qbft-lab, in the order `scenario list` shows them. */
import type { Scenario } from '../sim/scenario.ts';
import happyPath from './happy-path.ts';
import proposerCrash from './proposer-crash.ts';
import twoOfFourCrashed from './two-of-four-crashed.ts';
import partition22 from './partition-2-2.ts';
import partition31 from './partition-3-1.ts';
import addValidator from './add-validator.ts';
import removeValidator from './remove-validator.ts';
import discardVote from './discard-vote.ts';
import epochReset from './epoch-reset.ts';
import switchToContract from './switch-to-contract.ts';
import rewardTransition from './reward-transition.ts';
import timeoutDoubling from './timeout-doubling.ts';
import earlyRoundChange from './early-round-change.ts';
import wipedRestart from './wiped-restart.ts';
import timerBetweenCommits from './timer-between-commits.ts';
import longOutage from './long-outage.ts';
import equivocatingProposer from './equivocating-proposer.ts';
import twinsFork from './twins-fork.ts';
import transitionInThePast from './transition-in-the-past.ts';
import pausedValidator from './paused-validator.ts';
import invalidJustification from './invalid-justification.ts';
import privateGroup from './private-group.ts';
import reorgApiClients from './reorg-api-clients.ts';

export const SCENARIOS: readonly Scenario[] = [
  happyPath,
  proposerCrash,
  twoOfFourCrashed,
  partition22,
  partition31,
  addValidator,
  removeValidator,
  discardVote,
  epochReset,
  switchToContract,
  rewardTransition,
  timeoutDoubling,
  earlyRoundChange,
  wipedRestart,
  timerBetweenCommits,
  longOutage,
  equivocatingProposer,
  twinsFork,
  transitionInThePast,
  pausedValidator,
  invalidJustification,
  privateGroup,
  reorgApiClients,
];

export function findScenario(name: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.name === name);
}
