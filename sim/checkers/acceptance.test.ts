/** Acceptance: a node's verdicts on messages are judged again from the wire bytes (synthetic runs, hand-fed). */
import test from 'ava';
import { QbftCode } from './toolkit/qbft-messages.ts';
import { keccak, signHash, toHex, fromHex, type Hex } from './toolkit/crypto.ts';
import { encodeList, encodeScalar, encodeString } from './toolkit/rlp.ts';
import { commitMsg, digestOf, prepareMsg, proposalMsg, proposedBlock, roundChangeMsg, SyntheticRun, type Key } from './test-fixtures.ts';
import type { TraceEvent } from '../trace-events.ts';

const keyOf = (data: Uint8Array): Hex => toHex(keccak(data));

/** Block 1 (parent: the genesis) proposed by `coinbase` in `round`. */
function block1(run: SyntheticRun, coinbase: Key, round = 0, tag = 0): Uint8Array {
  return proposedBlock({ number: 1, parentHash: `0x${'0'.repeat(64)}` as Hex, coinbase: coinbase.address, validators: run.addresses(), round, tag });
}

type Kind = 'proposal' | 'prepare' | 'commit' | 'roundChange';

function judged(run: SyntheticRun, atMs: number, node: string, type: Kind, round: number, author: Key, data: Uint8Array, rule?: string): void {
  const base = { height: 1, type, round, author: author.address, key: keyOf(data) };
  const event: TraceEvent = rule === undefined ? { kind: 'message-accepted', ...base } : { kind: 'message-rejected', ...base, reason: 'test', rule: rule as never };
  run.line(atMs, node, event);
}

/** A COMMIT at 1/0 naming `digest`, carrying `seal`, signed by `key`. */
function commitWithSeal(key: Key, digest: Hex, seal: Uint8Array): Uint8Array {
  const payload = encodeList([encodeScalar(1), encodeScalar(0), encodeString(fromHex(digest)), encodeString(seal)]);
  const signature = signHash(keccak(encodeList([encodeScalar(QbftCode.COMMIT), payload])), key.privateKey);
  return encodeList([payload, encodeString(signature)]);
}

const CODE: Record<Kind, number> = { proposal: QbftCode.PROPOSAL, prepare: QbftCode.PREPARE, commit: QbftCode.COMMIT, roundChange: QbftCode.ROUND_CHANGE };

/** The message goes on the wire from its author, then v0 gives its verdict. */
function deliver(run: SyntheticRun, atMs: number, type: Kind, round: number, author: Key, data: Uint8Array, rule?: string): void {
  run.send(atMs, author.name, CODE[type], data);
  judged(run, atMs + 1, 'v0', type, round, author, data, rule);
}

test('valid messages accepted and invalid ones rejected under their first broken rule: no violation, and marks count the rules', (t) => {
  const run = new SyntheticRun();
  const [v0, v1, v2, v3] = run.keys as [Key, Key, Key, Key];
  const good = block1(run, v0);
  deliver(run, 10, 'proposal', 0, v0, proposalMsg(v0, 1, 0, good));
  deliver(run, 20, 'proposal', 0, v1, proposalMsg(v1, 1, 0, block1(run, v1)), 'proposal-not-proposer');
  deliver(run, 30, 'prepare', 0, v1, prepareMsg(v1, 1, 0, digestOf(good)));
  deliver(run, 40, 'prepare', 0, v2, prepareMsg(v2, 1, 0, digestOf(block1(run, v0, 0, 9))), 'prepare-not-proposal');
  deliver(run, 50, 'commit', 0, v3, commitMsg(v3, 1, 0, good));
  const prepares = [v0, v1, v2].map((k) => prepareMsg(k, 1, 0, digestOf(good)));
  deliver(run, 60, 'roundChange', 1, v3, roundChangeMsg(v3, 1, 1, { round: 0, block: good, prepares }));
  deliver(run, 70, 'roundChange', 1, v2, roundChangeMsg(v2, 1, 1, { round: 0, block: good, prepares: [prepares[0]!, prepares[0]!, prepares[1]!] }), 'prepare-duplicate-author');
  run.suite.finish(1_000);
  const c = run.suite.acceptance;
  t.is(c.violation, undefined, c.violation?.reason);
  t.is(c.judged, 7);
  t.like(c.markCounts(), { 'proposal-not-proposer': 1, 'prepare-not-proposal': 1, 'prepare-duplicate-author': 1, 'commit-seal-not-author': 0 });
});

test('planted: a proposal from the wrong proposer accepted is reported with the rule it breaks', (t) => {
  const run = new SyntheticRun();
  const v1 = run.key('v1');
  deliver(run, 10, 'proposal', 0, v1, proposalMsg(v1, 1, 0, block1(run, v1)));
  t.like(run.suite.acceptance.violation, { checker: 'acceptance', node: 'v0', height: 1, round: 0 });
  t.regex(run.suite.acceptance.violation!.reason, /^v0 accepted a proposal for 1\/0 from 0x[0-9a-f]{40}, but it breaks proposal-not-proposer: proposed by/);
});

test('planted: a valid message rejected is reported', (t) => {
  const run = new SyntheticRun();
  const v0 = run.key('v0');
  deliver(run, 10, 'proposal', 0, v0, proposalMsg(v0, 1, 0, block1(run, v0)), 'proposal-coinbase');
  t.regex(run.suite.acceptance.violation!.reason, /rejected \(proposal-coinbase\) a proposal .* but it breaks no rule$/);
});

test('planted: a rejection naming a later rule than the first one broken is reported (a skipped rule hidden behind another)', (t) => {
  const run = new SyntheticRun();
  const v1 = run.key('v1');
  // Round 1's proposer is v1: one round change, signed twice by v1, fails the duplicate rule before the quorum rule.
  const rc = roundChangeMsg(v1, 1, 1);
  deliver(run, 10, 'proposal', 1, v1, proposalMsg(v1, 1, 1, block1(run, v1, 1), { roundChanges: [rc, rc] }), 'justification-round-change-quorum');
  t.regex(run.suite.acceptance.violation!.reason, /rejected \(justification-round-change-quorum\) .* but the first rule it breaks is justification-duplicate-round-change/);
});

test('planted: a commit whose seal another key signed, accepted against the round proposal, is reported', (t) => {
  const run = new SyntheticRun();
  const [v0, , , v3] = run.keys as [Key, Key, Key, Key];
  const good = block1(run, v0);
  deliver(run, 10, 'proposal', 0, v0, proposalMsg(v0, 1, 0, good));
  // v3's commit for the right block, with a seal v0's key signed.
  const forged = commitWithSeal(v3, digestOf(good), signHash(fromHex(digestOf(good)), v0.privateKey));
  deliver(run, 20, 'commit', 0, v3, forged);
  t.regex(run.suite.acceptance.violation!.reason, /accepted a commit .* breaks commit-seal-not-author/);
});

test('a verdict given before its message was seen on the wire is judged when the message appears', (t) => {
  const run = new SyntheticRun();
  const v2 = run.key('v2');
  const data = roundChangeMsg(v2, 1, 0);
  judged(run, 5, 'v0', 'roundChange', 0, v2, data);
  t.is(run.suite.acceptance.violation, undefined);
  run.send(6, 'v2', QbftCode.ROUND_CHANGE, data);
  t.regex(run.suite.acceptance.violation!.reason, /accepted a round-change .* breaks round-change-round-zero/);
});

test('rejections for the block itself, own messages and faulty nodes are not judged', (t) => {
  const run = new SyntheticRun({ faulty: ['v3'] });
  const v0 = run.key('v0');
  const good = block1(run, v0);
  deliver(run, 10, 'proposal', 0, v0, proposalMsg(v0, 1, 0, good), 'proposal-block-invalid');
  const v1 = run.key('v1');
  const wrong = proposalMsg(v1, 1, 0, block1(run, v1));
  run.send(20, 'v1', QbftCode.PROPOSAL, wrong);
  judged(run, 21, 'v3', 'proposal', 0, v1, wrong);
  run.line(30, 'v0', { kind: 'message-rejected', height: 1, type: 'proposal', round: 0, author: v0.address, reason: 'own', rule: 'proposal-coinbase' });
  run.suite.finish(1_000);
  t.is(run.suite.acceptance.violation, undefined);
  t.is(run.suite.acceptance.judged, 0);
  t.is(run.suite.acceptance.unjudged, 1);
});


test("a commit for the node's own proposal is judged against that proposal's block, read from the wire, also when the block keeps an older round (besu-6613's re-proposals)", (t) => {
  const run = new SyntheticRun();
  const [v0, v1, , v3] = run.keys as [Key, Key, Key, Key];
  // v1 proposes round 1 of height 1 with a block stamped round 0; seals sign its hash for round 1.
  const block = block1(run, v0, 0);
  run.line(10, 'v1', { kind: 'proposal-sent', height: 1, round: 1, digest: digestOf(block), txs: 0 });
  run.send(11, 'v1', QbftCode.PROPOSAL, proposalMsg(v1, 1, 1, block));
  const commit = commitMsg(v3, 1, 1, block);
  run.send(20, 'v3', QbftCode.COMMIT, commit);
  run.line(21, 'v1', { kind: 'message-accepted', height: 1, type: 'commit', round: 1, author: v3.address, key: keyOf(commit) });
  t.is(run.suite.acceptance.violation, undefined, run.suite.acceptance.violation?.reason);
  t.is(run.suite.acceptance.judged, 1);
  const forged = commitWithSeal(v3, digestOf(block), signHash(fromHex(digestOf(block)), v3.privateKey));
  run.send(30, 'v3', QbftCode.COMMIT, forged);
  run.line(31, 'v1', { kind: 'message-accepted', height: 1, type: 'commit', round: 1, author: v3.address, key: keyOf(forged) });
  t.regex(run.suite.acceptance.violation?.reason ?? '', /breaks commit-seal-not-author/);
});
