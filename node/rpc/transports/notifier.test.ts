import test from 'ava';
import { PassThrough, Writable } from 'node:stream';
import { connectionNotifier, tickBatcher } from './notifier.ts';

test('connectionNotifier: one result object shared by many subscriptions is serialized once, each with its own id', (t) => {
  const sent: string[] = [];
  const errors: unknown[] = [];
  const a = connectionNotifier((s) => sent.push(s), (e) => errors.push(e));
  const b = connectionNotifier((s) => sent.push(s), (e) => errors.push(e));
  const block = { number: '0x1', hash: '0xab' };
  let stringified = 0;
  const counted = { toJSON: () => (stringified++, block) };
  a('0x1', counted);
  b('0x2', counted);
  a('0x3', '0xhash');
  a('0x4', null);
  t.deepEqual(sent, [
    '{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0x1","result":{"number":"0x1","hash":"0xab"}}}',
    '{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0x2","result":{"number":"0x1","hash":"0xab"}}}',
    '{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0x3","result":"0xhash"}}',
    '{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0x4","result":null}}',
  ]);
  t.is(stringified, 1);
  a('0x5', { bad: 1n });
  t.is(errors.length, 1);
  t.is(sent.length, 4);
});

test('tickBatcher: writes made without yielding leave together, in order, and nothing waits past the microtask', async (t) => {
  const writes: string[] = [];
  const sink = new Writable({
    writev(chunks, cb) {
      writes.push(chunks.map((c) => String(c.chunk)).join('|'));
      cb();
    },
    write(chunk, _enc, cb) {
      writes.push(String(chunk));
      cb();
    },
  });
  const batch = tickBatcher(sink);
  for (const m of ['a', 'b', 'c']) {
    batch();
    sink.write(m);
  }
  await Promise.resolve();
  batch();
  sink.write('d');
  await new Promise((r) => setImmediate(r));
  t.deepEqual(writes, ['a|b|c', 'd']);
  const pass = new PassThrough();
  const b2 = tickBatcher(pass);
  b2();
  pass.end('x');
  await Promise.resolve();
  t.is(String(pass.read()), 'x');
});
