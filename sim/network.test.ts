import test from 'ava';
import type { PeerId, Transport, WireMessage } from '../node/runtime/ports.ts';
import { SimKernel } from './kernel.ts';
import { VirtualNetwork, type LatencyModel, type LinkFaults, type VirtualNetworkOptions } from './network.ts';
import { SeededRandom } from './random.ts';
import { TraceRecorder } from './trace.ts';
import type { TraceEvent } from './trace-events.ts';

/** This test's own events: the network does not care what the trace holds. */
const free = <E extends { kind: string }>(e: E): TraceEvent => e as unknown as TraceEvent;

interface Received {
  t: number;
  from: PeerId;
  code: number;
  data: Uint8Array;
}

interface TestNode {
  id: PeerId;
  transport: Transport;
  inbox: Received[];
  peerLog: string[];
}

function world(seed: string | number = 'net', opts: Omit<VirtualNetworkOptions, 'onEvent'> = {}) {
  const kernel = new SimKernel({ startTimeMs: 0 });
  const trace = new TraceRecorder();
  const net = new VirtualNetwork(kernel, new SeededRandom(seed).fork('network'), {
    ...opts,
    onEvent: (e) => trace.record(kernel.nowMs(), null, e),
  });
  const nodes = new Map<PeerId, TestNode>();
  const add = (id: PeerId): TestNode => {
    const transport = net.attach(id);
    const n: TestNode = { id, transport, inbox: [], peerLog: [] };
    transport.setHandlers({
      onMessage: (from, m) => void n.inbox.push({ t: kernel.nowMs(), from, code: m.code, data: m.data }),
      onPeerConnected: (p) => void n.peerLog.push(`+${p}@${kernel.nowMs()}`),
      onPeerDisconnected: (p) => void n.peerLog.push(`-${p}@${kernel.nowMs()}`),
    });
    nodes.set(id, n);
    return n;
  };
  const node = (id: PeerId): TestNode => nodes.get(id)!;
  return { kernel, trace, net, add, node };
}

const msg = (code: number, ...data: number[]): WireMessage => ({ protocol: 'istanbul', code, data: Uint8Array.from(data) });

function invariant(net: VirtualNetwork): boolean {
  const s = net.stats();
  const p = net.pending();
  return s.sent + s.duplicated === s.delivered + s.dropped + p.inFlight + p.held;
}

test('fixed latency: delivered at send time + latency, in send order, with the bytes sent', async (t) => {
  const w = world('a', { latency: { kind: 'fixed', ms: 25 } });
  const a = w.add('a');
  const b = w.add('b');
  w.kernel.schedule(100, () => {
    for (let i = 0; i < 5; i++) a.transport.send('b', msg(i, i, 0xaa));
  });
  await w.kernel.runUntil(1000);
  t.deepEqual(
    b.inbox.map((r) => [r.t, r.from, r.code]),
    [0, 1, 2, 3, 4].map((i) => [125, 'a', i]),
  );
  t.deepEqual(b.inbox[3]!.data, Uint8Array.from([3, 0xaa]));
  t.deepEqual(w.net.stats(), { sent: 5, delivered: 5, dropped: 0, duplicated: 0 });
});

test('bytes are copied: mutating after send or after receipt changes nothing elsewhere', async (t) => {
  const w = world('copy', { faults: { duplicate: 1 } });
  const a = w.add('a');
  const b = w.add('b');
  const m = msg(1, 1, 2, 3);
  a.transport.send('b', m);
  m.data[0] = 99;
  await w.kernel.runUntil(1000);
  t.is(b.inbox.length, 2);
  b.inbox[0]!.data[1] = 77;
  t.deepEqual(b.inbox[1]!.data, Uint8Array.from([1, 2, 3]));
});

test('uniform and normal latencies stay in bounds, are whole milliseconds, and are seed-determined', async (t) => {
  const run = async (model: LatencyModel, seed: string) => {
    const w = world(seed, { latency: model });
    const a = w.add('a');
    const b = w.add('b');
    for (let i = 0; i < 300; i++) a.transport.send('b', msg(i));
    await w.kernel.runUntil(100_000);
    return b.inbox.map((r) => r.t);
  };
  const u = await run({ kind: 'uniform', minMs: 5, maxMs: 40 }, 's1');
  t.is(u.length, 300);
  t.true(u.every((x) => Number.isInteger(x) && x >= 5 && x <= 40));
  t.true(new Set(u).size > 20);
  t.deepEqual(await run({ kind: 'uniform', minMs: 5, maxMs: 40 }, 's1'), u);
  t.notDeepEqual(await run({ kind: 'uniform', minMs: 5, maxMs: 40 }, 's2'), u);
  const n = await run({ kind: 'normal', meanMs: 50, sdMs: 30, minMs: 10 }, 's1');
  t.true(n.every((x) => Number.isInteger(x) && x >= 10));
  const mean = n.reduce((s, x) => s + x, 0) / n.length;
  t.true(mean > 40 && mean < 65, `mean ${mean}`);
  t.throws(() => world().net.setLatency({ kind: 'uniform', minMs: 10, maxMs: 5 }), { instanceOf: RangeError });
  t.throws(() => world().net.setLatency({ kind: 'fixed', ms: -1 }), { instanceOf: RangeError });
});

test('per-link latency: pair beats from beats to beats default', async (t) => {
  const w = world('lat', { latency: { kind: 'fixed', ms: 10 } });
  for (const id of ['a', 'b', 'c']) w.add(id);
  w.net.setLatency({ kind: 'fixed', ms: 40 }, undefined, 'c');
  w.net.setLatency({ kind: 'fixed', ms: 30 }, 'a');
  w.net.setLatency({ kind: 'fixed', ms: 20 }, 'a', 'b');
  w.node('a').transport.send('b', msg(1));
  w.node('a').transport.send('c', msg(2));
  w.node('b').transport.send('c', msg(3));
  w.node('b').transport.send('a', msg(4));
  await w.kernel.runUntil(1000);
  t.deepEqual(w.node('b').inbox.map((r) => r.t), [20]);
  t.deepEqual(w.node('c').inbox.map((r) => [r.code, r.t]), [[2, 30], [3, 40]]);
  t.deepEqual(w.node('a').inbox.map((r) => r.t), [10]);
  w.net.clearLinkOverrides();
  w.node('a').transport.send('b', msg(5));
  await w.kernel.runUntil(2000);
  t.is(w.node('b').inbox[1]!.t, 1010);
});

test('loss drops about the requested share and counts it; loss 1 drops all', async (t) => {
  const w = world('loss', { faults: { loss: 0.3 } });
  const a = w.add('a');
  const b = w.add('b');
  for (let i = 0; i < 2000; i++) a.transport.send('b', msg(i));
  await w.kernel.runUntil(1000);
  const s = w.net.stats();
  t.is(s.sent, 2000);
  t.is(s.delivered + s.dropped, 2000);
  t.true(s.dropped > 500 && s.dropped < 700, `dropped ${s.dropped}`);
  t.is(b.inbox.length, s.delivered);
  t.deepEqual(w.net.dropsByReason(), { loss: s.dropped });
  w.net.setLinkFaults({ loss: 1 }, 'a', 'b');
  a.transport.send('b', msg(1));
  await w.kernel.runUntil(2000);
  t.is(b.inbox.length, s.delivered);
  t.throws(() => w.net.setLinkFaults({ loss: 1.5 }), { instanceOf: RangeError });
});

test('duplication delivers a second copy and counts it', async (t) => {
  const w = world('dup', { faults: { duplicate: 1 } });
  const a = w.add('a');
  const b = w.add('b');
  for (let i = 0; i < 10; i++) a.transport.send('b', msg(i));
  await w.kernel.runUntil(1000);
  t.is(b.inbox.length, 20);
  t.deepEqual(w.net.stats(), { sent: 10, delivered: 20, dropped: 0, duplicated: 10 });
  t.deepEqual(
    b.inbox.map((r) => r.code).sort((x, y) => x - y),
    [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9],
  );
});

test('reordering adds delay within the window and changes arrival order', async (t) => {
  const w = world('reorder', { latency: { kind: 'fixed', ms: 10 }, faults: { reorder: 0.5, reorderWindowMs: 100 } });
  const a = w.add('a');
  const b = w.add('b');
  for (let i = 0; i < 200; i++) a.transport.send('b', msg(i));
  await w.kernel.runUntil(1000);
  t.is(b.inbox.length, 200);
  t.true(b.inbox.every((r) => r.t >= 10 && r.t <= 110));
  const codes = b.inbox.map((r) => r.code);
  t.notDeepEqual(codes, [...codes].sort((x, y) => x - y));
});

test('partition: peers() and callbacks follow the groups; unlisted nodes form one group; heal restores', async (t) => {
  const w = world('part');
  for (const id of ['v0', 'v1', 'v2', 'v3', 'v4']) w.add(id);
  await w.kernel.runUntil(1);
  t.deepEqual(w.node('v0').transport.peers(), ['v1', 'v2', 'v3', 'v4']);
  t.deepEqual(w.node('v0').peerLog, ['+v1@0', '+v2@0', '+v3@0', '+v4@0']);
  w.kernel.schedule(100, () => w.net.partition([['v0', 'v1'], ['v2']]));
  await w.kernel.runUntil(150);
  t.deepEqual(w.node('v0').transport.peers(), ['v1']);
  t.deepEqual(w.node('v2').transport.peers(), []);
  t.deepEqual(w.node('v3').transport.peers(), ['v4']);
  t.deepEqual(w.node('v0').peerLog.slice(4), ['-v2@100', '-v3@100', '-v4@100']);
  w.node('v0').transport.send('v2', msg(1));
  w.node('v0').transport.send('v1', msg(2));
  w.node('v3').transport.send('v4', msg(3));
  await w.kernel.runUntil(200);
  t.deepEqual(w.node('v2').inbox, []);
  t.is(w.node('v1').inbox.length, 1);
  t.is(w.node('v4').inbox.length, 1);
  t.deepEqual(w.net.dropsByReason(), { partitioned: 1 });
  w.net.heal();
  t.deepEqual(w.node('v2').transport.peers(), ['v0', 'v1', 'v3', 'v4']);
  await w.kernel.runUntil(300);
  t.deepEqual(w.node('v0').peerLog.slice(7), ['+v2@200', '+v3@200', '+v4@200']);
  t.throws(() => w.net.partition([['v0'], ['v0', 'v1']]), { message: /more than one group/ });
});

test('messages in flight across a new cut are dropped on arrival', async (t) => {
  const w = world('cut', { latency: { kind: 'fixed', ms: 50 } });
  const a = w.add('a');
  const b = w.add('b');
  a.transport.send('b', msg(1));
  w.kernel.schedule(20, () => w.net.partition([['a'], ['b']]));
  await w.kernel.runUntil(100);
  t.deepEqual(b.inbox, []);
  t.deepEqual(w.net.dropsByReason(), { partitioned: 1 });
  t.true(invariant(w.net));
});

test('down nodes: sends to and from them are dropped, peers are told, restart is a new incarnation', async (t) => {
  const w = world('crash', { latency: { kind: 'fixed', ms: 30 } });
  const a = w.add('a');
  const b = w.add('b');
  const oldB = b.transport;
  await w.kernel.runUntil(1);
  b.transport.send('a', msg(1)); // in flight when b crashes
  w.kernel.schedule(10, () => w.net.setUp('b', false));
  await w.kernel.runUntil(50);
  t.deepEqual(a.inbox, []);
  t.deepEqual(a.transport.peers(), []);
  t.deepEqual(oldB.peers(), []);
  a.transport.send('b', msg(2));
  oldB.send('a', msg(3));
  t.deepEqual(a.peerLog, ['+b@0', '-b@10']);
  t.deepEqual(b.peerLog, ['+a@0'], 'a crashed node gets no callbacks');
  // restart: new transport; the old one stays inert
  w.kernel.schedule(100, () => {
    const nb = w.add('b');
    t.not(nb.transport, oldB);
  });
  await w.kernel.runUntil(101);
  oldB.send('a', msg(4));
  w.node('b').transport.send('a', msg(5));
  t.deepEqual(w.node('b').transport.peers(), ['a']);
  await w.kernel.runUntil(200);
  t.deepEqual(a.inbox.map((r) => r.code), [5]);
  t.deepEqual(a.peerLog, ['+b@0', '-b@10', '+b@100']);
  t.deepEqual(w.node('b').peerLog, ['+a@100']);
  t.deepEqual(w.net.dropsByReason(), { 'peer-down': 1, 'sender-down': 2, 'stale-transport': 1 });
  t.true(invariant(w.net));
});

test('a message in flight to an incarnation that restarted is dropped', async (t) => {
  const w = world('restart', { latency: { kind: 'fixed', ms: 30 } });
  const a = w.add('a');
  w.add('b');
  a.transport.send('b', msg(1));
  w.kernel.schedule(10, () => {
    w.net.setUp('b', false);
    w.add('b');
  });
  await w.kernel.runUntil(100);
  t.deepEqual(w.node('b').inbox, []);
  t.deepEqual(w.net.dropsByReason(), { 'peer-restarted': 1 });
  // a saw b go and come back in the same instant
  t.deepEqual(a.peerLog, ['+b@0', '-b@10', '+b@10']);
});

test('clog holds messages (sent and in flight) and unclog releases them in order', async (t) => {
  const w = world('clog', { latency: { kind: 'fixed', ms: 20 } });
  const a = w.add('a');
  const b = w.add('b');
  a.transport.send('b', msg(0)); // in flight, arrives at 20 while clogged
  w.kernel.schedule(5, () => {
    w.net.clog('a', 'b');
    a.transport.send('b', msg(1));
    a.transport.send('b', msg(2));
    b.transport.send('a', msg(9)); // the other direction is open
  });
  w.kernel.schedule(500, () => w.net.unclog('a', 'b'));
  await w.kernel.runUntil(400);
  t.deepEqual(b.inbox, []);
  t.is(a.inbox.length, 1);
  t.deepEqual(w.net.pending(), { inFlight: 0, held: 3 });
  t.deepEqual(a.transport.peers(), ['b'], 'a clogged link is still connected');
  await w.kernel.runUntil(1000);
  t.deepEqual(b.inbox.map((r) => [r.code, r.t]), [[1, 520], [2, 520], [0, 520]]);
  t.true(invariant(w.net));
});

test('faults.clogged works like clog; setting faults without it releases', async (t) => {
  const w = world('clog2');
  const a = w.add('a');
  const b = w.add('b');
  w.net.setLinkFaults({ clogged: true }, 'a');
  a.transport.send('b', msg(1));
  await w.kernel.runUntil(100);
  t.deepEqual(b.inbox, []);
  w.net.setLinkFaults({}, 'a');
  await w.kernel.runUntil(200);
  t.deepEqual(b.inbox.map((r) => r.t), [110]);
});

test('bounds: in-flight + held per link, and message size', async (t) => {
  const w = world('bounds', { maxInFlightPerLink: 5, maxMessageBytes: 4 });
  const a = w.add('a');
  const b = w.add('b');
  for (let i = 0; i < 8; i++) a.transport.send('b', msg(i));
  a.transport.send('b', msg(99, 1, 2, 3, 4, 5));
  await w.kernel.runUntil(100);
  t.deepEqual(b.inbox.map((r) => r.code), [0, 1, 2, 3, 4]);
  w.net.clog('a', 'b');
  for (let i = 0; i < 8; i++) a.transport.send('b', msg(i));
  t.deepEqual(w.net.pending(), { inFlight: 0, held: 5 });
  t.deepEqual(w.net.dropsByReason(), { overflow: 6, 'too-large': 1 });
  t.true(invariant(w.net));
});

test('unknown peers and self-sends are dropped; messages before handlers are dropped', async (t) => {
  const w = world('misc');
  const a = w.add('a');
  a.transport.send('zzz', msg(1));
  a.transport.send('a', msg(2));
  w.net.attach('quiet'); // never sets handlers
  a.transport.send('quiet', msg(3));
  await w.kernel.runUntil(100);
  t.deepEqual(w.net.dropsByReason(), { 'no-handler': 1, 'unknown-peer': 2 });
  t.throws(() => w.net.setUp('nobody', false));
  t.throws(() => a.transport.send('quiet', { protocol: 'eth', code: 1, data: 'x' as unknown as Uint8Array }), { instanceOf: TypeError });
});

async function chaos(seed: string, tweak?: (net: VirtualNetwork) => void): Promise<{ hash: string; stats: string }> {
  const w = world(seed, { latency: { kind: 'normal', meanMs: 40, sdMs: 20, minMs: 2 } });
  const faults: LinkFaults = { loss: 0.05, duplicate: 0.05, reorder: 0.2, reorderWindowMs: 30 };
  w.net.setLinkFaults(faults);
  tweak?.(w.net);
  const ids = ['v0', 'v1', 'v2', 'v3'];
  const rnd = new SeededRandom(seed).fork('traffic');
  for (const id of ids) {
    const n = w.add(id);
    n.transport.setHandlers({
      onMessage: async (from, m) => {
        await null;
        w.trace.record(w.kernel.nowMs(), id, free({ kind: 'got', from, code: m.code, data: m.data }));
        if (m.code < 3) for (const p of n.transport.peers()) n.transport.send(p, { protocol: 'istanbul', code: m.code + 1, data: m.data });
      },
      onPeerConnected: (p) => w.trace.record(w.kernel.nowMs(), id, free({ kind: 'up', peer: p })),
      onPeerDisconnected: (p) => w.trace.record(w.kernel.nowMs(), id, free({ kind: 'down', peer: p })),
    });
  }
  for (let i = 0; i < 20; i++) {
    w.kernel.schedule(i * 50, () => {
      const from = rnd.pick(ids);
      for (const p of w.node(from).transport.peers()) w.node(from).transport.send(p, { protocol: 'istanbul', code: 0, data: rnd.bytes(8) });
    });
  }
  w.kernel.schedule(300, () => w.net.partition([['v0', 'v1']]));
  w.kernel.schedule(400, () => w.net.clog('v2', 'v3'));
  w.kernel.schedule(500, () => w.net.setUp('v1', false));
  w.kernel.schedule(650, () => w.net.heal());
  w.kernel.schedule(700, () => w.net.unclog('v2', 'v3'));
  w.kernel.schedule(800, () => w.net.setUp('v1', true));
  await w.kernel.runUntil(3000);
  t_invariant(w.net);
  return { hash: w.trace.hash(), stats: JSON.stringify(w.net.stats()) };
}

function t_invariant(net: VirtualNetwork): void {
  if (!invariant(net)) throw new Error(`accounting broken: ${JSON.stringify(net.stats())} ${JSON.stringify(net.pending())}`);
}

test('determinism: the same seed gives the same trace hash; another seed or setting does not', async (t) => {
  const a = await chaos('seed-A');
  const b = await chaos('seed-A');
  t.is(a.hash, b.hash);
  t.is(a.stats, b.stats);
  const c = await chaos('seed-B');
  t.not(c.hash, a.hash);
  const d = await chaos('seed-A', (net) => net.setLatency({ kind: 'fixed', ms: 41 }, 'v0', 'v2'));
  t.not(d.hash, a.hash);
  const s = JSON.parse(a.stats) as { dropped: number; duplicated: number; delivered: number };
  t.true(s.dropped > 0 && s.duplicated > 0 && s.delivered > 100, a.stats);
});

test('reportTraffic false: onEvent hears of drops only', async (t) => {
  const kernel = new SimKernel({ startTimeMs: 0 });
  const heard: string[] = [];
  const net = new VirtualNetwork(kernel, new SeededRandom(1), { reportTraffic: false, onEvent: (e) => void heard.push(e.kind) });
  const a = net.attach('a');
  const b = net.attach('b');
  b.setHandlers({ onMessage: () => {}, onPeerConnected: () => {}, onPeerDisconnected: () => {} });
  a.send('b', msg(1, 1));
  a.send('nobody', msg(1, 2));
  await kernel.runUntil(100);
  t.deepEqual(heard, ['msg-dropped']);
  t.is(net.stats().delivered, 1);
});
