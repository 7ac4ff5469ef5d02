import test from 'ava';
import { bytesToHex } from '../../crypto/bytes.ts';
import { decodeEnr } from './enr.ts';
import { encodePacket } from './packets.ts';
import { RawPeer, expiration, sleep, startNode, waitFor, type TestNode } from './discovery-test-kit.ts';

async function closeAll(nodes: Array<TestNode | RawPeer | undefined>): Promise<void> {
  await Promise.all(nodes.map((n) => (n instanceof RawPeer ? n.close() : n?.discovery.close())));
}

const idsOf = (n: TestNode) => n.discovery.knownNodes().map((k) => k.id).sort();

// Serial: these nodes run on real sockets and timers, and many at once in one process starve one
// another's timers on a loaded machine.
test.serial('B and C, both given A as bootnode, find each other through A', async (t) => {
  const a = await startNode(1);
  const [b, c] = await Promise.all([startNode(2, { bootnodes: [a.enode] }), startNode(3, { bootnodes: [a.enode] })]);
  try {
    await waitFor(() => idsOf(b).includes(c.discovery.nodeIdHex) && idsOf(c).includes(b.discovery.nodeIdHex), 'B and C to find each other');
    await waitFor(() => idsOf(a).length === 2, 'A to bond with both');
    t.deepEqual(idsOf(a), [b.discovery.nodeIdHex, c.discovery.nodeIdHex].sort());
    t.deepEqual(idsOf(b), [a.discovery.nodeIdHex, c.discovery.nodeIdHex].sort());

    const cSeenByB = b.discovery.knownNodes().find((n) => n.id === c.discovery.nodeIdHex);
    t.deepEqual(cSeenByB, { id: c.discovery.nodeIdHex, host: '127.0.0.1', tcpPort: c.tcpPort, udpPort: c.port });
    const aSeenByC = c.discovery.knownNodes().find((n) => n.id === a.discovery.nodeIdHex);
    t.deepEqual(aSeenByC, { id: a.discovery.nodeIdHex, host: '127.0.0.1', tcpPort: a.tcpPort, udpPort: a.port });

    // onNodeFound fired once per node, also after several refresh and revalidation rounds
    await sleep(900);
    for (const n of [a, b, c]) {
      const ids = n.found.map((f) => f.id);
      t.is(new Set(ids).size, ids.length, 'no duplicate onNodeFound');
      t.deepEqual([...ids].sort(), idsOf(n));
    }
  } finally {
    await closeAll([a, b, c]);
  }
});

test.serial('a Ping is answered with a Pong and a Ping back; FindNode and ENRRequest only after bonding', async (t) => {
  const a = await startNode(11);
  const b = await startNode(12, { bootnodes: [a.enode] });
  const raw = new RawPeer(13);
  const impostor = new RawPeer(14);
  await Promise.all([raw.start(), impostor.start()]);
  try {
    await waitFor(() => idsOf(a).length === 1, 'A and B to bond');

    // Not bonded yet: FindNode and ENRRequest go unanswered.
    raw.send(a.port, { type: 'findNode', target: raw.id, expiration: expiration() });
    raw.send(a.port, { type: 'enrRequest', expiration: expiration() });
    await sleep(300);
    t.is(raw.received.length, 0);

    const pingHash = raw.send(a.port, { type: 'ping', version: 4, from: { ip: '127.0.0.1', udpPort: raw.port, tcpPort: 41_013 }, to: { ip: '127.0.0.1', udpPort: a.port, tcpPort: 0 }, expiration: expiration() });
    await waitFor(() => raw.ofType('pong').length === 1 && raw.ofType('ping').length === 1, 'Pong and Ping from A');
    const pong = raw.ofType('pong')[0]!;
    t.deepEqual(pong.message.pingHash, pingHash);
    t.deepEqual(pong.message.to, { ip: '127.0.0.1', udpPort: raw.port, tcpPort: 41_013 });
    t.is(bytesToHex(pong.senderId).slice(2), a.discovery.nodeIdHex);
    const ping = raw.ofType('ping')[0]!;
    t.deepEqual(ping.message.from, { ip: '127.0.0.1', udpPort: a.port, tcpPort: a.tcpPort });
    t.is(typeof ping.message.enrSeq, 'bigint');

    // A Pong with the wrong hash, or with the right hash from another key, does not bond; the right one does.
    raw.send(a.port, { type: 'pong', to: { ip: '127.0.0.1', udpPort: a.port, tcpPort: 0 }, pingHash: new Uint8Array(32), expiration: expiration() });
    impostor.send(a.port, { type: 'pong', to: { ip: '127.0.0.1', udpPort: a.port, tcpPort: 0 }, pingHash: ping.hash, expiration: expiration() });
    await sleep(100);
    t.deepEqual(idsOf(a), [b.discovery.nodeIdHex]);
    raw.send(a.port, { type: 'pong', to: { ip: '127.0.0.1', udpPort: a.port, tcpPort: 0 }, pingHash: ping.hash, expiration: expiration() });
    await waitFor(() => idsOf(a).includes(raw.idHex), 'A to bond with the raw peer');
    t.like(a.found.find((f) => f.id === raw.idHex), { host: '127.0.0.1', udpPort: raw.port, tcpPort: 41_013 });

    raw.send(a.port, { type: 'findNode', target: raw.id, expiration: expiration() });
    await waitFor(() => raw.ofType('neighbours').length === 1, 'Neighbours');
    t.deepEqual(
      raw.ofType('neighbours')[0]!.message.nodes.map((n) => ({ ...n, nodeId: bytesToHex(n.nodeId).slice(2) })),
      [{ ip: '127.0.0.1', udpPort: b.port, tcpPort: b.tcpPort, nodeId: b.discovery.nodeIdHex }],
    );

    const requestHash = raw.send(a.port, { type: 'enrRequest', expiration: expiration() });
    await waitFor(() => raw.ofType('enrResponse').length === 1, 'ENRResponse');
    const response = raw.ofType('enrResponse')[0]!.message;
    t.deepEqual(response.requestHash, requestHash);
    t.like(response.enr, { ip: '127.0.0.1', udpPort: a.port, tcpPort: a.tcpPort });
    t.deepEqual(decodeEnr(response.enr.encoded), response.enr);

    // An expired FindNode is not answered.
    raw.send(a.port, { type: 'findNode', target: raw.id, expiration: Math.floor(Date.now() / 1000) - 5 });
    await sleep(200);
    t.is(raw.ofType('neighbours').length, 1);
  } finally {
    await closeAll([a, b, raw, impostor]);
  }
});

test.serial('a node restarted with the same key and port re-learns the network from peers that kept its old bond', async (t) => {
  // Slow revalidation, so that no peer pings the restarted node first: it must ask A itself.
  const slow = { revalidateIntervalMs: 60_000, refreshIntervalMs: 60_000 };
  const a = await startNode(71, slow);
  const b = await startNode(72, { ...slow, bootnodes: [a.enode] });
  let c = await startNode(73, { bootnodes: [a.enode] });
  try {
    await waitFor(() => idsOf(c).length === 2 && idsOf(a).length === 2, 'all three to bond');
    const port = c.port;
    await c.discovery.close();
    c = await startNode(73, { ...slow, udpPort: port, bootnodes: [a.enode] });
    await waitFor(() => idsOf(c).includes(b.discovery.nodeIdHex), 'the restarted node to find B again');
    t.deepEqual(idsOf(c), [a.discovery.nodeIdHex, b.discovery.nodeIdHex].sort());
  } finally {
    await closeAll([a, b, c]);
  }
});

test.serial('garbage, oversize and flooding packets are dropped and the node keeps answering', async (t) => {
  // A stopped clock: the token bucket does not refill while the node works through the burst.
  const frozenMs = Date.now();
  const a = await startNode(21, { maxPacketsPerIpPerSecond: 20, clock: { nowMs: () => frozenMs } });
  const raw = new RawPeer(22);
  await raw.start();
  try {
    raw.sendRaw(a.port, new Uint8Array(1300).fill(1));
    raw.sendRaw(a.port, new Uint8Array(50).fill(2));
    raw.sendRaw(a.port, new Uint8Array(200).fill(3));
    const pingMessage = () => ({ type: 'ping', version: 4, from: { ip: '127.0.0.1', udpPort: raw.port, tcpPort: raw.port }, to: { ip: '127.0.0.1', udpPort: a.port, tcpPort: 0 }, expiration: expiration() }) as const;
    raw.send(a.port, pingMessage());
    await waitFor(() => raw.ofType('pong').length === 1, 'a Pong after the garbage');
    t.like(a.discovery.stats(), { droppedOversize: 1, droppedInvalid: 2 });

    // Sign first, then send in one burst, so the bucket has no time to refill.
    const burst = Array.from({ length: 60 }, () => encodePacket(pingMessage(), raw.key).bytes);
    for (const bytes of burst) raw.sendRaw(a.port, bytes);
    // Every packet of the burst is either answered or dropped; wait for all 60 to be settled.
    await waitFor(() => raw.ofType('pong').length - 1 + a.discovery.stats().droppedRateLimited >= 60, 'the burst to be answered or dropped');
    // 20 tokens: 2 went to the undecodable packets, 1 to the first Ping, 17 remain for the burst.
    t.is(raw.ofType('pong').length - 1, 17);
    t.is(a.discovery.stats().droppedRateLimited, 43);
  } finally {
    await closeAll([a, raw]);
  }
});

test.serial('nodes that stop answering are dropped from the table', async (t) => {
  const a = await startNode(31, { maxFailedPings: 2, pingTimeoutMs: 300 });
  const b = await startNode(32, { bootnodes: [a.enode] });
  try {
    await waitFor(() => idsOf(a).length === 1, 'A and B to bond');
    await b.discovery.close();
    await waitFor(() => idsOf(a).length === 0, 'A to drop B');
    t.pass();
  } finally {
    await closeAll([a, b]);
  }
});

test.serial('the table never holds more than maxNodes', async (t) => {
  const a = await startNode(41, { maxNodes: 1 });
  const others = await Promise.all([42, 43, 44].map((s) => startNode(s, { bootnodes: [a.enode] })));
  try {
    await waitFor(() => others.every((o) => idsOf(o).includes(a.discovery.nodeIdHex)), 'all to bond with A');
    await sleep(500);
    t.is(idsOf(a).length, 1);
    t.is(a.found.length, 1);
  } finally {
    await closeAll([a, ...others]);
  }
});

test.serial('a bootnode that starts late is still found; bad bootnode URLs are skipped', async (t) => {
  const lateKeySeed = 51;
  // Learn the late node's enode first (its port), then stop it and start it again after B.
  const probe = await startNode(lateKeySeed);
  const port = probe.port;
  const enode = probe.enode;
  await probe.discovery.close();
  const warnings: string[] = [];
  // B's first Pings go to a closed port: a short Ping timeout lets it try the bootnode again soon.
  const b = await startNode(52, { pingTimeoutMs: 500, bootnodes: ['enode://nonsense', enode], log: { log: (level, message) => level === 'warn' && warnings.push(message) } });
  let late: TestNode | undefined;
  try {
    await sleep(300);
    t.is(idsOf(b).length, 0);
    late = await startNode(lateKeySeed, { udpPort: port });
    await waitFor(() => idsOf(b).length === 1, 'B to bond with the late bootnode');
    t.deepEqual(warnings, ['ignoring bootnode']);
  } finally {
    await closeAll([b, late]);
  }
});

test.serial('start twice fails; close is idempotent; a taken port fails start', async (t) => {
  const a = await startNode(61);
  await t.throwsAsync(() => a.discovery.start(), { message: /only be started once/ });
  const clash = await startNode(62, { udpPort: a.port }).catch((e: Error) => e);
  t.true(clash instanceof Error && /cannot bind/.test(clash.message));
  await a.discovery.close();
  await a.discovery.close();
});
