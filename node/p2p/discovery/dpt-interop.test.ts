/**
 * Interoperability with another discv4 implementation: the DPT (distributed peer table) of
 * @ethereumjs/devp2p 10.0.0, run in this process on its own UDP socket.
 */
import test from 'ava';
import dgram from 'node:dgram';
import { decode as decodeDptPacket, DPT } from '@ethereumjs/devp2p';
import { bytesToHex } from '../../crypto/bytes.ts';
import { enodeUrl } from '../rlpx/enode.ts';
import { RawPeer, startNode, testKey, waitFor, type TestNode } from './discovery-test-kit.ts';

interface DptNode {
  dpt: DPT;
  port: number;
  tcpPort: number;
  idHex: string;
  enode: string;
  errors: string[];
  peerIds(): string[];
}

async function startDpt(seed: number): Promise<DptNode> {
  // The DPT binds the socket we hand it; binding it first tells us the port for its endpoint.
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const port = socket.address().port;
  const tcpPort = 45_000 + seed;
  const dpt = new DPT(testKey(seed), {
    endpoint: { address: '127.0.0.1', udpPort: port, tcpPort },
    createSocket: () => socket,
    refreshInterval: 1000,
    timeout: 1000,
    shouldFindNeighbours: true,
  });
  const errors: string[] = [];
  dpt.events.on('error', (e: Error) => errors.push(e.message));
  const idHex = bytesToHex(dpt.id!).slice(2);
  return {
    dpt,
    port,
    tcpPort,
    idHex,
    enode: enodeUrl(dpt.id!, '127.0.0.1', tcpPort, port),
    errors,
    peerIds: () => dpt.getPeers().map((p) => bytesToHex(p.id!).slice(2)).sort(),
  };
}

const idsOf = (n: TestNode) => n.discovery.knownNodes().map((k) => k.id).sort();

// Serial: these nodes run on real sockets and timers, and many at once in one process starve one
// another's timers on a loaded machine.
test.serial('our node bonds with a DPT bootnode and each learns the other', async (t) => {
  const d = await startDpt(101);
  const added: string[] = [];
  d.dpt.events.on('peer:added', (p) => added.push(bytesToHex(p.id!).slice(2)));
  const a = await startNode(102, { bootnodes: [d.enode] });
  try {
    await waitFor(() => idsOf(a).includes(d.idHex) && d.peerIds().includes(a.discovery.nodeIdHex), 'A and the DPT to learn each other');
    t.deepEqual(a.found, [{ id: d.idHex, host: '127.0.0.1', tcpPort: d.tcpPort, udpPort: d.port }]);
    t.deepEqual(added, [a.discovery.nodeIdHex]);
    // The DPT took our Ping's `from` endpoint, TCP port included.
    const seen = d.dpt.getPeer(a.discovery.nodeId);
    t.like(seen, { address: '127.0.0.1', udpPort: a.port, tcpPort: a.tcpPort });
    t.deepEqual(d.errors, []);
    t.is(a.discovery.stats().droppedInvalid, 0, 'every DPT packet decoded');
  } finally {
    d.dpt.destroy();
    await a.discovery.close();
  }
});

test.serial('a DPT bootstrapping from our node learns our other node from our Neighbours, and ours learn nodes from its Neighbours', async (t) => {
  const a = await startNode(111);
  const b = await startNode(112, { bootnodes: [a.enode] });
  const d = await startDpt(113);
  let c: TestNode | undefined;
  try {
    await waitFor(() => idsOf(a).length === 1, 'A and B to bond');
    await d.dpt.bootstrap({ address: '127.0.0.1', udpPort: a.port, tcpPort: a.tcpPort });
    // The DPT asks A for neighbours on its refresh; A answers once the DPT is bonded, naming B;
    // the DPT then pings B, and B bonds with it in turn.
    await waitFor(() => d.peerIds().includes(b.discovery.nodeIdHex), 'the DPT to learn B from A');
    await waitFor(() => idsOf(b).includes(d.idHex), 'B to bond with the DPT');
    t.true(idsOf(a).includes(d.idHex));

    // C knows only the DPT; the DPT's Neighbours name A and B.
    c = await startNode(114, { bootnodes: [d.enode] });
    await waitFor(() => idsOf(c!).length === 3, 'C to learn A and B through the DPT');
    t.deepEqual(idsOf(c), [a.discovery.nodeIdHex, b.discovery.nodeIdHex, d.idHex].sort());
    t.deepEqual(d.errors, []);
    for (const n of [a, b, c]) t.is(n.discovery.stats().droppedInvalid, 0);
  } finally {
    d.dpt.destroy();
    await Promise.all([a.discovery.close(), b.discovery.close(), c?.discovery.close()]);
  }
});

interface DptNeighbours {
  typename: string;
  data: { peers: Array<{ endpoint: { address: string; udpPort: number; tcpPort: number }; id: Uint8Array }> };
}

test.serial('the DPT codec reads our Neighbours reply field by field', async (t) => {
  // A bonded raw peer asks our node for neighbours; the DPT's own decoder reads the reply.
  const a = await startNode(121);
  const others = await Promise.all([122, 123].map((s) => startNode(s, { bootnodes: [a.enode] })));
  const raw = new RawPeer(124);
  await raw.start();
  try {
    await waitFor(() => idsOf(a).length === 2, 'A to bond with both');
    const exp = () => Math.floor(Date.now() / 1000) + 30;
    raw.send(a.port, { type: 'ping', version: 4, from: { ip: '127.0.0.1', udpPort: raw.port, tcpPort: raw.port }, to: { ip: '127.0.0.1', udpPort: a.port, tcpPort: 0 }, expiration: exp() });
    await waitFor(() => raw.ofType('ping').length === 1, 'A to ping back');
    raw.send(a.port, { type: 'pong', to: { ip: '127.0.0.1', udpPort: a.port, tcpPort: 0 }, pingHash: raw.ofType('ping')[0]!.hash, expiration: exp() });
    await waitFor(() => idsOf(a).includes(raw.idHex), 'A to bond with the raw peer');
    raw.send(a.port, { type: 'findNode', target: raw.id, expiration: exp() });
    await waitFor(() => raw.ofType('neighbours').length === 1, 'Neighbours');
    const neighboursBytes = raw.receivedBytes.find((b) => b[97] === 4)!;
    const decoded = decodeDptPacket(neighboursBytes) as DptNeighbours;
    t.is(decoded.typename, 'neighbours');
    t.deepEqual(
      decoded.data.peers.map((p) => [p.endpoint.address, p.endpoint.udpPort, p.endpoint.tcpPort, bytesToHex(p.id).slice(2)]).sort(),
      others.map((o) => ['127.0.0.1', o.port, o.tcpPort, o.discovery.nodeIdHex]).sort(),
    );
  } finally {
    await Promise.all([a.discovery.close(), raw.close(), ...others.map((o) => o.discovery.close())]);
  }
});
