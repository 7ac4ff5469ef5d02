/**
 * Test helpers for rlpx-connection tests: loopback socket pairs, manual timers, and a "raw peer"
 * that speaks RLPx with the low-level modules so a test can send exactly the bytes it wants
 * (bad MACs, early messages, odd Hellos) and see every frame it gets back.
 */
import { randomBytes } from 'node:crypto';
import { createServer, Socket, type AddressInfo } from 'node:net';
import { Duplex } from 'node:stream';
import type { TimerHandle, Timers } from '../../runtime/ports.ts';
import { ByteQueue } from './byte-queue.ts';
import { FrameDecoder, FrameEncoder } from './frame-codec.ts';
import { encodeAckPacket, encodeAuthPacket, makeAck, makeAuth, parseAckBody, parseAuthBody, type HandshakeFormat } from './handshake-messages.ts';
import { MAX_HANDSHAKE_PACKET_BYTES, takeHandshakePacket } from './handshake-reader.ts';
import { nodeIdFromPrivateKey } from './node-identity.ts';
import { decodeFrameData, encodeFrameData, encodeHello, P2pCode, type Hello } from './p2p-messages.ts';
import { deriveSessionSecrets, type SessionSecrets } from './session-secrets.ts';
import { snappyCompress, snappyDecompress } from './snappy.ts';

export function key(fill: number): Uint8Array {
  return new Uint8Array(32).fill(fill);
}

/** A connected pair of loopback TCP sockets; `close()` destroys both and the server. */
export async function socketPair(): Promise<{ client: Socket; server: Socket; close: () => void }> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as AddressInfo).port;
  const accepted = new Promise<Socket>((resolve) => srv.once('connection', resolve));
  const client = new Socket();
  await new Promise<void>((resolve, reject) => {
    client.once('error', reject);
    client.connect(port, '127.0.0.1', () => resolve());
  });
  const server = await accepted;
  srv.close();
  return {
    client,
    server,
    close: () => {
      client.destroy();
      server.destroy();
    },
  };
}

/** One end of an in-memory stream pair; `stalled` makes its writes never complete (a peer that stopped reading). */
export class PairEnd extends Duplex {
  peer: PairEnd | undefined;
  stalled = false;
  _read(): void {}
  _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.stalled) return;
    this.peer?.push(chunk);
    callback();
  }
  _final(callback: () => void): void {
    this.peer?.push(null);
    callback();
  }
}

export function duplexPair(): [PairEnd, PairEnd] {
  const a = new PairEnd();
  const b = new PairEnd();
  a.peer = b;
  b.peer = a;
  return [a, b];
}

/** Timers driven by the test: `advance(ms)` fires what falls due, in order. */
export class ManualTimers implements Timers {
  private nowMs = 0;
  private next = 1;
  private readonly pending = new Map<TimerHandle, { at: number; fire: () => void | Promise<void> }>();

  setTimer(delayMs: number, fire: () => void | Promise<void>): TimerHandle {
    const h = this.next++;
    this.pending.set(h, { at: this.nowMs + Math.max(0, delayMs), fire });
    return h;
  }

  cancelTimer(handle: TimerHandle): void {
    this.pending.delete(handle);
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  advance(ms: number): void {
    const until = this.nowMs + ms;
    for (;;) {
      let due: [TimerHandle, { at: number; fire: () => void | Promise<void> }] | undefined;
      for (const entry of this.pending) if (entry[1].at <= until && (due === undefined || entry[1].at < due[1].at)) due = entry;
      if (due === undefined) break;
      this.pending.delete(due[0]);
      this.nowMs = due[1].at;
      void due[1].fire();
    }
    this.nowMs = until;
  }
}

export interface RawFrame {
  messageId: number;
  data: Uint8Array;
}

/** A scripted RLPx peer built from the low-level modules. */
export class RawPeer {
  readonly nodeId: Uint8Array;
  readonly frames: RawFrame[] = [];
  readonly closed: Promise<void>;
  /** Decompress received message data after our Hello and theirs (set by the test). */
  snappy = false;
  private readonly queue = new ByteQueue(MAX_HANDSHAKE_PACKET_BYTES + 65536);
  private encoder: FrameEncoder | undefined;
  private decoder: FrameDecoder | undefined;
  private waiters: (() => void)[] = [];
  private handshakeDone: (() => void) | undefined;
  private onHandshakeBytes: (() => void) | undefined;

  constructor(
    readonly socket: Socket,
    private readonly nodeKey: Uint8Array,
  ) {
    this.nodeId = nodeIdFromPrivateKey(nodeKey);
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => {});
    socket.on('data', (chunk: Uint8Array) => {
      if (this.decoder === undefined) {
        this.queue.push(chunk);
        this.onHandshakeBytes?.();
        return;
      }
      this.onFrames(chunk);
    });
  }

  private onFrames(chunk: Uint8Array): void {
    for (const f of this.decoder!.push(chunk)) {
      const { messageId, data } = decodeFrameData(f);
      const plain = this.snappy && messageId !== P2pCode.Hello ? snappyDecompress(data) : data;
      this.frames.push({ messageId, data: plain });
    }
    for (const w of this.waiters.splice(0)) w();
  }

  private startFraming(secrets: SessionSecrets): void {
    this.encoder = new FrameEncoder(secrets);
    this.decoder = new FrameDecoder(secrets);
    const rest = this.queue.takeAll();
    if (rest.length > 0) this.onFrames(rest);
  }

  private waitForPacket(kind: 'auth' | 'ack'): Promise<ReturnType<typeof takeHandshakePacket> & object> {
    return new Promise((resolve, reject) => {
      const attempt = () => {
        try {
          const got = takeHandshakePacket(this.queue, kind, this.nodeKey);
          if (got) {
            this.onHandshakeBytes = undefined;
            resolve(got);
          }
        } catch (e) {
          reject(e);
        }
      };
      this.onHandshakeBytes = attempt;
      attempt();
    });
  }

  /** Dials: sends auth (EIP-8 unless told legacy) and waits for the ack. */
  async initiate(remoteNodeId: Uint8Array, format: HandshakeFormat = 'eip8'): Promise<void> {
    const eph = randomBytes(32);
    const nonce = new Uint8Array(randomBytes(32));
    const auth = makeAuth({ localPrivateKey: this.nodeKey, remoteNodeId, ephemeralPrivateKey: eph, nonce });
    const authPacket = encodeAuthPacket(auth, nodeIdFromPrivateKey(eph), remoteNodeId, format, {
      ecies: { ephemeralPrivateKey: randomBytes(32), iv: randomBytes(16) },
      padding: new Uint8Array(120),
    });
    this.socket.write(authPacket);
    const got = await this.waitForPacket('ack');
    const ack = parseAckBody(got.body, got.format);
    this.startFraming(
      deriveSessionSecrets({
        role: 'initiator',
        ephemeralPrivateKey: eph,
        remoteEphemeralId: ack.recipientEphemeralId,
        initiatorNonce: nonce,
        recipientNonce: ack.recipientNonce,
        authPacket,
        ackPacket: got.packet,
      }),
    );
  }

  /** Accepts: waits for auth and answers with an ack. */
  async accept(): Promise<void> {
    const got = await this.waitForPacket('auth');
    const auth = parseAuthBody(this.nodeKey, got.body, got.format);
    const eph = randomBytes(32);
    const nonce = new Uint8Array(randomBytes(32));
    const ackPacket = encodeAckPacket(makeAck({ ephemeralPrivateKey: eph, nonce }), auth.initiatorNodeId, got.format, {
      ecies: { ephemeralPrivateKey: randomBytes(32), iv: randomBytes(16) },
      padding: new Uint8Array(100),
    });
    this.socket.write(ackPacket);
    this.startFraming(
      deriveSessionSecrets({
        role: 'recipient',
        ephemeralPrivateKey: eph,
        remoteEphemeralId: auth.initiatorEphemeralId,
        initiatorNonce: auth.initiatorNonce,
        recipientNonce: nonce,
        authPacket: got.packet,
        ackPacket,
      }),
    );
  }

  /** Frame bytes for a message, optionally Snappy-compressing the data first. */
  frameBytes(messageId: number, data: Uint8Array, compress = false): Uint8Array {
    return this.encoder!.encode(encodeFrameData(messageId, compress ? snappyCompress(data) : data));
  }

  /** Sends arbitrary frame-data (message id included), e.g. a malformed one. */
  sendFrameData(frameData: Uint8Array): void {
    this.socket.write(this.encoder!.encode(frameData));
  }

  /** Sends a frame header declaring `frameSize` bytes, followed in the same write by `followingBytes` zero bytes. */
  sendFrameHeader(frameSize: number, followingBytes = 0): void {
    const header = this.encoder!.encodeHeader(frameSize);
    const bytes = new Uint8Array(header.length + followingBytes);
    bytes.set(header);
    this.socket.write(bytes);
  }

  sendFrame(messageId: number, data: Uint8Array, compress = false): void {
    this.socket.write(this.frameBytes(messageId, data, compress));
  }

  sendHello(overrides: Partial<Hello> = {}): void {
    const hello: Hello = {
      protocolVersion: 5,
      clientId: 'raw-peer',
      capabilities: [{ name: 'istanbul', version: 100 }],
      listenPort: 0,
      nodeId: this.nodeId,
      ...overrides,
    };
    this.sendFrame(P2pCode.Hello, encodeHello(hello));
  }

  /** Resolves with the first received frame matching `pred` (already received ones count). */
  async waitFrame(pred: (f: RawFrame) => boolean, timeoutMs = 3000): Promise<RawFrame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.find(pred);
      if (found) return found;
      if (Date.now() > deadline) throw new Error('timed out waiting for a frame');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 50);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }
}

/** Resolves with `promise`, or fails the test once a generous bound has passed without it. */
export async function within<T>(promise: Promise<T>, what: string, boundMs = 20_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${boundMs} ms`)), boundMs)));
  try {
    return await Promise.race([promise, bound]);
  } finally {
    clearTimeout(timer);
  }
}
