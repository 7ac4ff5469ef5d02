/**
 * Port of Besu's QBFT integration test GossipTest
 * (consensus/qbft-core/src/integration-test/.../qbft/core/test/GossipTest.java):
 * five validators with gossip on, a remote validator proposes block 1; the consensus clock is
 * fixed at 100 s.
 */
import test from 'ava';
import { MessageFactory, NodeUnderTest } from '../../index.ts';
import { hexToBytes } from '../../node/crypto/bytes.ts';

const BLOCK_TIME_STAMP = 100;
const NETWORK_SIZE = 5;
const roundId = { height: 1, round: 0 };

async function setup() {
  const context = await NodeUnderTest.create({ validators: NETWORK_SIZE, localIndex: 0, clockMs: BLOCK_TIME_STAMP * 1000, gossip: true });
  const peers = await context.roundSpecificPeers(roundId);
  const block = await context.createBlockForProposal({ timestampSeconds: 30, coinbase: peers.getProposer().address });
  const sender = peers.getProposer();
  const msgFactory: MessageFactory = sender;
  return { context, peers, block, sender, msgFactory };
}

test('GossipTest.gossipMessagesToPeers', async (t) => {
  const { context, peers, block, sender, msgFactory } = await setup();
  const localPrepare = context.local.createPrepare(roundId, block.digest);
  peers.verifyNoMessagesReceivedNonProposing();

  const proposal = await sender.injectProposal(roundId, block);
  // The sender gets the local prepare the proposal caused.
  peers.verifyMessagesReceivedNonProposing(proposal, localPrepare);
  peers.verifyMessagesReceivedProposer(localPrepare);

  const prepare = await sender.injectPrepare(roundId, block.digest);
  peers.verifyMessagesReceivedNonProposing(prepare);
  peers.verifyNoMessagesReceivedProposer();

  const commit = await sender.injectCommit(roundId, block);
  peers.verifyMessagesReceivedNonProposing(commit);
  peers.verifyNoMessagesReceivedProposer();

  const roundChange = msgFactory.createRoundChange(roundId);

  const nextRoundProposal = await sender.injectProposalForFutureRound(roundId, [roundChange.signed], roundChange.prepares, block);
  peers.verifyMessagesReceivedNonProposing(nextRoundProposal);
  peers.verifyNoMessagesReceivedProposer();

  await sender.injectRoundChange(roundId);
  peers.verifyMessagesReceivedNonProposing(roundChange);
  peers.verifyNoMessagesReceivedProposer();
  t.pass();
});

test('GossipTest.onlyGossipOnce', async (t) => {
  const { peers, block, sender } = await setup();
  const prepare = await sender.injectPrepare(roundId, block.digest);
  peers.verifyMessagesReceivedNonProposing(prepare);

  await sender.injectPrepare(roundId, block.digest);
  peers.verifyNoMessagesReceivedNonProposing();

  await sender.injectPrepare(roundId, block.digest);
  peers.verifyNoMessagesReceivedNonProposing();
  t.pass();
});

test('GossipTest.messageWithUnknownValidatorIsNotGossiped', async (t) => {
  const { context, peers, block, sender } = await setup();
  const unknownMsgFactory: MessageFactory = context.outsider('unknown-validator');
  const unknownProposal = unknownMsgFactory.createProposal(roundId, block, [], []);

  await sender.inject(unknownProposal);
  peers.verifyNoMessagesReceived();
  t.pass();
});

test('GossipTest.messageIsNotGossipedToSenderOrCreator', async (t) => {
  const { peers, block, sender } = await setup();
  const msgCreator = peers.firstNonProposer();
  const peerMsgFactory: MessageFactory = msgCreator;
  const proposalFromPeer = peerMsgFactory.createProposal(roundId, block, [], []);

  await sender.inject(proposalFromPeer);

  peers.verifyMessagesReceivedNonProposingExcluding(msgCreator, proposalFromPeer);
  peers.verifyNoMessagesReceivedProposer();
  t.pass();
});

test('GossipTest.futureMessageIsNotGossipedImmediately', async (t) => {
  const { peers, block, sender, msgFactory } = await setup();
  const futureRoundId = { height: 2, round: 0 };
  msgFactory.createProposal(futureRoundId, block, [], []);

  await sender.injectProposal(futureRoundId, block);
  peers.verifyNoMessagesReceived();
  t.pass();
});

test('GossipTest.previousHeightMessageIsNotGossiped', async (t) => {
  const { peers, block, sender } = await setup();
  const futureRoundId = { height: 0, round: 0 };
  await sender.injectProposal(futureRoundId, block);
  peers.verifyNoMessagesReceived();
  t.pass();
});

test('GossipTest.futureMessageGetGossipedLater', async (t) => {
  const { context, peers, block, sender } = await setup();
  const signedCurrentHeightBlock = context.createSealedBlock(block, 0, peers.sign(hexToBytes(block.digest)));

  const futureRoundId = { height: 2, round: 0 };
  const futurePrepare = await sender.injectPrepare(futureRoundId, block.digest);
  peers.verifyNoMessagesReceivedNonProposing();

  // Add the block to the chain so the node moves to the next height.
  await context.appendBlock(signedCurrentHeightBlock);
  await context.newChainHead(signedCurrentHeightBlock);

  peers.verifyMessagesReceivedNonProposing(futurePrepare);
  t.pass();
});
