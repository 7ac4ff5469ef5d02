import test from 'ava';
import type { PeerId, TransportHandlers, WireMessage } from './ports.ts';
import { LoopbackNetwork, type LoopbackTransport } from './live-loopback-network.ts';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const msg = (n: number): WireMessage => ({ protocol: 'istanbul', code: 0x12, data: new Uint8Array([n & 255, n >> 8]) });
const num = (m: WireMessage): number => m.data[0]! | (m.data[1]! << 8);

interface Recorder {
  log: string[];
  handlers: TransportHandlers;
}

function recorder(opts: { slowMs?: number } = {}): Recorder {
  const log: string[] = [];
  return {
    log,
    handlers: {
      onMessage: async (from, m) => {
        log.push(`msg ${from} ${num(m)}`);
        if (opts.slowMs) await sleep(opts.slowMs);
      },
      onPeerConnected: (p) => void log.push(`+${p}`),
      onPeerDisconnected: (p) => void log.push(`-${p}`),
    },
  };
}

async function until(cond: () => boolean, what: string, maxMs = 5000): Promise<void> {
  for (let waited = 0; !cond(); waited += 5) {
    if (waited > maxMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

test('full mesh, peers() sorted, connect callbacks, async FIFO delivery per link', async (t) => {
  const net = new LoopbackNetwork();
  const ids = ['n2', 'n0', 'n1'];
  const tr = new Map<PeerId, LoopbackTransport>();
  const rec = new Map<PeerId, Recorder>();
  for (const id of ids) {
    const transport = net.attach(id);
    const r = recorder();
    transport.setHandlers(r.handlers);
    tr.set(id, transport);
    rec.set(id, r);
  }
  t.deepEqual(tr.get('n0')!.peers(), ['n1', 'n2']);
  t.deepEqual(tr.get('n2')!.peers(), ['n0', 'n1']);
  t.deepEqual(net.nodes(), ['n0', 'n1', 'n2']);
  // asynchronous: nothing delivered inside send
  for (let i = 0; i < 500; i++) tr.get('n1')!.send('n0', msg(i));
  for (let i = 0; i < 500; i++) tr.get('n2')!.send('n0', msg(1000 + i));
  t.false(rec.get('n0')!.log.some((l) => l.startsWith('msg')));
  await until(() => net.pendingEvents() === 0, 'delivery');
  const n0 = rec.get('n0')!.log;
  t.deepEqual(n0.slice(0, 2), ['+n2', '+n1']); // n2 was attached before n0, n1 after
  const from1 = n0.filter((l) => l.startsWith('msg n1')).map((l) => Number(l.split(' ')[2]));
  const from2 = n0.filter((l) => l.startsWith('msg n2')).map((l) => Number(l.split(' ')[2]));
  t.deepEqual(from1, [...Array(500).keys()]);
  t.deepEqual(from2, [...Array(500).keys()].map((i) => 1000 + i));
  t.deepEqual(net.stats(), { sent: 1000, delivered: 1000, dropped: 0 });
  net.close();
});

test('a peer connects before its first message; handlers set late still get everything in order', async (t) => {
  const net = new LoopbackNetwork();
  const a = net.attach('a');
  const ra = recorder();
  a.setHandlers(ra.handlers);
  const b = net.attach('b');
  b.send('a', msg(1));
  b.send('a', msg(2));
  a.send('b', msg(3)); // b has no handlers yet: waits
  await sleep(20);
  const rb = recorder();
  b.setHandlers(rb.handlers);
  await until(() => net.pendingEvents() === 0, 'delivery');
  t.deepEqual(ra.log, ['+b', 'msg b 1', 'msg b 2']);
  t.deepEqual(rb.log, ['+a', 'msg a 3']);
  net.close();
});

test('handlers run one event at a time per node (returned promises awaited)', async (t) => {
  const net = new LoopbackNetwork();
  const a = net.attach('a');
  const b = net.attach('b');
  let active = 0;
  let maxActive = 0;
  const got: number[] = [];
  a.setHandlers({
    onMessage: async (_f, m) => {
      active++;
      maxActive = Math.max(maxActive, active);
      await sleep(1);
      got.push(num(m));
      active--;
    },
    onPeerConnected: () => {},
    onPeerDisconnected: () => {},
  });
  b.setHandlers(recorder().handlers);
  for (let i = 0; i < 20; i++) b.send('a', msg(i));
  await until(() => got.length === 20, 'slow delivery');
  t.is(maxActive, 1);
  t.deepEqual(got, [...Array(20).keys()]);
  net.close();
});

test('disconnect / connect: callbacks on both sides, queued messages of the old link dropped, sends dropped while cut', async (t) => {
  const events: string[] = [];
  const net = new LoopbackNetwork({ onEvent: (e) => events.push(`${e.kind}`) });
  const a = net.attach('a');
  const b = net.attach('b');
  const ra = recorder();
  const rb = recorder();
  a.setHandlers(ra.handlers);
  b.setHandlers(rb.handlers);
  await until(() => net.pendingEvents() === 0, 'connect');
  b.send('a', msg(1)); // queued, then the link goes down before delivery
  net.disconnect('a', 'b');
  t.deepEqual(a.peers(), []);
  t.false(net.isConnected('a', 'b'));
  b.send('a', msg(2)); // dropped: not connected
  net.connect('b', 'a');
  t.deepEqual(a.peers(), ['b']);
  b.send('a', msg(3));
  await until(() => net.pendingEvents() === 0, 'reconnect');
  t.deepEqual(ra.log, ['+b', '-b', '+b', 'msg b 3']);
  t.deepEqual(rb.log, ['+a', '-a', '+a']);
  t.deepEqual(net.dropsByReason(), { 'link-down': 1, 'not-connected': 1 });
  t.true(events.includes('msg-dropped') && events.includes('peer-disconnected'));
  net.close();
});

test('detach: peers see the node leave, its transport goes inert; re-attach works', async (t) => {
  const net = new LoopbackNetwork();
  const a = net.attach('a');
  const b = net.attach('b');
  const c = net.attach('c');
  const ra = recorder();
  const rc = recorder();
  a.setHandlers(ra.handlers);
  b.setHandlers(recorder().handlers);
  c.setHandlers(rc.handlers);
  await until(() => net.pendingEvents() === 0, 'connect');
  b.close();
  t.deepEqual(b.peers(), []);
  t.deepEqual(a.peers(), ['c']);
  b.send('a', msg(9)); // stale
  t.throws(() => net.attach('a'), { message: /already attached/ });
  const b2 = net.attach('b');
  b2.setHandlers(recorder().handlers);
  b2.send('a', msg(10));
  await until(() => net.pendingEvents() === 0, 'reattach');
  t.deepEqual(ra.log, ['+b', '+c', '-b', '+b', 'msg b 10']);
  t.deepEqual(rc.log, ['+a', '+b', '-b', '+b']);
  t.is(net.dropsByReason()['stale-transport'], 1);
  net.close();
  t.throws(() => net.attach('z'));
});

test('peerForAddress: registered address of a connected peer, case-insensitive, never self', async (t) => {
  const net = new LoopbackNetwork();
  const a = net.attach('a', { address: '0xAAAA' });
  const b = net.attach('b');
  net.setAddress('b', '0xBbBb');
  t.is(a.peerForAddress('0xbbbb'), 'b');
  t.is(b.peerForAddress('0xAAAA'), 'a');
  t.is(a.peerForAddress('0xaaaa'), undefined);
  t.is(a.peerForAddress('0xcccc'), undefined);
  net.disconnect('a', 'b');
  t.is(a.peerForAddress('0xbbbb'), undefined);
  net.close();
});

test('bounded queues: per-link overflow and too-large are dropped; handler errors do not stop delivery', async (t) => {
  const errors: string[] = [];
  const net = new LoopbackNetwork({ maxQueuedPerLink: 10, maxMessageBytes: 4, onError: (e, c) => errors.push(`${c.node}:${c.event}:${(e as Error).message}`) });
  const a = net.attach('a');
  const b = net.attach('b');
  const got: number[] = [];
  b.setHandlers(recorder().handlers);
  for (let i = 0; i < 15; i++) b.send('a', msg(i)); // a has no handlers yet: 10 queue, 5 overflow
  b.send('a', { protocol: 'eth', code: 1, data: new Uint8Array(5) });
  a.setHandlers({
    onMessage: (_f, m) => {
      got.push(num(m));
      if (num(m) === 3) throw new Error('bad message');
    },
    onPeerConnected: () => {},
    onPeerDisconnected: () => {},
  });
  await until(() => net.pendingEvents() === 0, 'delivery');
  t.deepEqual(got, [...Array(10).keys()]);
  t.deepEqual(net.dropsByReason(), { overflow: 5, 'too-large': 1 });
  t.deepEqual(errors, ['a:onMessage:bad message']);
  t.throws(() => b.send('a', { protocol: 'eth', code: 1, data: 'x' } as unknown as WireMessage), { instanceOf: TypeError });
  net.close();
});

test('bytes are copied at send', async (t) => {
  const net = new LoopbackNetwork();
  const a = net.attach('a');
  const b = net.attach('b');
  let received: Uint8Array | undefined;
  a.setHandlers({ onMessage: (_f, m) => void (received = m.data), onPeerConnected: () => {}, onPeerDisconnected: () => {} });
  b.setHandlers(recorder().handlers);
  const data = new Uint8Array([1, 2, 3]);
  b.send('a', { protocol: 'eth', code: 2, data });
  data[0] = 99;
  await until(() => received !== undefined, 'delivery');
  t.deepEqual(received, new Uint8Array([1, 2, 3]));
  net.close();
});

test('a transport drops a peer: both sides told, queued messages dropped, the pair stays down until a node re-attaches or connect()', async (t) => {
  const net = new LoopbackNetwork();
  const a = net.attach('a');
  let b = net.attach('b');
  const c = net.attach('c');
  const ra = recorder();
  const rb = recorder();
  a.setHandlers(ra.handlers);
  b.setHandlers(rb.handlers);
  c.setHandlers(recorder().handlers);
  await until(() => net.pendingEvents() === 0, 'connect');
  b.send('a', msg(1)); // queued, then a drops b before delivery
  a.disconnect('b', 'subprotocol-triggered');
  a.disconnect('nobody', 'subprotocol-triggered'); // not a peer: ignored
  t.deepEqual(a.peers(), ['c']);
  t.deepEqual(b.peers(), ['c'], 'only the pair goes down');
  b.send('a', msg(2)); // dropped: not connected
  await until(() => net.pendingEvents() === 0, 'drop');
  t.deepEqual(ra.log, ['+b', '+c', '-b']);
  t.deepEqual(rb.log, ['+a', '+c', '-a']);
  t.deepEqual(net.dropsByReason(), { 'link-down': 1, 'not-connected': 1 });
  net.connect('a', 'c'); // other pairs are not restored
  t.false(net.isConnected('a', 'b'));

  // b restarts (detach, attach afresh): connected to a again.
  b.close();
  b = net.attach('b');
  b.setHandlers(recorder().handlers);
  t.deepEqual(a.peers(), ['b', 'c']);
  b.send('a', msg(3));
  await until(() => net.pendingEvents() === 0, 're-attach');
  t.deepEqual(ra.log, ['+b', '+c', '-b', '+b', 'msg b 3']);

  // Dropped again, then restored by connect().
  b.disconnect('a', 'subprotocol-triggered');
  t.false(net.isConnected('a', 'b'));
  net.connect('b', 'a');
  t.true(net.isConnected('a', 'b'));
  await until(() => net.pendingEvents() === 0, 'connect again');
  t.deepEqual(ra.log.slice(-2), ['-b', '+b']);
  // A detached transport cannot drop anyone.
  const stale = c;
  stale.close();
  stale.disconnect('a', 'subprotocol-triggered');
  t.deepEqual(a.peers(), ['b']);
  net.close();
});
