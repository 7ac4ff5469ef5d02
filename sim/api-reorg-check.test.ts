/**
 * The API reorganization check on a small hand-made chain: ancestor block 1, an old branch 2a
 * (two logs) and 3a (one log), a new branch 2b, 3b (one log), 4b. The right streams pass; planted
 * wrong ones (removed logs dropped, removed: false, Besu's order broken, a poll lost, a head
 * missing, an extra or early notification) are caught with a message naming the first bad item.
 */
import test from 'ava';
import type { Hex } from '../node/crypto/bytes.ts';
import { expectedStreams, headChanges, judgeStreams, type ChainReads, type ExpectedStreams, type HeadLine, type RecordedStreams, type RpcBlock, type RpcLog, type Stamped } from './api-reorg-check.ts';

const hashOf = (name: string): Hex => `0x${Buffer.from(name.padEnd(32, '.')).toString('hex')}` as Hex;
const q = (n: number) => `0x${n.toString(16)}`;

interface FakeBlock {
  block: RpcBlock;
  logs: RpcLog[];
}

function fakeBlock(name: string, number: number, parent: string, logsPerTx: number[]): FakeBlock {
  const hash = hashOf(name);
  const txs = logsPerTx.map((_, i) => hashOf(`tx ${name} ${i}`));
  const logs: RpcLog[] = [];
  logsPerTx.forEach((count, txIndex) => {
    for (let k = 0; k < count; k++)
      logs.push({ address: '0x0000000000000000000000000000000000004c06', topics: [q(k)], data: '0x', blockNumber: q(number), transactionHash: txs[txIndex], transactionIndex: q(txIndex), blockHash: hash, logIndex: q(logs.length), removed: false });
  });
  return { block: { hash, number: q(number), parentHash: hashOf(parent), transactions: txs }, logs };
}

const BLOCKS: Record<string, FakeBlock> = {
  '1': fakeBlock('1', 1, '0', []),
  '2a': fakeBlock('2a', 2, '1', [2]),
  '3a': fakeBlock('3a', 3, '2a', [1]),
  '2b': fakeBlock('2b', 2, '1', []),
  '3b': fakeBlock('3b', 3, '2b', [0, 1]),
  '4b': fakeBlock('4b', 4, '3b', []),
};
const CANONICAL = new Set(['1', '2b', '3b', '4b'].map(hashOf));

function reads(blocks = BLOCKS): ChainReads {
  const byHash = new Map(Object.values(blocks).map((b) => [b.block.hash as Hex, b]));
  return {
    block: async (hash) => byHash.get(hash)?.block ?? null,
    logs: async (hash) => (byHash.get(hash)?.logs ?? []).map((l) => ({ ...l, removed: !CANONICAL.has(hash) })),
    receipt: async (tx) => {
      for (const b of byHash.values())
        if ((b.block.transactions as Hex[]).includes(tx) && CANONICAL.has(b.block.hash as Hex)) return { blockHash: b.block.hash, logs: b.logs.filter((l) => l.transactionHash === tx) };
      return null;
    },
  };
}

const LINES: HeadLine[] = [
  { atMs: 1_000, kind: 'block-imported', hash: hashOf('2a'), status: 'head' },
  { atMs: 2_000, kind: 'block-imported', hash: hashOf('3a'), status: 'head' },
  { atMs: 2_500, kind: 'block-imported', hash: hashOf('2b'), status: 'side' },
  { atMs: 2_600, kind: 'block-imported', hash: hashOf('3b'), status: 'side' },
  { atMs: 2_700, kind: 'block-imported', hash: hashOf('4b'), status: 'head' },
  { atMs: 2_700, kind: 'reorg', removed: [hashOf('3a'), hashOf('2a')], added: [hashOf('2b'), hashOf('3b'), hashOf('4b')] },
];

const log = (block: string, index: number, removed: boolean) => ({ ...BLOCKS[block]!.logs[index]!, removed });
const head = (block: string) => BLOCKS[block]!.block;
const at = (atMs: number, results: unknown[]): Stamped[] => results.map((result) => ({ atMs, result }));

/** What a client of a correct node records. */
function rightStreams(): RecordedStreams {
  const afterReorg = [log('3a', 0, true), log('2a', 1, true), log('2a', 0, true), log('3b', 0, false)];
  return {
    logs: [...at(1_000, [log('2a', 0, false), log('2a', 1, false)]), ...at(2_000, [log('3a', 0, false)]), ...at(2_700, afterReorg)],
    newHeads: [...at(1_000, [head('2a')]), ...at(2_000, [head('3a')]), ...at(2_700, [head('2b'), head('3b'), head('4b')])],
    filter: [...at(1_500, [log('2a', 0, false), log('2a', 1, false)]), ...at(3_000, [log('3a', 0, false), ...afterReorg])],
  };
}

async function expected(): Promise<ExpectedStreams> {
  const e = await expectedStreams(headChanges(LINES), reads());
  if (typeof e === 'string') throw new Error(e);
  return e;
}

test('head changes from the trace: a reorganization replaces the plain change its import made; side imports are no change', (t) => {
  t.deepEqual(headChanges(LINES), [
    { atMs: 1_000, removed: [], added: [hashOf('2a')] },
    { atMs: 2_000, removed: [], added: [hashOf('3a')] },
    { atMs: 2_700, removed: [hashOf('3a'), hashOf('2a')], added: [hashOf('2b'), hashOf('3b'), hashOf('4b')] },
  ]);
});

test('the right streams pass: removed logs newest first with removed: true, then the new branch, heads lowest first', async (t) => {
  const e = await expected();
  t.is(e.reorgs, 1);
  t.is(e.removedLogs, 3);
  t.is(judgeStreams('v3', e, rightStreams()), undefined);
});

test('planted: removed logs dropped from the subscription (plant-pubsub-no-removed) names the first missing one', async (t) => {
  const s = rightStreams();
  s.logs = s.logs.filter((n) => (n.result as RpcLog).removed !== true);
  t.is(
    judgeStreams('v3', await expected(), s),
    `v3 eth_subscribe logs: notification 4 should be removed log 0 of block 3 ${hashOf('3a')} (reorganization at 2700 ms) with removed: true, got log 0 of block 3 ${hashOf('3b')} with removed: false`,
  );
});

test('planted: a removed log delivered again with removed: false', async (t) => {
  const s = rightStreams();
  s.logs[4] = { ...s.logs[4]!, result: log('2a', 1, false) };
  t.is(judgeStreams('v3', await expected(), s), `v3 eth_subscribe logs: notification 5 (removed log 1 of block 2 ${hashOf('2a')} (reorganization at 2700 ms) with removed: true): removed is false, should be true`);
});

test("planted: a removed block's logs in chain order instead of Besu's last-to-first", async (t) => {
  const s = rightStreams();
  [s.filter[4], s.filter[5]] = [s.filter[5]!, s.filter[4]!];
  t.is(
    judgeStreams('v3', await expected(), s),
    `v3 eth_newFilter logs (eth_getFilterChanges): log 5 should be removed log 1 of block 2 ${hashOf('2a')} (reorganization at 2700 ms) with removed: true, got log 0 of block 2 ${hashOf('2a')} with removed: true`,
  );
});

test("planted: a filter poll's logs lost", async (t) => {
  const s = rightStreams();
  s.filter = s.filter.slice(0, 2);
  t.is(judgeStreams('v3', await expected(), s), `v3 eth_newFilter logs (eth_getFilterChanges): log 3 missing: log 0 of block 3 ${hashOf('3a')} (head change at 2000 ms) with removed: false (2 arrived)`);
});

test('planted: a new head of the winning branch not notified', async (t) => {
  const s = rightStreams();
  s.newHeads.splice(2, 1);
  t.is(judgeStreams('v3', await expected(), s), `v3 eth_subscribe newHeads: notification 3 should be new head 2 ${hashOf('2b')} (reorganization at 2700 ms), got head 3 ${hashOf('3b')}`);
});

test('planted: a notification nothing owes, and one that arrives before its head change', async (t) => {
  const extra = rightStreams();
  extra.logs.push({ atMs: 2_700, result: log('3b', 0, false) });
  t.is(judgeStreams('v3', await expected(), extra), `v3 eth_subscribe logs: notification 8 unexpected: log 0 of block 3 ${hashOf('3b')} with removed: false at 2700 ms`);
  const early = rightStreams();
  early.newHeads[1] = { ...early.newHeads[1]!, atMs: 1_999 };
  t.is(judgeStreams('v3', await expected(), early), `v3 eth_subscribe newHeads: notification 2 (new head 3 ${hashOf('3a')} (head change at 2000 ms)) arrived at 1999 ms, before its head change`);
});

test('a field of a notification that differs from the plain reads is named', async (t) => {
  const s = rightStreams();
  s.newHeads[0] = { ...s.newHeads[0]!, result: { ...head('2a'), parentHash: hashOf('x') } };
  t.is(judgeStreams('v3', await expected(), s), `v3 eth_subscribe newHeads: notification 1 (new head 2 ${hashOf('2a')} (head change at 1000 ms)): parentHash is "${hashOf('x')}", should be "${hashOf('1')}"`);
});

test('plain reads that disagree with each other make no expectation', async (t) => {
  const changes = headChanges(LINES);
  const wrongTx = { ...BLOCKS, '2a': { ...BLOCKS['2a']!, logs: [{ ...BLOCKS['2a']!.logs[0]!, transactionHash: hashOf('elsewhere') }] } };
  t.regex((await expectedStreams(changes, reads(wrongTx))) as string, /^eth_getLogs\(blockHash 0x\w+\) log 0 of block 2 .* does not match eth_getBlockByHash$/);
  const base = reads();
  const wrongReceipt: ChainReads = { ...base, receipt: async (tx) => ({ ...(await base.receipt(tx)), logs: [] }) };
  t.regex((await expectedStreams(changes, wrongReceipt)) as string, /^eth_getTransactionReceipt\(0x\w+\) disagrees with eth_getLogs\(blockHash 0x\w+\): 0 logs, not 1$/);
  t.is(await expectedStreams(changes, { ...base, block: async () => null }), `eth_getBlockByHash(${hashOf('2a')}) answered null`);
});
