/**
 * Port of Besu's QBFT integration test LocalNodeNotProposerTest
 * (consensus/qbft-core/src/integration-test/.../qbft/core/test/LocalNodeNotProposerTest.java):
 * four validators, a remote validator proposes block 1 (the node under test is validator 0, the
 * genesis coinbase). Besu leaves the consensus clock at its default (Instant.MIN, which no test
 * step reads) and judges header timestamps against the system clock, far past timestamp 15.
 */
import test from 'ava';
import { NodeUnderTest } from '../../index.ts';

const NETWORK_SIZE = 4;
const roundId = { height: 1, round: 0 };
/** Besu's system clock: some time in 2033. */
const SYSTEM_CLOCK_MS = 2_000_000_000_000;

async function setup() {
  const context = await NodeUnderTest.create({ validators: NETWORK_SIZE, localIndex: 0, headerClockMs: SYSTEM_CLOCK_MS });
  const peers = await context.roundSpecificPeers(roundId);
  const local = context.local;
  const blockToPropose = await context.createBlockForProposal({ timestampSeconds: 15, coinbase: peers.getProposer().address });
  const expectedTxPrepare = local.createPrepare(roundId, blockToPropose.digest);
  const expectedTxCommit = local.createCommitFor(roundId, blockToPropose);
  return { context, peers, blockToPropose, expectedTxPrepare, expectedTxCommit };
}

test('LocalNodeNotProposerTest.preparesReceivedFromNonProposerIsValid', async (t) => {
  const { context, peers, blockToPropose, expectedTxPrepare, expectedTxCommit } = await setup();
  await peers.getProposer().injectProposal(roundId, blockToPropose);

  peers.verifyMessagesReceived(expectedTxPrepare);

  await peers.nonProposing(0).injectPrepare(roundId, blockToPropose.digest);
  peers.verifyNoMessagesReceived();

  await peers.nonProposing(1).injectPrepare(roundId, blockToPropose.digest);
  peers.verifyMessagesReceived(expectedTxCommit);

  // The chain has not grown yet.
  t.is(context.chainHeight(), 0);

  // Another prepare sends nothing more.
  await peers.nonProposing(1).injectPrepare(roundId, blockToPropose.digest);
  peers.verifyNoMessagesReceived();

  // One commit: no quorum yet, nothing sent, no block.
  await peers.nonProposing(0).injectCommit(roundId, blockToPropose);
  peers.verifyNoMessagesReceived();
  t.is(context.chainHeight(), 0);

  // A second commit reaches the quorum: the block is imported.
  await peers.nonProposing(1).injectCommit(roundId, blockToPropose);
  peers.verifyNoMessagesReceived();
  t.is(context.chainHeight(), 1);

  // Further commits change nothing.
  await peers.getProposer().injectCommit(roundId, blockToPropose);
  peers.verifyNoMessagesReceived();
  t.is(context.chainHeight(), 1);
});

test('LocalNodeNotProposerTest.commitMessagesReceivedBeforePrepareCorrectlyImports', async (t) => {
  const { context, peers, blockToPropose, expectedTxPrepare, expectedTxCommit } = await setup();
  // Every peer commits, then the non-proposers prepare; the proposal arrives last.
  peers.clearReceivedMessages();
  await peers.commit(roundId, blockToPropose);
  peers.verifyNoMessagesReceived();
  t.is(context.chainHeight(), 0);

  await peers.prepareForNonProposing(roundId, blockToPropose.digest);
  peers.verifyNoMessagesReceived();
  t.is(context.chainHeight(), 0);

  await peers.getProposer().injectProposal(roundId, blockToPropose);
  // Besu sends the commit before the prepare here.
  peers.verifyMessagesReceived(expectedTxCommit, expectedTxPrepare);
  t.is(context.chainHeight(), 1);
});

test('LocalNodeNotProposerTest.canImportABlockIfSufficientCommitsReceivedWithoutPreparesAndThatNoPacketsSentAfterImport', async (t) => {
  const { context, peers, blockToPropose, expectedTxPrepare } = await setup();
  await peers.commit(roundId, blockToPropose);
  peers.verifyNoMessagesReceived();
  t.is(context.chainHeight(), 0);

  await peers.getProposer().injectProposal(roundId, blockToPropose);
  peers.verifyMessagesReceived(expectedTxPrepare);
  t.is(context.chainHeight(), 1);

  await peers.nonProposing(0).injectPrepare(roundId, blockToPropose.digest);
  peers.verifyNoMessagesReceived();
});
