import test from 'ava';
import { headerFromWire } from './eth-blocks.ts';
import type { HeaderFields } from './eth-messages.ts';
import { serveBlockBodies, serveBlockHeaders, ServeLimits } from './eth-server.ts';
import { common, extend, genesis, hashOf, headerHash, MemChain } from './sync-test-kit.ts';

const main = extend(genesis, 1100, 'main');
const chain = MemChain.withBlocks(main);
const side = extend(main[49], 5, 'side'); // numbers 51..55, not canonical
for (const b of side) chain.addSync(b);

const numbers = (hs: HeaderFields[]) => hs.map((h) => Number(headerFromWire(h, common).number));

test('headers by number, ascending, with skip', (t) => {
  t.deepEqual(numbers(serveBlockHeaders(chain, { origin: { number: 3 }, amount: 4, skip: 0, reverse: false })), [3, 4, 5, 6]);
  t.deepEqual(numbers(serveBlockHeaders(chain, { origin: { number: 3 }, amount: 3, skip: 9, reverse: false })), [3, 13, 23]);
  t.deepEqual(numbers(serveBlockHeaders(chain, { origin: { number: 1098 }, amount: 10, skip: 0, reverse: false })), [1098, 1099, 1100]);
});

test('headers reverse, by hash, and from a side-chain origin', (t) => {
  t.deepEqual(numbers(serveBlockHeaders(chain, { origin: { number: 5 }, amount: 10, skip: 1, reverse: true })), [5, 3, 1]);
  t.deepEqual(numbers(serveBlockHeaders(chain, { origin: { hash: hashOf(main[9]) }, amount: 3, skip: 0, reverse: true })), [10, 9, 8]);
  // reverse without skip follows parent hashes, so a side chain is walked back to the fork point
  const back = serveBlockHeaders(chain, { origin: { hash: hashOf(side[4]) }, amount: 7, skip: 0, reverse: true });
  t.deepEqual(numbers(back), [55, 54, 53, 52, 51, 50, 49]);
  t.is(headerHash(headerFromWire(back[1], common)), hashOf(side[3]));
  t.deepEqual(numbers(serveBlockHeaders(chain, { origin: { number: 1 }, amount: 5, skip: 0, reverse: true })), [1, 0]);
});

test('header requests are capped and tolerate nonsense', (t) => {
  t.is(serveBlockHeaders(chain, { origin: { number: 0 }, amount: 5000, skip: 0, reverse: false }).length, ServeLimits.maxHeaders);
  t.deepEqual(serveBlockHeaders(chain, { origin: { number: 0 }, amount: 0, skip: 0, reverse: false }), []);
  t.deepEqual(serveBlockHeaders(chain, { origin: { number: 5000 }, amount: 3, skip: 0, reverse: false }), []);
  t.deepEqual(serveBlockHeaders(chain, { origin: { hash: `0x${'77'.repeat(32)}` }, amount: 3, skip: 0, reverse: false }), []);
  t.deepEqual(numbers(serveBlockHeaders(chain, { origin: { number: 7 }, amount: 3, skip: Number.MAX_SAFE_INTEGER, reverse: false })), [7]);
});

test('bodies skip unknown hashes and are capped', (t) => {
  const hashes = [hashOf(main[0]), `0x${'77'.repeat(32)}` as const, hashOf(side[0])];
  t.is(serveBlockBodies(chain, hashes).length, 2);
  t.is(serveBlockBodies(chain, main.slice(0, 500).map(hashOf)).length, ServeLimits.maxBodies);
});
