/**
 * Bounded state: what a hostile validator can make an honest node hold for one height is capped,
 * the way Besu caps it since GHSA-23rh-rrqg-wq82 (MAX_ALLOWED_ROUND = 1000): no round-change
 * collection or buffered future round above round 1000, so at most 1000 of each. Before the fix a
 * single key could make a node keep one collection per distinct round it named, without limit.
 * Read from the runner's per-second samples of each node's held state.
 */
import type { Observation } from './observation.ts';
import { ModelChecker } from './violation.ts';

/** Besu's MAX_ALLOWED_ROUND. */
export const MAX_ALLOWED_ROUND = 1000;

export class BoundedStateChecker extends ModelChecker {
  readonly name = 'bounded-state' as const;


  observe(o: Observation): void {
    if (this.stopped || o.type !== 'state-sample' || !this.model.honest(o.node)) return;
    const problems: string[] = [];
    if (o.highestRoundChangeRound > MAX_ALLOWED_ROUND) problems.push(`keeps round changes for round ${o.highestRoundChangeRound}, above ${MAX_ALLOWED_ROUND}`);
    if (o.roundChangeRounds > MAX_ALLOWED_ROUND) problems.push(`holds ${o.roundChangeRounds} round-change collections`);
    if (o.futureRoundStates > MAX_ALLOWED_ROUND) problems.push(`holds ${o.futureRoundStates} future-round states`);
    if (problems.length === 0) return;
    this.report({
      atMs: o.atMs,
      node: o.node,
      height: o.height,
      round: null,
      reason: `${o.node} ${problems.join(' and ')} at height ${o.height}: per-height state is not bounded`,
      line: `state sample of ${o.node} at ${o.atMs} ms: ${o.roundChangeRounds} round-change collections (highest round ${o.highestRoundChangeRound}), ${o.futureRoundStates} future-round states`,
    });
  }
}
