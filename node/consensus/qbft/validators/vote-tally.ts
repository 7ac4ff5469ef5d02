/**
 * Validator set plus outstanding add/drop votes, block-header selection mode (Besu:
 * consensus/common/.../validator/blockbased/VoteTally.java). Immutable: every change returns a new
 * tally, so a tally can be shared between fork branches and cache entries.
 *
 * Semantics copied from Besu's `VoteTally.addVote`:
 * - A vote is recorded for any proposer: the tally does not check that the proposer is a validator
 *   (the header rules check that the coinbase is), nor that the vote changes anything.
 * - A proposer's ADD for a subject replaces its DROP for that subject and vice versa.
 * - Threshold = floor(n/2) + 1 of the current validator count, computed once before the vote takes
 *   effect.
 * - ADD votes ≥ threshold: subject added (no-op if already a validator), all outstanding votes about
 *   the subject discarded.
 * - DROP votes ≥ threshold: subject removed (no-op if not a validator), outstanding votes about it
 *   discarded, and every vote the subject had cast is deleted.
 * - Both checks run on the same vote, the drop check against the drop votes as they stood before
 *   the add branch discarded them (Besu keeps a local reference). So, after the set shrank, an ADD
 *   vote can complete a stale DROP majority; we reproduce that.
 * - Nothing prevents the set from becoming empty (a lone validator voting itself out empties it).
 */
import type { Hex } from '../../../crypto/bytes.ts';

export interface ValidatorVote {
  recipient: Hex;
  /** true = ADD (auth), false = DROP. */
  add: boolean;
}

type Votes = ReadonlyMap<Hex, ReadonlySet<Hex>>;

const EMPTY: ReadonlySet<Hex> = new Set();
const sortAddresses = (a: Iterable<Hex>): Hex[] => [...new Set(a)].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));

export class VoteTally {
  private constructor(
    private readonly current: readonly Hex[],
    private readonly addVotes: Votes,
    private readonly dropVotes: Votes,
  ) {}

  /** A tally with these validators (deduplicated, sorted) and no outstanding votes. */
  static fromValidators(validators: Iterable<Hex>): VoteTally {
    return new VoteTally(Object.freeze(sortAddresses(validators)), new Map(), new Map());
  }

  /** Current validators, ascending. */
  validators(): Hex[] {
    return [...this.current];
  }

  get size(): number {
    return this.current.length;
  }

  isValidator(address: Hex): boolean {
    return this.current.includes(address);
  }

  /** Votes needed to add or drop a validator: floor(n/2) + 1. */
  threshold(): number {
    return Math.floor(this.current.length / 2) + 1;
  }

  /** Proposers with an outstanding ADD vote for `subject`, ascending (Besu getOutstandingAddVotesFor). */
  outstandingAddVotesFor(subject: Hex): Hex[] {
    return sortAddresses(this.addVotes.get(subject) ?? EMPTY);
  }

  /** Proposers with an outstanding DROP vote for `subject`, ascending (Besu getOutstandingRemoveVotesFor). */
  outstandingDropVotesFor(subject: Hex): Hex[] {
    return sortAddresses(this.dropVotes.get(subject) ?? EMPTY);
  }

  /** Outstanding votes about `subject`: who voted to add it and who voted to drop it. */
  pendingVotesFor(subject: Hex): { add: Hex[]; drop: Hex[] } {
    return { add: this.outstandingAddVotesFor(subject), drop: this.outstandingDropVotesFor(subject) };
  }

  hasAddVote(proposer: Hex, subject: Hex): boolean {
    return this.addVotes.get(subject)?.has(proposer) ?? false;
  }

  hasDropVote(proposer: Hex, subject: Hex): boolean {
    return this.dropVotes.get(subject)?.has(proposer) ?? false;
  }

  /** Every subject with outstanding votes, ascending, with who voted which way. */
  pendingVotes(): Array<{ subject: Hex; add: Hex[]; drop: Hex[] }> {
    const subjects = sortAddresses([...this.addVotes.keys(), ...this.dropVotes.keys()]);
    return subjects
      .map((subject) => ({ subject, ...this.pendingVotesFor(subject) }))
      .filter((p) => p.add.length > 0 || p.drop.length > 0);
  }

  /** The tally after `proposer` casts `vote` (Besu VoteTally.addVote). */
  applyVote(proposer: Hex, vote: ValidatorVote): VoteTally {
    const subject = vote.recipient;
    const addSet = new Set(this.addVotes.get(subject) ?? EMPTY);
    const dropSet = new Set(this.dropVotes.get(subject) ?? EMPTY);
    if (vote.add) {
      addSet.add(proposer);
      dropSet.delete(proposer);
    } else {
      dropSet.add(proposer);
      addSet.delete(proposer);
    }
    const addVotes = new Map(this.addVotes);
    const dropVotes = new Map(this.dropVotes);
    setOrDelete(addVotes, subject, addSet);
    setOrDelete(dropVotes, subject, dropSet);

    const limit = this.threshold();
    let validators: Hex[] = [...this.current];
    if (addSet.size >= limit) {
      if (!validators.includes(subject)) validators = sortAddresses([...validators, subject]);
      addVotes.delete(subject);
      dropVotes.delete(subject);
    }
    if (dropSet.size >= limit) {
      validators = validators.filter((v) => v !== subject);
      addVotes.delete(subject);
      dropVotes.delete(subject);
      removeVoter(addVotes, subject);
      removeVoter(dropVotes, subject);
    }
    return new VoteTally(Object.freeze(validators), addVotes, dropVotes);
  }

  /** Same validators, no outstanding votes (Besu discardOutstandingVotes, used at epoch blocks). */
  withoutOutstandingVotes(): VoteTally {
    return new VoteTally(this.current, new Map(), new Map());
  }

  /** Tallies are immutable, so a copy is the tally itself; kept for parity with Besu's API. */
  copy(): VoteTally {
    return this;
  }
}

function setOrDelete(map: Map<Hex, ReadonlySet<Hex>>, key: Hex, value: ReadonlySet<Hex>): void {
  if (value.size === 0) map.delete(key);
  else map.set(key, value);
}

function removeVoter(map: Map<Hex, ReadonlySet<Hex>>, voter: Hex): void {
  for (const [subject, voters] of [...map]) {
    if (!voters.has(voter)) continue;
    const next = new Set(voters);
    next.delete(voter);
    setOrDelete(map, subject, next);
  }
}
