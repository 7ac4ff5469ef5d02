/**
 * Interop with an independent RLPx implementation: @ethereumjs/devp2p 10.0.0 (dev dependency),
 * running on 127.0.0.1 with a custom istanbul/100 capability (message space 22). We dial it and
 * it dials us; each time the handshake completes, the Hellos are exchanged with Snappy on, and
 * one istanbul message goes each way with its code and bytes intact.
 */
import test from 'ava';
import { Common, Mainnet } from '@ethereumjs/common';
import { Peer, RLPx, SNAP } from '@ethereumjs/devp2p';
import { randomBytes } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { compress } from 'snappyjs';
import { ISTANBUL_100 } from './capabilities.ts';
import { DisconnectReason } from './disconnect-reasons.ts';
import { nodeIdFromPrivateKey } from './node-identity.ts';
import { RlpxConnection, type RlpxClose, type RlpxReady } from './rlpx-connection.ts';
import type { WireMessage } from '../../runtime/ports.ts';

/**
 * A devp2p sub-protocol for istanbul/100 that records what it receives and sends raw data.
 * devp2p 10.0.0 does not export its Protocol base class, so this extends the exported SNAP
 * protocol for the plumbing (peer, send method, events; SNAP arms no Status timeout) and
 * replaces all of its message handling. The capability it registers is istanbul/100, length 22.
 */
class IstanbulForTest extends SNAP {
  static readonly capability = { name: 'istanbul', version: 100, length: 22, constructor: IstanbulForTest };
  readonly received: { code: number; data: Uint8Array }[] = [];
  private onReceive: (() => void) | undefined;

  override _handleMessage(code: number, data: Uint8Array): void {
    this.received.push({ code, data: new Uint8Array(data) });
    this.onReceive?.();
  }

  nextReceived(): Promise<void> {
    return new Promise((resolve) => (this.onReceive = resolve));
  }

  sendRaw(code: number, data: Uint8Array): void {
    // As devp2p's own protocols do: data is compressed by the sub-protocol once the peer speaks p2p v5.
    const hello = this._peer.getHelloMessage();
    this._send(code, hello !== null && hello.protocolVersion >= 5 ? compress(data) : data);
  }
}

const ourKey = new Uint8Array(32).fill(0x41);
const ourId = nodeIdFromPrivateKey(ourKey);
const theirKey = new Uint8Array(32).fill(0x42);
const theirClientId = 'ethereumjs-devp2p/interop-test';

function startTheirs(): Promise<{ rlpx: RLPx; port: number }> {
  const rlpx = new RLPx(theirKey, {
    capabilities: [IstanbulForTest.capability],
    common: new Common({ chain: Mainnet }),
    clientId: new TextEncoder().encode(theirClientId),
    listenPort: null,
    maxPeers: 5,
    timeout: 5000,
  });
  return new Promise((resolve) => {
    rlpx.events.once('listening', () => resolve({ rlpx, port: (rlpx['_server']!.address() as AddressInfo).port }));
    rlpx.listen(0, '127.0.0.1');
  });
}

function ours(socket: Socket, role: 'initiator' | 'recipient', remoteNodeId?: Uint8Array): RlpxConnection {
  return new RlpxConnection({
    socket,
    role,
    nodeKey: ourKey,
    secureRandom: (n) => new Uint8Array(randomBytes(n)),
    remoteNodeId,
    clientId: 'qbft-lab/interop',
    capabilities: [ISTANBUL_100],
    listenPort: 30303,
  });
}

function events(conn: RlpxConnection) {
  return {
    ready: new Promise<RlpxReady>((resolve, reject) => {
      conn.once('ready', resolve);
      conn.once('close', (c) => reject(new Error(`closed before ready: ${c.detail}`)));
    }),
    closed: new Promise<RlpxClose>((resolve) => conn.once('close', resolve)),
  };
}

async function exchange(t: import('ava').ExecutionContext, conn: RlpxConnection, ready: Promise<RlpxReady>, peerAdded: Promise<Peer>, theirs: RLPx) {
  const [info, peer] = await Promise.all([ready, peerAdded]);
  // Our view of their Hello.
  t.deepEqual(info.remoteNodeId, theirs.id);
  t.is(info.remoteHello.clientId, theirClientId);
  t.is(info.remoteHello.protocolVersion, 5);
  t.true(info.snappy);
  t.deepEqual(info.sharedCapabilities, [{ ...ISTANBUL_100, offset: 0x10 }]);
  // Their view of ours.
  const theirView = peer.getHelloMessage()!;
  t.is(theirView.protocolVersion, 5);
  t.is(theirView.clientId, 'qbft-lab/interop');
  t.deepEqual(theirView.capabilities, [{ name: 'istanbul', version: 100 }]);
  t.is(theirView.port, 30303);
  t.deepEqual(peer.getId(), ourId);

  const protocol = peer.getProtocols()[0] as unknown as IstanbulForTest;
  t.true(protocol instanceof IstanbulForTest);

  // Ours -> theirs: QBFT Prepare (istanbul 0x13). Delivery proves they decompressed what we compressed.
  const prepare = new Uint8Array(randomBytes(200));
  const theyGot = protocol.nextReceived();
  t.true(conn.send('istanbul', 0x13, prepare));
  await theyGot;
  t.deepEqual(protocol.received, [{ code: 0x13, data: prepare }]);

  // Theirs -> ours: QBFT Round Change (istanbul 0x15), compressed by them.
  const roundChange = new Uint8Array(4096).fill(7);
  const weGet = new Promise<WireMessage>((resolve) => conn.once('message', resolve));
  protocol.sendRaw(0x15, roundChange);
  t.deepEqual(await weGet, { protocol: 'istanbul', code: 0x15, data: roundChange });
}

function peerAdded(rlpx: RLPx): Promise<Peer> {
  return new Promise((resolve) => rlpx.events.once('peer:added', (p: Peer) => resolve(p)));
}

function peerRemoved(rlpx: RLPx): Promise<number | undefined> {
  return new Promise((resolve) => rlpx.events.once('peer:removed', (_p: Peer, reason: unknown) => resolve(reason as number | undefined)));
}

test.serial('we dial @ethereumjs/devp2p: handshake, Hellos, Snappy and one message each way', async (t) => {
  t.timeout(10_000);
  const { rlpx, port } = await startTheirs();
  const socket = connect(port, '127.0.0.1');
  t.teardown(() => {
    socket.destroy();
    rlpx.destroy();
  });
  const conn = ours(socket, 'initiator', rlpx.id);
  const { ready, closed } = events(conn);
  await exchange(t, conn, ready, peerAdded(rlpx), rlpx);

  const removed = peerRemoved(rlpx);
  conn.disconnect(DisconnectReason.CLIENT_QUITTING);
  t.is(await removed, DisconnectReason.CLIENT_QUITTING);
  t.like(await closed, { initiatedBy: 'local', reason: DisconnectReason.CLIENT_QUITTING, wasReady: true });
  t.true(socket.destroyed);
});

test.serial('@ethereumjs/devp2p dials us: handshake, Hellos, Snappy and one message each way', async (t) => {
  t.timeout(10_000);
  const { rlpx } = await startTheirs();
  const server: Server = createServer();
  let accepted: Socket | undefined;
  t.teardown(() => {
    accepted?.destroy();
    server.close();
    rlpx.destroy();
  });
  const conn = new Promise<RlpxConnection>((resolve) =>
    server.once('connection', (socket) => {
      accepted = socket;
      resolve(ours(socket, 'recipient'));
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const added = peerAdded(rlpx);
  await rlpx.connect({ id: ourId, address: '127.0.0.1', tcpPort: (server.address() as AddressInfo).port });
  const c = await conn;
  const { ready, closed } = events(c);
  await exchange(t, c, ready, added, rlpx);
  t.deepEqual(c.remoteNodeId, rlpx.id);

  // This time they leave.
  const removed = peerRemoved(rlpx);
  rlpx.disconnect(ourId);
  t.like(await closed, { initiatedBy: 'remote', reason: DisconnectReason.CLIENT_QUITTING, wasReady: true });
  await removed;
});
