/**
 * The height manager against current Besu's QbftBlockHeightManager and QbftRound, case by case:
 * signing through a node key that may fail, the block timer's round, the order of PREPARE and
 * COMMIT, validation of the node's own proposal, and the empty-block period on both sides.
 */
import test from 'ava';
import { sign } from '../../crypto/secp256k1.ts';
import type { ConsensusSigner, CoreAction } from './core-types.ts';
import { besuHooks, CURRENT_BESU } from '../../bugs/hooks.ts';
import { HeightManager } from './height-manager.ts';
import type { RoundChangeMessage } from './messages.ts';
import { block, broadcasts, commit, config, ctx, keys, of, prepare, proposal, roundChange } from './height-manager.fixtures.ts';

const hsmDown: ConsensusSigner = () => {
  throw new Error('HSM unreachable');
};

const rejections = (actions: CoreAction[]) => actions.flatMap((a) => (a.type === 'trace' && a.event.kind === 'message-rejected' ? [a.event.reason] : []));

function sent(actions: CoreAction[]) {
  return actions.flatMap((a) => (a.type === 'broadcast' ? [a.message] : []));
}

test('with cfg.signer, proposals, prepares, commits, commit seals and round changes are signed through it', (t) => {
  const made: Uint8Array[] = [];
  const signer: ConsensusSigner = (hash) => {
    const signature = sign(hash, keys[0].privateKey);
    made.push(signature);
    return signature;
  };
  const byTheSigner = (signature: Uint8Array) => made.some((m) => Buffer.compare(m, signature) === 0);
  const hm = new HeightManager(config(0, { signer }), ctx());
  hm.start(0);
  hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 0 });
  const b = block(keys[0].address, 0);
  const out = sent(hm.handle({ type: 'blockCreated', nowMs: 1_001, height: 1, round: 0, block: b }));
  hm.handle({ type: 'prepare', nowMs: 1_002, message: prepare(1, 0, b) });
  out.push(...sent(hm.handle({ type: 'prepare', nowMs: 1_003, message: prepare(2, 0, b) })));
  out.push(...sent(hm.handle({ type: 'roundTimerExpired', nowMs: 3_000, height: 1, round: 0 })));
  t.deepEqual(out.map((m) => m.kind), ['proposal', 'prepare', 'commit', 'roundChange']);
  for (const m of out) t.true(byTheSigner(m.signed.signature), `${m.kind} signed by cfg.signer`);
  const c = out.find((m) => m.kind === 'commit');
  t.true(c?.kind === 'commit' && byTheSigner(c.signed.payload.commitSeal), 'commit seal signed by cfg.signer');
});

test('a proposal that cannot be signed is neither sent nor accepted (Besu: "waiting for next round")', (t) => {
  const hm = new HeightManager(config(0, { signer: hsmDown }), ctx());
  hm.start(0);
  hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 0 });
  const b = block(keys[0].address, 0);
  t.deepEqual(broadcasts(hm.handle({ type: 'blockCreated', nowMs: 1_001, height: 1, round: 0, block: b })), []);
  const later: CoreAction[] = [];
  for (const i of [1, 2, 3]) later.push(...hm.handle({ type: 'prepare', nowMs: 1_002, message: prepare(i, 0, b) }));
  for (const i of [1, 2, 3]) later.push(...hm.handle({ type: 'commit', nowMs: 1_003, message: commit(i, 0, b) }));
  t.deepEqual(later, [], 'no proposal in the round: prepares and commits complete nothing');
  t.is(hm.currentRound(), 0);
});

test('signing fails on receipt of a proposal: the block is accepted, nothing is sent, and remote commits still import it', (t) => {
  // Besu QbftRoundIntegrationTest: signingFailsOnReceiptOfProposalUpdatesRoundButTransmitsNothing, failuresToSignStillAllowBlockToBeImported.
  const hm = new HeightManager(config(2, { signer: hsmDown }), ctx());
  hm.start(0);
  const b = block(keys[0].address, 0);
  t.deepEqual(broadcasts(hm.handle({ type: 'proposal', nowMs: 1_000, message: proposal(0, 0, b), block: b })), []);
  t.is(hm.currentRound(), 0);
  const prepared: CoreAction[] = [];
  for (const i of [0, 1, 3]) prepared.push(...hm.handle({ type: 'prepare', nowMs: 1_001, message: prepare(i, 0, b) }));
  t.deepEqual(broadcasts(prepared), [], 'prepared, but the commit cannot be signed');
  t.deepEqual(of(hm.handle({ type: 'commit', nowMs: 1_002, message: commit(0, 0, b) }), 'commitBlock'), []);
  t.deepEqual(of(hm.handle({ type: 'commit', nowMs: 1_003, message: commit(1, 0, b) }), 'commitBlock'), [], 'the local commit was never counted');
  const done = hm.handle({ type: 'commit', nowMs: 1_004, message: commit(3, 0, b) });
  t.deepEqual(broadcasts(done), []);
  t.is(of(done, 'commitBlock')[0]?.seals.length, 3);
});

test('only the commit seal fails: the prepare still goes out, no commit does, and the local commit is not counted', (t) => {
  const b = block(keys[0].address, 0);
  const sealHash = b.digestForRound(0);
  const signer: ConsensusSigner = (hash) => {
    if (Buffer.from(hash).toString('hex') === sealHash.slice(2)) throw new Error('seal refused');
    return sign(hash, keys[2].privateKey);
  };
  const hm = new HeightManager(config(2, { signer }), ctx());
  hm.start(0);
  t.deepEqual(broadcasts(hm.handle({ type: 'proposal', nowMs: 1_000, message: proposal(0, 0, b), block: b })), ['prepare']);
  t.deepEqual(broadcasts(hm.handle({ type: 'prepare', nowMs: 1_001, message: prepare(0, 0, b) })), [], 'prepared with its own prepare: no commit');
  hm.handle({ type: 'commit', nowMs: 1_002, message: commit(0, 0, b) });
  t.deepEqual(of(hm.handle({ type: 'commit', nowMs: 1_003, message: commit(1, 0, b) }), 'commitBlock'), []);
});

test('a round change that cannot be signed is not sent, but the node still moves to the new round', (t) => {
  const hm = new HeightManager(config(1, { signer: hsmDown }), ctx());
  hm.start(0);
  hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 0 });
  const expired = hm.handle({ type: 'roundTimerExpired', nowMs: 3_000, height: 1, round: 0 });
  t.deepEqual(broadcasts(expired), []);
  t.deepEqual(of(expired, 'setRoundTimer'), [{ type: 'setRoundTimer', height: 1, round: 1, delayMs: 4_000 }]);
  t.is(hm.currentRound(), 1);
});

test('a block timer expiry for another round starts round 0 but builds nothing; once a round is current, expiries are ignored', (t) => {
  const hm = new HeightManager(config(0), ctx());
  hm.start(0);
  const other = hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 1 });
  t.is(hm.currentRound(), 0);
  t.is(of(other, 'setRoundTimer').length, 1);
  t.deepEqual(of(other, 'createBlock'), []);
  t.deepEqual(hm.handle({ type: 'blockTimerExpired', nowMs: 1_001, height: 1, round: 0 }), []);
});

test('a proposed block whose extraData carries another round than the proposal is accepted (Besu never compares them)', (t) => {
  for (const hooks of [CURRENT_BESU, besuHooks(new Set(['besu-6613']))]) {
    const hm = new HeightManager(config(2, { hooks }), ctx());
    hm.start(0);
    const b = block(keys[0].address, 5);
    t.deepEqual(broadcasts(hm.handle({ type: 'proposal', nowMs: 1_000, message: proposal(0, 0, b), block: b })), ['prepare']);
  }
});

test('a round change with prepares but neither block nor prepared metadata is valid and counts toward the quorum', (t) => {
  const hm = new HeightManager(config(1), ctx());
  hm.start(0);
  hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 0 });
  const b = block(keys[0].address, 0);
  const stray: RoundChangeMessage = { ...roundChange(3, 1), prepares: [prepare(0, 0, b).signed, prepare(2, 0, b).signed] };
  t.deepEqual(rejections(hm.handle({ type: 'roundChange', nowMs: 3_000, message: stray, block: undefined })), []);
  hm.handle({ type: 'roundChange', nowMs: 3_001, message: roundChange(0, 1), block: undefined });
  const quorum = hm.handle({ type: 'roundChange', nowMs: 3_002, message: roundChange(2, 1), block: undefined });
  t.deepEqual(of(quorum, 'createBlock').map((c) => c.round), [1]);
});

test('a valid round change for a prior round still moves its author in the early-round-change count', (t) => {
  const hm = new HeightManager(config(3, { earlyRoundChange: true }), ctx());
  hm.start(0);
  hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 0 });
  hm.handle({ type: 'roundTimerExpired', nowMs: 3_000, height: 1, round: 0 });
  hm.handle({ type: 'roundTimerExpired', nowMs: 7_000, height: 1, round: 1 });
  t.is(hm.currentRound(), 2);
  hm.handle({ type: 'roundChange', nowMs: 7_100, message: roundChange(0, 5), block: undefined });
  hm.handle({ type: 'roundChange', nowMs: 7_101, message: roundChange(0, 1), block: undefined });
  hm.handle({ type: 'roundChange', nowMs: 7_102, message: roundChange(1, 6), block: undefined });
  t.is(hm.currentRound(), 2, 'author 0 now stands at round 1: only one validator is above round 2 (f+1 = 2)');
});

test('prepares that arrived before the proposal: the commit goes out before the prepare', (t) => {
  const b = block(keys[0].address, 0);
  for (const early of [[0, 1, 3], [0, 1]]) {
    const hm = new HeightManager(config(2), ctx());
    hm.start(0);
    for (const i of early) t.deepEqual(hm.handle({ type: 'prepare', nowMs: 900, message: prepare(i, 0, b) }), []);
    const accepted = hm.handle({ type: 'proposal', nowMs: 1_000, message: proposal(0, 0, b), block: b });
    t.deepEqual(broadcasts(accepted), ['commit', 'prepare'], `${early.length} prepares first`);
  }
});

test('the node validates its own proposal: one that fails is sent but neither accepted nor prepared', (t) => {
  const hm = new HeightManager(config(0), ctx());
  hm.start(0);
  hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 0 });
  const foreign = block(keys[1].address, 0);
  const created = hm.handle({ type: 'blockCreated', nowMs: 1_001, height: 1, round: 0, block: foreign });
  t.deepEqual(broadcasts(created), ['proposal']);
  t.deepEqual(rejections(created), ['block coinbase is not the proposer']);
  const later: CoreAction[] = [];
  for (const i of [1, 2, 3]) later.push(...hm.handle({ type: 'prepare', nowMs: 1_002, message: prepare(i, 0, foreign) }));
  t.deepEqual(broadcasts(later), [], 'never prepared');
});

test('besu-6613 switch: before Besu PR #7875 the proposer prepared its own proposal even when it failed validation', (t) => {
  const hm = new HeightManager(config(0, { hooks: besuHooks(new Set(['besu-6613'])) }), ctx());
  hm.start(0);
  hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 0 });
  const foreign = block(keys[1].address, 0);
  t.deepEqual(broadcasts(hm.handle({ type: 'blockCreated', nowMs: 1_001, height: 1, round: 0, block: foreign })), ['proposal', 'prepare']);
});

test('a re-proposal keeps the prepared block\'s coinbase and only its round changes; replacing the coinbase fails validation', (t) => {
  const prepared = block(keys[0].address, 0);
  const reproposal = (coinbaseOf: number) => {
    const hm = new HeightManager(config(1), ctx());
    hm.start(0);
    hm.handle({ type: 'proposal', nowMs: 1_000, message: proposal(0, 0, prepared), block: prepared });
    for (const i of [0, 2]) hm.handle({ type: 'prepare', nowMs: 1_001, message: prepare(i, 0, prepared) });
    hm.handle({ type: 'roundTimerExpired', nowMs: 3_000, height: 1, round: 0 });
    const prepares = [0, 1, 2].map((i) => prepare(i, 0, prepared));
    hm.handle({ type: 'roundChange', nowMs: 3_010, message: roundChange(0, 1, { round: 0, block: prepared, prepares }), block: prepared });
    const [create] = of(hm.handle({ type: 'roundChange', nowMs: 3_011, message: roundChange(2, 1), block: undefined }), 'createBlock');
    t.is(create?.repropose?.digest, prepared.digest);
    return hm.handle({ type: 'blockCreated', nowMs: 3_012, height: 1, round: 1, block: block(keys[coinbaseOf].address, 1) });
  };
  t.deepEqual(broadcasts(reproposal(0)), ['proposal', 'prepare'], 'round replaced, coinbase kept');
  const replaced = reproposal(1);
  t.deepEqual(broadcasts(replaced), ['proposal']);
  t.deepEqual(rejections(replaced), ['proposed block is not the block of the best prepared certificate']);
});

test('empty-block period, non-proposer: an empty candidate idles it with the proposer until the block timer fires again', (t) => {
  const hm = new HeightManager(config(2), ctx({ emptyBlockPeriodSeconds: 10 }));
  hm.start(0);
  const fired = hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 0 });
  t.deepEqual(of(fired, 'createBlock'), [{ type: 'createBlock', height: 1, round: 0, timestampSeconds: 1, emptyCheck: true }]);
  const idle = hm.handle({ type: 'blockCreated', nowMs: 1_000, height: 1, round: 0, block: block(keys[2].address, 0) });
  t.deepEqual(
    idle.filter((a) => a.type !== 'trace'),
    [
      { type: 'setBlockTimer', height: 1, atMs: 2_000 },
      { type: 'cancelRoundTimer', height: 1 },
    ],
  );
  t.is(hm.currentRound(), undefined);
  const b = block(keys[0].address, 0);
  t.deepEqual(broadcasts(hm.handle({ type: 'proposal', nowMs: 1_500, message: proposal(0, 0, b), block: b })), ['prepare'], 'a proposal still starts round 0');
});

test('empty-block period, non-proposer: a candidate with transactions keeps round 0 and its round timer running', (t) => {
  const hm = new HeightManager(config(2), ctx({ emptyBlockPeriodSeconds: 10 }));
  hm.start(0);
  hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 0 });
  t.deepEqual(hm.handle({ type: 'blockCreated', nowMs: 1_000, height: 1, round: 0, block: block(keys[2].address, 0, 'a', 1) }), []);
  t.is(hm.currentRound(), 0);
  t.is(broadcasts(hm.handle({ type: 'roundTimerExpired', nowMs: 3_000, height: 1, round: 0 }))[0], 'roundChange', 'a crashed proposer is replaced');
});

test('empty-block period: once it is over a non-proposer builds nothing, and the proposer proposes an empty block', (t) => {
  const late = ctx({ emptyBlockPeriodSeconds: 10, blockTimerAtMs: 10_001 });
  const validator = new HeightManager(config(2), late);
  validator.start(0);
  t.deepEqual(of(validator.handle({ type: 'blockTimerExpired', nowMs: 10_001, height: 1, round: 0 }), 'createBlock'), []);
  const proposer = new HeightManager(config(0), late);
  proposer.start(0);
  proposer.handle({ type: 'blockTimerExpired', nowMs: 10_001, height: 1, round: 0 });
  const b = block(keys[0].address, 0);
  t.deepEqual(broadcasts(proposer.handle({ type: 'blockCreated', nowMs: 10_001, height: 1, round: 0, block: b })), ['proposal', 'prepare']);
});

test('empty-block period, proposer: an empty block waits, a block with transactions is proposed at once', (t) => {
  const hm = new HeightManager(config(0), ctx({ emptyBlockPeriodSeconds: 10 }));
  hm.start(0);
  hm.handle({ type: 'blockTimerExpired', nowMs: 1_000, height: 1, round: 0 });
  const waiting = hm.handle({ type: 'blockCreated', nowMs: 1_000, height: 1, round: 0, block: block(keys[0].address, 0) });
  t.deepEqual(of(waiting, 'setBlockTimer'), [{ type: 'setBlockTimer', height: 1, atMs: 2_000 }]);
  t.is(hm.currentRound(), undefined);
  hm.handle({ type: 'blockTimerExpired', nowMs: 2_000, height: 1, round: 0 });
  const full = block(keys[0].address, 0, 'b', 2);
  t.deepEqual(broadcasts(hm.handle({ type: 'blockCreated', nowMs: 2_000, height: 1, round: 0, block: full })), ['proposal', 'prepare']);
});
