/**
 * Port of Besu's QBFT integration test RoundChangeTest
 * (consensus/qbft-core/src/integration-test/.../qbft/core/test/RoundChangeTest.java):
 * five validators, the node under test is validator 0 (so a remote peer proposes block 1 in
 * round 0 and the node under test proposes rounds 4 and 9); the consensus clock is fixed at 100 s.
 * Besu judges header timestamps against the real system clock (far ahead of 100 s), which its
 * blocks at 750 s and 1500 s rely on: headerClockMs stands for it.
 */
import test from 'ava';
import { NodeUnderTest, type PreparedCertificate, type RoundId } from '../../index.ts';
import type { NodeProposedBlock } from '../../node/node.ts';
import type { RoundChangePayload, Signed } from '../../node/consensus/qbft/messages.ts';

const BLOCK_TIME_STAMP = 100;
const NETWORK_SIZE = 5;
const SYSTEM_CLOCK_MS = 2_000_000_000_000;
const roundId = { height: 1, round: 0 };

async function setup() {
  const context = await NodeUnderTest.create({ validators: NETWORK_SIZE, localIndex: 0, clockMs: BLOCK_TIME_STAMP * 1000, headerClockMs: SYSTEM_CLOCK_MS });
  const peers = await context.roundSpecificPeers(roundId);
  const local = context.local;
  const blockToPropose = await context.createBlockForProposal({ timestampSeconds: 15, coinbase: peers.getProposer().address });
  return { context, peers, local, blockToPropose };
}

/** Besu's IntegrationTestHelpers.createValidPreparedCertificate: prepares of every remote peer. */
async function createValidPreparedCertificate(context: NodeUnderTest, preparedRound: RoundId, block: NodeProposedBlock): Promise<PreparedCertificate> {
  const peers = await context.roundSpecificPeers(preparedRound);
  return { block, prepares: peers.createSignedPreparePayloadOfAllPeers(preparedRound, block.digest), round: preparedRound.round };
}

/** Besu's BftHelpers.calculateRequiredValidatorQuorum. */
function quorum(n: number): number {
  return Math.ceil((2 * n) / 3);
}

test('RoundChangeTest.onRoundChangeTimerExpiryEventRoundChangeMessageIsSent', async (t) => {
  const { context, peers, local } = await setup();
  // The prepared certificate is empty: not enough prepares were received.
  const targetRound = { height: 1, round: 1 };
  const expectedTxRoundChange = local.createRoundChange(targetRound);
  await context.blockTimerExpiry(roundId);
  await context.roundExpiry(roundId);
  peers.verifyMessagesReceived(expectedTxRoundChange);
  t.pass();
});

test('RoundChangeTest.roundChangeHasEmptyCertificateIfNoPrepareMessagesReceived', async (t) => {
  const { context, peers, local, blockToPropose } = await setup();
  const targetRound = { height: 1, round: 1 };
  const expectedTxRoundChange = local.createRoundChange(targetRound);

  await peers.getProposer().injectProposal(roundId, blockToPropose);
  peers.clearReceivedMessages();

  await context.roundExpiry(roundId);
  peers.verifyMessagesReceived(expectedTxRoundChange);
  t.pass();
});

test('RoundChangeTest.roundChangeHasEmptyCertificateIfInsufficientPreparesAreReceived', async (t) => {
  const { context, peers, local, blockToPropose } = await setup();
  const targetRound = { height: 1, round: 1 };
  const expectedTxRoundChange = local.createRoundChange(targetRound);

  await peers.getProposer().injectProposal(roundId, blockToPropose);
  await peers.nonProposing(1).injectPrepare(roundId, blockToPropose.digest);
  peers.clearReceivedMessages();

  await context.roundExpiry(roundId);
  peers.verifyMessagesReceived(expectedTxRoundChange);
  t.pass();
});

test('RoundChangeTest.roundChangeHasPopulatedCertificateIfQuorumPrepareMessagesAndProposalAreReceived', async (t) => {
  const { context, peers, local, blockToPropose } = await setup();
  const targetRound = { height: 1, round: 1 };
  const localPrepareMessage = local.createPrepare(roundId, blockToPropose.digest);

  await peers.getProposer().injectProposal(roundId, blockToPropose);
  const p0 = await peers.getProposer().injectPrepare(roundId, blockToPropose.digest);
  peers.clearReceivedMessages();

  const p1 = await peers.nonProposing(0).injectPrepare(roundId, blockToPropose.digest);
  peers.clearReceivedMessages();

  const p2 = await peers.nonProposing(1).injectPrepare(roundId, blockToPropose.digest);
  peers.clearReceivedMessages();

  const expectedTxRoundChange = local.createRoundChange(targetRound, {
    block: blockToPropose,
    prepares: [localPrepareMessage, p0, p1, p2].map((p) => p.signed),
    round: roundId.round,
  });

  await context.roundExpiry(roundId);
  peers.verifyMessagesReceived(expectedTxRoundChange);
  t.pass();
});

test('RoundChangeTest.whenSufficientRoundChangeMessagesAreReceivedForNewRoundLocalNodeCreatesProposalMsg', async (t) => {
  const { context, peers, local } = await setup();
  // Round 4 is the next round the node under test proposes.
  const targetRound = { height: 1, round: 4 };
  const locallyProposedBlock = await context.createBlockForProposal({ timestampSeconds: BLOCK_TIME_STAMP, round: 4 });

  const rc1 = await peers.nonProposing(0).injectRoundChange(targetRound);
  const rc2 = await peers.nonProposing(1).injectRoundChange(targetRound);
  const rc3 = await peers.nonProposing(2).injectRoundChange(targetRound);
  const rc4 = await peers.getProposer().injectRoundChange(targetRound);

  const expectedProposal = local.createProposal(targetRound, locallyProposedBlock, [rc1.signed, rc2.signed, rc3.signed, rc4.signed], []);
  const expectedPrepare = local.createPrepare(targetRound, locallyProposedBlock.digest);

  peers.verifyMessagesReceived(expectedProposal, expectedPrepare);
  t.pass();
});

test('RoundChangeTest.proposalMessageContainsBlockOnWhichPeerPrepared', async (t) => {
  const { context, peers, local } = await setup();
  const ARBITRARY_BLOCKTIME = 1500;

  const earlierPrepCert = await createValidPreparedCertificate(
    context,
    { height: 1, round: 1 },
    await context.createBlockForProposal({ timestampSeconds: ARBITRARY_BLOCKTIME / 2, coinbase: peers.getProposer().address, round: 1 }),
  );
  const bestPrepCert = await createValidPreparedCertificate(
    context,
    { height: 1, round: 2 },
    await context.createBlockForProposal({ timestampSeconds: ARBITRARY_BLOCKTIME, coinbase: peers.getProposer().address, round: 2 }),
  );

  const targetRound = { height: 1, round: 4 };

  const rc1 = await peers.nonProposing(0).injectRoundChange(targetRound);
  // Round changes prepared in an earlier round (not to be used).
  const rc2 = await peers.nonProposing(1).injectRoundChange(targetRound, earlierPrepCert);
  const rc3 = await peers.nonProposing(2).injectRoundChange(targetRound, earlierPrepCert);
  // The round change with the best prepared certificate.
  const rc4 = await peers.getProposer().injectRoundChange(targetRound, bestPrepCert);

  // The later block (ARBITRARY_BLOCKTIME), with the target round written in.
  const expectedBlockToPropose = await context.createBlockForProposal({ timestampSeconds: ARBITRARY_BLOCKTIME, coinbase: peers.getProposer().address, round: 4 });

  const expectedProposal = local.createProposal(targetRound, expectedBlockToPropose, [rc1.signed, rc2.signed, rc3.signed, rc4.signed], bestPrepCert.prepares);
  const expectedPrepare = local.createPrepare(targetRound, expectedBlockToPropose.digest);

  peers.verifyMessagesReceived(expectedProposal, expectedPrepare);
  t.pass();
});

test('RoundChangeTest.cannotRoundChangeToAnEarlierRound', async (t) => {
  const { context, peers, local } = await setup();
  // The node starts at 1:0; it moves to 1:9, then round changes try to move it back to 1:4.
  const futureRound = { height: 1, round: 9 };
  const roundChangeMessages = await peers.roundChange(futureRound);

  const priorRound = { height: 1, round: 4 };
  await peers.roundChange(priorRound);

  const locallyProposedBlock = await context.createBlockForProposal({ timestampSeconds: BLOCK_TIME_STAMP, round: 9 });
  const expectedProposal = local.createProposal(futureRound, locallyProposedBlock, roundChangeMessages, []);
  const expectedPrepare = local.createPrepare(futureRound, locallyProposedBlock.digest);

  peers.verifyMessagesReceived(expectedProposal, expectedPrepare);
  t.pass();
});

test('RoundChangeTest.multipleRoundChangeMessagesFromSamePeerDoesNotTriggerRoundChange', async (t) => {
  const { peers } = await setup();
  const targetRound = { height: 1, round: 4 };
  const transmitter = peers.nonProposing(0);

  for (let i = 0; i < quorum(NETWORK_SIZE); i++) {
    await transmitter.injectRoundChange(targetRound);
  }

  peers.verifyNoMessagesReceived();
  t.pass();
});

test('RoundChangeTest.subsequentRoundChangeMessagesFromPeerDoNotOverwritePriorMessage', async (t) => {
  const { context, peers, local } = await setup();
  const ARBITRARY_BLOCKTIME = 1500;
  const targetRound = { height: 1, round: 4 };

  const prepCert = await createValidPreparedCertificate(
    context,
    { height: 1, round: 2 },
    await context.createBlockForProposal({ timestampSeconds: ARBITRARY_BLOCKTIME, coinbase: peers.getProposer().address, round: 2 }),
  );

  const roundChangeMessages: Signed<RoundChangePayload>[] = [];
  // A round change with a prepared certificate.
  roundChangeMessages.push((await peers.getProposer().injectRoundChange(targetRound, prepCert)).signed);

  // The same peer tries to replace it with one without a certificate.
  await peers.getProposer().injectRoundChange(targetRound);

  roundChangeMessages.push(...(await peers.roundChangeForNonProposing(targetRound)));

  const expectedBlockToPropose = await context.createBlockForProposal({ timestampSeconds: ARBITRARY_BLOCKTIME, coinbase: peers.getProposer().address, round: 4 });

  const expectedProposal = local.createProposal(targetRound, expectedBlockToPropose, roundChangeMessages, prepCert.prepares);
  const expectedPrepare = local.createPrepare(targetRound, expectedBlockToPropose.digest);

  peers.verifyMessagesReceived(expectedProposal, expectedPrepare);
  t.pass();
});

test('RoundChangeTest.messagesFromPreviousRoundAreDiscardedOnTransitionToFutureRound', async (t) => {
  const { context, peers, blockToPropose } = await setup();
  await peers.getProposer().injectProposal(roundId, blockToPropose);

  // Time out into the next round.
  await context.roundExpiry(roundId);

  // Drop the earlier prepare and round change.
  peers.clearReceivedMessages();

  // Enough prepares of the earlier round to have triggered a commit.
  await peers.prepareForNonProposing(roundId, blockToPropose.digest);

  peers.verifyNoMessagesReceived();
  t.pass();
});

test('RoundChangeTest.roundChangeExpiryForNonCurrentRoundIsDiscarded', async (t) => {
  const { context, peers } = await setup();
  // Time out a future round by hand: nothing is sent.
  await context.roundExpiry({ height: 1, round: 1 });
  peers.verifyNoMessagesReceived();
  t.pass();
});

test('RoundChangeTest.illegallyConstructedRoundChangeMessageIsDiscarded', async (t) => {
  const { context, peers, blockToPropose } = await setup();
  const targetRound = { height: 1, round: 4 };

  await peers.nonProposing(0).injectRoundChange(targetRound);
  await peers.nonProposing(1).injectRoundChange(targetRound);
  await peers.nonProposing(2).injectRoundChange(targetRound);

  // Besu builds (and drops) a proposal here; it has no effect on the test.
  peers.nonProposing(0).createProposal(roundId, blockToPropose, [], []);
  // A prepared certificate without prepares: illegal.
  const illegalPreparedRoundArtifacts: PreparedCertificate = { block: blockToPropose, prepares: [], round: 1 };

  await peers.getProposer().injectRoundChange(targetRound, illegalPreparedRoundArtifacts);

  // No proposal is sent.
  peers.verifyNoMessagesReceived();
  t.pass();
});

test('RoundChangeTest.roundChangeUpdatedBlockProposerIsValidAndPrepareIsTransmitted', async (t) => {
  const ARBITRARY_BLOCKTIME = 1500;

  // Besu plugs in a QbftBlockInterface whose replaceRoundAndProposerForProposalBlock also writes
  // the given proposer as coinbase; its TestContextBuilder uses it both to re-propose and to
  // validate proposals. The harness's `reproposal` option is that interface.
  let proposerUpdatingContext!: NodeUnderTest;
  proposerUpdatingContext = await NodeUnderTest.create({
    validators: NETWORK_SIZE,
    localIndex: 0,
    clockMs: BLOCK_TIME_STAMP * 1000,
    headerClockMs: SYSTEM_CLOCK_MS,
    reproposal: (block, round, proposer) => proposerUpdatingContext.replaceRoundAndProposer(block, round, proposer),
  });

  const proposerUpdatingPeers = await proposerUpdatingContext.roundSpecificPeers({ height: 1, round: 0 });
  const proposerUpdatingMessageFactory = proposerUpdatingContext.local;

  const round2 = { height: 1, round: 2 };
  const preparedCert = await createValidPreparedCertificate(
    proposerUpdatingContext,
    round2,
    await proposerUpdatingContext.createBlockForProposal({
      timestampSeconds: ARBITRARY_BLOCKTIME,
      coinbase: (await proposerUpdatingContext.roundSpecificPeers(round2)).getProposer().address,
      round: 2,
    }),
  );

  const targetRound = { height: 1, round: 4 };

  const rc1 = await proposerUpdatingPeers.nonProposing(0).injectRoundChange(targetRound);
  const rc2 = await proposerUpdatingPeers.nonProposing(1).injectRoundChange(targetRound);
  const rc3 = await proposerUpdatingPeers.nonProposing(2).injectRoundChange(targetRound);
  const rc4 = await proposerUpdatingPeers.getProposer().injectRoundChange(targetRound, preparedCert);

  const expectedBlockToPropose = await proposerUpdatingContext.createBlockForProposal({ timestampSeconds: ARBITRARY_BLOCKTIME, coinbase: proposerUpdatingContext.address, round: 4 });

  const expectedProposal = proposerUpdatingMessageFactory.createProposal(targetRound, expectedBlockToPropose, [rc1.signed, rc2.signed, rc3.signed, rc4.signed], preparedCert.prepares);
  const expectedPrepare = proposerUpdatingMessageFactory.createPrepare(targetRound, expectedBlockToPropose.digest);

  proposerUpdatingPeers.verifyMessagesReceived(expectedProposal, expectedPrepare);
  t.pass();
});
