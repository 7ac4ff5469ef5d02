/** The harness itself, and the node behaviours only a message-level harness can show. */
import test from 'ava';
import { NodeUnderTest } from './node-under-test.ts';
import { MessageCode } from '../../node/consensus/qbft/messages.ts';
import { createLegacyTx } from '@ethereumjs/tx';
import { BESU_TEST_ACCOUNTS } from '../keys.ts';

const height1 = { height: 1, round: 0 };

/** A block 1 proposed by `proposer` and sealed by every remote peer, as sync would deliver it. */
async function sealedBlockOne(nut: NodeUnderTest) {
  const peers = await nut.roundSpecificPeers(height1);
  const block = await nut.createBlockForProposal({ timestampSeconds: 100, coinbase: peers.nonProposing(0).address });
  return nut.createSealedBlock(block, 0, peers.commitSeals(block, 0));
}

test('a proposal built while sync imports its height still goes out (Besu checks the height only when an event arrives)', async (t) => {
  let nut!: NodeUnderTest;
  let imported = false;
  nut = await NodeUnderTest.create({
    validators: 4,
    localIndex: 1,
    clockMs: 100_000,
    blockCreator: async (req, build) => {
      const outcome = await nut.node.importBlock(await sealedBlockOne(nut));
      imported = outcome.ok;
      return build(req);
    },
  });
  await nut.blockTimerExpiry(height1);
  t.true(imported, 'block 1 arrived by sync while the proposal was being built');
  t.is(nut.chainHeight(), 1);
  const sent = nut.peers[0].receivedMessages().map((m) => m.kind);
  t.deepEqual(sent.slice(0, 2), ['proposal', 'prepare'], 'the stale proposal and prepare still went out');
});

test('a round expiry or block timer expiry for a height the chain holds is dropped when it arrives', async (t) => {
  const nut = await NodeUnderTest.create({ validators: 4, localIndex: 0, clockMs: 100_000 });
  await nut.appendBlock(await sealedBlockOne(nut));
  await nut.roundExpiry(height1);
  await nut.blockTimerExpiry(height1);
  for (const p of nut.peers) t.deepEqual(p.receivedMessages(), [], 'no round change, no proposal');
});

test('the header clock is separate from the consensus clock: a proposal from the consensus clock\'s future is judged by the header clock', async (t) => {
  const run = async (headerClockMs: number | undefined) => {
    const nut = await NodeUnderTest.create({ validators: 4, localIndex: 0, clockMs: 100_000, headerClockMs });
    const peers = await nut.roundSpecificPeers(height1);
    const block = await nut.createBlockForProposal({ timestampSeconds: 1500, coinbase: peers.getProposer().address });
    await peers.getProposer().injectProposal(height1, block);
    return peers.nonProposing(0).receivedMessages().map((m) => m.kind);
  };
  t.deepEqual(await run(2_000_000_000_000), ['prepare']);
  t.deepEqual(await run(undefined), [], 'judged by the consensus clock, block time 1500 s is in the future');
});

test('a failing signer: the node accepts a proposal but sends nothing', async (t) => {
  const nut = await NodeUnderTest.create({
    validators: 4,
    localIndex: 0,
    clockMs: 100_000,
    signer: () => {
      throw new Error('HSM is down');
    },
  });
  const peers = await nut.roundSpecificPeers(height1);
  const block = await nut.createBlockForProposal({ timestampSeconds: 100, coinbase: peers.getProposer().address });
  await peers.getProposer().injectProposal(height1, block);
  peers.verifyNoMessagesReceived();
  await peers.commit(height1, block);
  t.is(nut.chainHeight(), 1, 'remote commit seals still import the block');
});

test('verify helpers name the first differing field, and raw bytes of any code are taken without harm', async (t) => {
  const nut = await NodeUnderTest.create({ validators: 4, localIndex: 0, clockMs: 100_000, headerClockMs: 2_000_000_000_000 });
  const peers = await nut.roundSpecificPeers(height1);
  await peers.nonProposing(0).injectMessage(MessageCode.PREPARE, new Uint8Array([0xc0]));
  await peers.nonProposing(0).injectMessage(0x7f, new Uint8Array([1, 2, 3]));
  const block = await nut.createBlockForProposal({ timestampSeconds: 100, coinbase: peers.getProposer().address });
  await peers.getProposer().injectProposal(height1, block);
  const wrongRound = nut.local.createPrepare({ height: 1, round: 1 }, block.digest);
  const error = t.throws(() => peers.nonProposing(0).verifyReceived(wrongRound));
  t.regex(error!.message, /message 0 \(prepare\): round: 0 != 1 expected/);
  peers.nonProposing(1).verifyReceived(nut.local.createPrepare(height1, block.digest));
});

test('empty-block period: a non-proposer whose candidate block would be empty goes idle instead of timing out the round (Besu PRs #10153, #11031)', async (t) => {
  const roundChangesAfter = async (qbftOptions: Record<string, number>, pendingTx = false) => {
    const nut = await NodeUnderTest.create({ validators: 4, localIndex: 0, clockMs: 0, requestTimeoutSeconds: 2, qbftOptions, fork: 'london', gasLimit: 30_000_000n });
    if (pendingTx) {
      const tx = createLegacyTx({ nonce: 0, gasPrice: 10n ** 9n, gasLimit: 21_000, to: BESU_TEST_ACCOUNTS[1]!.address, value: 1 }, { common: nut.node.common }).sign(BESU_TEST_ACCOUNTS[0]!.privateKey);
      t.like(await nut.node.submitTransaction(tx.serialize()), { ok: true });
    }
    await nut.advanceTo(3_000 + 2_000 + 1); // block timer at 3 s, then the round-0 timeout of 2 s
    return nut.peers[0].receivedMessages().filter((m) => m.kind === 'roundChange').length;
  };
  t.is(await roundChangesAfter({}), 1, 'without the period the proposer that never proposes is timed out');
  t.is(await roundChangesAfter({ xemptyblockperiodseconds: 30 }), 0, 'within the period the non-proposer idles with the proposer');
  t.is(await roundChangesAfter({ xemptyblockperiodseconds: 30 }, true), 1, 'a transaction waits: the non-proposer keeps its round and times out the silent proposer');
});
