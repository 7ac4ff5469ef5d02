import test from 'ava';
import type { Block } from '@ethereumjs/block';
import { keccak256 } from '../crypto/keccak.ts';
import { RootRetention, TrieNodeStore } from './state-db.ts';
import { FUNDED, FUNDED_KEY, QBFT_MIX_HASH, contractCall, createAddress, makeChain, recipient, transfer } from './test-fixtures.ts';

test('RootRetention: most recent first out, pins survive', (t) => {
  const r = new RootRetention(3);
  const root = (i: number) => new Uint8Array(32).fill(i);
  for (let i = 1; i <= 5; i++) r.touch(root(i));
  t.false(r.has(root(1)));
  t.true(r.has(root(3)));
  r.touch(root(3)); // refresh
  r.touch(root(6));
  t.false(r.has(root(4)));
  t.true(r.has(root(3)));
  r.pin(root(1));
  r.pin(root(1));
  r.unpin(root(1));
  t.true(r.has(root(1)));
  r.unpin(root(1));
  t.false(r.has(root(1)));
  t.is([...r.roots()].length, 3);
});

test('sweeping keeps contract code and storage tries of retained roots intact', async (t) => {
  const store = new TrieNodeStore({ pruneFloor: 300 });
  const a = await makeChain({}, { store, retainRoots: 6 });
  const b = await makeChain({}, { retainRoots: 1000 }); // unpruned reference
  // contract: slot0 += 1; SSTORE(NUMBER, TIMESTAMP)
  const runtime = Uint8Array.from([0x60, 0x00, 0x54, 0x60, 0x01, 0x01, 0x60, 0x00, 0x55, 0x42, 0x43, 0x55, 0x00]);
  const init = Uint8Array.from([0x60, runtime.length, 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, runtime.length, 0x60, 0x00, 0xf3, ...runtime]);
  const counter = createAddress(FUNDED, 0n);
  let parent: Block = a.genesisBlock;
  let nonce = 0n;
  const blocks: Block[] = [];
  for (let i = 0; i < 40; i++) {
    const txs = i === 0 ? [contractCall(a.common, FUNDED_KEY, nonce++, undefined, init)] : [];
    txs.push(contractCall(a.common, FUNDED_KEY, nonce++, counter, new Uint8Array(0)));
    txs.push(transfer(a.common, FUNDED_KEY, nonce++, recipient(i), 1n));
    const { block, skipped } = await a.engine.buildBlock({
      parent,
      parentHash: keccak256(parent.header.serialize()),
      number: parent.header.number + 1n,
      timestamp: Number(parent.header.timestamp) + 2,
      coinbase: recipient(1000),
      extraData: new Uint8Array(0),
      mixHash: QBFT_MIX_HASH,
      transactions: txs,
    });
    t.is(skipped.length, 0, skipped[0]?.message);
    const imp = await b.engine.executeBlock(block, parent.header.stateRoot);
    t.deepEqual(imp.stateRoot, block.header.stateRoot);
    blocks.push(block);
    parent = block;
  }
  t.true(store.stats.prunes > 0);
  a.engine.prune();
  for (const blk of blocks.slice(-6)) {
    const root = blk.header.stateRoot;
    t.deepEqual(await a.engine.getCode(root, counter), await b.engine.getCode(root, counter));
    t.deepEqual(await a.engine.getStorage(root, counter, 0n), await b.engine.getStorage(root, counter, 0n));
    t.deepEqual(await a.engine.getStorage(root, counter, 5n), await b.engine.getStorage(root, counter, 5n));
    t.deepEqual(await a.engine.getAccount(root, counter), await b.engine.getAccount(root, counter));
  }
  t.is(BigInt('0x' + Buffer.from(await a.engine.getStorage(parent.header.stateRoot, counter, 0n)).toString('hex')), 40n);
  t.false(a.engine.hasState(blocks[10].header.stateRoot));
  t.true(store.size < b.engine.store.size, `${store.size} < ${b.engine.store.size}`);
});
