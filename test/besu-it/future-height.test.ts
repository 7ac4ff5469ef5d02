/**
 * Port of Besu's QBFT integration test FutureHeightTest
 * (consensus/qbft-core/src/integration-test/.../qbft/core/test/FutureHeightTest.java):
 * five validators, a remote validator proposes block 1 (the node under test is validator 0, the
 * genesis coinbase); the consensus clock is fixed at 100 s.
 */
import test from 'ava';
import { NodeUnderTest } from '../../index.ts';
import { hexToBytes } from '../../node/crypto/bytes.ts';

const BLOCK_TIME_STAMP = 100;
const NETWORK_SIZE = 5;
const roundId = { height: 1, round: 0 };
const futureHeightRoundId = { height: 2, round: 0 };

async function setup() {
  const context = await NodeUnderTest.create({ validators: NETWORK_SIZE, localIndex: 0, clockMs: BLOCK_TIME_STAMP * 1000 });
  const peers = await context.roundSpecificPeers(roundId);
  return { context, peers, local: context.local };
}

test('FutureHeightTest.messagesForFutureHeightAreBufferedUntilChainHeightCatchesUp', async (t) => {
  const { context, peers, local } = await setup();
  const currentHeightBlock = await context.createBlockForProposal({ timestampSeconds: 30 });
  const signedCurrentHeightBlock = context.createSealedBlock(currentHeightBlock, 0, peers.sign(hexToBytes(currentHeightBlock.digest)));

  const futureHeightBlock = await context.createBlockForProposal({ parent: signedCurrentHeightBlock, timestampSeconds: 60, coinbase: peers.getProposer().address });

  await peers.getProposer().injectProposal(futureHeightRoundId, futureHeightBlock);
  peers.verifyNoMessagesReceived();

  // The proposer's estimated chain height went up.
  peers.getProposer().verifyEstimatedChainHeightEquals(futureHeightBlock.number - 1);

  // Prepares and commits from every non-proposer.
  await peers.prepareForNonProposing(futureHeightRoundId, futureHeightBlock.digest);
  for (const peer of peers.nonProposers) peer.verifyEstimatedChainHeightEquals(futureHeightBlock.number - 1);

  await peers.commitForNonProposing(futureHeightRoundId, futureHeightBlock);

  peers.verifyNoMessagesReceived();
  t.is(context.chainHeight(), 0);

  // Append the block and deliver its new-chain-head event.
  await context.appendBlock(signedCurrentHeightBlock);
  t.is(context.chainHeight(), 1);
  await context.newChainHead(signedCurrentHeightBlock);

  const expectedPrepareMessage = local.createPrepare(futureHeightRoundId, futureHeightBlock.digest);
  const expectedCommitMessage = local.createCommitFor(futureHeightRoundId, futureHeightBlock);

  peers.verifyMessagesReceived(expectedPrepareMessage, expectedCommitMessage);
  t.is(context.chainHeight(), 2);
});

test('FutureHeightTest.messagesFromPreviousHeightAreDiscarded', async (t) => {
  const { context, peers, local } = await setup();
  const currentHeightBlock = await context.createBlockForProposal({ timestampSeconds: 30, coinbase: peers.getProposer().address });
  const signedCurrentHeightBlock = context.createSealedBlock(currentHeightBlock, 0, peers.sign(hexToBytes(currentHeightBlock.digest)));

  await peers.getProposer().injectProposal(roundId, currentHeightBlock);
  await peers.nonProposing(0).injectPrepare(roundId, currentHeightBlock.digest);

  const expectedPrepareMessage = local.createPrepare(roundId, currentHeightBlock.digest);

  peers.verifyMessagesReceived(expectedPrepareMessage);

  // Append the block and deliver its new-chain-head event.
  await context.appendBlock(signedCurrentHeightBlock);
  t.is(context.chainHeight(), 1);
  await context.newChainHead(signedCurrentHeightBlock);

  // Prepares and commits from every non-proposer for the height before the block arrived.
  await peers.prepareForNonProposing(roundId, currentHeightBlock.digest);
  await peers.commitForNonProposing(roundId, currentHeightBlock);

  peers.verifyNoMessagesReceived();
  t.is(context.chainHeight(), 1);
});

test('FutureHeightTest.multipleNewChainHeadEventsDoesNotRestartCurrentHeightManager', async (t) => {
  const { context, peers, local } = await setup();
  const currentHeightBlock = await context.createBlockForProposal({ timestampSeconds: 30, coinbase: peers.getProposer().address });

  await peers.getProposer().injectProposal(roundId, currentHeightBlock);
  await peers.getProposer().injectPrepare(roundId, currentHeightBlock.digest);
  await peers.nonProposing(0).injectPrepare(roundId, currentHeightBlock.digest);

  peers.clearReceivedMessages();

  await context.newChainHead(context.chainHead());

  // One more prepare completes the quorum.
  await peers.nonProposing(1).injectPrepare(roundId, currentHeightBlock.digest);

  const expectedCommitMessage = local.createCommitFor(roundId, currentHeightBlock);
  peers.verifyMessagesReceived(expectedCommitMessage);
  t.pass();
});

test('FutureHeightTest.correctMessagesAreExtractedFromFutureHeightBuffer', async (t) => {
  const { context, peers, local } = await setup();
  const currentHeightBlock = await context.createBlockForProposal({ timestampSeconds: 30 });
  const signedCurrentHeightBlock = context.createSealedBlock(currentHeightBlock, 0, peers.sign(hexToBytes(currentHeightBlock.digest)));

  const nextHeightBlock = await context.createBlockForProposal({ parent: signedCurrentHeightBlock, timestampSeconds: 60, coinbase: peers.getProposer().address });
  const signedNextHeightBlock = context.createSealedBlock(nextHeightBlock, 0, peers.sign(hexToBytes(nextHeightBlock.digest)));

  const futureHeightBlock = await context.createBlockForProposal({ parent: signedNextHeightBlock, timestampSeconds: 90, coinbase: peers.nonProposing(0).address });

  const nextHeightRoundId = { height: 2, round: 0 };
  const futureHeightRoundId = { height: 3, round: 0 };

  // Prepares and commits from every non-proposer for height 3, two heights ahead.
  await peers.prepareForNonProposing(futureHeightRoundId, futureHeightBlock.digest);
  await peers.commitForNonProposing(futureHeightRoundId, futureHeightBlock);

  // Append the interim block and deliver its new-chain-head event.
  await context.appendBlock(signedCurrentHeightBlock);
  t.is(context.chainHeight(), 1);
  await context.newChainHead(signedCurrentHeightBlock);

  peers.verifyNoMessagesReceived();
  await peers.getProposer().injectProposal(nextHeightRoundId, nextHeightBlock);

  const expectedPrepareMessage = local.createPrepare(nextHeightRoundId, nextHeightBlock.digest);

  // Only the prepare: the height-3 messages were not used.
  peers.verifyMessagesReceived(expectedPrepareMessage);

  // Height 3 is proposed by the next non-proposer.
  await peers.nonProposing(0).injectProposal(futureHeightRoundId, futureHeightBlock);

  // Move to height 3: the node prepares and commits.
  await context.appendBlock(signedNextHeightBlock);
  t.is(context.chainHeight(), 2);
  await context.newChainHead(signedNextHeightBlock);

  const expectedFuturePrepareMessage = local.createPrepare(futureHeightRoundId, futureHeightBlock.digest);
  const expectedCommitMessage = local.createCommitFor(futureHeightRoundId, futureHeightBlock);

  // Besu sends the commit before the prepare here; neither earlier.
  peers.verifyMessagesReceived(expectedCommitMessage, expectedFuturePrepareMessage);
});
