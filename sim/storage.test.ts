import test from 'ava';
import { SimStore, SimStoreDirectory, SimStoreFullError } from './storage.ts';

const b = (...xs: number[]): Uint8Array => Uint8Array.from(xs);

test('get / write / delete', async (t) => {
  const s = new SimStore();
  t.is(await s.get('a'), undefined);
  await s.write([{ key: 'a', value: b(1, 2) }, { key: 'b', value: b(3) }]);
  t.deepEqual(await s.get('a'), b(1, 2));
  await s.write([{ key: 'a', value: undefined }]);
  t.is(await s.get('a'), undefined);
  t.deepEqual(await s.get('b'), b(3));
  t.is(s.size(), 1);
});

test('later entries for one key in a batch win', async (t) => {
  const s = new SimStore();
  await s.write([{ key: 'k', value: b(1) }, { key: 'k', value: b(2) }]);
  t.deepEqual(await s.get('k'), b(2));
  await s.write([{ key: 'k', value: b(3) }, { key: 'k', value: undefined }]);
  t.is(await s.get('k'), undefined);
});

test('values are copied in and out', async (t) => {
  const s = new SimStore();
  const v = b(1, 2, 3);
  await s.write([{ key: 'k', value: v }]);
  v[0] = 99;
  const got = (await s.get('k'))!;
  t.deepEqual(got, b(1, 2, 3));
  got[1] = 99;
  t.deepEqual(await s.get('k'), b(1, 2, 3));
});

test('a batch with a bad entry applies nothing (atomic)', async (t) => {
  const s = new SimStore();
  await s.write([{ key: 'x', value: b(0) }]);
  await t.throwsAsync(
    s.write([
      { key: 'x', value: undefined },
      { key: 'y', value: b(1) },
      { key: 'z', value: 'nope' as unknown as Uint8Array },
    ]),
    { instanceOf: TypeError },
  );
  t.deepEqual(await s.get('x'), b(0));
  t.is(await s.get('y'), undefined);
});

test('maxBytes rejects a whole batch; sizeBytes tracks keys + values', async (t) => {
  const s = new SimStore({ maxBytes: 20 });
  await s.write([{ key: 'ab', value: new Uint8Array(8) }]);
  t.is(s.sizeBytes(), 10);
  await t.throwsAsync(
    s.write([
      { key: 'cd', value: new Uint8Array(4) },
      { key: 'ef', value: new Uint8Array(4) },
    ]),
    { instanceOf: SimStoreFullError },
  );
  t.is(s.sizeBytes(), 10);
  t.is(await s.get('cd'), undefined);
  // replacing a value frees the old size first
  await s.write([{ key: 'ab', value: new Uint8Array(18) }]);
  t.is(s.sizeBytes(), 20);
  await s.write([{ key: 'ab', value: undefined }]);
  t.is(s.sizeBytes(), 0);
});

test('keys(prefix) returns matching keys sorted, after inserts, updates and deletes', async (t) => {
  const s = new SimStore();
  const keys = ['block:0003', 'block:0001', 'head', 'block:0002', 'blocks', 'bloc', 'receipt:0001'];
  await s.write(keys.map((key, i) => ({ key, value: b(i) })));
  t.deepEqual(await s.keys('block:'), ['block:0001', 'block:0002', 'block:0003']);
  t.deepEqual(await s.keys('block'), ['block:0001', 'block:0002', 'block:0003', 'blocks']);
  t.deepEqual(await s.keys(''), [...keys].sort());
  t.deepEqual(await s.keys('zzz'), []);
  await s.write([{ key: 'block:0002', value: undefined }, { key: 'block:0000', value: b(9) }, { key: 'block:0001', value: b(7) }]);
  t.deepEqual(await s.keys('block:'), ['block:0000', 'block:0001', 'block:0003']);
});

test('wipe empties the store; crash keeps every written batch', async (t) => {
  const s = new SimStore();
  await s.write([{ key: 'a', value: b(1) }]);
  void s.write([{ key: 'b', value: b(2) }]); // not awaited: still durable
  s.crash();
  t.is(s.crashes, 1);
  t.deepEqual(await s.get('a'), b(1));
  t.deepEqual(await s.get('b'), b(2));
  s.wipe();
  t.is(s.size(), 0);
  t.is(s.sizeBytes(), 0);
  t.deepEqual(await s.keys(''), []);
});

test('SimStoreDirectory: a restarted node finds its data; wipe erases one node only', async (t) => {
  const dir = new SimStoreDirectory();
  await dir.open('v0').write([{ key: 'head', value: b(1) }]);
  await dir.open('v1').write([{ key: 'head', value: b(2) }]);
  dir.crash('v0');
  const again = dir.open('v0');
  t.is(again, dir.open('v0'));
  t.deepEqual(await again.get('head'), b(1));
  dir.wipe('v0');
  t.is(await dir.open('v0').get('head'), undefined);
  t.deepEqual(await dir.open('v1').get('head'), b(2));
  t.deepEqual(dir.names(), ['v0', 'v1']);
  t.false(dir.has('v2'));
});
