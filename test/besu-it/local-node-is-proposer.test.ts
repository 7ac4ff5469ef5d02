/**
 * Port of Besu's QBFT integration test LocalNodeIsProposerTest
 * (consensus/qbft-core/src/integration-test/.../qbft/core/test/LocalNodeIsProposerTest.java):
 * four validators, the node under test proposes block 1; the consensus clock is fixed at 100 s.
 */
import test from 'ava';
import { NodeUnderTest } from '../../index.ts';

const BLOCK_TIME_STAMP = 100;
const roundId = { height: 1, round: 0 };

async function setup() {
  const context = await NodeUnderTest.create({ validators: 4, localIndex: 1, clockMs: BLOCK_TIME_STAMP * 1000 });
  const peers = await context.roundSpecificPeers(roundId);
  const expectedProposedBlock = await context.createBlockForProposal({ timestampSeconds: BLOCK_TIME_STAMP });
  const local = context.local;
  const expectedTxProposal = local.createProposal(roundId, expectedProposedBlock);
  const expectedTxPrepare = local.createPrepare(roundId, expectedProposedBlock.digest);
  const expectedTxCommit = local.createCommitFor(roundId, expectedProposedBlock);
  // Trigger "block timer" to send the proposal.
  await context.blockTimerExpiry(roundId);
  return { context, peers, expectedProposedBlock, expectedTxProposal, expectedTxPrepare, expectedTxCommit };
}

test('LocalNodeIsProposerTest.basicCase', async (t) => {
  const { context, peers, expectedProposedBlock: block, expectedTxProposal, expectedTxPrepare, expectedTxCommit } = await setup();
  t.is(peers.proposer, undefined, 'the node under test proposes round 0');
  peers.verifyMessagesReceived(expectedTxProposal, expectedTxPrepare);

  await peers.nonProposing(0).injectPrepare(roundId, block.digest);
  peers.verifyNoMessagesReceived();

  await peers.nonProposing(1).injectPrepare(roundId, block.digest);
  peers.verifyMessagesReceived(expectedTxCommit);

  await peers.nonProposing(1).injectCommit(roundId, block);
  t.is(context.chainHeight(), 0);
  peers.verifyNoMessagesReceived();

  await peers.nonProposing(2).injectCommit(roundId, block);
  t.is(context.chainHeight(), 1);
  peers.verifyNoMessagesReceived();
});

test('LocalNodeIsProposerTest.importsToChainWithoutReceivingPrepareMessages', async (t) => {
  const { context, peers, expectedProposedBlock: block, expectedTxProposal, expectedTxPrepare } = await setup();
  peers.verifyMessagesReceived(expectedTxProposal, expectedTxPrepare);

  await peers.nonProposing(1).injectCommit(roundId, block);
  t.is(context.chainHeight(), 0);
  peers.verifyNoMessagesReceived();

  await peers.nonProposing(2).injectCommit(roundId, block);
  t.is(context.chainHeight(), 1);
  peers.verifyNoMessagesReceived();
});

test('LocalNodeIsProposerTest.nodeDoesNotSendRoundChangeIfRoundTimesOutAfterBlockImportButBeforeNewBlock', async (t) => {
  const { context, peers, expectedProposedBlock: block, expectedTxProposal, expectedTxPrepare } = await setup();
  peers.verifyMessagesReceived(expectedTxProposal, expectedTxPrepare);
  await peers.nonProposing(0).injectCommit(roundId, block);
  t.is(context.chainHeight(), 0);
  peers.verifyNoMessagesReceived();

  await peers.nonProposing(1).injectCommit(roundId, block);
  t.is(context.chainHeight(), 1);
  peers.verifyNoMessagesReceived();

  await context.roundExpiry(roundId);
  peers.verifyNoMessagesReceived();

  await context.newChainHead(1);
  peers.verifyNoMessagesReceived();
});

test('LocalNodeIsProposerTest.nodeDoesNotSendCommitMessageAfterBlockIsImportedAndBeforeNewBlockEvent', async (t) => {
  const { context, peers, expectedProposedBlock: block, expectedTxProposal, expectedTxPrepare } = await setup();
  peers.verifyMessagesReceived(expectedTxProposal, expectedTxPrepare);
  await peers.nonProposing(0).injectCommit(roundId, block);
  t.is(context.chainHeight(), 0);
  peers.verifyNoMessagesReceived();

  await peers.nonProposing(1).injectCommit(roundId, block);
  t.is(context.chainHeight(), 1);
  peers.verifyNoMessagesReceived();

  await peers.nonProposing(0).injectPrepare(roundId, block.digest);
  peers.verifyNoMessagesReceived();
  await peers.nonProposing(1).injectPrepare(roundId, block.digest);
  peers.verifyNoMessagesReceived();
  await peers.nonProposing(2).injectPrepare(roundId, block.digest);
  peers.verifyNoMessagesReceived();
});
