import test from 'ava';
import fc from 'fast-check';
import type { Hex } from '../../../crypto/bytes.ts';
import { VoteTally } from './vote-tally.ts';

const addr = (n: number): Hex => `0x${n.toString(16).padStart(40, '0')}`;
const [v1, v2, v3, v4, v5] = [1, 2, 3, 4, 5].map(addr);
const ADD = (r: Hex) => ({ recipient: r, add: true });
const DROP = (r: Hex) => ({ recipient: r, add: false });
const four = () => VoteTally.fromValidators([v4, v2, v3, v1]);
const apply = (t: VoteTally, ...votes: Array<[Hex, { recipient: Hex; add: boolean }]>) =>
  votes.reduce((acc, [p, v]) => acc.applyVote(p, v), t);

test('validators are sorted and deduplicated; threshold is floor(n/2)+1', (t) => {
  const tally = VoteTally.fromValidators([v3, v1, v3, v2]);
  t.deepEqual(tally.validators(), [v1, v2, v3]);
  t.is(tally.threshold(), 2);
  t.is(four().threshold(), 3);
  t.is(VoteTally.fromValidators([]).threshold(), 1);
});

test('add needs more than half (Besu VoteTallyTest)', (t) => {
  const two = apply(four(), [v1, ADD(v5)], [v2, ADD(v5)]);
  t.deepEqual(two.validators(), [v1, v2, v3, v4]);
  t.deepEqual(two.outstandingAddVotesFor(v5), [v1, v2]);
  const three = two.applyVote(v3, ADD(v5));
  t.deepEqual(three.validators(), [v1, v2, v3, v4, v5]);
  t.deepEqual(three.outstandingAddVotesFor(v5), [], 'votes about the added validator are discarded');
  t.deepEqual(two.validators(), [v1, v2, v3, v4], 'the old tally is unchanged');
});

test('added validator is placed in order', (t) => {
  const tally = apply(VoteTally.fromValidators([v1, v2, v3, v5]), [v1, ADD(v4)], [v2, ADD(v4)], [v3, ADD(v4)]);
  t.deepEqual(tally.validators(), [v1, v2, v3, v4, v5]);
});

test('duplicate votes from one proposer count once', (t) => {
  t.deepEqual(apply(four(), [v1, ADD(v5)], [v2, ADD(v5)], [v2, ADD(v5)]).validators(), [v1, v2, v3, v4]);
  t.deepEqual(apply(four(), [v1, DROP(v4)], [v2, DROP(v4)], [v2, DROP(v4)]).validators(), [v1, v2, v3, v4]);
});

test("a proposer's opposite vote replaces its earlier one", (t) => {
  const tally = apply(four(), [v1, ADD(v5)], [v1, DROP(v5)], [v2, ADD(v5)], [v3, ADD(v5)]);
  t.deepEqual(tally.validators(), [v1, v2, v3, v4]);
  t.deepEqual(tally.outstandingAddVotesFor(v5), [v2, v3]);
  t.deepEqual(tally.outstandingDropVotesFor(v5), [v1]);
  t.deepEqual(tally.pendingVotesFor(v5), { add: [v2, v3], drop: [v1] });
  t.deepEqual(tally.pendingVotes(), [{ subject: v5, add: [v2, v3], drop: [v1] }]);
  const back = apply(four(), [v1, DROP(v4)], [v1, ADD(v4)], [v2, DROP(v4)], [v3, DROP(v4)]);
  t.deepEqual(back.validators(), [v1, v2, v3, v4]);
});

test('changing a vote after the change took effect does not undo it', (t) => {
  t.deepEqual(apply(four(), [v1, ADD(v5)], [v2, ADD(v5)], [v3, ADD(v5)], [v1, DROP(v5)]).validators(), [v1, v2, v3, v4, v5]);
  t.deepEqual(apply(four(), [v1, DROP(v4)], [v2, DROP(v4)], [v3, DROP(v4)], [v1, ADD(v4)]).validators(), [v1, v2, v3]);
});

test('drop removes the validator and deletes every vote it had cast', (t) => {
  let tally = apply(four(), [v4, ADD(v5)], [v4, DROP(v3)]);
  tally = apply(tally, [v1, DROP(v4)], [v2, DROP(v4)], [v3, DROP(v4)]);
  t.deepEqual(tally.validators(), [v1, v2, v3]);
  t.deepEqual(tally.pendingVotes(), []);
  // now 2 of 3 are needed, and v4's earlier votes no longer count
  tally = apply(tally, [v1, ADD(v5)], [v1, DROP(v3)]);
  t.deepEqual(tally.validators(), [v1, v2, v3]);
});

test('votes about a validator are cleared when it is added or dropped', (t) => {
  let tally = apply(four(), [v1, ADD(v5)], [v2, ADD(v5)], [v3, ADD(v5)]);
  tally = apply(tally, [v2, DROP(v5)], [v3, DROP(v5)], [v4, DROP(v5)]);
  t.deepEqual(tally.validators(), [v1, v2, v3, v4]);
  tally = apply(tally, [v2, ADD(v5)], [v3, ADD(v5)]);
  t.deepEqual(tally.validators(), [v1, v2, v3, v4], "v1's old add vote was discarded");
});

test('one validator: a single vote decides; two validators need both', (t) => {
  t.deepEqual(VoteTally.fromValidators([v1]).applyVote(v1, ADD(v2)).validators(), [v1, v2]);
  const two = VoteTally.fromValidators([v1, v2]).applyVote(v1, ADD(v3));
  t.deepEqual(two.validators(), [v1, v2]);
  t.deepEqual(two.applyVote(v2, ADD(v3)).validators(), [v1, v2, v3]);
});

test('discarding outstanding votes (epoch) keeps the validators', (t) => {
  const tally = apply(four(), [v1, ADD(v5)], [v2, ADD(v5)]).withoutOutstandingVotes().applyVote(v3, ADD(v5));
  t.deepEqual(tally.validators(), [v1, v2, v3, v4]);
  t.deepEqual(tally.outstandingAddVotesFor(v5), [v3]);
});

test('several votes are tracked independently', (t) => {
  let tally = apply(four(), [v1, ADD(v5)], [v1, DROP(v3)], [v2, ADD(v5)], [v2, DROP(v1)]);
  t.deepEqual(tally.validators(), [v1, v2, v3, v4]);
  tally = apply(tally, [v3, ADD(v5)], [v3, DROP(v1)]);
  t.deepEqual(tally.validators(), [v1, v2, v3, v4, v5]);
  tally = apply(tally, [v4, ADD(v5)], [v4, DROP(v1)]);
  t.deepEqual(tally.validators(), [v2, v3, v4, v5]);
});

test('like Besu, votes by non-validators are counted', (t) => {
  const outsider = addr(0x99);
  const tally = apply(four(), [outsider, ADD(v5)], [v1, ADD(v5)]);
  t.deepEqual(tally.outstandingAddVotesFor(v5), [v1, outsider]);
  t.deepEqual(tally.applyVote(v2, ADD(v5)).validators(), [v1, v2, v3, v4, v5]);
});

test('like Besu, a no-op vote (ADD of a validator) is recorded and clears votes once it reaches threshold', (t) => {
  let tally = apply(four(), [v1, DROP(v2)], [v3, ADD(v2)], [v4, ADD(v2)]);
  t.deepEqual(tally.outstandingAddVotesFor(v2), [v3, v4]);
  tally = tally.applyVote(v1, ADD(v2)); // replaces v1's DROP, reaches 3
  t.deepEqual(tally.validators(), [v1, v2, v3, v4]);
  t.deepEqual(tally.pendingVotes(), []);
  // DROP of a non-validator reaching threshold: nothing to remove, but its own cast votes vanish
  tally = apply(four(), [v5, ADD(addr(6))], [v1, DROP(v5)], [v2, DROP(v5)], [v3, DROP(v5)]);
  t.deepEqual(tally.validators(), [v1, v2, v3, v4]);
  t.deepEqual(tally.pendingVotes(), []);
});

test('like Besu, a stale DROP majority is completed by the next vote on the subject, even an ADD', (t) => {
  // 4 validators; v1,v2 vote to drop v3 (threshold 3, nothing happens yet)
  let tally = apply(four(), [v1, DROP(v3)], [v2, DROP(v3)]);
  // v1, v2, v3 drop v4 -> 3 validators, threshold 2: the drop votes {v1,v2} on v3 are now a majority
  tally = apply(tally, [v1, DROP(v4)], [v2, DROP(v4)], [v3, DROP(v4)]);
  t.deepEqual(tally.validators(), [v1, v2, v3]);
  t.deepEqual(tally.outstandingDropVotesFor(v3), [v1, v2]);
  // ... but only take effect when someone votes on v3 again, whichever way
  t.deepEqual(tally.applyVote(v3, ADD(v3)).validators(), [v1, v2]);
});

test('like Besu, when one vote completes both an ADD and a stale DROP majority, the drop wins', (t) => {
  const x = addr(9);
  const outsider = addr(7);
  // 5 validators (threshold 3): v1,v2 vote to drop non-validator x, v3 votes to add it
  let tally = apply(VoteTally.fromValidators([v1, v2, v3, v4, v5]), [v1, DROP(x)], [v2, DROP(x)], [v3, ADD(x)]);
  // shrink to 3 validators (threshold 2)
  tally = apply(tally, [v1, DROP(v5)], [v2, DROP(v5)], [v3, DROP(v5)], [v1, DROP(v4)], [v2, DROP(v4)], [v3, DROP(v4)]);
  t.deepEqual(tally.validators(), [v1, v2, v3]);
  // a second ADD for x: the add branch adds x and clears the votes, then Besu's drop check still sees
  // the drop set {v1,v2} it captured before and removes x again
  tally = tally.applyVote(outsider, ADD(x));
  t.deepEqual(tally.validators(), [v1, v2, v3]);
  t.deepEqual(tally.pendingVotes(), []);
});

test('like Besu, votes alone can empty the set', (t) => {
  t.deepEqual(VoteTally.fromValidators([v1]).applyVote(v1, DROP(v1)).validators(), []);
});

/** A line-by-line transliteration of Besu's mutable VoteTally.addVote, as a reference model. */
class BesuModel {
  validators = new Set<Hex>();
  add = new Map<Hex, Set<Hex>>();
  remove = new Map<Hex, Set<Hex>>();
  constructor(vs: Hex[]) {
    vs.forEach((v) => this.validators.add(v));
  }
  addVote(proposer: Hex, recipient: Hex, isAdd: boolean): void {
    if (!this.add.has(recipient)) this.add.set(recipient, new Set());
    if (!this.remove.has(recipient)) this.remove.set(recipient, new Set());
    const a = this.add.get(recipient)!;
    const r = this.remove.get(recipient)!;
    if (isAdd) {
      a.add(proposer);
      r.delete(proposer);
    } else {
      r.add(proposer);
      a.delete(proposer);
    }
    const limit = Math.floor(this.validators.size / 2) + 1;
    if (a.size >= limit) {
      this.validators.add(recipient);
      this.add.delete(recipient);
      this.remove.delete(recipient);
    }
    if (r.size >= limit) {
      this.validators.delete(recipient);
      this.add.delete(recipient);
      this.remove.delete(recipient);
      this.add.forEach((s) => s.delete(recipient));
      this.remove.forEach((s) => s.delete(recipient));
    }
  }
}

test('property: matches a transliteration of Besu VoteTally.addVote; changes at most one member per vote', (t) => {
  const a = fc.integer({ min: 1, max: 8 }).map(addr);
  fc.assert(
    fc.property(fc.uniqueArray(a, { minLength: 0, maxLength: 6 }), fc.array(fc.tuple(a, a, fc.boolean()), { maxLength: 60 }), (initial, votes) => {
      const model = new BesuModel(initial);
      let tally = VoteTally.fromValidators(initial);
      for (const [p, r, isAdd] of votes) {
        const before = tally.validators();
        tally = tally.applyVote(p, { recipient: r, add: isAdd });
        model.addVote(p, r, isAdd);
        const after = tally.validators();
        if (JSON.stringify(after) !== JSON.stringify([...model.validators].sort())) return false;
        const diff = before.filter((x) => !after.includes(x)).length + after.filter((x) => !before.includes(x)).length;
        if (diff > 1) return false;
        for (const s of [1, 2, 3, 4, 5, 6, 7, 8].map(addr)) {
          if (JSON.stringify(tally.outstandingAddVotesFor(s)) !== JSON.stringify([...(model.add.get(s) ?? [])].sort())) return false;
          if (JSON.stringify(tally.outstandingDropVotesFor(s)) !== JSON.stringify([...(model.remove.get(s) ?? [])].sort())) return false;
        }
      }
      return true;
    }),
    { seed: 1234, numRuns: 500 },
  );
  t.pass();
});
