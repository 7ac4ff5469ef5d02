/** Helpers for the discovery tests: quick instances on 127.0.0.1 and a raw, hand-driven peer. */
import dgram from 'node:dgram';
import { bytesToHex } from '../../crypto/bytes.ts';
import { enodeUrl } from '../rlpx/enode.ts';
import { nodeIdFromPrivateKey } from '../rlpx/node-identity.ts';
import { Discv4Discovery, type DiscoveredNode, type Discv4Options } from './discovery.ts';
import { decodePacket, encodePacket, type DecodedPacket, type OutgoingMessage } from './packets.ts';

/** Intervals small enough for tests to finish in a few seconds. */
export const FAST: Partial<Discv4Options> = {
  refreshIntervalMs: 400,
  revalidateIntervalMs: 300,
  bootnodeRetryIntervalMs: 200,
  // Generous: on a loaded machine signing and delivery lag, and a Pong after the timeout is
  // ignored for good (the test's raw peers answer once); a timely answer does not wait for these.
  pingTimeoutMs: 15_000,
  findNodeTimeoutMs: 15_000,
};

export function testKey(seed: number): Uint8Array {
  const key = new Uint8Array(32);
  key[31] = seed;
  key[0] = 0x42;
  return key;
}

export interface TestNode {
  discovery: Discv4Discovery;
  found: DiscoveredNode[];
  port: number;
  tcpPort: number;
  enode: string;
}

export async function startNode(seed: number, opts: Partial<Discv4Options> = {}): Promise<TestNode> {
  const found: DiscoveredNode[] = [];
  const tcpPort = 40_000 + seed;
  const discovery = new Discv4Discovery({
    privateKey: testKey(seed),
    bindHost: '127.0.0.1',
    advertisedHost: '127.0.0.1',
    udpPort: 0,
    tcpPort,
    ...FAST,
    ...opts,
    onNodeFound: (n) => found.push(n),
  });
  const port = await discovery.start();
  return { discovery, found, port, tcpPort, enode: enodeUrl(discovery.nodeId, '127.0.0.1', tcpPort, port) };
}

/** Generous: a loaded machine stretches real sockets and timers; a condition that holds returns at once. */
const WAIT_BOUND_MS = 60_000;

export async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_BOUND_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${WAIT_BOUND_MS} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A bare UDP socket that speaks discv4 only when told to; it records every packet it gets. */
export class RawPeer {
  readonly key: Uint8Array;
  readonly id: Uint8Array;
  readonly idHex: string;
  readonly received: DecodedPacket[] = [];
  /** Every datagram as it arrived, valid or not. */
  readonly receivedBytes: Uint8Array[] = [];
  private readonly socket = dgram.createSocket('udp4');
  port = 0;

  constructor(seed: number) {
    this.key = testKey(seed);
    this.id = nodeIdFromPrivateKey(this.key);
    this.idHex = bytesToHex(this.id).slice(2);
    this.socket.on('message', (msg) => {
      this.receivedBytes.push(new Uint8Array(msg));
      const r = decodePacket(new Uint8Array(msg), Date.now() / 1000);
      if (r.ok) this.received.push(r.packet);
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.socket.bind(0, '127.0.0.1', resolve));
    this.port = this.socket.address().port;
  }

  send(port: number, message: OutgoingMessage): Uint8Array {
    const p = encodePacket(message, this.key);
    this.sendRaw(port, p.bytes);
    return p.hash;
  }

  sendRaw(port: number, bytes: Uint8Array): void {
    this.socket.send(bytes, port, '127.0.0.1');
  }

  ofType<T extends DecodedPacket['message']['type']>(type: T): Array<DecodedPacket & { message: Extract<DecodedPacket['message'], { type: T }> }> {
    return this.received.filter((p) => p.message.type === type) as never;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}

export function expiration(): number {
  return Math.floor(Date.now() / 1000) + 30;
}
