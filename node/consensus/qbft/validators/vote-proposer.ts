/**
 * The local node's queue of validator votes it wants to cast (qbft_proposeValidatorVote /
 * qbft_discardValidatorVote) and the choice of the one vote to put into a block it builds (Besu:
 * consensus/common/.../validator/blockbased/VoteProposer.java).
 *
 * A queued vote is "meaningful" w.r.t. the tally after the parent (Besu voteNotYetCast) iff
 *   DROP and subject ∈ validators and we have no outstanding DROP vote for it, or
 *   DROP and we have an outstanding ADD vote for it (reverse it), or
 *   ADD  and subject ∉ validators and we have no outstanding ADD vote for it, or
 *   ADD  and we have an outstanding DROP vote for it (reverse it).
 * Votes are never removed from the queue when cast or when they take effect; they simply stop being
 * meaningful. Selection is round-robin: position = (position + 1) mod (#meaningful votes), advanced
 * before each pick, over the meaningful votes in queue order. Besu's queue order is a
 * ConcurrentHashMap's (unspecified); ours is ascending address order, which is deterministic and
 * reproduces Besu's VoteProposerTest sequences.
 *
 * Bounded (our addition): at most MAX_PENDING_VOTES distinct subjects; queuing a new subject beyond
 * that throws VoteQueueFullError. Re-voting an already queued subject is always allowed.
 */
import type { Hex } from '../../../crypto/bytes.ts';
import type { ValidatorVote, VoteTally } from './vote-tally.ts';

export const MAX_PENDING_VOTES = 1000;

export class VoteQueueFullError extends Error {
  constructor(readonly limit: number) {
    super(`too many pending validator votes: at most ${limit} addresses can have a queued vote; discard some first`);
    this.name = 'VoteQueueFullError';
  }
}

export class VoteProposer {
  private readonly proposals = new Map<Hex, boolean>();
  private votePosition = 0;

  constructor(private readonly limit: number = MAX_PENDING_VOTES) {}

  /** Queues (or replaces) a vote: add = true to vote `address` in, false to vote it out. */
  auth(address: Hex, add: boolean): void {
    if (!this.proposals.has(address) && this.proposals.size >= this.limit) throw new VoteQueueFullError(this.limit);
    this.proposals.set(address, add);
  }

  /** Removes the queued vote for `address`, if any. */
  discard(address: Hex): void {
    this.proposals.delete(address);
  }

  /** Queued votes, ascending by address (true = ADD). A copy. */
  pendingVotes(): Map<Hex, boolean> {
    return new Map(this.orderedProposals());
  }

  /**
   * The vote to include in the next block built by `localAddress`, or undefined if no queued vote
   * is meaningful. Advances the round-robin position whenever a vote is returned.
   * @param validatorsAfterParent validators after the parent (Besu uses tally.getValidators(); pass the same set)
   * @param tallyAfterParent the tally after the parent, for the local node's outstanding votes
   */
  nextVote(localAddress: Hex, validatorsAfterParent: readonly Hex[], tallyAfterParent: VoteTally): ValidatorVote | undefined {
    const validators = new Set(validatorsAfterParent);
    const valid = this.orderedProposals().filter(([subject, add]) =>
      isMeaningful(localAddress, subject, add, validators, tallyAfterParent),
    );
    if (valid.length === 0) return undefined;
    this.votePosition = (this.votePosition + 1) % valid.length;
    const [recipient, add] = valid[this.votePosition];
    return { recipient, add };
  }

  private orderedProposals(): Array<[Hex, boolean]> {
    return [...this.proposals].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
}

function isMeaningful(local: Hex, subject: Hex, add: boolean, validators: ReadonlySet<Hex>, tally: VoteTally): boolean {
  const votedAuth = tally.hasAddVote(local, subject);
  const votedDrop = tally.hasDropVote(local, subject);
  if (!add) return (validators.has(subject) && !votedDrop) || votedAuth;
  return (!validators.has(subject) && !votedAuth) || votedDrop;
}
