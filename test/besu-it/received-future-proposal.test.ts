/**
 * Port of Besu's QBFT integration test ReceivedFutureProposalTest
 * (consensus/qbft-core/src/integration-test/.../qbft/core/test/ReceivedFutureProposalTest.java):
 * five validators, a remote peer proposes block 1 (the node under test is validator 0), and the
 * node is sent proposals for future (and prior) rounds carrying round changes and prepares.
 * Besu's consensus clock is fixed (Instant.MIN) while block timestamps are judged against the
 * real system clock, so the header clock here is set far ahead.
 */
import test from 'ava';
import { NodeUnderTest, type PreparedCertificate, type RoundId } from '../../index.ts';
import type { NodeProposedBlock } from '../../node/node.ts';

const NETWORK_SIZE = 5;
const roundId = { height: 1, round: 0 };

async function setup() {
  // Configuration ensures remote peer will provide proposal for first block
  const context = await NodeUnderTest.create({ validators: NETWORK_SIZE, localIndex: 0, headerClockMs: 2_000_000_000_000 });
  const peers = await context.roundSpecificPeers(roundId);
  return { context, peers, localNodeMessageFactory: context.local };
}

/** Besu's IntegrationTestHelpers.createValidPreparedCertificate. */
async function createValidPreparedCertificate(context: NodeUnderTest, preparedRound: RoundId, block: NodeProposedBlock): Promise<PreparedCertificate> {
  const peers = await context.roundSpecificPeers(preparedRound);
  return { block, prepares: peers.createSignedPreparePayloadOfAllPeers(preparedRound, block.digest), round: preparedRound.round };
}

test('ReceivedFutureProposalTest.proposalWithEmptyPrepareCertificatesOfferNewBlock', async (t) => {
  const { context, peers, localNodeMessageFactory } = await setup();
  const targetRound = { height: 1, round: 1 };

  const roundChanges = peers.createSignedRoundChangePayload(targetRound);

  const nextProposer = (await context.roundSpecificPeers(targetRound)).getProposer();
  const blockToPropose = await context.createBlockForProposal({ timestampSeconds: 15, coinbase: nextProposer.address });

  await nextProposer.injectProposalForFutureRound(targetRound, roundChanges, [], blockToPropose);

  const expectedPrepare = localNodeMessageFactory.createPrepare(targetRound, blockToPropose.digest);

  peers.verifyMessagesReceived(expectedPrepare);
  t.pass();
});

test('ReceivedFutureProposalTest.proposalFromIllegalSenderIsDiscardedAndNoPrepareForNewRoundIsSent', async (t) => {
  const { context, peers } = await setup();
  const nextRoundId = { height: 1, round: 1 };
  const blockToPropose = await context.createBlockForProposal({ timestampSeconds: 15, coinbase: peers.getProposer().address });

  const roundChanges = peers.createSignedRoundChangePayload(nextRoundId);

  const illegalProposer = (await context.roundSpecificPeers(nextRoundId)).nonProposing(0);

  await illegalProposer.injectProposalForFutureRound(nextRoundId, roundChanges, [], blockToPropose);

  peers.verifyNoMessagesReceived();
  t.pass();
});

test('ReceivedFutureProposalTest.proposalWithPrepareCertificateResultsInNewRoundStartingWithExpectedBlock', async (t) => {
  const { context, peers, localNodeMessageFactory } = await setup();
  const initialBlock = await context.createBlockForProposal({ timestampSeconds: 15, coinbase: peers.getProposer().address });
  const reproposedBlock = await context.createBlockForProposal({ timestampSeconds: 15, coinbase: peers.getProposer().address });
  const nextRoundId = { height: 1, round: 1 };

  const preparedRoundArtifacts = await createValidPreparedCertificate(context, roundId, initialBlock);

  const roundChanges = peers.createSignedRoundChangePayload(nextRoundId, preparedRoundArtifacts);

  const prepares = peers.createSignedPreparePayloadOfAllPeers(roundId, initialBlock.digest);

  const nextProposer = (await context.roundSpecificPeers(nextRoundId)).getProposer();

  await nextProposer.injectProposalForFutureRound(nextRoundId, roundChanges, prepares, reproposedBlock);

  peers.verifyMessagesReceived(localNodeMessageFactory.createPrepare(nextRoundId, reproposedBlock.digest));
  t.pass();
});

test('ReceivedFutureProposalTest.futureProposalWithInsufficientPreparesDoesNotTriggerNextRound', async (t) => {
  const { context, peers } = await setup();
  const initialBlock = await context.createBlockForProposal({ timestampSeconds: 15, coinbase: peers.getProposer().address });
  const reproposedBlock = await context.createBlockForProposal({ timestampSeconds: 15, coinbase: peers.getProposer().address });
  const nextRoundId = { height: 1, round: 1 };

  const preparedRoundArtifacts = await createValidPreparedCertificate(context, roundId, initialBlock);

  const roundChanges = peers.createSignedRoundChangePayload(nextRoundId, preparedRoundArtifacts);

  const prepares = peers.createSignedPreparePayloadOfAllPeers(roundId, initialBlock.digest);

  const nextProposer = (await context.roundSpecificPeers(nextRoundId)).getProposer();

  await nextProposer.injectProposalForFutureRound(nextRoundId, roundChanges, prepares.slice(0, 2), reproposedBlock);

  peers.verifyNoMessagesReceived();
  t.pass();
});

test('ReceivedFutureProposalTest.futureProposalWithInvalidPrepareDoesNotTriggerNextRound', async (t) => {
  const { context, peers } = await setup();
  const initialBlock = await context.createBlockForProposal({ timestampSeconds: 15, coinbase: peers.getProposer().address });
  const reproposedBlock = await context.createBlockForProposal({ timestampSeconds: 15 });
  const nextRoundId = { height: 1, round: 1 };

  const preparedRoundArtifacts = await createValidPreparedCertificate(context, roundId, initialBlock);

  const roundChanges = peers.createSignedRoundChangePayload(nextRoundId, preparedRoundArtifacts);

  let prepares = peers.createSignedPreparePayloadOfAllPeers(roundId, initialBlock.digest);
  prepares = prepares.filter((p) => p.author !== peers.firstNonProposer().address);

  const invalidPrepare = peers.firstNonProposer().createPrepare(nextRoundId, initialBlock.digest).signed;

  prepares.push(invalidPrepare);

  const nextProposer = (await context.roundSpecificPeers(nextRoundId)).getProposer();

  await nextProposer.injectProposalForFutureRound(nextRoundId, roundChanges, prepares, reproposedBlock);

  peers.verifyNoMessagesReceived();
  t.pass();
});

test('ReceivedFutureProposalTest.proposalMessageForPriorRoundIsNotActioned', async (t) => {
  const { context, peers } = await setup();
  // first move to a future round, then inject a proposal for a prior round, local node
  // should send no messages.
  const futureRound = { height: 1, round: 2 };
  await peers.roundChange(futureRound);

  const interimRound = { height: 1, round: 1 };
  const roundChangePayloads = peers.createSignedRoundChangePayload(interimRound);

  const interimRoundProposer = (await context.roundSpecificPeers(interimRound)).getProposer();

  await interimRoundProposer.injectProposalForFutureRound(interimRound, roundChangePayloads, [], await context.createBlockForProposal({ timestampSeconds: 30 }));

  peers.verifyNoMessagesReceived();
  t.pass();
});

test('ReceivedFutureProposalTest.receiveRoundStateIsNotLostIfASecondProposalMessageIsReceivedForCurrentRound', async (t) => {
  const { context, peers, localNodeMessageFactory } = await setup();
  const block = await context.createBlockForProposal({ timestampSeconds: 15, coinbase: peers.getProposer().address });
  const nextRoundId = { height: 1, round: 1 };

  const preparedRoundArtifacts = await createValidPreparedCertificate(context, roundId, block);

  const roundChanges = peers.createSignedRoundChangePayload(nextRoundId, preparedRoundArtifacts);

  const nextRoles = await context.roundSpecificPeers(nextRoundId);
  const nextProposer = nextRoles.getProposer();

  await nextProposer.injectProposalForFutureRound(nextRoundId, roundChanges, preparedRoundArtifacts.prepares, block);

  peers.verifyMessagesReceived(localNodeMessageFactory.createPrepare(nextRoundId, block.digest));

  // Inject a prepare, then re-inject the proposal - then ensure only a single prepare is enough
  // to trigger a Commit transmission from the local node
  await nextRoles.nonProposing(0).injectPrepare(nextRoundId, block.digest);

  await nextProposer.injectProposalForFutureRound(nextRoundId, roundChanges, preparedRoundArtifacts.prepares, block);
  await nextProposer.injectPrepare(nextRoundId, block.digest);
  peers.verifyNoMessagesReceived();

  await nextRoles.nonProposing(1).injectPrepare(nextRoundId, block.digest);

  const expectedCommit = context.local.createCommitFor(nextRoundId, block);

  peers.verifyMessagesReceived(expectedCommit);
  t.pass();
});
