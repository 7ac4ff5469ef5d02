import test from 'ava';
import fc from 'fast-check';
import type { Hex } from '../../crypto/bytes.ts';
import { selectProposer } from './proposer-selection.ts';

const addr = (n: number): Hex => `0x${n.toString(16).padStart(40, '0')}`;
const ZERO = addr(0);
const [A, B, C, D] = [addr(0x10), addr(0x20), addr(0x30), addr(0x40)];

test('previous proposer in the set: next one after it, plus the round', (t) => {
  const v = [C, A, D, B]; // unsorted on purpose
  t.is(selectProposer(v, A, 0), B);
  t.is(selectProposer(v, A, 1), C);
  t.is(selectProposer(v, A, 2), D);
  t.is(selectProposer(v, A, 3), A);
  t.is(selectProposer(v, D, 0), A);
  t.is(selectProposer(v, D, 5), B);
});

test('genesis coinbase 0x0: first validator above it (the smallest) proposes round 0', (t) => {
  const v = [B, A, C, D];
  t.is(selectProposer(v, ZERO, 0), A);
  t.is(selectProposer(v, ZERO, 1), B);
  t.is(selectProposer(v, ZERO, 4), A);
});

test('removed previous proposer: the next validator above it takes its turn (no skip)', (t) => {
  const v = [A, C, D]; // B was voted out
  t.is(selectProposer(v, B, 0), C);
  t.is(selectProposer(v, B, 1), D);
  t.is(selectProposer(v, B, 2), A);
});

test('removed previous proposer above every validator wraps to the smallest', (t) => {
  const v = [A, B, C];
  t.is(selectProposer(v, D, 0), A);
  t.is(selectProposer(v, D, 1), B);
  t.is(selectProposer(v, addr(0xffff), 2), C);
});

test('single validator always proposes', (t) => {
  t.is(selectProposer([A], A, 0), A);
  t.is(selectProposer([A], ZERO, 7), A);
});

test('empty set and negative round throw', (t) => {
  t.throws(() => selectProposer([], ZERO, 0));
  t.throws(() => selectProposer([A], A, -1));
});

const validatorSet = fc.uniqueArray(fc.integer({ min: 1, max: 10_000 }), { minLength: 1, maxLength: 30 }).map((xs) => xs.map(addr));

test('property: the proposer is always a member, and rounds rotate through every validator', (t) => {
  fc.assert(
    fc.property(validatorSet, fc.integer({ min: 0, max: 10_001 }), fc.nat(1000), (v, prev, round) => {
      const p = selectProposer(v, addr(prev), round);
      if (!v.includes(p)) return false;
      const seen = new Set(Array.from({ length: v.length }, (_, r) => selectProposer(v, addr(prev), round + r)));
      return seen.size === v.length;
    }),
    { seed: 42, numRuns: 300 },
  );
  t.pass();
});

test('property: input order does not matter', (t) => {
  fc.assert(
    fc.property(validatorSet, fc.integer({ min: 0, max: 10_001 }), fc.nat(50), (v, prev, round) =>
      selectProposer(v, addr(prev), round) === selectProposer([...v].reverse(), addr(prev), round),
    ),
    { seed: 7, numRuns: 200 },
  );
  t.pass();
});
