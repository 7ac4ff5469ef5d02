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

/** slot0 += 1; SSTORE(NUMBER, TIMESTAMP); SSTORE(NUMBER - 2, 0): storage tries that grow and shrink. */
function rollingStorageInitCode(): Uint8Array {
  const runtime = Uint8Array.from([0x60, 0x00, 0x54, 0x60, 0x01, 0x01, 0x60, 0x00, 0x55, 0x42, 0x43, 0x55, 0x60, 0x00, 0x60, 0x02, 0x43, 0x03, 0x55, 0x00]);
  return Uint8Array.from([0x60, runtime.length, 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, runtime.length, 0x60, 0x00, 0xf3, ...runtime]);
}

test('nodesNewSince: a copy kept by differences holds every state, and each difference is what changed', async (t) => {
  const a = await makeChain();
  const db = a.engine.store;
  const genesisRoot = a.genesisBlock.header.stateRoot;
  const full = db.nodesNewSince(genesisRoot);
  t.is(full.missing, 0);
  t.deepEqual([...full.nodes.keys()].sort(), [...db.reachable([genesisRoot]).keys].sort(), 'without a base: everything the root reaches');
  const copy = new Map(full.nodes);
  const contract = createAddress(FUNDED, 0n);
  let parent: Block = a.genesisBlock;
  let nonce = 0n;
  let emptyBlocks = 0;
  for (let i = 0; i < 30; i++) {
    const txs = [];
    if (i === 0) txs.push(contractCall(a.common, FUNDED_KEY, nonce++, undefined, rollingStorageInitCode()));
    else if (i % 5 !== 4) {
      txs.push(contractCall(a.common, FUNDED_KEY, nonce++, contract, new Uint8Array(0)));
      // new accounts split branches; repeated recipients only change leaves
      txs.push(transfer(a.common, FUNDED_KEY, nonce++, recipient(i % 7), 1n));
    }
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
    const before = parent.header.stateRoot;
    const after = block.header.stateRoot;
    const diff = db.nodesNewSince(after, before);
    t.is(diff.missing, 0);
    const needed = db.reachable([after]).keys;
    const had = db.reachable([before]).keys;
    const ideal = [...needed].filter((k) => !had.has(k));
    for (const k of diff.nodes.keys()) t.true(needed.has(k), `block ${i + 1}: ${k} is not part of the new state`);
    for (const k of ideal) t.true(diff.nodes.has(k), `block ${i + 1}: ${k} is new but not in the difference`);
    t.true(diff.nodes.size <= ideal.length + 2, `block ${i + 1}: ${diff.nodes.size} written for ${ideal.length} new keys`);
    if (txs.length === 0) {
      emptyBlocks++;
      t.is(diff.nodes.size, 0, 'an empty block changes nothing');
    }
    for (const [k, v] of diff.nodes) copy.set(k, v);
    for (const k of needed) t.true(copy.has(k), `block ${i + 1}: the copy lacks ${k}`);
    parent = block;
  }
  t.is(emptyBlocks, 6);

  // the copy alone (a restarted process) serves the last state
  const fresh = new TrieNodeStore();
  const b = await makeChain({}, { store: fresh });
  t.is(fresh.load(copy), copy.size);
  const root = parent.header.stateRoot;
  t.is(fresh.reachable([root]).missing, 0);
  t.deepEqual(await b.engine.getAccount(root, FUNDED), await a.engine.getAccount(root, FUNDED));
  t.deepEqual(await b.engine.getCode(root, contract), await a.engine.getCode(root, contract));
  for (const slot of [0n, 26n, 27n, 28n, 10n])
    t.deepEqual(await b.engine.getStorage(root, contract, slot), await a.engine.getStorage(root, contract, slot), `slot ${slot}`);
  t.not(Buffer.from(await b.engine.getStorage(root, contract, 28n)).toString('hex'), '0'.repeat(64), 'slot 28 holds a timestamp');
  t.is(BigInt('0x' + Buffer.from(await b.engine.getStorage(root, contract, 0n)).toString('hex')), 22n, 'block 2 cleared slot 0 (NUMBER - 2), 22 calls after it');
});

test('reachable counts what a state references but the store lacks; load keeps values already held', async (t) => {
  const a = await makeChain();
  const root = a.genesisBlock.header.stateRoot;
  const all = a.engine.store.nodesNewSince(root).nodes;
  const partial = new TrieNodeStore();
  const [firstKey] = all.keys();
  partial.load([...all].filter(([k]) => k !== firstKey));
  t.true(partial.reachable([root]).missing > 0);
  const code = [...all.keys()].find((k) => k.length === 66);
  t.truthy(code, 'the genesis holds contract code');
  const noCode = new TrieNodeStore();
  noCode.load([...all].filter(([k]) => k !== code));
  t.is(noCode.reachable([root]).missing, 1);
  const held = new TrieNodeStore();
  held.load(all);
  held.load([[firstKey, new Uint8Array([1, 2, 3])]]);
  t.deepEqual(held.valueOf(firstKey), all.get(firstKey));
});
