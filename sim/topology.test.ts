import test from 'ava';
import { components, peerTopology, DEFAULT_MAX_PEERS, type Topology } from './topology.ts';
import { SeededRandom } from './random.ts';
import { SimKernel } from './kernel.ts';
import { VirtualNetwork } from './network.ts';
import { World } from './world.ts';
import { validatorKeys } from './keys.ts';
import { buildSimGenesis } from './genesis-builder.ts';
import { SIM_START_TIME_MS } from './sim-start.ts';
import { main } from '../cli/main.ts';
import { captureIo } from '../cli/capture-io.ts';

const ids = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);

function degrees(t: Topology): number[] {
  return [...t.values()].map((s) => s.size);
}

test("Besu's default --max-peers is 25; a network that fits is a full mesh and draws nothing", (t) => {
  t.is(DEFAULT_MAX_PEERS, 25);
  const random = new SeededRandom(1);
  t.is(peerTopology(ids(26), 25, random), undefined);
  t.is(random.next(), new SeededRandom(1).next(), 'no draw was made');
});

test('100 nodes under --max-peers 25: symmetric, at most 25 peers each, nearly full, connected, seed-determined', (t) => {
  const topo = peerTopology(ids(100), 25, new SeededRandom(7).fork('topology'))!;
  t.truthy(topo);
  for (const [id, peers] of topo) {
    t.false(peers.has(id), 'no self-connection');
    for (const p of peers) t.true(topo.get(p)!.has(id), `${id} - ${p} both ways`);
  }
  t.true(Math.max(...degrees(topo)) <= 25);
  const mean = degrees(topo).reduce((a, b) => a + b, 0) / 100;
  t.true(mean > 23, `nodes fill up their slots as Besu's dialling does (mean ${mean})`);
  t.is(components(topo).length, 1);
  const again = peerTopology(ids(100), 25, new SeededRandom(7).fork('topology'))!;
  t.deepEqual([...again].map(([k, v]) => [k, [...v].sort()]), [...topo].map(([k, v]) => [k, [...v].sort()]));
  const other = peerTopology(ids(100), 25, new SeededRandom(8).fork('topology'))!;
  t.notDeepEqual([...other].map(([k, v]) => [k, [...v].sort()]), [...topo].map(([k, v]) => [k, [...v].sort()]));
});

test('a peer limit that splits the network is modelled, not repaired', (t) => {
  const topo = peerTopology(ids(6), 1, new SeededRandom(3))!;
  t.true(Math.max(...degrees(topo)) <= 1);
  t.true(components(topo).length >= 3, 'pairs at best: the network falls apart as Besu nodes with --max-peers 1 would');
});

test('the network keeps to the topology: peers() lists only peers, and a send to another node is dropped as not-peers', async (t) => {
  const kernel = new SimKernel({ startTimeMs: 0 });
  const net = new VirtualNetwork(kernel, new SeededRandom(1));
  const topo = new Map([['a', new Set(['b'])], ['b', new Set(['a', 'c'])], ['c', new Set(['b'])]]);
  net.setTopology(topo);
  const got: string[] = [];
  const transports = ['a', 'b', 'c'].map((id) => {
    const tr = net.attach(id);
    tr.setHandlers({ onMessage: (from) => void got.push(`${from}->${id}`), onPeerConnected: () => {}, onPeerDisconnected: () => {} });
    return tr;
  });
  t.deepEqual(transports[0]!.peers(), ['b']);
  t.deepEqual(transports[1]!.peers(), ['a', 'c']);
  transports[0]!.send('c', { protocol: 'istanbul', code: 0x12, data: new Uint8Array([1]) });
  transports[0]!.send('b', { protocol: 'istanbul', code: 0x12, data: new Uint8Array([2]) });
  await kernel.runUntil(1000);
  t.deepEqual(got, ['a->b']);
  t.deepEqual(net.dropsByReason(), { 'not-peers': 1 });
  net.setTopology(undefined);
  t.deepEqual(transports[0]!.peers(), ['b', 'c'], 'undefined restores the full mesh');
});

test("a world of 30 validators is a partial mesh by default; maxPeers 'all' keeps the full one", (t) => {
  const keys = validatorKeys(30);
  const genesis = buildSimGenesis({ validators: keys.map((k) => k.address), startTimeSeconds: SIM_START_TIME_MS / 1000 });
  const nodes = keys.map((key, i) => ({ name: `v${i}`, key }));
  const partial = new World({ seed: 1, genesis, nodes });
  const peerCounts = nodes.map((n) => nodes.filter((o) => o.name !== n.name && partial.network.arePeers(n.name, o.name)).length);
  t.true(Math.max(...peerCounts) <= 25);
  t.true(Math.min(...peerCounts) < 29);
  const full = new World({ seed: 1, genesis, nodes, maxPeers: 'all' });
  t.true(nodes.every((n) => nodes.every((o) => full.network.arePeers(n.name, o.name))));
});

test('sim --max-peers: a 30-validator network with 8 peers each makes blocks; a bad value is one line, exit 2', async (t) => {
  const io = captureIo();
  t.is(await main(['sim', '--validators', '30', '--max-peers', '8', '--duration', '4s', '--json'], io), 0, io.stderr);
  const run = JSON.parse(io.stdout) as { nodes: Array<{ height: number }> };
  t.true(run.nodes.every((n) => n.height >= 1), io.stdout.slice(0, 300));
  const bad = captureIo();
  t.is(await main(['sim', '--max-peers', '0'], bad), 2);
  t.regex(bad.stderr, /--max-peers: '0' must be an integer from 1 to 10000/);
  t.is(bad.stderr.trim().split('\n').length, 1);
});
