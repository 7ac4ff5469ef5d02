import test from 'ava';
import { SeededRandom } from './random.ts';

const draw = (r: SeededRandom, n: number): number[] => Array.from({ length: n }, () => r.next());

test('the same seed gives the same stream; different seeds differ; a number seed equals its string', (t) => {
  t.deepEqual(draw(new SeededRandom('seed-1'), 50), draw(new SeededRandom('seed-1'), 50));
  t.notDeepEqual(draw(new SeededRandom('seed-1'), 50), draw(new SeededRandom('seed-2'), 50));
  t.deepEqual(draw(new SeededRandom(7), 10), draw(new SeededRandom('7'), 10));
  for (const x of draw(new SeededRandom('range'), 10_000)) t.true(x >= 0 && x < 1);
});

test('a known value pins the generator (alea) and the seed encoding', (t) => {
  const r = new SeededRandom('qbft-lab');
  const v = [r.next(), r.int(1000), r.int(2 ** 40)];
  t.deepEqual(v, [0.12756443000398576, 353, 691543156668]);
});

test('fork() streams depend only on (seed, purpose), not on draws made elsewhere', (t) => {
  const a = new SeededRandom('world');
  const netA = a.fork('network');
  const seqA = draw(netA, 20);

  const b = new SeededRandom('world');
  draw(b, 1000);
  const faults = b.fork('faults');
  draw(faults, 500);
  const netB = b.fork('network');
  t.deepEqual(draw(netB, 20), seqA);

  t.notDeepEqual(draw(new SeededRandom('world').fork('faults'), 20), seqA);
  t.notDeepEqual(draw(new SeededRandom('world'), 20), seqA);
  t.notDeepEqual(draw(new SeededRandom('other').fork('network'), 20), seqA);
  // nesting is unambiguous
  const nested = draw(new SeededRandom('world').fork('a').fork('b'), 5);
  t.notDeepEqual(draw(new SeededRandom('world').fork('a/b'), 5), nested);
  t.notDeepEqual(draw(new SeededRandom('world').fork('b').fork('a'), 5), nested);
  t.deepEqual(draw(new SeededRandom('world').fork('a').fork('b'), 5), nested);
  t.deepEqual(new SeededRandom('world').fork('a').fork('b').path, ['world', 'a', 'b']);
});

test('int, intBetween, pick, shuffle, chance stay in range and are deterministic', (t) => {
  const r = new SeededRandom('ints');
  const seen = new Set<number>();
  for (let i = 0; i < 2000; i++) {
    const x = r.int(7);
    t.true(Number.isInteger(x) && x >= 0 && x < 7);
    seen.add(x);
  }
  t.is(seen.size, 7);
  for (let i = 0; i < 200; i++) {
    const big = r.int(2 ** 50);
    t.true(Number.isInteger(big) && big >= 0 && big < 2 ** 50);
    const y = r.intBetween(-3, 3);
    t.true(y >= -3 && y <= 3);
  }
  t.throws(() => r.int(0), { instanceOf: RangeError });
  t.throws(() => r.int(1.5), { instanceOf: RangeError });
  t.throws(() => r.pick([]), { instanceOf: RangeError });
  const arr = ['a', 'b', 'c', 'd'];
  t.true(arr.includes(r.pick(arr)));
  t.deepEqual([...r.shuffle(arr)].sort(), arr);
  t.deepEqual(new SeededRandom('s').shuffle(arr), new SeededRandom('s').shuffle(arr));
  const c = new SeededRandom('c');
  const before = draw(new SeededRandom('c'), 1);
  t.false(c.chance(0));
  t.true(c.chance(1));
  t.deepEqual(draw(c, 1), before, 'chance(0) and chance(1) do not draw');
});

test('bytes(n) is deterministic, of the right length, and bounded', (t) => {
  const a = new SeededRandom('bytes').bytes(37);
  const b = new SeededRandom('bytes').bytes(37);
  t.is(a.length, 37);
  t.deepEqual(a, b);
  t.is(new SeededRandom('x').bytes(0).length, 0);
  t.throws(() => new SeededRandom('x').bytes(-1), { instanceOf: RangeError });
  t.throws(() => new SeededRandom('x').bytes(1 << 30), { instanceOf: RangeError });
  const big = new SeededRandom('dist').bytes(40_000);
  const mean = big.reduce((s, x) => s + x, 0) / big.length;
  t.true(mean > 120 && mean < 135);
});

test('normal(mean, sd) has about the requested moments', (t) => {
  const r = new SeededRandom('normal');
  const n = 20_000;
  const xs = Array.from({ length: n }, () => r.normal(100, 15));
  const mean = xs.reduce((s, x) => s + x, 0) / n;
  const sd = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / n);
  t.true(Math.abs(mean - 100) < 0.5, `mean ${mean}`);
  t.true(Math.abs(sd - 15) < 0.5, `sd ${sd}`);
  t.is(new SeededRandom('z').normal(5, 0), 5);
  t.throws(() => r.normal(0, -1), { instanceOf: RangeError });
});
