import test from 'ava';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from '../node/crypto/bytes.ts';
import { SimKernel } from './kernel.ts';
import { TraceRecorder, encodeTraceLine, parseTraceJsonl, readTraceJsonl, simLog } from './trace.ts';
import type { TraceEvent } from './trace-events.ts';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
/** The recorder's format does not depend on the schema: these tests use events of their own. */
const free = <E extends { kind: string }>(e: E): TraceEvent => e as unknown as TraceEvent;

test('line format: t, node, kind first, then fields in the order given; bigint, bytes, nested values', (t) => {
  const line = encodeTraceLine(1500, 'v0', {
    kind: 'msg-sent',
    z: 1,
    a: 'x"y',
    big: 12345678901234567890n,
    data: Uint8Array.from([0xde, 0xad]),
    nested: { n: 2n, b: Uint8Array.from([1]), list: [3n, null, 'q'] },
    skipped: undefined,
    nan: Number.NaN,
    flag: false,
  });
  t.is(
    line,
    '{"t":1500,"node":"v0","kind":"msg-sent","z":1,"a":"x\\"y","big":"12345678901234567890","data":"0xdead","nested":{"n":"2","b":"0x01","list":["3",null,"q"]},"nan":null,"flag":false}',
  );
  t.is(encodeTraceLine(0, null, { x: 1, kind: 'k' }), '{"t":0,"node":null,"kind":"k","x":1}');
  t.throws(() => encodeTraceLine(0, 'v0', { kind: 'k', node: 'v1' }), { message: /reserves/ });
  t.throws(() => encodeTraceLine(0, 'v0', { kind: 'k', t: 1 }), { message: /reserves/ });
  t.notThrows(() => JSON.parse(line));
});

test('hash() is keccak-256 of the JSONL bytes, stable, and resumable', (t) => {
  const mk = (): TraceRecorder => {
    const r = new TraceRecorder();
    r.record(0, null, free({ kind: 'start', seed: 'abc' }));
    r.record(10, 'v0', free({ kind: 'round', height: 1n, round: 0 }));
    return r;
  };
  const r = mk();
  const text = r.lines().map((l) => l + '\n').join('');
  t.is(r.hash(), bytesToHex(keccak_256(utf8(text))));
  t.is(r.hash(), mk().hash());
  t.is(r.count(), 2);
  // hashing midway does not disturb the running hash
  r.record(20, 'v1', free({ kind: 'commit', hash: Uint8Array.from([1, 2]) }));
  const r2 = mk();
  r2.record(20, 'v1', free({ kind: 'commit', hash: Uint8Array.from([1, 2]) }));
  t.is(r.hash(), r2.hash());
  t.is(new TraceRecorder().hash(), bytesToHex(keccak_256(new Uint8Array(0))));
});

test('the hash changes when one field, the time, the node or the order changes', (t) => {
  const h = (events: Array<[number, string | null, Record<string, unknown>]>): string => {
    const r = new TraceRecorder();
    for (const [tm, node, e] of events) r.record(tm, node, free({ kind: 'e', ...e }));
    return r.hash();
  };
  const base = h([[1, 'v0', { a: 1, b: 2 }], [2, 'v1', { a: 3 }]]);
  t.is(h([[1, 'v0', { a: 1, b: 2 }], [2, 'v1', { a: 3 }]]), base);
  t.not(h([[1, 'v0', { a: 1, b: 2 }], [2, 'v1', { a: 4 }]]), base);
  t.not(h([[1, 'v0', { a: 1, b: 2 }], [3, 'v1', { a: 3 }]]), base);
  t.not(h([[1, 'v0', { a: 1, b: 2 }], [2, 'v2', { a: 3 }]]), base);
  t.not(h([[1, 'v0', { b: 2, a: 1 }], [2, 'v1', { a: 3 }]]), base);
  t.not(h([[2, 'v1', { a: 3 }], [1, 'v0', { a: 1, b: 2 }]]), base);
});

test('batched hashing over many lines equals a one-shot hash', (t) => {
  const r = new TraceRecorder();
  for (let i = 0; i < 5000; i++) r.record(i, `v${i % 4}`, free({ kind: 'tick', i, pad: 'x'.repeat(i % 50) }));
  const text = r.lines().join('\n') + '\n';
  t.is(r.hash(), bytesToHex(keccak_256(utf8(text))));
});

test('maxEvents bounds what is kept but every event is hashed; keepEvents false keeps nothing', (t) => {
  const full = new TraceRecorder();
  const bounded = new TraceRecorder({ maxEvents: 3 });
  const none = new TraceRecorder({ keepEvents: false });
  for (let i = 0; i < 10; i++) for (const r of [full, bounded, none]) r.record(i, 'v0', free({ kind: 'x', i }));
  t.is(bounded.lines().length, 3);
  t.is(bounded.count(), 10);
  t.true(bounded.truncated());
  t.false(full.truncated());
  t.is(bounded.hash(), full.hash());
  t.is(none.lines().length, 0);
  t.is(none.hash(), full.hash());
});

test('writeJsonl / readTraceJsonl round trip; the file hashes to hash()', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'trace-'));
  try {
    const r = new TraceRecorder();
    r.record(0, null, free({ kind: 'start' }));
    r.record(5.5, 'v0', free({ kind: 'msg', from: 'v0', to: 'v1', data: Uint8Array.from([0xff]), value: 10n }));
    const path = join(dir, 't.jsonl');
    r.writeJsonl(path);
    t.is(bytesToHex(keccak_256(readFileSync(path))), r.hash());
    const back = readTraceJsonl(path);
    t.deepEqual(back, [
      { t: 0, node: null, kind: 'start' },
      { t: 5.5, node: 'v0', kind: 'msg', from: 'v0', to: 'v1', data: '0xff', value: '10' },
    ]);
    t.throws(() => parseTraceJsonl('{"t":0,"node":null,"kind":"a"}\n{"t":"x","node":null,"kind":"b"}\n'), { message: /line 2/ });
    t.throws(() => parseTraceJsonl('{not json'), { message: /line 1/ });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('simLog: trace() records at virtual time; log() records warn and error only by default', async (t) => {
  const k = new SimKernel({ startTimeMs: 1000 });
  const r = new TraceRecorder();
  const log = simLog(r, k, 'v2');
  log.trace({ kind: 'round-timer-expired', height: 1, round: 0 });
  log.log('debug', 'noise');
  log.log('info', 'noise');
  k.schedule(1250, () => log.log('warn', 'late', { by: 5n }));
  await k.runUntil(2000);
  log.log('error', 'bad');
  t.deepEqual(r.lines(), [
    '{"t":1000,"node":"v2","kind":"round-timer-expired","height":1,"round":0}',
    '{"t":1250,"node":"v2","kind":"log","level":"warn","message":"late","fields":{"by":"5"}}',
    '{"t":2000,"node":"v2","kind":"log","level":"error","message":"bad"}',
  ]);
  const quiet = new TraceRecorder();
  const q = simLog(quiet, k, 'v0', { recordLevel: 'none' });
  q.log('error', 'x');
  t.is(quiet.count(), 0);
  const all = new TraceRecorder();
  simLog(all, k, 'v0', { recordLevel: 'debug' }).log('debug', 'x');
  t.is(all.count(), 1);
});

test('subscribe sees events as they are recorded', (t) => {
  const r = new TraceRecorder();
  const seen: string[] = [];
  const off = r.subscribe((e) => seen.push(`${e.t}:${e.node}:${e.kind}`));
  r.record(1, 'v0', free({ kind: 'a' }));
  off();
  r.record(2, 'v0', free({ kind: 'b' }));
  t.deepEqual(seen, ['1:v0:a']);
});

test('native and noble hashers agree (incl. non-ASCII text and mid-way hashes)', (t) => {
  const auto = new TraceRecorder();
  const noble = new TraceRecorder({ hasher: 'noble' });
  t.is(noble.hasherKind(), 'noble');
  t.log(`default hasher: ${auto.hasherKind()}`);
  for (let i = 0; i < 3000; i++) {
    for (const r of [auto, noble]) r.record(i, `v${i % 3}`, free({ kind: 'x', s: `é✓\u{1F600}${i}`, lone: '\ud800', b: BigInt(i) * 10n ** 20n }));
    if (i % 1000 === 7) t.is(auto.hash(), noble.hash());
  }
  t.is(auto.hash(), noble.hash());
  t.is(auto.hash(), bytesToHex(keccak_256(utf8(auto.lines().join('\n') + '\n'))));
});
