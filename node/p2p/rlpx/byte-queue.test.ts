import test from 'ava';
import { ByteQueue } from './byte-queue.ts';

test('take returns exact byte counts across chunk boundaries', (t) => {
  const q = new ByteQueue(100);
  q.push(Uint8Array.of(1, 2, 3));
  q.push(Uint8Array.of(4));
  q.push(Uint8Array.of(5, 6, 7, 8));
  t.is(q.length, 8);
  t.deepEqual(q.peek(2), Uint8Array.of(1, 2));
  t.deepEqual(q.take(2), Uint8Array.of(1, 2));
  t.deepEqual(q.take(3), Uint8Array.of(3, 4, 5));
  t.is(q.length, 3);
  t.deepEqual(q.takeAll(), Uint8Array.of(6, 7, 8));
  t.is(q.length, 0);
});

test('taken bytes do not alias the pushed chunk', (t) => {
  const q = new ByteQueue(100);
  const chunk = Uint8Array.of(9, 9, 9, 9);
  q.push(chunk);
  const got = q.take(2);
  chunk[0] = 0;
  t.deepEqual(got, Uint8Array.of(9, 9));
});

test('the buffer limit is enforced and reading past the end throws', (t) => {
  const q = new ByteQueue(4);
  q.push(Uint8Array.of(1, 2, 3));
  t.throws(() => q.push(Uint8Array.of(4, 5)), { instanceOf: RangeError });
  t.throws(() => q.take(4), { instanceOf: RangeError });
  q.push(Uint8Array.of(4));
  t.is(q.length, 4);
});
