/**
 * Port of Besu's QBFT integration test QbftRoundIntegrationTest
 * (consensus/qbft-core/src/integration-test/.../qbft/core/test/round/QbftRoundIntegrationTest.java).
 *
 * Besu drives one QbftRound directly, with mocks: a message validator that accepts everything, a
 * RoundState built with a chosen quorum size (1, then 2), a NodeKey whose sign throws "Hsm Is
 * Down", a multicaster whose silence is checked, and a block importer that accepts anything. The
 * public harness runs a whole real node instead, so each mock becomes the real thing:
 * - the failing NodeKey is the node's `signer` option, throwing the same error on every call;
 * - the quorum size comes from the validator set (quorum = ceil(2n/3)), with the node under test
 *   (validator 0, whose genesis coinbase makes validator 1 the proposer of block 1 round 0) not
 *   the proposer, so that the proposal comes from a peer as in Besu;
 * - the accept-all validator becomes real, valid messages (real block digests, real commit seals);
 * - RoundState's getProposedBlock/isPrepared/isCommitted become the node's trace events: the
 *   proposal starts round 0 (no block timer fired, so only a valid proposal can start it) and is
 *   not rejected; 'prepared' and 'committed' are traced when the round gets there;
 * - verifyNoInteractions(multicaster) is every peer receiving nothing; the mocked importer's
 *   importBlock call is the chain growing to block 1.
 */
import test from 'ava';
import { NodeUnderTest } from '../../index.ts';

const BLOCK_TIME_STAMP = 100;
const roundIdentifier = { height: 1, round: 0 };

/** Besu's mocked NodeKey: every signature fails; `calls` shows the node did try to sign. */
function hsmIsDown() {
  const state = { calls: 0 };
  const signer = (): Uint8Array => {
    state.calls++;
    throw new Error('Hsm Is Down');
  };
  return { state, signer };
}

/** What the node's trace says about round `round` of height 1 (Besu's RoundState getters). */
function roundState(context: NodeUnderTest, round = 0) {
  const at = (e: { height?: number; round?: number }) => e.height === 1 && e.round === round;
  return {
    started: context.events.some((e) => e.kind === 'round-started' && at(e)),
    proposalRejected: context.events.some((e) => e.kind === 'message-rejected' && e.type === 'proposal' && at(e)),
    prepared: context.events.some((e) => e.kind === 'prepared' && at(e)),
    committed: context.events.some((e) => e.kind === 'committed' && at(e)),
  };
}

test('QbftRoundIntegrationTest.signingFailsOnReceiptOfProposalUpdatesRoundButTransmitsNothing', async (t) => {
  // Besu's QUORUM_SIZE is 1. Only a single validator gives quorum 1, and a single validator
  // proposes every round itself, so no peer could send the proposal (and the node, unable to sign,
  // could not propose). Two validators is the smallest set with a remote proposer (quorum 2); the
  // message sequence and the assertions are Besu's.
  const hsm = hsmIsDown();
  const context = await NodeUnderTest.create({ validators: 2, localIndex: 0, clockMs: BLOCK_TIME_STAMP * 1000, signer: hsm.signer });
  const peers = await context.roundSpecificPeers(roundIdentifier);
  const proposedBlock = await context.createBlockForProposal({ timestampSeconds: BLOCK_TIME_STAMP, coinbase: peers.getProposer().address });

  await peers.getProposer().injectProposal(roundIdentifier, proposedBlock);

  // The proposal was taken (the round started on it and it was not rejected) ...
  t.like(roundState(context), { started: true, proposalRejected: false, prepared: false, committed: false });
  // ... and the node did try to sign (its prepare and commit seal), in vain.
  t.true(hsm.state.calls > 0);
  // Nothing was transmitted.
  peers.verifyNoMessagesReceived();
});

test('QbftRoundIntegrationTest.failuresToSignStillAllowBlockToBeImported', async (t) => {
  // Besu's QUORUM_SIZE is 2: three validators (the node under test and two peers). Besu's
  // peerMessageFactory is the round-0 proposer (it sends the proposal, a prepare and a commit),
  // peerMessageFactory2 the other peer (a commit). Besu's prepares and commits name Hash.EMPTY with
  // a dummy seal (its validator is mocked); here they name the proposed block with real seals.
  const hsm = hsmIsDown();
  const context = await NodeUnderTest.create({ validators: 3, localIndex: 0, clockMs: BLOCK_TIME_STAMP * 1000, signer: hsm.signer });
  const peers = await context.roundSpecificPeers(roundIdentifier);
  const peer = peers.getProposer();
  const peer2 = peers.nonProposing(0);
  const proposedBlock = await context.createBlockForProposal({ timestampSeconds: BLOCK_TIME_STAMP, coinbase: peer.address });

  // Inject a block first, then a prepare on it.
  await peer.injectProposal(roundIdentifier, proposedBlock);

  t.like(roundState(context), { started: true, proposalRejected: false, prepared: false, committed: false });

  await peer.injectPrepare(roundIdentifier, proposedBlock.digest);

  t.like(roundState(context), { proposalRejected: false, prepared: false, committed: false });
  peers.verifyNoMessagesReceived();

  await peer.injectCommit(roundIdentifier, proposedBlock);
  t.false(roundState(context).committed);
  peers.verifyNoMessagesReceived();

  await peer2.injectCommit(roundIdentifier, proposedBlock);
  t.true(roundState(context).committed);
  peers.verifyNoMessagesReceived();

  // Besu's verify(blockImporter).importBlock: the block sealed with the two remote seals is imported.
  t.is(context.chainHeight(), 1);
  t.true(hsm.state.calls > 0);
});
