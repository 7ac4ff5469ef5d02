/**
 * A bare RLPx initiator for the P2P attacks, built from the node's own low-level modules (as
 * node/p2p/rlpx/rlpx-test-kit.ts's RawPeer): it completes the auth/ack handshake and then lets the
 * caller write whatever frames it likes. Every socket stays in `sockets` until it closes.
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { ByteQueue } from '../../node/p2p/rlpx/byte-queue.ts';
import { describeDisconnectReason } from '../../node/p2p/rlpx/disconnect-reasons.ts';
import { FrameDecoder, FrameEncoder } from '../../node/p2p/rlpx/frame-codec.ts';
import { FrameMac } from '../../node/p2p/rlpx/frame-mac.ts';
import { encodeAuthPacket, makeAuth, parseAckBody } from '../../node/p2p/rlpx/handshake-messages.ts';
import { MAX_HANDSHAKE_PACKET_BYTES, takeHandshakePacket } from '../../node/p2p/rlpx/handshake-reader.ts';
import { nodeIdFromPrivateKey } from '../../node/p2p/rlpx/node-identity.ts';
import { decodeDisconnect, decodeFrameData, EMPTY_LIST, encodeFrameData, encodeHello, P2P_VERSION, P2pCode } from '../../node/p2p/rlpx/p2p-messages.ts';
import { deriveSessionSecrets, type SessionSecrets } from '../../node/p2p/rlpx/session-secrets.ts';
import { snappyCompress, snappyDecompress } from '../../node/p2p/rlpx/snappy.ts';

const HANDSHAKE_TIMEOUT_MS = 10_000;
const FRAME_HEADER_BYTES = 16;
/** RLP [0, 0]: the header-data (capability-id, context-id) every client sends. */
const HEADER_DATA = Uint8Array.of(0xc2, 0x80, 0x80);

export interface RlpxSession {
  socket: Socket;
  secrets: SessionSecrets;
  nodeKey: Uint8Array;
  /** Bytes that arrived after the ack (the node's first frames). */
  leftover: Uint8Array;
}

/** The open sockets of an attack, destroyed together when it ends. */
export class SocketSet {
  private readonly sockets = new Set<Socket>();

  add(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }

  get size(): number {
    return this.sockets.size;
  }

  destroyAll(): void {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }
}

/** Connects within HANDSHAKE_TIMEOUT_MS; a socket the attack destroys meanwhile rejects too. */
function connectTcp(port: number, sockets: SocketSet): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', timeout: HANDSHAKE_TIMEOUT_MS });
    sockets.add(socket);
    const fail = (): void => {
      socket.destroy();
      reject(new Error('TCP connect failed'));
    };
    socket.on('error', () => {});
    socket.once('close', fail);
    socket.once('timeout', fail);
    socket.once('connect', () => {
      socket.off('close', fail);
      socket.off('timeout', fail);
      socket.setTimeout(0);
      resolve(socket);
    });
  });
}

function readAck(socket: Socket, nodeKey: Uint8Array): Promise<{ packet: Uint8Array; body: Uint8Array; format: 'eip8' | 'legacy'; leftover: Uint8Array }> {
  const queue = new ByteQueue(MAX_HANDSHAKE_PACKET_BYTES + 65_536);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error('no ack in time')), HANDSHAKE_TIMEOUT_MS);
    const finish = (err?: Error, got?: ReturnType<typeof takeHandshakePacket>): void => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      if (err || !got) reject(err ?? new Error('no ack'));
      else resolve({ ...got, leftover: queue.takeAll() });
    };
    const onData = (chunk: Uint8Array): void => {
      try {
        queue.push(chunk);
        const got = takeHandshakePacket(queue, 'ack', nodeKey);
        if (got) finish(undefined, got);
      } catch (e) {
        finish(e as Error);
      }
    };
    const onClose = (): void => finish(new Error('closed during the handshake'));
    socket.on('data', onData);
    socket.once('close', onClose);
  });
}

/** Dials `port`, sends an EIP-8 auth as a fresh random identity and derives the session secrets from the ack. */
export async function dialRlpx(port: number, remoteNodeId: Uint8Array, sockets: SocketSet): Promise<RlpxSession> {
  const socket = await connectTcp(port, sockets);
  const nodeKey = new Uint8Array(randomBytes(32));
  const ephemeralPrivateKey = new Uint8Array(randomBytes(32));
  const nonce = new Uint8Array(randomBytes(32));
  const auth = makeAuth({ localPrivateKey: nodeKey, remoteNodeId, ephemeralPrivateKey, nonce });
  const authPacket = encodeAuthPacket(auth, nodeIdFromPrivateKey(ephemeralPrivateKey), remoteNodeId, 'eip8', {
    ecies: { ephemeralPrivateKey: new Uint8Array(randomBytes(32)), iv: new Uint8Array(randomBytes(16)) },
    padding: new Uint8Array(100),
  });
  socket.write(authPacket);
  const ack = await readAck(socket, nodeKey);
  const parsed = parseAckBody(ack.body, ack.format);
  const secrets = deriveSessionSecrets({
    role: 'initiator',
    ephemeralPrivateKey,
    remoteEphemeralId: parsed.recipientEphemeralId,
    initiatorNonce: nonce,
    recipientNonce: parsed.recipientNonce,
    authPacket,
    ackPacket: ack.packet,
  });
  return { socket, secrets, nodeKey, leftover: ack.leftover };
}

/**
 * The 32 bytes that open a frame of `frameSize` bytes (header ciphertext and its MAC), with no
 * body: the node then waits for frameSize bytes (padded to 16) plus a 16-byte MAC.
 */
export function frameHeaderOnly(secrets: SessionSecrets, frameSize: number): Uint8Array {
  const header = new Uint8Array(FRAME_HEADER_BYTES);
  header[0] = frameSize >>> 16;
  header[1] = (frameSize >>> 8) & 0xff;
  header[2] = frameSize & 0xff;
  header.set(HEADER_DATA, 3);
  const aes = createCipheriv('aes-256-ctr', secrets.aesSecret, new Uint8Array(16));
  const ciphertext = new Uint8Array(aes.update(header));
  const mac = new FrameMac(secrets.egressMac, secrets.macSecret).updateHeader(ciphertext);
  return Buffer.concat([ciphertext, mac]);
}

export type PeerState = 'awaiting-hello' | 'ready' | 'closed';

/**
 * A peer that sends Hello (p2p v5, istanbul/100 only), answers Pings and otherwise stays quiet:
 * it holds one of the node's peer slots for as long as the node keeps it.
 */
export class QuietPeer {
  state: PeerState = 'awaiting-hello';
  disconnectReason: string | undefined;
  private readonly encoder: FrameEncoder;
  private readonly decoder: FrameDecoder;
  private helloReceived = false;

  constructor(private readonly session: RlpxSession) {
    this.encoder = new FrameEncoder(session.secrets);
    this.decoder = new FrameDecoder(session.secrets);
    session.socket.on('data', (chunk: Uint8Array) => this.onBytes(chunk));
    session.socket.once('close', () => (this.state = 'closed'));
    this.send(P2pCode.Hello, encodeHello({ protocolVersion: P2P_VERSION, clientId: 'bench-attack/quiet', capabilities: [{ name: 'istanbul', version: 100 }], listenPort: 0, nodeId: nodeIdFromPrivateKey(session.nodeKey) }), false);
    if (session.leftover.length > 0) this.onBytes(session.leftover);
  }

  private send(code: number, data: Uint8Array, compress: boolean): void {
    if (this.state !== 'closed') this.session.socket.write(this.encoder.encode(encodeFrameData(code, compress ? snappyCompress(data) : data)));
  }

  private onBytes(chunk: Uint8Array): void {
    try {
      for (const frame of this.decoder.push(chunk)) this.onFrame(decodeFrameData(frame));
    } catch {
      this.session.socket.destroy();
    }
  }

  private onFrame({ messageId, data }: { messageId: number; data: Uint8Array }): void {
    if (messageId === P2pCode.Hello) {
      this.helloReceived = true;
      this.state = 'ready';
    } else if (messageId === P2pCode.Disconnect) {
      this.disconnectReason = describeDisconnectReason(this.disconnectCode(data));
      this.session.socket.destroy();
    } else if (messageId === P2pCode.Ping) this.send(P2pCode.Pong, EMPTY_LIST, true);
  }

  /** After both Hellos the node compresses (p2p v5); a Disconnect sent before them is plain. */
  private disconnectCode(data: Uint8Array): number | undefined {
    const attempts = this.helloReceived ? [() => snappyDecompress(data), () => data] : [() => data, () => snappyDecompress(data)];
    for (const plain of attempts) {
      try {
        const code = decodeDisconnect(plain());
        if (code !== undefined) return code;
      } catch {
        // try the other encoding
      }
    }
    return undefined;
  }
}
