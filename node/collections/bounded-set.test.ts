import test from 'ava';
import { BoundedSet } from './bounded-set.ts';

test('forgets the oldest member at capacity; capacity 0 remembers nothing; bad capacities throw', (t) => {
  const s = new BoundedSet(2);
  s.add('a');
  s.add('b');
  s.add('a');
  s.add('c');
  t.false(s.has('a'));
  t.true(s.has('b') && s.has('c'));
  const none = new BoundedSet(0);
  none.add('a');
  t.false(none.has('a'));
  t.is(none.size, 0);
  t.throws(() => new BoundedSet(-1));
  t.throws(() => new BoundedSet(1.5));
});
