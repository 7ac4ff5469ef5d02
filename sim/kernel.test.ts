import test from 'ava';
import fc from 'fast-check';
import { SimKernel, SimLimitError, type DrainMode } from './kernel.ts';
import { benchKernel } from './kernel-bench.ts';

const MODES: DrainMode[] = ['tick', 'immediate', 'async'];

test('events run in (time, seq) order; ties in scheduling order', async (t) => {
  const k = new SimKernel({ startTimeMs: 1000 });
  const log: string[] = [];
  k.schedule(1030, () => void log.push('c'));
  k.schedule(1010, () => void log.push('a1'));
  k.schedule(1020, () => void log.push('b'));
  k.schedule(1010, () => void log.push('a2'));
  k.schedule(1010, () => void log.push('a3'));
  await k.runUntil(2000);
  t.deepEqual(log, ['a1', 'a2', 'a3', 'b', 'c']);
  t.is(k.eventsRun, 5);
  t.is(k.nowMs(), 2000);
  t.is(k.clock.nowMs(), 2000);
});

test('a handler sees its own virtual time; same-time events scheduled from a handler run after those already queued', async (t) => {
  const k = new SimKernel({ startTimeMs: 0 });
  const log: string[] = [];
  k.schedule(5, () => {
    log.push(`x@${k.nowMs()}`);
    k.schedule(5, () => void log.push(`z@${k.nowMs()}`));
  });
  k.schedule(5, () => void log.push(`y@${k.nowMs()}`));
  await k.runUntil(100);
  t.deepEqual(log, ['x@5', 'y@5', 'z@5']);
});

test('a time in the past is clamped to now; NaN throws; Infinity never runs', async (t) => {
  const k = new SimKernel({ startTimeMs: 100 });
  let at = -1;
  k.schedule(50, () => {
    at = k.nowMs();
  });
  k.schedule(Number.POSITIVE_INFINITY, () => t.fail());
  t.throws(() => k.schedule(Number.NaN, () => {}), { instanceOf: RangeError });
  await k.runUntil(1e12);
  t.is(at, 100);
  t.is(k.pending(), 1);
});

test('cancel drops an event; cancelling an unknown or already-run id is a no-op', async (t) => {
  const k = new SimKernel({ startTimeMs: 0 });
  const log: number[] = [];
  const a = k.schedule(1, () => void log.push(1));
  const b = k.schedule(2, () => void log.push(2));
  k.schedule(3, () => void log.push(3));
  k.cancel(b);
  k.cancel(b);
  k.cancel(12345);
  await k.runUntil(10);
  k.cancel(a);
  t.deepEqual(log, [1, 3]);
  t.is(k.pending(), 0);
  t.is(k.eventsRun, 2);
});

test('mass cancellation (heap compaction) keeps the order of the survivors', async (t) => {
  const k = new SimKernel({ startTimeMs: 0 });
  const log: number[] = [];
  const ids: number[] = [];
  for (let i = 0; i < 5000; i++) {
    const at = (i * 7919) % 1000;
    ids.push(k.schedule(at, () => void log.push(i)));
  }
  for (let i = 0; i < 5000; i++) if (i % 3 !== 0) k.cancel(ids[i]!);
  t.is(k.pending(), 1667);
  await k.runUntil(1000);
  const expected = [...Array(5000).keys()]
    .filter((i) => i % 3 === 0)
    .sort((x, y) => (x * 7919) % 1000 - (y * 7919) % 1000 || x - y);
  t.deepEqual(log, expected);
});

test('property: execution order is the sorted (time, seq) order of the events not cancelled', async (t) => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.record({ at: fc.integer({ min: 0, max: 50 }), cancel: fc.boolean() }), { maxLength: 200 }),
      async (specs) => {
        const k = new SimKernel({ startTimeMs: 0 });
        const ran: number[] = [];
        const ids = specs.map((s, i) => k.schedule(s.at, () => void ran.push(i)));
        specs.forEach((s, i) => s.cancel && k.cancel(ids[i]!));
        await k.runUntil(100);
        const expected = specs
          .map((s, i) => ({ ...s, i }))
          .filter((s) => !s.cancel)
          .sort((x, y) => x.at - y.at || x.i - y.i)
          .map((s) => s.i);
        return JSON.stringify(ran) === JSON.stringify(expected);
      },
    ),
    { numRuns: 100, seed: 42 },
  );
  t.pass();
});

for (const drain of MODES) {
  test(`[${drain}] an async handler with many awaits completes before the next event starts`, async (t) => {
    const k = new SimKernel({ startTimeMs: 0, drain });
    const log: string[] = [];
    const deep = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i++) await Promise.resolve();
    };
    k.schedule(10, async () => {
      log.push('a:start');
      await deep(100);
      await new Promise<void>((r) => queueMicrotask(r));
      await deep(50);
      log.push(`a:end@${k.nowMs()}`);
    });
    k.schedule(10, () => void log.push('b'));
    k.schedule(11, async () => {
      await null;
      log.push('c');
    });
    await k.runUntil(20);
    t.deepEqual(log, ['a:start', 'a:end@10', 'b', 'c']);
  });
}

for (const drain of ['tick', 'immediate'] as const) {
  test(`[${drain}] un-awaited async work started by a handler (sync or async) finishes at its event's virtual time`, async (t) => {
    const k = new SimKernel({ startTimeMs: 0, drain });
    const log: string[] = [];
    const work = async (name: string): Promise<void> => {
      for (let i = 0; i < 200; i++) await null;
      log.push(`${name}@${k.nowMs()}`);
    };
    k.schedule(1, () => {
      void work('sync-spawned');
    });
    k.schedule(2, async () => {
      void work('async-spawned');
      await null;
    });
    k.schedule(3, () => void log.push('next@3'));
    await k.runUntil(10);
    t.deepEqual(log, ['sync-spawned@1', 'async-spawned@2', 'next@3']);
  });
}

test('[async] dangling microtasks of a synchronous last event are drained before runUntil returns', async (t) => {
  const k = new SimKernel({ startTimeMs: 0, drain: 'async' });
  let done = false;
  k.schedule(1, () => {
    void (async () => {
      for (let i = 0; i < 100; i++) await null;
      done = true;
    })();
  });
  await k.runUntil(5);
  t.true(done);
});

test('runUntil stops at the bound, leaves later events queued, and a later run resumes them', async (t) => {
  const k = new SimKernel({ startTimeMs: 0 });
  const log: number[] = [];
  for (const at of [10, 20, 30, 40]) k.schedule(at, () => void log.push(at));
  await k.runUntil(20);
  t.deepEqual(log, [10, 20]);
  t.is(k.nowMs(), 20);
  t.is(k.nextEventAtMs(), 30);
  await k.runUntil(25);
  t.is(k.nowMs(), 25);
  t.deepEqual(log, [10, 20]);
  await k.runUntil(Number.POSITIVE_INFINITY);
  t.deepEqual(log, [10, 20, 30, 40]);
  t.is(k.nowMs(), 40);
  await k.runUntil(5); // the past: nothing happens, time does not go back
  t.is(k.nowMs(), 40);
});

test('stop() ends the run after the current event; time stays at that event', async (t) => {
  const k = new SimKernel({ startTimeMs: 0 });
  const log: number[] = [];
  k.schedule(1, () => void log.push(1));
  k.schedule(2, async () => {
    await null;
    log.push(2);
    k.stop();
  });
  k.schedule(3, () => void log.push(3));
  await k.runUntil(100);
  t.deepEqual(log, [1, 2]);
  t.is(k.nowMs(), 2);
  await k.runUntil(100);
  t.deepEqual(log, [1, 2, 3]);
});

test('runUntil cannot be re-entered', async (t) => {
  const k = new SimKernel({ startTimeMs: 0 });
  let inner: Promise<void> | undefined;
  k.schedule(1, () => {
    inner = k.runUntil(10);
  });
  await k.runUntil(10);
  await t.throwsAsync(inner!, { message: /already running/ });
});

test('timers: delay from now, negative delay clamped, cancelTimer, per-owner isolation', async (t) => {
  const k = new SimKernel({ startTimeMs: 500 });
  const a = k.timers('a');
  const b = k.timers('b');
  const log: string[] = [];
  a.setTimer(100, () => void log.push(`a100@${k.nowMs()}`));
  a.setTimer(-5, () => void log.push(`a-5@${k.nowMs()}`));
  const h = a.setTimer(50, () => void log.push('cancelled'));
  const hb = b.setTimer(60, () => void log.push(`b60@${k.nowMs()}`));
  a.cancelTimer(hb); // not a's timer: ignored
  a.cancelTimer(h);
  t.throws(() => a.setTimer(Number.NaN, () => {}), { instanceOf: RangeError });
  await k.runUntil(1000);
  t.deepEqual(log, ['a-5@500', 'b60@560', 'a100@600']);
});

test('cancelOwner drops all pending timers of one owner only; the port keeps working', async (t) => {
  const k = new SimKernel({ startTimeMs: 0 });
  const v0 = k.timers('v0');
  const v1 = k.timers('v1');
  const log: string[] = [];
  for (let i = 1; i <= 5; i++) {
    v0.setTimer(i * 10, () => void log.push(`v0-${i}`));
    v1.setTimer(i * 10, () => void log.push(`v1-${i}`));
  }
  k.schedule(25, () => k.cancelOwner('v0'));
  await k.runUntil(30);
  t.is(k.pendingOf('v0'), 0);
  t.is(k.pendingOf('v1'), 2);
  v0.setTimer(1, () => void log.push('v0-new'));
  await k.runUntil(100);
  t.deepEqual(log, ['v0-1', 'v1-1', 'v0-2', 'v1-2', 'v1-3', 'v0-new', 'v1-4', 'v1-5']);
});

test('maxEvents bounds a runaway loop; maxPending bounds the queue', async (t) => {
  const k = new SimKernel({ startTimeMs: 0, maxEvents: 100 });
  const tm = k.timers('loop');
  const loop = (): void => void tm.setTimer(0, loop);
  loop();
  await t.throwsAsync(k.runUntil(10), { instanceOf: SimLimitError });
  t.is(k.eventsRun, 100);
  const k2 = new SimKernel({ startTimeMs: 0, maxPending: 3 });
  for (let i = 0; i < 3; i++) k2.schedule(i, () => {});
  t.throws(() => k2.schedule(9, () => {}), { instanceOf: SimLimitError });
});

test('a throwing or rejecting handler rejects runUntil; the kernel stays usable; onError lets the run continue', async (t) => {
  const k = new SimKernel({ startTimeMs: 0 });
  const log: number[] = [];
  k.schedule(1, () => {
    throw new Error('boom');
  });
  k.schedule(2, () => void log.push(2));
  await t.throwsAsync(k.runUntil(10), { message: 'boom' });
  t.is(k.nowMs(), 1);
  await k.runUntil(10);
  t.deepEqual(log, [2]);

  const errors: string[] = [];
  const k2 = new SimKernel({ startTimeMs: 0, onError: (e, ev) => errors.push(`${(e as Error).message}@${ev.atMs}:${ev.label}`) });
  k2.schedule(1, async () => {
    await null;
    throw new Error('async boom');
  }, 'lbl');
  k2.schedule(2, () => void log.push(3));
  await k2.runUntil(10);
  t.deepEqual(errors, ['async boom@1:lbl']);
  t.deepEqual(log, [2, 3]);
});

test('benchKernel runs and reports a rate', async (t) => {
  const r = await benchKernel(20_000);
  t.is(r.events, 20_000);
  t.true(r.eventsPerSecond > 0);
});

test('posted events (no id) interleave with scheduled ones in (time, seq) order and count as pending', async (t) => {
  const k = new SimKernel({ startTimeMs: 0, maxPending: 3 });
  const log: string[] = [];
  k.post(10, () => void log.push('p1'));
  const id = k.schedule(10, () => void log.push('s1'));
  k.post(5, () => void log.push('p0'));
  t.is(k.pending(), 3);
  t.throws(() => k.post(1, () => {}), { instanceOf: SimLimitError });
  k.cancel(id);
  t.is(k.pending(), 2);
  await k.runUntil(20);
  t.deepEqual(log, ['p0', 'p1']);
  t.is(k.pending(), 0);
});
