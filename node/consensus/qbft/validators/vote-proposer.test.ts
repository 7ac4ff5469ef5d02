import test from 'ava';
import type { Hex } from '../../../crypto/bytes.ts';
import { MAX_PENDING_VOTES, VoteProposer, VoteQueueFullError } from './vote-proposer.ts';
import { VoteTally } from './vote-tally.ts';

const addr = (n: number): Hex => `0x${n.toString(16).padStart(40, '0')}`;
const local = addr(0);
const [a1, a2, a3, a4] = [1, 2, 3, 4].map(addr);
const tallyOf = (...vs: Hex[]) => VoteTally.fromValidators(vs);
const next = (p: VoteProposer, tally: VoteTally) => p.nextVote(local, tally.validators(), tally);

test('no queued votes: no vote', (t) => {
  const p = new VoteProposer();
  t.is(next(p, tallyOf()), undefined);
  t.is(next(p, tallyOf(addr(0), a1, a2)), undefined);
});

test('DROP is meaningful only for a current validator (Besu demoteVotes)', (t) => {
  const p = new VoteProposer();
  p.auth(a1, false);
  t.is(next(p, tallyOf()), undefined);
  t.deepEqual(next(p, tallyOf(a1)), { recipient: a1, add: false });
  t.deepEqual(next(p, tallyOf(a1, a2, a3)), { recipient: a1, add: false });
  t.is(next(p, tallyOf(a2, a3)), undefined);
});

test('ADD is meaningful only for a non-validator (Besu promoteVotes)', (t) => {
  const p = new VoteProposer();
  p.auth(a1, true);
  t.deepEqual(next(p, tallyOf()), { recipient: a1, add: true });
  t.is(next(p, tallyOf(a1)), undefined);
  t.is(next(p, tallyOf(a1, a2, a3)), undefined);
  t.deepEqual(next(p, tallyOf(a2, a3)), { recipient: a1, add: true });
});

test('discard removes a queued vote', (t) => {
  const p = new VoteProposer();
  p.auth(a1, true);
  p.auth(a2, true);
  p.discard(a2);
  p.discard(a4); // unknown: no-op
  t.deepEqual([...p.pendingVotes()], [[a1, true]]);
  t.deepEqual(next(p, tallyOf()), { recipient: a1, add: true });
  t.deepEqual(next(p, tallyOf(a2, a3)), { recipient: a1, add: true });
});

test('round-robin over the meaningful votes, advancing before each pick (Besu getVoteCyclesAllOptions)', (t) => {
  const p = new VoteProposer();
  p.auth(a3, true);
  p.auth(a1, true);
  p.auth(a2, true);
  const picks = [0, 1, 2, 3].map(() => next(p, tallyOf())?.recipient);
  t.deepEqual(picks, [a2, a3, a1, a2]);
});

test('votes that are not meaningful are skipped (Besu getVoteSkipsInvalidVotes)', (t) => {
  const p = new VoteProposer();
  p.auth(a1, true);
  p.auth(a2, true);
  p.auth(a3, true);
  p.auth(a4, false); // a4 is not a validator: not meaningful
  const picks = [0, 1, 2, 3].map(() => next(p, tallyOf())?.recipient);
  t.deepEqual(picks, [a2, a3, a1, a2]);
});

test('a vote the local node already cast is not repeated', (t) => {
  const p = new VoteProposer();
  p.auth(a4, true);
  const tally = tallyOf(a1, a2, a3).applyVote(local, { recipient: a4, add: true });
  t.is(next(p, tally), undefined, 'our ADD for a4 is already outstanding');
  const other = tallyOf(a1, a2, a3).applyVote(a1, { recipient: a4, add: true });
  t.deepEqual(next(p, other), { recipient: a4, add: true }, "someone else's vote does not count as ours");
  p.auth(a1, false);
  const dropped = tallyOf(a1, a2, a3).applyVote(local, { recipient: a1, add: false });
  t.is(next(p, dropped.applyVote(local, { recipient: a4, add: true })), undefined);
});

test('reversing an earlier opposite vote is meaningful (Besu revokes*VotesInTally)', (t) => {
  const p = new VoteProposer();
  p.auth(a1, false);
  t.deepEqual(next(p, tallyOf(a2, a3).applyVote(local, { recipient: a1, add: true })), { recipient: a1, add: false });
  const q = new VoteProposer();
  q.auth(a1, true);
  t.deepEqual(next(q, tallyOf(a2, a3).applyVote(local, { recipient: a1, add: false })), { recipient: a1, add: true });
  // ... even when that contradicts the current membership
  const r = new VoteProposer();
  r.auth(a1, false);
  t.deepEqual(next(r, tallyOf(a1, a2, a3).applyVote(local, { recipient: a1, add: true })), { recipient: a1, add: false });
  const s = new VoteProposer();
  s.auth(a1, true);
  t.deepEqual(next(s, tallyOf(a1, a2, a3).applyVote(local, { recipient: a1, add: false })), { recipient: a1, add: true });
});

test('re-voting replaces the direction; pendingVotes is a sorted copy', (t) => {
  const p = new VoteProposer();
  p.auth(a2, true);
  p.auth(a1, false);
  p.auth(a2, false);
  const pending = p.pendingVotes();
  t.deepEqual([...pending], [[a1, false], [a2, false]]);
  pending.clear();
  t.is(p.pendingVotes().size, 2);
});

test(`at most ${MAX_PENDING_VOTES} queued votes`, (t) => {
  const p = new VoteProposer();
  for (let i = 1; i <= MAX_PENDING_VOTES; i++) p.auth(addr(i), true);
  const err = t.throws(() => p.auth(addr(MAX_PENDING_VOTES + 1), true), { instanceOf: VoteQueueFullError });
  t.regex(err!.message, /at most 1000/);
  p.auth(addr(5), false); // changing a queued vote is still allowed
  p.discard(addr(1));
  p.auth(addr(MAX_PENDING_VOTES + 1), true);
  t.is(p.pendingVotes().size, MAX_PENDING_VOTES);
});
