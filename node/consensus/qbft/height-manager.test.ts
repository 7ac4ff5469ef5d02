/** Drives the pure QBFT state machine event by event, as Besu's QbftBlockHeightManager tests do. */
import test from 'ava';
import { utf8ToBytes } from '../../crypto/bytes.ts';
import { keccak256 } from '../../crypto/keccak.ts';
import { sign } from '../../crypto/secp256k1.ts';
import { besuHooks } from '../../bugs/hooks.ts';
import { HeightManager } from './height-manager.ts';
import { signPayload, type CommitMessage, type PrepareMessage, type RoundChangeMessage } from './messages.ts';
import { block, broadcasts, commit, config, ctx, hexBytes, keys, of, prepare, proposal, roundChange } from './height-manager.fixtures.ts';

test('a height starts by arming the block timer at parent timestamp + block period', (t) => {
  const hm = new HeightManager(config(1), ctx());
  t.deepEqual(hm.start(0), [{ type: 'setBlockTimer', height: 1, atMs: 1_000 }]);
  t.is(hm.currentRound(), undefined);
});

test('the round-0 proposer builds, proposes, prepares, commits and imports with a quorum of seals', (t) => {
  // Parent coinbase 0x0 is not a validator: the smallest address above it, v0, proposes round 0.
  const hm = new HeightManager(config(0), ctx());
  hm.start(0);
  const onTimer = hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 0 });
  t.deepEqual(of(onTimer, 'setRoundTimer'), [{ type: 'setRoundTimer', height: 1, round: 0, delayMs: 2_000 }]);
  t.deepEqual(of(onTimer, 'createBlock'), [{ type: 'createBlock', height: 1, round: 0, timestampSeconds: 1 }]);
  const b = block(keys[0].address, 0);
  t.deepEqual(broadcasts(hm.handle({ type: 'blockCreated', nowMs: 1_001, height: 1, round: 0, block: b })), ['proposal', 'prepare']);
  t.deepEqual(broadcasts(hm.handle({ type: 'prepare', nowMs: 1_010, message: prepare(1, 0, b) })), [], 'two prepares are below quorum 3');
  t.deepEqual(broadcasts(hm.handle({ type: 'prepare', nowMs: 1_011, message: prepare(2, 0, b) })), ['commit']);
  t.deepEqual(of(hm.handle({ type: 'commit', nowMs: 1_020, message: commit(1, 0, b) }), 'commitBlock'), []);
  const done = hm.handle({ type: 'commit', nowMs: 1_021, message: commit(2, 0, b) });
  const [c] = of(done, 'commitBlock');
  t.is(c.round, 0);
  t.is(c.seals.length, 3);
  t.deepEqual(of(done, 'cancelRoundTimer'), [], 'the round timer keeps running until the new head replaces the height');
  t.deepEqual(hm.handle({ type: 'commit', nowMs: 1_022, message: commit(3, 0, b) }), [], 'nothing after the height is committed');
});

test('a validator prepares a valid proposal and rejects one from the wrong proposer', (t) => {
  const hm = new HeightManager(config(2), ctx());
  hm.start(0);
  const wrong = hm.handle({ type: 'proposal', nowMs: 1_000, message: proposal(1, 0, block(keys[1].address, 0)), block: block(keys[1].address, 0) });
  t.deepEqual(broadcasts(wrong), []);
  const rejected = of(wrong, 'trace')[0]?.event;
  t.is(rejected?.kind, 'message-rejected');
  t.regex(rejected?.kind === 'message-rejected' ? rejected.reason : '', /proposer for round 0/);
  const b = block(keys[0].address, 0);
  const ok = hm.handle({ type: 'proposal', nowMs: 1_000, message: proposal(0, 0, b), block: b });
  t.deepEqual(broadcasts(ok), ['prepare']);
  t.is(hm.currentRound(), 0, 'a proposal that arrives before the block timer starts round 0');
  t.deepEqual(broadcasts(hm.handle({ type: 'proposal', nowMs: 1_001, message: proposal(0, 0, block(keys[0].address, 0, 'b')), block: block(keys[0].address, 0, 'b') })), [], 'one proposal per round');
});

test('an invalid block or a coinbase other than the proposer is rejected', (t) => {
  const hm = new HeightManager(config(2), ctx());
  hm.start(0);
  t.deepEqual(broadcasts(hm.handle({ type: 'proposal', nowMs: 1_000, message: proposal(0, 0, block(keys[0].address, 0)), block: undefined })), []);
  const foreign = block(keys[3].address, 0);
  t.deepEqual(broadcasts(hm.handle({ type: 'proposal', nowMs: 1_000, message: proposal(0, 0, foreign), block: foreign })), []);
});

test('the round timer doubles each round and a round change carries no certificate when nothing was prepared', (t) => {
  const hm = new HeightManager(config(1), ctx());
  hm.start(0);
  hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 0 });
  let now = 1_000;
  for (let round = 0; round < 4; round++) {
    now += 2_000 * 2 ** round;
    const actions = hm.handle({ type: 'roundTimerExpired', nowMs: now, height: 1, round });
    t.deepEqual(of(actions, 'setRoundTimer'), [{ type: 'setRoundTimer', height: 1, round: round + 1, delayMs: 2_000 * 2 ** (round + 1) }]);
    const rc = actions.find((a) => a.type === 'broadcast');
    t.is(rc?.type === 'broadcast' && rc.message.kind === 'roundChange' ? rc.message.signed.payload.prepared : 'missing', undefined);
  }
  t.deepEqual(hm.handle({ type: 'roundTimerExpired', nowMs: now, height: 1, round: 1 }), [], 'a stale timer is ignored');
});

test('after preparing, the round change carries the prepared certificate, and the next proposer re-proposes that block', (t) => {
  // v1 proposes round 1 (parent coinbase 0x0: base v0, round 1 -> v1).
  const hm = new HeightManager(config(1), ctx());
  hm.start(0);
  const b = block(keys[0].address, 0);
  hm.handle({ type: 'proposal', nowMs: 1_000, message: proposal(0, 0, b), block: b });
  hm.handle({ type: 'prepare', nowMs: 1_001, message: prepare(0, 0, b) });
  const prepared = hm.handle({ type: 'prepare', nowMs: 1_002, message: prepare(2, 0, b) });
  t.deepEqual(broadcasts(prepared), ['commit']);
  const expired = hm.handle({ type: 'roundTimerExpired', nowMs: 3_000, height: 1, round: 0 });
  const rc = expired.find((a) => a.type === 'broadcast' && a.message.kind === 'roundChange');
  t.truthy(rc);
  const rcMessage = (rc as { message: RoundChangeMessage }).message;
  t.is(rcMessage.signed.payload.prepared?.preparedRound, 0);
  t.is(rcMessage.prepares.length, 3);
  const preparesSeen = [prepare(0, 0, b), prepare(2, 0, b)];
  hm.handle({ type: 'roundChange', nowMs: 3_010, message: roundChange(0, 1, { round: 0, block: b, prepares: [...preparesSeen, prepare(1, 0, b)] }), block: b });
  const quorum = hm.handle({ type: 'roundChange', nowMs: 3_011, message: roundChange(2, 1), block: undefined });
  const [create] = of(quorum, 'createBlock');
  t.is(create.round, 1);
  t.is(create.repropose?.digest, b.digest, 'the prepared block is re-proposed, not a new one');
});

test('a proposal for a future round with a valid round-change certificate moves the node to that round', (t) => {
  const hm = new HeightManager(config(3), ctx());
  hm.start(0);
  hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 0 });
  const b = block(keys[1].address, 1);
  const rcs = [0, 1, 2].map((i) => roundChange(i, 1).signed);
  const actions = hm.handle({ type: 'proposal', nowMs: 3_000, message: proposal(1, 1, b, { roundChanges: rcs }), block: b });
  t.is(hm.currentRound(), 1);
  t.deepEqual(broadcasts(actions), ['prepare']);
  const tooFew = new HeightManager(config(3), ctx());
  tooFew.start(0);
  t.deepEqual(broadcasts(tooFew.handle({ type: 'proposal', nowMs: 3_000, message: proposal(1, 1, b, { roundChanges: rcs.slice(0, 2) }), block: b })), []);
  t.is(tooFew.currentRound(), undefined);
});

test('early round change: f+1 round changes for a higher round pull the node forward', (t) => {
  const hm = new HeightManager(config(3, { earlyRoundChange: true }), ctx());
  hm.start(0);
  hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 0 });
  t.is(hm.currentRound(), 0);
  hm.handle({ type: 'roundChange', nowMs: 2_000, message: roundChange(0, 1), block: undefined });
  t.is(hm.currentRound(), 0, 'one is not enough (f+1 = 2)');
  const actions = hm.handle({ type: 'roundChange', nowMs: 2_001, message: roundChange(1, 1), block: undefined });
  t.is(hm.currentRound(), 1);
  t.true(broadcasts(actions).includes('roundChange'));
});

test('round changes above maxRound (Besu: 1000) are invalid and cannot grow state', (t) => {
  const hm = new HeightManager(config(1), ctx());
  hm.start(0);
  hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 0 });
  for (const round of [1_001, 500_000, 2 ** 31 - 1]) {
    const actions = hm.handle({ type: 'roundChange', nowMs: 1_100, message: roundChange(0, round), block: undefined });
    t.deepEqual(
      actions.map((a) => (a.type === 'trace' && a.event.kind === 'message-rejected' ? a.event.reason : a.type)),
      [`round change targets round ${round}, above 1000`],
    );
  }
  t.is(hm.currentRound(), 0);
  t.is(hm.heldState().roundChangeRounds, 0);
  for (let round = 1; round <= 1_200; round++) hm.handle({ type: 'roundChange', nowMs: 1_200, message: roundChange(0, round), block: undefined });
  t.is(hm.heldState().roundChangeRounds, 1_000, 'one author can fill at most maxRound round collections');
});

test('prepares and commits for any future round are buffered, above maxRound too (Besu caps only round changes)', (t) => {
  const hm = new HeightManager(config(1), ctx());
  hm.start(0);
  hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 0 });
  const b = block(keys[0].address, 0);
  for (const round of [1_001, 500_000]) {
    t.deepEqual(hm.handle({ type: 'prepare', nowMs: 1_100, message: prepare(0, round, b) }), []);
    t.deepEqual(hm.handle({ type: 'commit', nowMs: 1_100, message: commit(0, round + 1, b) }), []);
  }
  t.is(hm.currentRound(), 0);
  t.is(hm.heldState().futureRoundStates, 4);
});

test('heldState reports per author the distinct rounds and the encoded bytes its messages fill', (t) => {
  const hm = new HeightManager(config(1), ctx());
  hm.start(0);
  hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 0 });
  const rcs = [5, 6, 7].map((round) => roundChange(0, round));
  for (const message of rcs) hm.handle({ type: 'roundChange', nowMs: 1_100, message, block: undefined });
  const b = block(keys[0].address, 0);
  const prepares = [3, 4].map((round) => prepare(2, round, b));
  for (const message of prepares) hm.handle({ type: 'prepare', nowMs: 1_100, message });
  const bytes = (ms: Array<{ signed: { encoded: Uint8Array } }>) => ms.reduce((sum, m) => sum + m.signed.encoded.length, 0);
  t.deepEqual(
    hm.heldState().byAuthor,
    [
      { author: keys[0].address, roundChangeRounds: 3, futureRounds: 0, bytes: bytes(rcs) },
      { author: keys[2].address, roundChangeRounds: 0, futureRounds: 2, bytes: bytes(prepares) },
    ].sort((x, y) => (x.author < y.author ? -1 : 1)),
  );
});

test('ghsa-23rh switch: round changes for any round are kept, one collection per distinct round', (t) => {
  const hm = new HeightManager(config(1, { hooks: besuHooks(new Set(['ghsa-23rh'])) }), ctx());
  hm.start(0);
  hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 0 });
  for (let round = 1_001; round <= 3_000; round++) hm.handle({ type: 'roundChange', nowMs: 1_100, message: roundChange(0, round), block: undefined });
  t.is((hm as unknown as { rcManager: { roundsHeld(): number } }).rcManager.roundsHeld(), 2_000);
});

test('no round window: prepares and commits for a far future round are buffered and count once its justified proposal arrives', (t) => {
  const hm = new HeightManager(config(3), ctx());
  hm.start(0);
  hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 0 });
  const round = 15;
  // Proposer of round 15 with parent coinbase 0x0: base v0, (0 + 15) mod 4 = v3... use whoever it is.
  const proposerIndex = round % 4;
  const b = block(keys[proposerIndex].address, round);
  for (const i of [0, 1, 2].filter((i) => i !== 3)) {
    hm.handle({ type: 'prepare', nowMs: 1_100, message: prepare(i, round, b) });
    hm.handle({ type: 'commit', nowMs: 1_100, message: commit(i, round, b) });
  }
  t.is(hm.currentRound(), 0, 'buffered messages do not move the round');
  const rcs = [0, 1, 2].map((i) => roundChange(i, round).signed);
  const actions = hm.handle({ type: 'proposal', nowMs: 1_200, message: proposal(proposerIndex, round, b, { roundChanges: rcs }), block: b });
  t.is(hm.currentRound(), round, 'a justified proposal for any future round is followed');
  t.is(of(actions, 'commitBlock').length, 1, 'the buffered commits of round 15 complete the block');
});

test('no round window: a quorum of round changes for a far round moves a non-proposer there', (t) => {
  const hm = new HeightManager(config(3), ctx());
  hm.start(0);
  hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 0 });
  for (const i of [0, 1, 2]) hm.handle({ type: 'roundChange', nowMs: 1_100, message: roundChange(i, 40), block: undefined });
  t.is(hm.currentRound(), 40);
});

test('early round change jumps to the lowest of the rounds f+1 validators asked for, however far', (t) => {
  const hm = new HeightManager(config(3, { earlyRoundChange: true }), ctx());
  hm.start(0);
  hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 0 });
  hm.handle({ type: 'roundChange', nowMs: 1_100, message: roundChange(0, 90), block: undefined });
  hm.handle({ type: 'roundChange', nowMs: 1_101, message: roundChange(1, 50), block: undefined });
  t.is(hm.currentRound(), 50);
});

test('the latest round change of an author replaces its earlier one, even for a lower round', (t) => {
  const hm = new HeightManager(config(3, { earlyRoundChange: true }), ctx());
  hm.start(0);
  hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 0 });
  hm.handle({ type: 'roundChange', nowMs: 1_100, message: roundChange(0, 90), block: undefined });
  hm.handle({ type: 'roundChange', nowMs: 1_101, message: roundChange(0, 1), block: undefined });
  // Author 0 now stands at round 1; author 1 asks for 70: f+1 = 2 authors above round 0 -> lowest is 1.
  hm.handle({ type: 'roundChange', nowMs: 1_102, message: roundChange(1, 70), block: undefined });
  t.is(hm.currentRound(), 1);
});

test('the local commit counts toward the quorum as soon as the proposal is accepted, before the node is prepared', (t) => {
  const hm = new HeightManager(config(2), ctx());
  hm.start(0);
  const b = block(keys[0].address, 0);
  const accepted = hm.handle({ type: 'proposal', nowMs: 1_000, message: proposal(0, 0, b), block: b });
  t.deepEqual(broadcasts(accepted), ['prepare'], 'no commit is broadcast before the node is prepared');
  hm.handle({ type: 'commit', nowMs: 1_010, message: commit(0, 0, b) });
  const done = hm.handle({ type: 'commit', nowMs: 1_011, message: commit(1, 0, b) });
  const [c] = of(done, 'commitBlock');
  t.truthy(c, 'own commit + two others = quorum 3, without a single foreign prepare');
  t.is(c.seals.length, 3);
  t.deepEqual(broadcasts(done), [], 'still no commit broadcast: never prepared');
});

test('a failed import leaves the round timer running: its expiry starts a round change with the prepared certificate', (t) => {
  const hm = new HeightManager(config(0), ctx());
  hm.start(0);
  hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 0 });
  const b = block(keys[0].address, 0);
  hm.handle({ type: 'blockCreated', nowMs: 1_001, height: 1, round: 0, block: b });
  hm.handle({ type: 'prepare', nowMs: 1_002, message: prepare(1, 0, b) });
  hm.handle({ type: 'prepare', nowMs: 1_003, message: prepare(2, 0, b) });
  hm.handle({ type: 'commit', nowMs: 1_004, message: commit(1, 0, b) });
  t.is(of(hm.handle({ type: 'commit', nowMs: 1_005, message: commit(2, 0, b) }), 'commitBlock').length, 1);
  // No new head follows (the import failed): the round timer fires.
  const expired = hm.handle({ type: 'roundTimerExpired', nowMs: 3_000, height: 1, round: 0 });
  const rc = expired.find((a) => a.type === 'broadcast' && a.message.kind === 'roundChange') as { message: RoundChangeMessage } | undefined;
  t.is(rc?.message.signed.payload.prepared?.preparedRound, 0);
  t.is(hm.currentRound(), 1);
});

test('messages from non-validators and commits with a seal by someone else do not count', (t) => {
  const outsider = keccak256(utf8ToBytes('outsider'));
  const hm = new HeightManager(config(0), ctx());
  hm.start(0);
  hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 0 });
  const b = block(keys[0].address, 0);
  hm.handle({ type: 'blockCreated', nowMs: 1_001, height: 1, round: 0, block: b });
  const foreign: PrepareMessage = { kind: 'prepare', signed: signPayload({ kind: 'prepare', sequence: 1, round: 0, digest: hexBytes(b.digest) }, outsider) };
  t.deepEqual(broadcasts(hm.handle({ type: 'prepare', nowMs: 1_002, message: foreign })), []);
  hm.handle({ type: 'prepare', nowMs: 1_003, message: prepare(1, 0, b) });
  hm.handle({ type: 'prepare', nowMs: 1_004, message: prepare(2, 0, b) });
  const badSeal: CommitMessage = {
    kind: 'commit',
    signed: signPayload({ kind: 'commit', sequence: 1, round: 0, digest: hexBytes(b.digest), commitSeal: sign(hexBytes(b.digest), keys[3].privateKey) }, keys[1].privateKey),
  };
  hm.handle({ type: 'commit', nowMs: 1_005, message: badSeal });
  t.deepEqual(of(hm.handle({ type: 'commit', nowMs: 1_006, message: commit(2, 0, b) }), 'commitBlock'), [], 'the mis-sealed commit was not counted');
  t.is(of(hm.handle({ type: 'commit', nowMs: 1_007, message: commit(3, 0, b) }), 'commitBlock').length, 1);
});
