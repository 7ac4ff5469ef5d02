/**
 * Port of Besu's QBFT integration test TransitionsTest
 * (consensus/qbft-core/src/integration-test/.../qbft/core/test/TransitionsTest.java):
 * one validator (the node under test), block period transitions to 10 s at block 1 and 20 s at
 * block 2; the consensus clock starts at the epoch. Besu steps its clock and then handles the
 * block timer event waiting in the node's event queue; here moving the virtual clock fires the
 * node's own block timer.
 */
import test from 'ava';
import { NodeUnderTest } from '../../index.ts';

test('TransitionsTest.transitionsBlockPeriod', async (t) => {
  const qbftForks = [
    { block: 1, blockperiodseconds: 10 },
    { block: 2, blockperiodseconds: 20 },
  ];
  const context = await NodeUnderTest.create({ validators: 1, localIndex: 0, clockMs: 0, transitions: qbftForks });

  await context.advanceBy(10_000);

  await context.newChainHead(context.chainHead());
  await context.advanceBy(20_000);

  const genesisBlock = context.blockAt(0);
  const blockHeader1 = context.blockAt(1);
  const blockHeader2 = context.blockAt(2);

  t.is(blockHeader1.timestamp, genesisBlock.timestamp + 10);
  t.is(blockHeader2.timestamp, blockHeader1.timestamp + 20);
});
