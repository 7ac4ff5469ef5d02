/** The checkers' own toolkit: RLP, BFT arithmetic, block hashing, message decoding, genesis rules, validator tracking. */
import test from 'ava';
import { RLP } from '@ethereumjs/rlp';
import { committedSealHash, extraDataOf } from '../../node/chain/block-hashing.ts';
import { decodeMessage } from '../../node/consensus/qbft/messages.ts';
import { bytesToHex } from '../../node/crypto/bytes.ts';
import { findScenario } from '../../scenarios/index.ts';
import { buildSimGenesis, DEFAULT_VALIDATOR_CONTRACT } from '../genesis-builder.ts';
import { runScenario } from '../scenario-runner.ts';
import type { World } from '../world.ts';
import { maxFaulty, proposerFor, quorum } from './toolkit/bft-math.ts';
import { commitSealHash, decodeBlock, decodeQbftExtraData } from './toolkit/block.ts';
import { SignerRecovery, recoveryBackend, type Hex } from './toolkit/crypto.ts';
import { readGenesisRules } from './toolkit/genesis-rules.ts';
import { decodeQbftMessage, signedParts, type QbftMessage } from './toolkit/qbft-messages.ts';
import { itemsOf, readRlp, encodeList, encodeString } from './toolkit/rlp.ts';
import { ValidatorTracker } from './toolkit/validator-tracker.ts';
import { GENESIS_TIME_S, ZERO_ADDRESS, commitMsg, keys, prepareMsg, proposalMsg, proposedBlock, roundChangeMsg, sealedBlock, type BlockSpec } from './test-fixtures.ts';

const a = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Hex;

test('RLP: reads what @ethereumjs/rlp writes and refuses non-canonical encodings', (t) => {
  const value = [new Uint8Array([1, 2, 3]), [new Uint8Array(60).fill(7), new Uint8Array(0)], Uint8Array.of(0x7f)];
  const encoded = RLP.encode(value as never);
  const items = itemsOf(readRlp(encoded), 'x');
  t.is(items.length, 3);
  t.deepEqual(items[0]!.content, new Uint8Array([1, 2, 3]));
  t.deepEqual(itemsOf(items[1]!, 'y')[0]!.content, new Uint8Array(60).fill(7));
  t.deepEqual(encodeList(items.map((i) => i.raw)), encoded);
  t.throws(() => readRlp(Uint8Array.of(0x81, 0x05)), { message: /must not be prefixed/ });
  t.throws(() => readRlp(Uint8Array.of(0xb8, 0x02, 1, 2)), { message: /below 56/ });
  t.throws(() => readRlp(Uint8Array.of(0x83, 1, 2)), { message: /past the end/ });
  t.throws(() => readRlp(Uint8Array.of(0x01, 0x02)), { message: /after the item/ });
  t.deepEqual(encodeString(Uint8Array.of(0x05)), Uint8Array.of(0x05));
});

test('quorum is ceil(2n/3) and f is floor((n-1)/3)', (t) => {
  const table = [[1, 1, 0], [2, 2, 0], [3, 2, 0], [4, 3, 1], [5, 4, 1], [6, 4, 1], [7, 5, 2], [10, 7, 3], [100, 67, 33]];
  for (const [n, q, f] of table) {
    t.is(quorum(n!), q, `quorum(${n})`);
    t.is(maxFaulty(n!), f, `f(${n})`);
  }
  t.is(maxFaulty(0), 0);
});

test("proposer rotation follows Besu's rule: after the previous proposer, or from the next address when it left", (t) => {
  const set = [a(0x40), a(0x10), a(0x30), a(0x20)];
  // Previous proposer still a validator: round r goes r + 1 places on (changeEachBlock).
  t.is(proposerFor(set, a(0x20), 0), a(0x30));
  t.is(proposerFor(set, a(0x20), 1), a(0x40));
  t.is(proposerFor(set, a(0x20), 2), a(0x10));
  t.is(proposerFor(set, a(0x40), 0), a(0x10));
  t.is(proposerFor(set, a(0x40), 7), a(0x40));
  // Genesis coinbase 0x0 (not a validator): round 0 is the lowest address.
  t.is(proposerFor(set, ZERO_ADDRESS, 0), a(0x10));
  t.is(proposerFor(set, ZERO_ADDRESS, 3), a(0x40));
  // A removed proposer: start at the first address above it, wrapping to the lowest.
  t.is(proposerFor(set, a(0x25), 0), a(0x30));
  t.is(proposerFor(set, a(0x25), 1), a(0x40));
  t.is(proposerFor(set, a(0x50), 0), a(0x10));
  t.is(proposerFor(set, a(0x50), 5), a(0x20));
});

async function worldRun(name: string, overrides: Record<string, unknown>): Promise<World> {
  let world: World | undefined;
  const s = { ...findScenario(name)!, ...overrides };
  const result = await runScenario(s, { onWorld: (w) => (world = w) });
  if (!result.ok) throw new Error(`${name} did not pass: ${JSON.stringify(result.violations)}`);
  return world!;
}

test("the committed-seal and on-chain hashes agree with node/chain/block-hashing.ts on real blocks (votes included)", async (t) => {
  const world = await worldRun('remove-validator', { durationMs: 8_000, expect: [] });
  const node = world.get('v0').node!;
  let withVote = 0;
  let checked = 0;
  for (let n = 1; n <= node.head().number; n++) {
    const entry = node.blockAt(n)!;
    const mine = decodeBlock(entry.block.serialize());
    const theirs = extraDataOf(entry.block.header);
    if ('error' in mine.extra) return t.fail(mine.extra.error);
    t.is(mine.onchainHash, entry.hash);
    t.is(mine.coinbase, entry.coinbase);
    t.deepEqual(mine.extra.validators, theirs.validators);
    t.deepEqual(mine.extra.vote, theirs.vote);
    t.is(mine.extra.round, theirs.round);
    t.deepEqual(mine.extra.seals.map(bytesToHex), theirs.seals.map(bytesToHex));
    for (const round of [0, theirs.round, 3]) t.is(commitSealHash(mine, round), bytesToHex(committedSealHash(entry.block.header, round)));
    if (theirs.vote) withVote++;
    checked++;
  }
  t.true(checked >= 5);
  t.true(withVote >= 3, 'blocks carrying votes were checked');
});

async function capturedMessages(layout: 'besu26' | 'legacy'): Promise<Array<{ code: number; data: Uint8Array }>> {
  const out: Array<{ code: number; data: Uint8Array }> = [];
  const seen = new WeakSet<Uint8Array>();
  const s = { ...findScenario('timer-between-commits')!, durationMs: 40_000, wireLayout: layout, expect: [] };
  await runScenario(s, {
    onWorld: (w) =>
      w.network.tap((_from, m) => {
        if (m.protocol === 'istanbul' && !seen.has(m.data)) {
          seen.add(m.data);
          out.push({ code: m.code, data: m.data });
        }
      }),
  });
  return out;
}

for (const layout of ['besu26', 'legacy'] as const) {
  test(`every QBFT message of a real run decodes (${layout} layout), with the node decoder's signers and fields`, async (t) => {
    const messages = await capturedMessages(layout);
    const recovery = new SignerRecovery();
    const validators = new Set(keys(4).map((k) => k.address));
    const kinds = new Map<string, number>();
    let preparedBlocks = 0;
    let justified = 0;
    for (const { code, data } of messages) {
      const mine: QbftMessage = decodeQbftMessage(code, data, recovery);
      const theirs = decodeMessage(code, data);
      kinds.set(mine.kind, (kinds.get(mine.kind) ?? 0) + 1);
      t.is(mine.signed.signer, theirs.signed.author);
      t.is(mine.signed.payload.height, theirs.signed.payload.sequence);
      t.is(mine.signed.payload.round, theirs.signed.payload.round);
      for (const part of signedParts(mine)) t.true(validators.has(part.signer!), 'signed by a validator');
      if (mine.kind === 'round-change' && mine.preparedBlockRlp) {
        preparedBlocks++;
        t.deepEqual(mine.preparedBlockRlp, theirs.kind === 'roundChange' ? theirs.preparedBlockRlp : undefined);
      }
      if (mine.kind === 'proposal' && mine.roundChanges.length > 0) justified++;
    }
    t.true((kinds.get('proposal') ?? 0) > 10 && (kinds.get('prepare') ?? 0) > 30 && (kinds.get('commit') ?? 0) > 30 && (kinds.get('round-change') ?? 0) > 0, JSON.stringify([...kinds]));
    t.true(preparedBlocks > 0, 'round changes carrying a prepared block were decoded');
    t.true(justified > 0, 'round-change proposals with a justification were decoded');
  });
}

test('hand-built messages of both layouts decode; malformed ones are refused', (t) => {
  const [k0, k1] = keys(4);
  const recovery = new SignerRecovery();
  const spec: BlockSpec = { number: 1, parentHash: `0x${'0'.repeat(64)}`, coinbase: k0!.address, validators: keys(4).map((k) => k.address), round: 1 };
  const block = proposedBlock(spec);
  const prepare = prepareMsg(k1!, 1, 0, `0x${'ab'.repeat(32)}`);
  for (const layout of ['besu26', 'legacy'] as const) {
    const rc = roundChangeMsg(k1!, 1, 1, { round: 0, block: proposedBlock({ ...spec, round: 0 }), prepares: [prepare] }, layout);
    const decodedRc = decodeQbftMessage(0x15, rc, recovery);
    if (decodedRc.kind !== 'round-change') return t.fail();
    t.is(decodedRc.signed.signer, k1!.address);
    t.is(decodedRc.signed.payload.prepared?.round, 0);
    t.is(decodedRc.prepares[0]!.signer, k1!.address);
    const proposal = decodeQbftMessage(0x12, proposalMsg(k0!, 1, 1, block, { roundChanges: [rc], prepares: [prepare] }, layout), recovery);
    if (proposal.kind !== 'proposal') return t.fail();
    t.is(proposal.signed.signer, k0!.address);
    t.deepEqual(proposal.signed.payload.blockRlp, block);
    t.is(proposal.roundChanges[0]!.signer, k1!.address);
  }
  const commit = decodeQbftMessage(0x14, commitMsg(k1!, 1, 1, block), recovery);
  t.is(commit.kind, 'commit');
  t.throws(() => decodeQbftMessage(0x13, prepare.subarray(0, prepare.length - 1), recovery));
  t.throws(() => decodeQbftMessage(0x14, prepare, recovery), { message: /commit payload has 3 items/ });
  t.throws(() => decodeQbftMessage(0x11, prepare, recovery), { message: /not a QBFT message code/ });
  t.not(recoveryBackend(), undefined);
});

test('extraData: a vote, its round and its seals decode; malformed ones are refused', (t) => {
  const [k0, k1, k2] = keys(3);
  const spec: BlockSpec = { number: 4, parentHash: `0x${'11'.repeat(32)}`, coinbase: k0!.address, validators: [k0!.address, k1!.address], round: 70000, vote: { recipient: k2!.address, add: false } };
  const block = decodeBlock(sealedBlock(spec, [k0!, k1!]));
  if ('error' in block.extra) return t.fail(block.extra.error);
  t.deepEqual(block.extra.vote, { recipient: k2!.address, add: false });
  t.is(block.extra.round, 70000);
  t.is(block.extra.seals.length, 2);
  t.throws(() => decodeQbftExtraData(RLP.encode([new Uint8Array(32), [], [], new Uint8Array(0)] as never)), { message: /4 items/ });
  t.throws(() => decodeQbftExtraData(RLP.encode([new Uint8Array(32), [new Uint8Array(19)], [], new Uint8Array(0), []] as never)), { message: /validator 0 is 19 bytes/ });
  t.throws(() => decodeQbftExtraData(RLP.encode([new Uint8Array(32), [], [new Uint8Array(20), Uint8Array.of(0x01)], new Uint8Array(0), []] as never)), { message: /neither add/ });
  t.throws(() => decodeQbftExtraData(RLP.encode([new Uint8Array(32), [], [], Uint8Array.of(0, 1), []] as never)), { message: /leading zero/ });
});

test("genesis rules: validators, timeouts, overrides and the static validator contract's list", (t) => {
  const ks = keys(4).map((k) => k.address);
  const genesis = buildSimGenesis({
    validators: ks,
    startTimeSeconds: GENESIS_TIME_S,
    requestTimeoutSeconds: 3,
    epochLength: 10,
    transitions: [{ block: 5, validators: ks.slice(0, 3) }, { block: 8, validatorselectionmode: 'contract', validatorcontractaddress: DEFAULT_VALIDATOR_CONTRACT }, { block: 9, blockperiodseconds: 4 }],
    validatorContract: { address: DEFAULT_VALIDATOR_CONTRACT, validators: [ks[3]!, ks[1]!] },
  });
  const rules = readGenesisRules(genesis);
  t.deepEqual(rules.genesisValidators, ks);
  t.is(rules.requestTimeoutSeconds, 3);
  t.is(rules.epochLength, 10);
  t.is(rules.longestBlockPeriodMs, 4000);
  t.deepEqual(rules.overrideAt(5), ks.slice(0, 3));
  t.is(rules.overrideAt(6), undefined);
  t.deepEqual(rules.modeAt(7), { kind: 'blockheader' });
  t.deepEqual(rules.modeAt(8), { kind: 'contract', validators: [ks[1]!, ks[3]!].sort() });
  t.deepEqual(readGenesisRules({ ...genesis, config: { ...(genesis.config as object), shanghaiTime: 0 } }).modeAt(8), { kind: 'unknown' });
});

test('validator tracking: votes pass at floor(n/2)+1, epoch blocks drop outstanding votes, overrides replace the set', (t) => {
  const ks = keys(5);
  const four = ks.slice(0, 4).map((k) => k.address);
  const newcomer = ks[4]!.address;
  const genesis = buildSimGenesis({ validators: four, startTimeSeconds: GENESIS_TIME_S, epochLength: 4, transitions: [{ block: 9, validators: four.slice(0, 2) }] });
  const tracker = new ValidatorTracker(readGenesisRules(genesis));
  let parentHash = `0x${'0'.repeat(64)}` as Hex;
  const sets: Hex[][] = [];
  const add = (number: number, coinbase: Hex, vote?: { recipient: Hex; add: boolean }) => {
    const tracked = tracker.add(decodeBlock(sealedBlock({ number, parentHash, coinbase, validators: sets[sets.length - 1] ?? four, round: 0, vote }, [])));
    parentHash = tracked.block.onchainHash;
    sets.push(tracker.validatorsFor(number + 1, parentHash).validators!);
  };
  add(1, four[0]!, { recipient: newcomer, add: true });
  add(2, four[1]!, { recipient: newcomer, add: true });
  t.deepEqual(sets[1], four, 'two of four votes are not enough');
  add(3, four[1]!, { recipient: newcomer, add: true });
  t.deepEqual(sets[2], four, 'a proposer counts once');
  add(4, four[2]!, { recipient: newcomer, add: true });
  t.deepEqual(sets[3], four, 'the epoch block 4 ignores its vote and drops the two outstanding ones');
  add(5, four[0]!, { recipient: newcomer, add: true });
  add(6, four[1]!, { recipient: newcomer, add: true });
  add(7, four[2]!, { recipient: newcomer, add: true });
  t.deepEqual(sets[6], [...four, newcomer].sort(), 'three of four add votes add it');
  add(8, four[3]!);
  t.deepEqual(tracker.validatorsFor(9, parentHash).validators, four.slice(0, 2), 'the override for block 9 replaces the set');
  t.is(tracker.validatorsFor(9, `0x${'99'.repeat(32)}`).validators, undefined, 'an unknown parent leaves the set unknown');
});

test('validator tracking: a removed validator loses its outstanding votes', (t) => {
  const ks = keys(5).map((k) => k.address);
  const [v0, v1, v2, v3, v4] = ks as [Hex, Hex, Hex, Hex, Hex];
  const genesis = buildSimGenesis({ validators: [v0, v1, v2, v3], startTimeSeconds: GENESIS_TIME_S });
  const tracker = new ValidatorTracker(readGenesisRules(genesis));
  let parentHash = `0x${'0'.repeat(64)}` as Hex;
  let current: Hex[] = [v0, v1, v2, v3];
  const add = (number: number, coinbase: Hex, vote: { recipient: Hex; add: boolean }) => {
    const tracked = tracker.add(decodeBlock(sealedBlock({ number, parentHash, coinbase, validators: current, round: 0, vote }, [])));
    parentHash = tracked.block.onchainHash;
    current = tracker.validatorsFor(number + 1, parentHash).validators!;
  };
  add(1, v3, { recipient: v4, add: true }); // v3's add vote for v4 is outstanding
  add(2, v0, { recipient: v3, add: false });
  add(3, v1, { recipient: v3, add: false });
  add(4, v2, { recipient: v3, add: false }); // v3 removed (3 of 4), its vote for v4 dropped
  t.deepEqual(current, [v0, v1, v2]);
  add(5, v0, { recipient: v4, add: true });
  t.deepEqual(current, [v0, v1, v2], 'v3 no longer counts: one vote of the needed two');
  add(6, v1, { recipient: v4, add: true });
  t.deepEqual(current, [v0, v1, v2, v4].sort());
});

test("genesis rules: the longest block period counts the empty-block period under both of Besu's names, the newer first", (t) => {
  const rulesWith = (qbft: Record<string, number>) => {
    const genesis = buildSimGenesis({ validators: keys(4).map((k) => k.address), startTimeSeconds: GENESIS_TIME_S });
    Object.assign((genesis.config as { qbft: Record<string, number> }).qbft, qbft);
    return readGenesisRules(genesis).longestBlockPeriodMs;
  };
  t.is(rulesWith({}), 1000);
  t.is(rulesWith({ emptyblockperiodseconds: 12 }), 12_000);
  t.is(rulesWith({ xemptyblockperiodseconds: 12 }), 12_000);
  t.is(rulesWith({ emptyblockperiodseconds: 5, xemptyblockperiodseconds: 12 }), 5_000);
});
