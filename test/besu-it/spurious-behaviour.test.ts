/**
 * Port of Besu's QBFT integration test SpuriousBehaviourTest
 * (consensus/qbft-core/src/integration-test/.../qbft/core/test/SpuriousBehaviourTest.java):
 * five validators, a remote peer proposes block 1 (the node under test is validator 0); the
 * consensus clock is fixed at 100 s. Malformed, unknown-code, non-validator, mismatched-digest
 * and bad-seal messages must not disturb the round.
 */
import test from 'ava';
import { NodeUnderTest } from '../../index.ts';
import { MessageCode } from '../../node/consensus/qbft/messages.ts';
import type { Hex } from '../../node/crypto/bytes.ts';

const blockTimeStamp = 100;
// Test is configured such that a remote peer is responsible for proposing a block
const NETWORK_SIZE = 5;
const MESSAGE_SPACE = 0x16; // Besu's QbftV1.MESSAGE_SPACE: one past the last QBFT message code
const HASH_ZERO = `0x${'00'.repeat(32)}` as Hex;
const roundId = { height: 1, round: 0 };

async function setup() {
  // Configuration ensures remote peer will provide proposal for first block
  const context = await NodeUnderTest.create({ validators: NETWORK_SIZE, localIndex: 0, clockMs: blockTimeStamp * 1000 });
  const peers = await context.roundSpecificPeers(roundId);
  const proposedBlock = await context.createBlockForProposal({ timestampSeconds: 30, coinbase: peers.getProposer().address });
  const expectedPrepare = context.local.createPrepare(roundId, proposedBlock.digest);
  const expectedCommit = context.local.createCommitFor(roundId, proposedBlock);
  return { context, peers, proposedBlock, expectedPrepare, expectedCommit };
}

test('SpuriousBehaviourTest.badlyFormedRlpDoesNotPreventOngoingBftOperation', async (t) => {
  const { peers, proposedBlock, expectedPrepare } = await setup();
  await peers.nonProposing(0).injectMessage(MessageCode.PREPARE, new Uint8Array());

  await peers.getProposer().injectProposal(roundId, proposedBlock);
  peers.verifyMessagesReceived(expectedPrepare);
  t.pass();
});

test('SpuriousBehaviourTest.messageWithIllegalMessageCodeAreDiscardedAndDoNotPreventOngoingBftOperation', async (t) => {
  const { peers, proposedBlock, expectedPrepare } = await setup();
  await peers.nonProposing(0).injectMessage(MESSAGE_SPACE, new Uint8Array());

  await peers.getProposer().injectProposal(roundId, proposedBlock);
  peers.verifyMessagesReceived(expectedPrepare);
  t.pass();
});

test('SpuriousBehaviourTest.nonValidatorsCannotTriggerResponses', async (t) => {
  const { context, peers, proposedBlock } = await setup();
  const nonvalidator = context.outsider('spurious-behaviour-non-validator');

  await nonvalidator.injectProposal({ height: 1, round: 0 }, proposedBlock);

  peers.verifyNoMessagesReceived();
  t.pass();
});

test('SpuriousBehaviourTest.preparesWithMisMatchedDigestAreNotRespondedTo', async (t) => {
  const { context, peers, proposedBlock, expectedPrepare, expectedCommit } = await setup();
  await peers.getProposer().injectProposal(roundId, proposedBlock);
  peers.verifyMessagesReceived(expectedPrepare);

  await peers.prepareForNonProposing(roundId, HASH_ZERO);
  peers.verifyNoMessagesReceived();

  await peers.prepareForNonProposing(roundId, proposedBlock.digest);
  peers.verifyMessagesReceived(expectedCommit);

  await peers.prepareForNonProposing(roundId, HASH_ZERO);
  t.is(context.chainHeight(), 0);

  await peers.commitForNonProposing(roundId, proposedBlock);
  t.is(context.chainHeight(), 1);
});

test('SpuriousBehaviourTest.oneCommitSealIsIllegalPreventsImport', async (t) => {
  const { context, peers, proposedBlock, expectedPrepare } = await setup();
  await peers.getProposer().injectProposal(roundId, proposedBlock);
  peers.verifyMessagesReceived(expectedPrepare);

  await peers.prepareForNonProposing(roundId, proposedBlock.digest);

  // for a network of 5, 4 seals are required (local + 3 remote)
  await peers.nonProposing(0).injectCommit(roundId, proposedBlock);
  await peers.nonProposing(1).injectCommit(roundId, proposedBlock);

  // nonProposer-2 will generate an invalid seal
  const badSealPeer = peers.nonProposing(2);
  const illegalSeal = badSealPeer.sign(new Uint8Array(32));

  await badSealPeer.injectCommit(roundId, proposedBlock.digest, illegalSeal);
  t.is(context.chainHeight(), 0);

  // Now inject the REAL commit message
  await badSealPeer.injectCommit(roundId, proposedBlock);
  t.is(context.chainHeight(), 1);
});
