import test from 'ava';
import { LiveClock } from './live-clock.ts';
import { LiveLog, formatFields } from './live-log.ts';
import { LiveRandom } from './live-random.ts';
import { LiveTimers } from './live-timers.ts';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

test('clock follows the wall clock', (t) => {
  const c = new LiveClock();
  const before = Date.now();
  const now = c.nowMs();
  t.true(now >= before && now <= Date.now());
});

test('timers fire once, in delay order, with numeric handles; cancel works; negative delays clamp', async (t) => {
  const timers = new LiveTimers();
  const fired: string[] = [];
  const h1 = timers.setTimer(150, () => void fired.push('150'));
  const h2 = timers.setTimer(-5, () => void fired.push('neg'));
  const h3 = timers.setTimer(10, () => void fired.push('cancelled'));
  let asyncDone = false;
  const h4 = timers.setTimer(15, async () => {
    fired.push('async');
    await sleep(1);
    asyncDone = true;
  });
  t.is(typeof h1, 'number');
  t.is(new Set([h1, h2, h3, h4]).size, 4);
  timers.cancelTimer(h3);
  timers.cancelTimer(h3); // twice is fine
  timers.cancelTimer(9999); // unknown is fine
  t.is(timers.pendingCount(), 3);
  // Generous: a loaded machine may run these late, but never out of delay order.
  for (let i = 0; i < 3000 && (fired.length < 3 || !asyncDone); i++) await sleep(10);
  t.deepEqual(fired, ['neg', 'async', '150']);
  t.true(asyncDone);
  t.is(timers.pendingCount(), 0);
});

test('timer callback failures (sync throw and rejection) go to onError', async (t) => {
  const errors: unknown[] = [];
  const timers = new LiveTimers({ onError: (e) => errors.push(e), unref: true });
  timers.setTimer(0, () => {
    throw new Error('sync');
  });
  timers.setTimer(0, async () => {
    throw new Error('async');
  });
  for (let i = 0; i < 100 && errors.length < 2; i++) await sleep(5);
  t.deepEqual(errors.map((e) => (e as Error).message).sort(), ['async', 'sync']);
  const h = timers.setTimer(1000, () => t.fail());
  t.is(timers.pendingCount(), 1);
  timers.cancelAll();
  t.is(timers.pendingCount(), 0);
  void h;
});

test('random: next in [0,1), int in range and roughly uniform, bad ranges throw', (t) => {
  const r = new LiveRandom();
  for (let i = 0; i < 1000; i++) {
    const x = r.next();
    t.true(x >= 0 && x < 1);
  }
  const counts = [0, 0, 0, 0];
  for (let i = 0; i < 4000; i++) counts[r.int(4)]!++;
  for (const c of counts) t.true(c > 800 && c < 1200, `counts ${counts}`);
  t.is(r.int(1), 0);
  const big = r.int(2 ** 52);
  t.true(Number.isSafeInteger(big) && big >= 0 && big < 2 ** 52);
  t.throws(() => r.int(0), { instanceOf: RangeError });
  t.throws(() => r.int(1.5), { instanceOf: RangeError });
  t.is(r.bytes(16).length, 16);
});

test('log: level filter, name, fields; trace events only at debug', (t) => {
  const lines: string[] = [];
  const log = new LiveLog({ level: 'info', name: 'node0', write: (l) => lines.push(l), nowMs: () => 0 });
  log.log('debug', 'hidden');
  log.log('info', 'imported block', { number: 5, hash: new Uint8Array([0xab, 0xcd]), big: 10n ** 20n, text: 'two words' });
  log.log('error', 'boom');
  log.trace({ kind: 'round-timer-expired', height: 3, round: 1 });
  t.deepEqual(lines, [
    '1970-01-01T00:00:00.000Z INFO  [node0] imported block number=5 hash=0xabcd big=100000000000000000000 text="two words"\n',
    '1970-01-01T00:00:00.000Z ERROR [node0] boom\n',
  ]);
  const dbg: string[] = [];
  const dlog = new LiveLog({ level: 'debug', write: (l) => dbg.push(l), nowMs: () => 0 });
  dlog.trace({ kind: 'reorg', removed: ['0xab'], added: ['0xcd'], removedLogs: 0 });
  t.deepEqual(dbg, ['1970-01-01T00:00:00.000Z DEBUG trace reorg removed=["0xab"] added=["0xcd"] removedLogs=0\n']);
  t.is(formatFields(undefined), '');
});
