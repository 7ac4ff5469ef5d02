import test from 'ava';
import { earlyRoundChangeQuorum, maxFaulty, quorumSize } from './quorum.ts';

test('quorum = ceil(2n/3) (Besu BftHelpers.calculateRequiredValidatorQuorum)', (t) => {
  const table: Array<[number, number]> = [[1, 1], [2, 2], [3, 2], [4, 3], [5, 4], [6, 4], [7, 5], [10, 7], [100, 67]];
  for (const [n, q] of table) t.is(quorumSize(n), q, `n=${n}`);
});

test('f and f+1 (Besu calculateRequiredFutureRCQuorum)', (t) => {
  const table: Array<[number, number]> = [[0, 0], [1, 0], [3, 0], [4, 1], [6, 1], [7, 2], [10, 3], [100, 33]];
  for (const [n, f] of table) {
    t.is(maxFaulty(n), f, `f n=${n}`);
    t.is(earlyRoundChangeQuorum(n), f + 1, `f+1 n=${n}`);
  }
});

test('two quorums share an honest validator, and the honest ones alone reach quorum', (t) => {
  for (let n = 1; n <= 200; n++) {
    const q = quorumSize(n);
    const f = maxFaulty(n);
    t.true(2 * q - n >= f + 1, `safety n=${n}`);
    t.true(n - f >= q, `liveness n=${n}`);
  }
});

test('rejects bad counts', (t) => {
  t.throws(() => quorumSize(-1));
  t.throws(() => quorumSize(1.5));
});
