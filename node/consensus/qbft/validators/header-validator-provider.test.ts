import test from 'ava';
import fc from 'fast-check';
import type { Hex } from '../../../crypto/bytes.ts';
import { BlockHeaderValidators, UnknownBlockError, isEpochBlock, validatorsListedIn, type ChainHeaderInfo } from './header-validator-provider.ts';

const addr = (n: number): Hex => `0x${n.toString(16).padStart(40, '0')}`;
const [v1, v2, v3, v4, v5, v6] = [1, 2, 3, 4, 5, 6].map(addr);
const GENESIS_VALIDATORS = [v1, v2, v3, v4];

/** A tiny block tree: headers by hash. */
class Tree {
  readonly byHash = new Map<string, ChainHeaderInfo>();
  readonly genesis: ChainHeaderInfo;
  constructor(genesisValidators: Hex[] = GENESIS_VALIDATORS) {
    this.genesis = { hash: 'g', parentHash: '0x', number: 0, coinbase: addr(0), validators: genesisValidators };
    this.byHash.set('g', this.genesis);
  }
  child(parent: ChainHeaderInfo, coinbase: Hex, opts: { vote?: { recipient: Hex; add: boolean }; validators?: Hex[]; tag?: string } = {}): ChainHeaderInfo {
    const h: ChainHeaderInfo = {
      hash: `${parent.hash}/${parent.number + 1}${opts.tag ?? ''}`,
      parentHash: parent.hash,
      number: parent.number + 1,
      coinbase,
      validators: opts.validators ?? [],
      vote: opts.vote,
    };
    this.byHash.set(h.hash, h);
    return h;
  }
  get = (hash: string) => this.byHash.get(hash);
}

const ADD = (r: Hex) => ({ recipient: r, add: true });
const DROP = (r: Hex) => ({ recipient: r, add: false });

test('genesis: validators after block 0 are the genesis list, sorted', (t) => {
  const tree = new Tree([v3, v1, v4, v2]);
  const p = new BlockHeaderValidators({ epochLength: 30000, genesisValidators: [v3, v1, v4, v2] });
  t.deepEqual(p.afterBlock(tree.genesis), [v1, v2, v3, v4]);
  t.deepEqual(p.validatorsFor(1, 'g'), [v1, v2, v3, v4]);
  t.deepEqual(validatorsListedIn(tree.genesis), [v1, v2, v3, v4]);
});

test('votes along a chain add and drop validators; the vote is attributed to the coinbase', (t) => {
  const tree = new Tree();
  const p = new BlockHeaderValidators({ epochLength: 30000, genesisValidators: GENESIS_VALIDATORS, getHeader: tree.get });
  let h = tree.genesis;
  for (const c of [v1, v2]) h = tree.child(h, c, { vote: ADD(v5) });
  t.deepEqual(p.afterBlock(h), [v1, v2, v3, v4]);
  t.deepEqual(p.tallyAfter(h.hash).outstandingAddVotesFor(v5), [v1, v2]);
  h = tree.child(h, v3, { vote: ADD(v5) });
  t.deepEqual(p.afterBlock(h), [v1, v2, v3, v4, v5]);
  t.deepEqual(p.validatorsFor(4, h.hash), [v1, v2, v3, v4, v5]);
  for (const c of [v1, v2, v3]) h = tree.child(h, c, { vote: DROP(v4) });
  t.deepEqual(p.afterBlock(h), [v1, v2, v3, v5]);
});

test('forks: two children of one parent keep separate tallies', (t) => {
  const tree = new Tree();
  const p = new BlockHeaderValidators({ epochLength: 30000, genesisValidators: GENESIS_VALIDATORS, getHeader: tree.get });
  const b1 = tree.child(tree.genesis, v1, { vote: ADD(v5) });
  const b2 = tree.child(b1, v2, { vote: ADD(v5) });
  const left = tree.child(b2, v3, { vote: ADD(v5), tag: 'L' });
  const right = tree.child(b2, v3, { vote: DROP(v1), tag: 'R' });
  t.deepEqual(p.afterBlock(left), [v1, v2, v3, v4, v5]);
  t.deepEqual(p.afterBlock(right), [v1, v2, v3, v4]);
  t.deepEqual(p.tallyAfter(right.hash).outstandingDropVotesFor(v1), [v3]);
  t.deepEqual(p.validatorsAfter(left.hash), [v1, v2, v3, v4, v5], 'cached by hash');
  t.deepEqual(p.validatorsAfter(b2.hash), [v1, v2, v3, v4]);
});

test('epoch block: fresh tally from its extraData list, outstanding votes and its own vote dropped', (t) => {
  const tree = new Tree();
  const p = new BlockHeaderValidators({ epochLength: 4, genesisValidators: GENESIS_VALIDATORS });
  let h = tree.genesis;
  h = tree.child(h, v1, { vote: ADD(v5) });
  h = tree.child(h, v2, { vote: ADD(v5) });
  h = tree.child(h, v3, { vote: DROP(v4) });
  t.true(isEpochBlock(4, 4));
  const epoch = tree.child(h, v4, { vote: ADD(v5), validators: [v4, v3, v2, v1] });
  const afterEpoch = p.tallyAfterBlock(epoch);
  t.deepEqual(afterEpoch.validators(), [v1, v2, v3, v4]);
  t.deepEqual(afterEpoch.pendingVotes(), [], 'no votes survive the epoch, not even its own');
  // one more ADD after the epoch is far from the threshold again
  t.deepEqual(p.afterBlock(tree.child(epoch, v1, { vote: ADD(v5) })), [v1, v2, v3, v4]);
});

test('epoch block takes its extraData list as given, like Besu', (t) => {
  const tree = new Tree();
  const p = new BlockHeaderValidators({ epochLength: 2, genesisValidators: GENESIS_VALIDATORS });
  const b1 = tree.child(tree.genesis, v1);
  const b2 = tree.child(b1, v2, { validators: [v1, v6] });
  t.deepEqual(p.afterBlock(b2), [v1, v6]);
});

test('transition override at N: set for N is the override; N-1 vote applied on top; older votes gone', (t) => {
  const tree = new Tree();
  const overrides = new Map<number, Hex[]>([[3, [v6, v5, v1]]]);
  const p = new BlockHeaderValidators({ epochLength: 30000, genesisValidators: GENESIS_VALIDATORS, overrideAt: (n) => overrides.get(n), getHeader: tree.get });
  const b1 = tree.child(tree.genesis, v1, { vote: ADD(v2) });
  const b2 = tree.child(b1, v2, { vote: ADD(v2) });
  t.deepEqual(p.afterBlock(b1), [v1, v2, v3, v4], 'before the transition: unaffected');
  const after2 = p.tallyAfterBlock(b2);
  t.deepEqual(after2.validators(), [v1, v5, v6], 'validatorsFor(3) = override');
  t.deepEqual(after2.outstandingAddVotesFor(v2), [v2], "b1's vote is gone; b2's own vote sits in the new tally");
  t.deepEqual(p.validatorsFor(3, b2.hash), [v1, v5, v6]);
  const b3 = tree.child(b2, v5, { vote: ADD(v2) });
  t.deepEqual(p.afterBlock(b3), [v1, v2, v5, v6], 'voting continues from the override tally');
});

test('override of a single validator: the previous block vote can already decide', (t) => {
  const tree = new Tree();
  const p = new BlockHeaderValidators({ epochLength: 30000, genesisValidators: GENESIS_VALIDATORS, overrideAt: (n) => (n === 2 ? [v1] : undefined) });
  const b1 = tree.child(tree.genesis, v1, { vote: ADD(v3) });
  t.deepEqual(p.afterBlock(b1), [v1, v3]);
});

test('override wins over the epoch block list and applies to block 1 via genesis', (t) => {
  const tree = new Tree();
  const p = new BlockHeaderValidators({ epochLength: 2, genesisValidators: GENESIS_VALIDATORS, overrideAt: (n) => (n === 3 ? [v5] : n === 1 ? [v2, v3] : undefined) });
  t.deepEqual(p.afterBlock(tree.genesis), [v2, v3]);
  const b1 = tree.child(tree.genesis, v2);
  const b2 = tree.child(b1, v3, { validators: [v1, v2], vote: ADD(v6) });
  t.deepEqual(p.afterBlock(b2), [v5], 'epoch block 2 vote ignored, override for 3 used');
});

test('bounded cache: evicted tallies are recomputed through getHeader', (t) => {
  const tree = new Tree();
  const p = new BlockHeaderValidators({ epochLength: 30000, genesisValidators: GENESIS_VALIDATORS, getHeader: tree.get, cacheSize: 3 });
  let h = tree.genesis;
  const chain: ChainHeaderInfo[] = [h];
  const proposers = [v1, v2, v3, v4];
  for (let i = 1; i <= 20; i++) {
    h = tree.child(h, proposers[i % 4], { vote: i <= 3 ? ADD(v5) : undefined });
    chain.push(h);
    p.afterBlock(h);
  }
  t.is(p.cachedCount, 3);
  t.false(p.isCached(chain[2].hash));
  t.deepEqual(p.validatorsAfter(chain[2].hash), [v1, v2, v3, v4]);
  t.deepEqual(p.validatorsAfter(chain[3].hash), [v1, v2, v3, v4, v5]);
  t.deepEqual(p.validatorsFor(21, chain[20].hash), [v1, v2, v3, v4, v5]);
  t.true(p.cachedCount <= 3);
  // a child of an evicted parent is also fine
  p.clear();
  t.deepEqual(p.afterBlock(tree.child(chain[10], v1, { vote: DROP(v5), tag: 'x' })), [v1, v2, v3, v4, v5]);
});

test('unknown ancestry throws UnknownBlockError; wrong parent number throws', (t) => {
  const tree = new Tree();
  const p = new BlockHeaderValidators({ epochLength: 30000, genesisValidators: GENESIS_VALIDATORS });
  const b1 = tree.child(tree.genesis, v1);
  const b2 = tree.child(b1, v2);
  t.throws(() => p.afterBlock(b2), { instanceOf: UnknownBlockError });
  t.deepEqual(p.afterBlock(b1), GENESIS_VALIDATORS, 'block 1 needs no genesis header');
  t.deepEqual(p.afterBlock(b2), GENESIS_VALIDATORS, 'now the parent is cached');
  t.throws(() => p.validatorsAfter('nope'), { instanceOf: UnknownBlockError });
  t.throws(() => p.validatorsFor(5, b1.hash), { message: /not the parent/ });
  t.throws(() => new BlockHeaderValidators({ epochLength: 0, genesisValidators: [] }));
});

test('property: results do not depend on cache size or on the order blocks are asked for (with epochs, forks, an override)', (t) => {
  const validatorIdx = fc.integer({ min: 1, max: 7 });
  const block = fc.record({ parentPick: fc.nat(), proposer: validatorIdx, vote: fc.option(fc.tuple(validatorIdx, fc.boolean()), { nil: undefined }) });
  fc.assert(
    fc.property(fc.array(block, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 5 }), fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }), (blocks, epochLength, cacheSize, overrideBlock) => {
      const overrideAt = (n: number) => (n === overrideBlock ? [addr(2), addr(7)] : undefined);
      const tree = new Tree();
      const all: ChainHeaderInfo[] = [tree.genesis];
      for (const [i, b] of blocks.entries()) {
        const parent = all[b.parentPick % all.length];
        const h = tree.child(parent, addr(b.proposer), {
          tag: `#${i}`,
          vote: b.vote && { recipient: addr(b.vote[0]), add: b.vote[1] },
          validators: isEpochBlock(parent.number + 1, epochLength) ? [addr(1), addr(b.proposer)] : [],
        });
        all.push(h);
      }
      const big = new BlockHeaderValidators({ epochLength, genesisValidators: GENESIS_VALIDATORS, getHeader: tree.get, overrideAt });
      const small = new BlockHeaderValidators({ epochLength, genesisValidators: GENESIS_VALIDATORS, getHeader: tree.get, cacheSize, overrideAt });
      const inOrder = all.map((h) => big.afterBlock(h).join());
      const reversed = [...all].reverse().map((h) => small.afterBlock(h).join()).reverse();
      return inOrder.every((v, i) => v === reversed[i]);
    }),
    { seed: 99, numRuns: 200 },
  );
  t.pass();
});
