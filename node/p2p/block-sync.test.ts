import test from 'ava';
import { RLP } from '@ethereumjs/rlp';
import type { PeerId, WireMessage } from '../runtime/ports.ts';
import { BlockSync, type BlockSyncOptions } from './block-sync.ts';
import { headerFromWire } from './eth-blocks.ts';
import { decodeEthMessage, EthCode, toWireMessage } from './eth-messages.ts';
import { forkIdOf } from './fork-id.ts';
import { common, extend, FakeTransport, genesis, hashOf, makeBlock, MemChain, quietLog, World } from './sync-test-kit.ts';

interface TestNode {
  id: PeerId;
  chain: MemChain;
  sync: BlockSync;
  transport: FakeTransport;
}

function makeNet() {
  const world = new World();
  const net = new Map<PeerId, FakeTransport>();
  const node = (id: PeerId, chain: MemChain, extra: Partial<BlockSyncOptions> = {}): TestNode => {
    const transport = new FakeTransport(id, world, net);
    const sync = new BlockSync({ transport, timers: world.timers, log: quietLog, chain, sink: chain, common, ...extra });
    transport.setHandlers({
      onMessage: (from, m) => sync.onMessage(from, m),
      onPeerConnected: (p) => sync.onPeerConnected(p),
      onPeerDisconnected: (p) => sync.onPeerDisconnected(p),
    });
    return { id, chain, sync, transport };
  };
  /** A peer driven by a hand-written handler instead of a BlockSync. */
  const rogue = (id: PeerId, onMessage: (t: FakeTransport, from: PeerId, m: WireMessage) => void, onConnected?: (t: FakeTransport, p: PeerId) => void) => {
    const transport = new FakeTransport(id, world, net);
    transport.setHandlers({
      onMessage: (from, m) => onMessage(transport, from, m),
      onPeerConnected: (p) => onConnected?.(transport, p),
      onPeerDisconnected: () => {},
    });
    return transport;
  };
  return { world, node, rogue };
}

const headHash = (c: MemChain) => c.head().hash;

test('a node 50 blocks behind catches up', async (t) => {
  const { world, node } = makeNet();
  const blocks = extend(genesis, 60, 'main');
  const a = node('a', MemChain.withBlocks(blocks));
  const b = node('b', MemChain.withBlocks(blocks.slice(0, 10)));
  FakeTransport.connect(a.transport, b.transport);
  await world.run(10_000);
  t.is(b.chain.head().number, 60);
  t.is(headHash(b.chain), headHash(a.chain));
  t.deepEqual(b.sync.status(), { syncing: false, highestKnown: 60, peers: 1 });
  t.is(b.sync.counters.imported, 50);
  t.is(b.sync.counters.peersRested, 0);
  // The batch starts rewindDepth back: the 10 blocks b holds are recognised, not rebuilt.
  t.is(b.sync.counters.knownHeadersSkipped, 10);
});

test('a fresh node syncs a long chain in several batches', async (t) => {
  const { world, node } = makeNet();
  const blocks = extend(genesis, 300, 'main');
  const a = node('a', MemChain.withBlocks(blocks));
  const b = node('b', new MemChain(), { maxHeadersPerRequest: 64 });
  FakeTransport.connect(a.transport, b.transport);
  await world.run(10_000);
  t.is(headHash(b.chain), headHash(a.chain));
  const headerRequests = b.transport.sent.filter((s) => s.code === EthCode.GetBlockHeaders).length;
  t.true(headerRequests >= 5 && headerRequests <= 6, `header requests: ${headerRequests}`);
  t.false(b.sync.status().syncing);
});

test('a node on a shorter fork switches to the longer chain', async (t) => {
  const { world, node } = makeNet();
  const prefix = extend(genesis, 20, 'main');
  const aChain = [...prefix, ...extend(prefix[19], 20, 'fork-a')];
  const bChain = [...prefix, ...extend(prefix[19], 10, 'fork-b')];
  const a = node('a', MemChain.withBlocks(aChain));
  const b = node('b', MemChain.withBlocks(bChain));
  FakeTransport.connect(a.transport, b.transport);
  await world.run(10_000);
  t.is(headHash(b.chain), headHash(a.chain));
  t.is(b.chain.canonicalHashAt(21), hashOf(aChain[20]));
  // A did not move to B's shorter fork.
  t.is(a.chain.head().number, 40);
  t.false(a.chain.hasBlock(hashOf(bChain[25])));
});

test('a fork deeper than the rewind window is found by stepping back', async (t) => {
  const { world, node } = makeNet();
  const prefix = extend(genesis, 10, 'main');
  const aChain = [...prefix, ...extend(prefix[9], 140, 'fork-a')];
  const bChain = [...prefix, ...extend(prefix[9], 90, 'fork-b')];
  const a = node('a', MemChain.withBlocks(aChain));
  const b = node('b', MemChain.withBlocks(bChain));
  FakeTransport.connect(a.transport, b.transport);
  await world.run(10_000);
  t.is(headHash(b.chain), headHash(a.chain));
  t.is(b.chain.head().number, 150);
});

test('a peer answering garbage does not stall sync with a good peer', async (t) => {
  const { world, node, rogue } = makeNet();
  const blocks = extend(genesis, 40, 'main');
  const a = node('b-good', MemChain.withBlocks(blocks));
  const b = node('c', MemChain.withBlocks(blocks.slice(0, 5)));
  // Claims a far longer chain (and sorts first), then answers every request with junk.
  const junk = rogue(
    'a-junk',
    (tr, from, m) => {
      if (m.code === EthCode.GetBlockHeaders || m.code === EthCode.GetBlockBodies)
        tr.send(from, { protocol: 'eth', code: m.code + 1, data: Uint8Array.of(0xc3, 0x01, 0xff, 0x02) });
    },
    (tr, p) => tr.send(p, statusFor(b.chain, 1_000_000n)),
  );
  FakeTransport.connect(junk, b.transport);
  FakeTransport.connect(a.transport, b.transport);
  await world.run(2_000);
  t.is(headHash(b.chain), headHash(a.chain));
  t.true(b.sync.counters.malformed >= 1);
  t.true(b.sync.counters.peersRested >= 1);
  t.deepEqual(b.sync.status(), { syncing: false, highestKnown: 40, peers: 2 });
});

test('a silent peer is retried, rested after three timeouts in a row, and sync moves on', async (t) => {
  const { world, node, rogue } = makeNet();
  const blocks = extend(genesis, 40, 'main');
  const a = node('b-good', MemChain.withBlocks(blocks));
  const b = node('c', MemChain.withBlocks(blocks.slice(0, 5)), { requestTimeoutMs: 1000 });
  const silent = rogue('a-silent', () => {}, (tr, p) => tr.send(p, statusFor(b.chain, 1_000_000n)));
  FakeTransport.connect(silent, b.transport);
  FakeTransport.connect(a.transport, b.transport);
  await world.run(5_000);
  t.is(headHash(b.chain), headHash(a.chain));
  t.is(b.sync.counters.timeouts, 3);
  t.is(b.sync.counters.peersRested, 1);
});

test('a peer serving blocks that fail import is rested; the good chain wins', async (t) => {
  const { world, node } = makeNet();
  const prefix = extend(genesis, 5, 'main');
  const good = [...prefix, ...extend(prefix[4], 30, 'good')];
  const evil = [...prefix, ...extend(prefix[4], 60, 'evil')];
  const bChain = MemChain.withBlocks(prefix);
  bChain.reject = (blk) => (new TextDecoder().decode(blk.header.extraData).includes('evil') ? 'bad seals' : undefined);
  const e = node('a-evil', MemChain.withBlocks(evil));
  const g = node('b-good', MemChain.withBlocks(good));
  const b = node('c', bChain);
  FakeTransport.connect(e.transport, b.transport);
  FakeTransport.connect(g.transport, b.transport);
  await world.run(10_000);
  t.is(headHash(b.chain), headHash(g.chain));
  t.is(b.sync.counters.importFailures, 1);
  t.false(b.chain.hasBlock(hashOf(evil[5])));
});

test('headers that do not connect at all (another genesis) rest the peer', async (t) => {
  const { world, node } = makeNet();
  const otherGenesis = makeBlock(undefined, 'other genesis');
  const foreign = new MemChain(otherGenesis);
  for (const blk of extend(otherGenesis, 20, 'x')) foreign.addSync(blk);
  // Pretend to be on our network so Status is accepted; only the headers reveal the mismatch.
  (foreign as { genesisHash: string }).genesisHash = hashOf(genesis);
  const f = node('a', foreign);
  const b = node('b', new MemChain());
  FakeTransport.connect(f.transport, b.transport);
  await world.run(10_000);
  t.is(b.chain.head().number, 0);
  t.is(b.sync.counters.peersRested, 1);
  t.false(b.sync.status().syncing);
});

test('a peer on another genesis is never synced from', async (t) => {
  const { world, node } = makeNet();
  const otherGenesis = makeBlock(undefined, 'other genesis');
  const f = node('a', new MemChain(otherGenesis));
  for (const blk of extend(otherGenesis, 20, 'x')) f.chain.addSync(blk);
  const b = node('b', new MemChain());
  FakeTransport.connect(f.transport, b.transport);
  await world.run(10_000);
  t.is(b.chain.head().number, 0);
  t.is(b.transport.sent.filter((s) => s.code === EthCode.GetBlockHeaders).length, 0);
});

test('NewBlock with a known parent is imported directly, and propagation skips peers that know it', async (t) => {
  const { world, node } = makeNet();
  const blocks = extend(genesis, 10, 'main');
  const a = node('a', MemChain.withBlocks(blocks));
  const b = node('b', MemChain.withBlocks(blocks));
  const c = node('c', MemChain.withBlocks(blocks));
  FakeTransport.connect(a.transport, b.transport);
  FakeTransport.connect(a.transport, c.transport);
  FakeTransport.connect(b.transport, c.transport);
  await world.run(100);
  const next = extend(blocks[9], 1, 'main')[0];
  a.chain.addSync(next);
  a.sync.announceBlock(next, hashOf(next));
  await world.run(200);
  t.is(headHash(b.chain), hashOf(next));
  t.is(headHash(c.chain), hashOf(next));
  t.is(b.sync.counters.imported, 1);
  for (const n of [a, b, c]) t.is(n.transport.sent.filter((s) => s.code === EthCode.GetBlockHeaders).length, 0);
  // Re-announcing to peers that sent it to us / were sent it sends nothing more.
  const before = a.transport.sent.length;
  a.sync.announceBlock(next, hashOf(next));
  t.is(a.transport.sent.length, before);
  b.sync.announceBlock(next, hashOf(next)); // b knows a has it; c has not told b
  t.deepEqual(
    b.transport.sent.slice(-1).map((s) => [s.to, s.code]),
    [['c', EthCode.NewBlock]],
  );
});

test('NewBlock far ahead triggers a sync', async (t) => {
  const { world, node } = makeNet();
  const blocks = extend(genesis, 30, 'main');
  const a = node('a', MemChain.withBlocks(blocks.slice(0, 10)));
  const b = node('b', MemChain.withBlocks(blocks.slice(0, 10)));
  FakeTransport.connect(a.transport, b.transport);
  await world.run(100);
  for (const blk of blocks.slice(10)) a.chain.addSync(blk);
  a.sync.announceBlock(blocks[29], hashOf(blocks[29]));
  await world.run(1_000);
  t.is(headHash(b.chain), hashOf(blocks[29]));
});

test('a lagging node catches up while the chain keeps growing, then follows by NewBlock', async (t) => {
  const { world, node } = makeNet();
  const blocks = extend(genesis, 100, 'main');
  const a = node('a', MemChain.withBlocks(blocks));
  const b = node('b', new MemChain(), { maxHeadersPerRequest: 16 });
  FakeTransport.connect(a.transport, b.transport);
  let tip = blocks[99];
  for (let i = 1; i <= 100; i++) {
    world.schedule(i * 20, () => {
      tip = extend(tip, 1, 'main')[0];
      a.chain.addSync(tip);
      a.sync.announceBlock(tip, hashOf(tip));
    });
  }
  await world.run(2_000);
  t.is(a.chain.head().number, 200);
  await world.run(2_100);
  t.is(headHash(b.chain), headHash(a.chain));
  t.false(b.sync.status().syncing);
  t.is(b.sync.counters.peersRested, 0);
});

test('NewBlockHashes for an unknown block starts a sync', async (t) => {
  const { world, node } = makeNet();
  const blocks = extend(genesis, 30, 'main');
  const a = node('a', MemChain.withBlocks(blocks.slice(0, 10)));
  const b = node('b', MemChain.withBlocks(blocks.slice(0, 10)));
  FakeTransport.connect(a.transport, b.transport);
  await world.run(100);
  for (const blk of blocks.slice(10)) a.chain.addSync(blk);
  await b.sync.onMessage('a', toWireMessage({ code: EthCode.NewBlockHashes, entries: [{ hash: hashOf(blocks[29]), number: 30 }] }));
  t.true(b.sync.status().syncing);
  t.is(b.sync.status().highestKnown, 30);
  await world.run(1_000);
  t.is(headHash(b.chain), hashOf(blocks[29]));
});

test('a peer disconnecting mid-sync hands the sync to another peer', async (t) => {
  const { world, node } = makeNet();
  const blocks = extend(genesis, 200, 'main');
  const a = node('a', MemChain.withBlocks(blocks));
  const c = node('c', MemChain.withBlocks(blocks));
  const b = node('b', new MemChain(), { maxHeadersPerRequest: 16 });
  FakeTransport.connect(a.transport, b.transport);
  FakeTransport.connect(c.transport, b.transport);
  await world.run(100);
  t.true(b.sync.status().syncing);
  const before = b.chain.head().number;
  t.true(before > 0 && before < 200);
  FakeTransport.disconnect(a.transport, b.transport);
  await world.run(10_000);
  t.is(headHash(b.chain), hashOf(blocks[199]));
  t.is(b.sync.status().peers, 1);
  t.true(b.transport.sent.some((s) => s.to === 'c' && s.code === EthCode.GetBlockHeaders));
});

test('unsolicited and malformed messages are dropped and counted, never thrown', async (t) => {
  const { world, node } = makeNet();
  const b = node('b', new MemChain());
  const send = (m: WireMessage) => b.sync.onMessage('x', m);
  await send(toWireMessage({ code: EthCode.BlockHeaders, requestId: 99n, headers: [] }));
  await send(toWireMessage({ code: EthCode.BlockBodies, requestId: 7n, bodies: [] }));
  await send({ protocol: 'eth', code: EthCode.NewBlock, data: Uint8Array.of(0x01, 0x02) });
  await send({ protocol: 'eth', code: 0x55, data: RLP.encode([]) });
  await send({ protocol: 'eth', code: EthCode.Status, data: new Uint8Array(0) });
  await send({ protocol: 'istanbul', code: 0x12, data: Uint8Array.of(1) });
  t.is(b.sync.counters.unsolicited, 2);
  t.is(b.sync.counters.malformed, 3);
  await world.run(100);
  t.is(b.sync.status().syncing, false);
});

test('transactions are broadcast to every peer and handed to the hook', async (t) => {
  const { world, node } = makeNet();
  const a = node('a', new MemChain());
  const b = node('b', new MemChain());
  const c = node('c', new MemChain());
  FakeTransport.connect(a.transport, b.transport);
  FakeTransport.connect(a.transport, c.transport);
  await world.run(100);
  const got: Array<[string, number]> = [];
  b.sync.onTransactions = (p, txs) => got.push([`b<-${p}`, txs.length]);
  c.sync.onTransactions = (p, txs) => got.push([`c<-${p}`, txs.length]);
  const typed = Uint8Array.of(0x02, 0xc1, 0x80);
  a.sync.broadcastTransactions([typed, typed]);
  await world.run(200);
  t.deepEqual(got, [
    ['b<-a', 2],
    ['c<-a', 2],
  ]);
});

test('transactions accepted close together go to each peer in one Transactions message, after a short delay', async (t) => {
  const { world, node } = makeNet();
  const a = node('a', new MemChain());
  const b = node('b', new MemChain());
  const c = node('c', new MemChain());
  FakeTransport.connect(a.transport, b.transport);
  FakeTransport.connect(a.transport, c.transport);
  await world.run(100);
  const got: Array<[string, number]> = [];
  b.sync.onTransactions = (p, txs) => got.push([`b<-${p}`, txs.length]);
  c.sync.onTransactions = (p, txs) => got.push([`c<-${p}`, txs.length]);
  const typed = Uint8Array.of(0x02, 0xc1, 0x80);
  const txMessages = () => a.transport.sent.filter((s) => s.code === EthCode.Transactions).length;
  a.sync.broadcastTransactions([typed]);
  t.is(txMessages(), 0, 'queued, not sent at once');
  await world.run(105); // (world.run takes an absolute time)
  a.sync.broadcastTransactions([typed, typed]);
  await world.run(300);
  t.deepEqual(got, [
    ['b<-a', 3],
    ['c<-a', 3],
  ]);
  t.is(txMessages(), 2);
});

test('a transaction broadcast is sent at once when it fills a message (count or bytes), the rest after the delay', async (t) => {
  const { world, node } = makeNet();
  const a = node('a', new MemChain());
  const b = node('b', new MemChain());
  FakeTransport.connect(a.transport, b.transport);
  await world.run(100);
  const got: number[] = [];
  b.sync.onTransactions = (_p, txs) => got.push(txs.length);
  const typed = Uint8Array.of(0x02, 0xc1, 0x80);
  const txMessages = () => a.transport.sent.filter((s) => s.code === EthCode.Transactions).length;
  a.sync.broadcastTransactions(Array.from({ length: 1024 + 5 }, () => typed));
  t.is(txMessages(), 1, 'the first 1024 go at once');
  await world.run(300); // (world.run takes an absolute time)
  t.deepEqual(got, [1024, 5]);
  // 50 KB transactions: two fit the 128 KiB a message carries, the third starts the next one.
  const big = Uint8Array.of(0x02, ...RLP.encode([new Uint8Array(50_000)]));
  a.sync.broadcastTransactions([big, big, big]);
  t.is(txMessages(), 3);
  await world.run(500);
  t.deepEqual(got, [1024, 5, 2, 1]);
});

test('serves headers and bodies from the chain', async (t) => {
  const { world, node, rogue } = makeNet();
  const blocks = extend(genesis, 20, 'main');
  const a = node('a', MemChain.withBlocks(blocks));
  const answers: WireMessage[] = [];
  const asker = rogue('q', (_tr, _from, m) => void answers.push(m));
  FakeTransport.connect(a.transport, asker);
  await world.run(100);
  asker.send('a', toWireMessage({ code: EthCode.GetBlockHeaders, requestId: 5n, origin: { hash: hashOf(blocks[9]) }, amount: 4, skip: 1, reverse: true }));
  asker.send('a', toWireMessage({ code: EthCode.GetBlockBodies, requestId: 6n, hashes: [hashOf(blocks[2]), `0x${'11'.repeat(32)}`, hashOf(blocks[3])] }));
  await world.run(200);
  const [status, headers, bodies] = answers.map((m) => decodeEthMessage(m.code, m.data));
  t.is(status.code, EthCode.Status);
  if (headers.code !== EthCode.BlockHeaders || bodies.code !== EthCode.BlockBodies) return t.fail();
  t.is(headers.requestId, 5n);
  // numbers 10, 8, 6, 4
  t.deepEqual(
    headers.headers.map((h) => Number(headerFromWire(h, common).number)),
    [10, 8, 6, 4],
  );
  t.is(bodies.requestId, 6n);
  t.is(bodies.bodies.length, 2);
});

test('sync is deterministic: same setup, same message sequence', async (t) => {
  const run = async () => {
    const { world, node } = makeNet();
    const prefix = extend(genesis, 8, 'main');
    const a = node('a', MemChain.withBlocks([...prefix, ...extend(prefix[7], 70, 'A')]));
    const c = node('c', MemChain.withBlocks([...prefix, ...extend(prefix[7], 50, 'C')]));
    const b = node('b', MemChain.withBlocks(prefix));
    FakeTransport.connect(a.transport, b.transport);
    FakeTransport.connect(c.transport, b.transport);
    FakeTransport.connect(a.transport, c.transport);
    await world.run(10_000);
    t.is(headHash(b.chain), headHash(a.chain));
    t.is(headHash(c.chain), headHash(a.chain));
    return world.delivered.join('\n');
  };
  t.is(await run(), await run());
});

function statusFor(chain: MemChain, td: bigint): WireMessage {
  return toWireMessage({
    code: EthCode.Status,
    version: 68,
    networkId: chain.networkId,
    td,
    bestHash: `0x${'ab'.repeat(32)}`,
    genesisHash: chain.genesisHash,
    forkId: forkIdOf(chain.genesisHash),
  });
}
