import test from 'ava';
import type { Block } from '@ethereumjs/block';
import type { TxReceipt } from '@ethereumjs/vm';
import { bytesToHex, type Hex } from '../crypto/bytes.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { SimStore } from '../../sim/storage.ts';
import { TrieNodeStore } from './state-db.ts';
import {
  RECEIPTS_PREFIX,
  STATE_HEAD_KEY,
  STATE_NODE_PREFIX,
  STATE_ROOT_PREFIX,
  StatePersistence,
  decodeReceipts,
  encodeReceipts,
  type StateHead,
} from './state-persistence.ts';
import { FUNDED, FUNDED_KEY, QBFT_MIX_HASH, makeChain, recipient, transfer, type TestChain } from './test-fixtures.ts';

/** `count` blocks on `from`, each a transfer to a new account (so every block has its own state root). */
async function buildBlocks(c: TestChain, count: number, from: Block = c.genesisBlock): Promise<Block[]> {
  const blocks: Block[] = [];
  let parent: Block = from;
  for (let i = Number(from.header.number); i < Number(from.header.number) + count; i++) {
    const { block } = await c.engine.buildBlock({
      parent,
      parentHash: keccak256(parent.header.serialize()),
      number: parent.header.number + 1n,
      timestamp: Number(parent.header.timestamp) + 1,
      coinbase: recipient(9999),
      extraData: new Uint8Array(0),
      mixHash: QBFT_MIX_HASH,
      transactions: [transfer(c.common, FUNDED_KEY, BigInt(i), recipient(i), 1n)],
    });
    blocks.push(block);
    parent = block;
  }
  return blocks;
}

function headOf(block: Block): StateHead {
  return { number: Number(block.header.number), hash: bytesToHex(keccak256(block.header.serialize())), stateRoot: bytesToHex(block.header.stateRoot) };
}

function persistenceFor(c: TestChain, store: SimStore, opts: { keepRoots?: number; sweepFloor?: number } = {}) {
  const warnings: string[] = [];
  const pins = new Map<Hex, number>();
  const p = new StatePersistence({
    store,
    db: c.engine.store,
    pin: (r) => {
      c.engine.pin(r);
      pins.set(bytesToHex(r), (pins.get(bytesToHex(r)) ?? 0) + 1);
    },
    unpin: (r) => {
      c.engine.unpin(r);
      const n = (pins.get(bytesToHex(r)) ?? 0) - 1;
      if (n <= 0) pins.delete(bytesToHex(r));
      else pins.set(bytesToHex(r), n);
    },
    onWarning: (m) => warnings.push(m),
    ...opts,
  });
  return { p, warnings, pins };
}

const always = () => true;

test('persist and restore: the state at the marker comes back whole in a new process', async (t) => {
  const a = await makeChain();
  const store = new SimStore();
  const { p } = persistenceFor(a, store);
  const blocks = await buildBlocks(a, 5);
  await p.persist(headOf(a.genesisBlock), []);
  for (const b of blocks) await p.persist(headOf(b), []);
  const last = headOf(blocks[4]);
  t.deepEqual(JSON.parse(new TextDecoder().decode(store.getSync(STATE_HEAD_KEY))), last);
  t.is(store.keysSync(STATE_ROOT_PREFIX).length, 6);

  const b = await makeChain({}, { store: new TrieNodeStore() });
  const { p: restored, pins } = persistenceFor(b, store);
  const { from, loaded } = await restored.restore(always);
  t.deepEqual(from, last);
  t.is(loaded, store.keysSync(STATE_NODE_PREFIX).length);
  t.is(pins.size, 6, 'every kept root is pinned');
  const root = blocks[4].header.stateRoot;
  t.deepEqual(await b.engine.getAccount(root, FUNDED), await a.engine.getAccount(root, FUNDED));
  t.deepEqual(await b.engine.getAccount(root, recipient(4)), await a.engine.getAccount(root, recipient(4)));
  // an older kept state is readable too
  t.deepEqual(await b.engine.getAccount(blocks[1].header.stateRoot, FUNDED), await a.engine.getAccount(blocks[1].header.stateRoot, FUNDED));
});

test('restore: without a marker nothing is read; a marker the chain does not accept falls back to older kept roots', async (t) => {
  const a = await makeChain();
  const store = new SimStore();
  t.deepEqual(await persistenceFor(a, store).p.restore(always), { loaded: 0 });
  const { p } = persistenceFor(a, store);
  const blocks = await buildBlocks(a, 4);
  for (const b of blocks) await p.persist(headOf(b), []);
  const b = await makeChain({}, { store: new TrieNodeStore() });
  const refused = new Set([headOf(blocks[3]).hash, headOf(blocks[2]).hash]);
  const { from } = await persistenceFor(b, store).p.restore((h) => !refused.has(h.hash));
  t.deepEqual(from, headOf(blocks[1]));
  const c = await makeChain({}, { store: new TrieNodeStore() });
  t.is((await persistenceFor(c, store).p.restore(() => false)).from, undefined);
  store.writeSync([{ key: STATE_HEAD_KEY, value: new TextEncoder().encode('{"number":-1}') }]);
  const d = await makeChain({}, { store: new TrieNodeStore() });
  t.deepEqual(await persistenceFor(d, store).p.restore(always), { loaded: 0 }, 'an unreadable marker counts as none');
});

test('kept roots are bounded; sweeps keep the disk copy near the live state and every kept root whole', async (t) => {
  const a = await makeChain();
  const store = new SimStore();
  const { p, pins } = persistenceFor(a, store, { keepRoots: 3, sweepFloor: 20 });
  const blocks = await buildBlocks(a, 40);
  let maxKeys = 0;
  for (let i = 0; i < blocks.length; i++) {
    await p.persist(headOf(blocks[i]), []);
    const onDisk = store.keysSync(STATE_NODE_PREFIX);
    maxKeys = Math.max(maxKeys, onDisk.length);
    const copy = new TrieNodeStore();
    copy.load(onDisk.map((k) => [k.slice(STATE_NODE_PREFIX.length), store.getSync(k)!] as const));
    for (const kept of blocks.slice(Math.max(0, i - 2), i + 1)) t.is(copy.reachable([kept.header.stateRoot]).missing, 0, `after block ${i + 1}`);
  }
  t.true(p.stats.sweeps > 0);
  t.is(store.keysSync(STATE_ROOT_PREFIX).length, 3);
  t.is(pins.size, 3, 'roots that fall out are unpinned');
  const live = a.engine.store.reachable(blocks.slice(-3).map((b) => b.header.stateRoot)).keys.size;
  t.true(maxKeys <= 2 * live + 40, `${maxKeys} keys on disk for ${live} live`);

  const b = await makeChain({}, { store: new TrieNodeStore() });
  const { p: restored } = persistenceFor(b, store, { keepRoots: 3 });
  t.deepEqual((await restored.restore(always)).from, headOf(blocks[39]));
  for (const blk of blocks.slice(-3)) t.is(b.engine.store.reachable([blk.header.stateRoot]).missing, 0);
  // the restored copy carries on: the next block's difference is based on the restored root
  const [next] = await buildBlocks(a, 1, blocks[39]);
  await b.engine.executeBlock(next, blocks[39].header.stateRoot);
  const flush = await restored.persist(headOf(next), []);
  t.truthy(flush);
  t.true(flush!.nodes < 20, `${flush!.nodes} nodes for one transfer`);
});

test('a block whose state did not change writes the marker only', async (t) => {
  const a = await makeChain();
  const store = new SimStore();
  const { p } = persistenceFor(a, store);
  const [block] = await buildBlocks(a, 1);
  await p.persist(headOf(block), []);
  const batches: number[] = [];
  const write = store.write.bind(store);
  store.write = async (batch) => {
    batches.push(batch.length);
    return write(batch);
  };
  const sameState: StateHead = { ...headOf(block), number: 2, hash: `0x${'22'.repeat(32)}` };
  t.deepEqual(await p.persist(sameState, []), { nodes: 0, swept: 0, receiptBlocks: 0 });
  t.deepEqual(batches, [1]);
  await p.persist(sameState, []);
  t.deepEqual(batches, [1], 'the same head again: nothing');
});

test('flushes land in call order; a failed write stops persistence with a warning', async (t) => {
  const a = await makeChain();
  const store = new SimStore();
  const { p, warnings } = persistenceFor(a, store);
  const blocks = await buildBlocks(a, 3);
  await Promise.all(blocks.map((b) => p.persist(headOf(b), [])));
  t.is(JSON.parse(new TextDecoder().decode(store.getSync(STATE_HEAD_KEY))).number, 3);
  store.write = async () => {
    throw new Error('disk full');
  };
  const more = await buildBlocks(a, 4);
  t.is(await p.persist(headOf(more[3]), []), undefined);
  t.true(p.stopped);
  t.is(warnings.length, 1);
  t.is(await p.persist(headOf(more[3]), []), undefined);
  t.is(warnings.length, 1);
  t.is(JSON.parse(new TextDecoder().decode(store.getSync(STATE_HEAD_KEY))).number, 3);
});

test('receipts: stored with the flush, read back as executed', async (t) => {
  const a = await makeChain();
  const store = new SimStore();
  const { p } = persistenceFor(a, store);
  const receipts: TxReceipt[] = [
    { status: 1, cumulativeBlockGasUsed: 21_000n, bitvector: new Uint8Array(256).fill(3), logs: [[new Uint8Array(20).fill(1), [new Uint8Array(32).fill(2)], Uint8Array.from([4, 5])]] },
    { status: 0, cumulativeBlockGasUsed: 63_000n, bitvector: new Uint8Array(256), logs: [] },
    { stateRoot: new Uint8Array(32).fill(9), cumulativeBlockGasUsed: 84_000n, bitvector: new Uint8Array(256), logs: [] },
    { status: 1, cumulativeBlockGasUsed: 105_000n, bitvector: new Uint8Array(256), logs: [], blobGasUsed: 131_072n, blobGasPrice: 1n },
  ];
  t.deepEqual(decodeReceipts(encodeReceipts(receipts)), receipts);
  const [block] = await buildBlocks(a, 1);
  const hash = headOf(block).hash;
  await p.persist(headOf(block), [{ hash, receipts: async () => receipts }]);
  t.truthy(store.getSync(RECEIPTS_PREFIX + hash));
  t.deepEqual(await p.receiptsOf(hash), receipts);
  t.is(await p.receiptsOf(`0x${'00'.repeat(32)}`), undefined);
});

test('a head whose state is not in memory stops persistence rather than moving the marker', async (t) => {
  const a = await makeChain();
  const store = new SimStore();
  const { p, warnings } = persistenceFor(a, store);
  await p.persist(headOf(a.genesisBlock), []);
  const unknown: StateHead = { number: 1, hash: `0x${'11'.repeat(32)}`, stateRoot: `0x${'ab'.repeat(32)}` };
  t.is(await p.persist(unknown, []), undefined);
  t.true(p.stopped);
  t.is(warnings.length, 1);
  t.is(JSON.parse(new TextDecoder().decode(store.getSync(STATE_HEAD_KEY))).number, 0);
});
