import test from 'ava';
import fc from 'fast-check';
import { EventQueue, type SimEvent } from './event-queue.ts';

type Op = { kind: 'push'; at: number } | { kind: 'cancel'; pick: number } | { kind: 'pop' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 0, max: 20 }).map((at) => ({ kind: 'push' as const, at })) },
  { weight: 3, arbitrary: fc.nat().map((pick) => ({ kind: 'cancel' as const, pick })) },
  { weight: 3, arbitrary: fc.constant({ kind: 'pop' as const }) },
);

function event(atMs: number, seq: number): SimEvent {
  return { atMs, seq, fn: () => {}, label: undefined, owner: undefined, cancellable: true, cancelled: false };
}

type Queue = Pick<EventQueue, 'push' | 'pop' | 'markCancelled' | 'size'>;

// The model: a plain list sorted on every pop. Times never go below the last popped time, as the
// kernel clamps schedules to now.
function followsOrder(makeQueue: () => Queue): fc.RunDetails<[Op[]]> {
  return fc.check(
    fc.property(fc.array(opArb, { maxLength: 400 }), (ops) => {
      const q = makeQueue();
      let model: SimEvent[] = [];
      let seq = 0;
      let now = 0;
      for (const op of ops) {
        if (op.kind === 'push') {
          const ev = event(Math.max(now, now + op.at - 5), ++seq);
          q.push(ev);
          model.push(ev);
        } else if (op.kind === 'cancel') {
          if (model.length === 0) continue;
          const ev = model[op.pick % model.length]!;
          q.markCancelled(ev);
          model = model.filter((e) => e !== ev);
        } else {
          model.sort((a, b) => a.atMs - b.atMs || a.seq - b.seq);
          const want = model.shift();
          const got = q.pop();
          if (got !== want) return false;
          if (got) now = got.atMs;
        }
        if (q.size !== model.length) return false;
      }
      return true;
    }),
    { numRuns: 300, seed: 7 },
  );
}

test('property: pops follow (atMs, seq) order under any interleaving of push, cancel and pop', (t) => {
  const r = followsOrder(() => new EventQueue());
  t.false(r.failed, fc.defaultReportMessage(r));
});

test('the property catches a planted bug: same-time events popped newest first', (t) => {
  // A queue that keeps the times right but pops each bucket last-in-first-out.
  const broken = (): Queue => {
    const events: SimEvent[] = [];
    return {
      get size() {
        return events.filter((e) => !e.cancelled).length;
      },
      push: (ev) => void events.push(ev),
      markCancelled: (ev) => void (ev.cancelled = true),
      pop: () => {
        let best = -1;
        events.forEach((e, i) => {
          if (e.cancelled) return;
          if (best < 0 || e.atMs < events[best]!.atMs || (e.atMs === events[best]!.atMs && e.seq > events[best]!.seq)) best = i;
        });
        return best < 0 ? undefined : events.splice(best, 1)[0];
      },
    };
  };
  t.true(followsOrder(broken).failed);
});

test('set-cancel-set churn keeps memory bounded by the live events', (t) => {
  const q = new EventQueue();
  let seq = 0;
  let live = event(1, ++seq);
  q.push(live);
  for (let i = 2; i < 200_000; i++) {
    q.markCancelled(live);
    live = event(i, ++seq);
    q.push(live);
  }
  t.is(q.size, 1);
  t.true(q.bucketCount <= 1);
  t.is(q.pop(), live);
  t.is(q.pop(), undefined);
});

