import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NodeUnderTest } from 'qbft-lab';

// One real qbft-lab node and three scripted validators: the remote proposer of block 1 proposes,
// the node prepares, and once two more prepares and enough commits arrive, the block is imported.
test('a remote proposal is prepared, committed and imported, message by message', async () => {
  const node = await NodeUnderTest.create({ validators: 4, localIndex: 0, clockMs: 100_000 });
  const round = { height: 1, round: 0 };
  const peers = await node.roundSpecificPeers(round);
  const block = await node.createBlockForProposal({ timestampSeconds: 100, coinbase: peers.getProposer().address });

  await peers.getProposer().injectProposal(round, block);
  peers.verifyMessagesReceived(node.local.createPrepare(round, block.digest));

  await peers.prepareForNonProposing(round, block.digest);
  peers.verifyMessagesReceived(node.local.createCommitFor(round, block));

  await peers.commitForNonProposing(round, block);
  assert.equal(node.chainHeight(), 1);

  // New chain heads wait for the test, as in Besu's integration tests: the next height starts now,
  // and its block timer fires when the virtual clock reaches block 1's timestamp + the 3 s period.
  await node.newChainHead(1);
  await node.advanceTo(103_000);
  await node.roundExpiry({ height: 2, round: 0 });
  peers.verifyMessagesReceived(node.local.createRoundChange({ height: 2, round: 1 }));
  node.stop();
});
