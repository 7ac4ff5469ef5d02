/**
 * Port of Besu's QBFT integration test FutureRoundTest
 * (consensus/qbft-core/src/integration-test/.../qbft/core/test/FutureRoundTest.java):
 * five validators, the node under test is validator 0 (a remote peer proposes block 1 in round 0,
 * and in round 5); the consensus clock is fixed at 100 s.
 */
import test from 'ava';
import { NodeUnderTest } from '../../index.ts';
import { hexToBytes } from '../../node/crypto/bytes.ts';

const BLOCK_TIME_STAMP = 100;
const NETWORK_SIZE = 5;
const roundId = { height: 1, round: 0 };
const futureRoundId = { height: 1, round: 5 };

async function setup() {
  const context = await NodeUnderTest.create({ validators: NETWORK_SIZE, localIndex: 0, clockMs: BLOCK_TIME_STAMP * 1000 });
  const peers = await context.roundSpecificPeers(roundId);
  const futurePeers = await context.roundSpecificPeers(futureRoundId);
  return { context, peers, futurePeers, local: context.local };
}

/** Besu's BftHelpers.calculateRequiredValidatorQuorum. */
function quorumOf(n: number): number {
  return Math.ceil((2 * n) / 3);
}

test('FutureRoundTest.messagesForFutureRoundAreNotActionedUntilRoundIsActive', async (t) => {
  const { context, peers, futurePeers, local } = await setup();
  const futureBlock = await context.createBlockForProposal({ timestampSeconds: 60, coinbase: peers.getProposer().address });
  const quorum = quorumOf(NETWORK_SIZE);
  const subsequentRoundId = { height: 1, round: 6 };
  const subsequentRoles = await context.roundSpecificPeers(subsequentRoundId);

  for (let i = 0; i < quorum - 2; i++) {
    await futurePeers.nonProposing(i).injectPrepare(futureRoundId, futureBlock.digest);
  }
  for (let i = 0; i < quorum - 2; i++) {
    await futurePeers.nonProposing(i).injectCommit(futureRoundId, futureBlock);
  }

  // A prepare and a commit of a later round: nothing is sent.
  await subsequentRoles.nonProposing(1).injectPrepare(subsequentRoundId, futureBlock.digest);
  await subsequentRoles.nonProposing(1).injectCommit(subsequentRoundId, futureBlock);

  peers.verifyNoMessagesReceived();
  t.is(context.chainHeight(), 0);

  // A proposal for the future round moves the node there: it prepares, commits and imports.
  const signedRoundChangePayload = futurePeers.createSignedRoundChangePayload(futureRoundId);
  await futurePeers.getProposer().injectProposalForFutureRound(futureRoundId, signedRoundChangePayload, [], futureBlock);

  const expectedPrepare = local.createPrepare(futureRoundId, futureBlock.digest);
  peers.verifyMessagesReceived(expectedPrepare);

  // One more prepare and the commit is sent.
  await futurePeers.nonProposing(quorum - 2).injectPrepare(futureRoundId, futureBlock.digest);

  const commitSeal = local.sign(hexToBytes(futureBlock.digestForRound(futureRoundId.round)));
  const expectedCommit = local.createCommit(futureRoundId, futureBlock.digest, commitSeal);
  peers.verifyMessagesReceived(expectedCommit);

  // One more commit and the chain grows.
  await futurePeers.nonProposing(quorum - 2).injectCommit(futureRoundId, futureBlock);

  t.is(context.chainHeight(), 1);
});

test('FutureRoundTest.priorRoundsCannotBeCompletedAfterReceptionOfNewRound', async (t) => {
  const { context, peers, futurePeers, local } = await setup();
  const initialBlock = await context.createBlockForProposal({ timestampSeconds: 30, coinbase: peers.getProposer().address });
  const futureBlock = await context.createBlockForProposal({ timestampSeconds: 60, coinbase: peers.getProposer().address });

  await peers.getProposer().injectProposal(roundId, initialBlock);

  await peers.prepareForNonProposing(roundId, initialBlock.digest);

  await peers.getProposer().injectCommit(roundId, initialBlock);
  // Two commits so far (the proposer's and the node's own): not committed.
  t.is(context.chainHeight(), 0);

  peers.clearReceivedMessages();

  const signedRoundChangePayload = futurePeers.createSignedRoundChangePayload(futureRoundId);
  await futurePeers.getProposer().injectProposalForFutureRound(futureRoundId, signedRoundChangePayload, [], futureBlock);

  const expectedFuturePrepare = local.createPrepare(futureRoundId, futureBlock.digest);
  peers.verifyMessagesReceived(expectedFuturePrepare);

  // Try to complete the earlier round.
  await peers.nonProposing(0).injectCommit(roundId, initialBlock);
  peers.verifyNoMessagesReceived();
  t.is(context.chainHeight(), 0);
});
