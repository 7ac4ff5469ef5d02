/**
 * Bounded state: what one author's messages make an honest node hold for one height, measured per
 * author as distinct rounds and encoded bytes from the runner's samples of each node's held state.
 * Besu caps round changes since GHSA-23rh-rrqg-wq82 (MAX_ALLOWED_ROUND = 1000: no target round
 * above 1000, so at most 1000 collections an author can fill); before the fix a single key made a
 * node keep one collection per distinct round it named, without limit. Besu caps nothing for
 * future-round prepares and commits: one author holding a node to more than 1000 of those is
 * Besu's own behaviour, and this checker reports it as the consequence it is.
 */
import type { AuthorHeld, Observation } from './observation.ts';
import { ModelChecker } from './violation.ts';

/** Besu's MAX_ALLOWED_ROUND. */
export const MAX_ALLOWED_ROUND = 1000;

export class BoundedStateChecker extends ModelChecker {
  readonly name = 'bounded-state' as const;

  observe(o: Observation): void {
    if (this.stopped || o.type !== 'state-sample' || !this.model.honest(o.node)) return;
    const over = o.byAuthor.find((a) => a.roundChangeRounds > MAX_ALLOWED_ROUND || a.futureRounds > MAX_ALLOWED_ROUND);
    if (!over) return;
    const who = this.model.nameOf(over.author);
    this.report({
      atMs: o.atMs,
      node: o.node,
      height: o.height,
      round: null,
      reason: `${who} makes ${o.node} hold ${excess(over)} at height ${o.height} (${over.bytes} bytes): more than Besu's cap of ${MAX_ALLOWED_ROUND} rounds per author`,
      line: `state sample of ${o.node} at ${o.atMs} ms: ${o.byAuthor.map((a) => `${this.model.nameOf(a.author)} ${a.roundChangeRounds} round-change rounds, ${a.futureRounds} future rounds, ${a.bytes} bytes`).join('; ')}`,
    });
  }
}

function excess(a: AuthorHeld): string {
  const parts: string[] = [];
  if (a.roundChangeRounds > MAX_ALLOWED_ROUND) parts.push(`round changes for ${a.roundChangeRounds} distinct rounds`);
  // Besu does not cap these: the flood is its behaviour, and the growth is what the checker reports.
  if (a.futureRounds > MAX_ALLOWED_ROUND) parts.push(`prepares or commits for ${a.futureRounds} distinct future rounds (Besu caps none)`);
  return parts.join(' and ');
}
