/**
 * One RLPx connection (devp2p rlpx.md) over a connected byte stream, as Hyperledger Besu speaks it.
 *
 * API
 *   const conn = new RlpxConnection({
 *     socket,                        // a connected node:net Socket or any Duplex
 *     role: 'initiator',             // 'initiator' dials and needs remoteNodeId; 'recipient' accepted the socket
 *     nodeKey,                       // 32-byte secp256k1 private key; our node id is its public key
 *     remoteNodeId,                  // 64 bytes, initiator only (e.g. parseEnodeUrl(url).nodeId)
 *     clientId: 'qbft-lab/v0.1.0',
 *     capabilities: [ETH_68, ISTANBUL_100],
 *     listenPort: 30303,
 *     // optional: handshakeTimeoutMs, pingIntervalMs, maxMessageBytes, maxWriteBufferBytes,
 *     //           disconnectGraceMs, timers (ports.ts Timers), secureRandom (n => Uint8Array, required: a CSPRNG)
 *   });
 *   conn.on('ready', ({ remoteNodeId, remoteHello, sharedCapabilities, snappy }) => ...);
 *   conn.on('message', ({ protocol, code, data }) => ...);   // a ports.ts WireMessage; code is capability-relative
 *   conn.on('close', ({ reason, reasonText, initiatedBy, detail, wasReady }) => ...);   // exactly once
 *   conn.send('istanbul', 0x12, rlp);   // true when queued; false when not ready, closed or not shared
 *   conn.disconnect(DisconnectReason.CLIENT_QUITTING);
 *
 * Lifecycle: the initiator sends an EIP-8 auth at construction; the recipient answers an auth (EIP-8 or
 * legacy) with an ack of the same format. Both then send Hello (p2p version 5) and wait for the peer's.
 * A valid Hello makes the connection ready; from then on message data is Snappy-compressed when the
 * peer's Hello version is >= 5, Pings are answered, and a Ping is sent every pingIntervalMs; a Ping
 * still unanswered at the next interval disconnects with TIMEOUT (0x0b). The whole handshake, Hello
 * included, must finish within handshakeTimeoutMs.
 *
 * Hello checks, in order (Disconnect reason): node id not a 64-byte curve point (NULL_NODE_ID 0x07),
 * our own id (LOCAL_IDENTITY 0x0a), not the id authenticated by the handshake (UNEXPECTED_ID 0x09),
 * p2p version below 4, i.e. before EIP-8 (INCOMPATIBLE_P2P_PROTOCOL_VERSION 0x06), no shared
 * capability (USELESS_PEER 0x03).
 *
 * Hostile input never throws out of this class: a bad MAC, bad RLP, a malformed or oversize frame or
 * Snappy stream, a message before Hello, a second Hello or an unknown message id sends Disconnect
 * BREACH_OF_PROTOCOL (0x02) and closes; a handshake packet that does not decrypt or parse closes the
 * socket (no frame keys exist yet to send a Disconnect with). An exception thrown by a 'ready' or
 * 'message' listener disconnects with SUBPROTOCOL_TRIGGERED (0x10).
 *
 * Bounds: until the peer's Hello is read a frame may be no larger than a Hello can be (1 + 2048
 * bytes, Besu's DeFramer limit); a header declaring more closes the socket at once, without a
 * Disconnect (as Besu) and before any of the frame's body is buffered. After Hello received bytes
 * are buffered up to one frame (maxMessageBytes, default 16 MiB) plus 64 KiB; decompressed data is
 * capped at maxMessageBytes, checked before decompressing. A handshake packet is buffered up to its
 * 16-bit size prefix plus 64 KiB. Every receive buffer is dropped when the connection closes. When
 * the socket's write buffer would exceed maxWriteBufferBytes (default 32 MiB) the socket is
 * destroyed with TCP_SUBSYSTEM_ERROR (0x01), since a Disconnect could not get through either.
 *
 * 'close' carries initiatedBy 'local' when this side decided to close (it sent, or would have sent,
 * a Disconnect) and 'remote' when the peer sent Disconnect or the stream ended or failed.
 */
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { equalBytes } from '../../crypto/bytes.ts';
import { LiveTimers } from '../../runtime/live-timers.ts';
import type { TimerHandle, Timers, WireMessage } from '../../runtime/ports.ts';
import { ByteQueue } from './byte-queue.ts';
import {
  BASE_PROTOCOL_MESSAGE_SPACE,
  capabilityOfMessageId,
  negotiateCapabilities,
  validateLocalCapabilities,
  type LocalCapability,
  type SharedCapability,
} from './capabilities.ts';
import { describeDisconnectReason, DisconnectReason, type DisconnectReasonCode } from './disconnect-reasons.ts';
import { DEFAULT_MAX_FRAME_BYTES, FrameDecoder, FrameEncoder, FrameTooLargeError, MAX_FRAME_SIZE_FIELD } from './frame-codec.ts';
import {
  encodeAckPacket,
  encodeAuthPacket,
  HandshakeError,
  makeAck,
  makeAuth,
  NONCE_BYTES,
  parseAckBody,
  parseAuthBody,
  type HandshakeFormat,
  type PacketRandomness,
} from './handshake-messages.ts';
import { MAX_HANDSHAKE_PACKET_BYTES, takeHandshakePacket } from './handshake-reader.ts';
import { isValidNodeId, isValidPrivateKey, nodeIdFromPrivateKey } from './node-identity.ts';
import {
  decodeDisconnect,
  decodeFrameData,
  decodeHello,
  EMPTY_LIST,
  encodeDisconnect,
  encodeFrameData,
  encodeHello,
  MAX_HELLO_DATA_BYTES,
  P2P_VERSION,
  P2pCode,
  SNAPPY_P2P_VERSION,
  type Hello,
} from './p2p-messages.ts';
import { deriveSessionSecrets } from './session-secrets.ts';
import { snappyCompress, snappyDecompress } from './snappy.ts';

export type RlpxProtocolName = WireMessage['protocol'];

export interface RlpxCapability extends LocalCapability {
  name: RlpxProtocolName;
}

export interface RlpxConnectionOptions {
  socket: Duplex;
  role: 'initiator' | 'recipient';
  nodeKey: Uint8Array;
  /** The node id dialled; required for the initiator, ignored for the recipient. */
  remoteNodeId?: Uint8Array;
  clientId: string;
  capabilities: readonly RlpxCapability[];
  /** Advertised in Hello (legacy field; 0 means not listening). */
  listenPort: number;
  /** Time for auth/ack and the Hello exchange. Default 10 s. */
  handshakeTimeoutMs?: number;
  /** Default 15 s, as Besu's idle ping. */
  pingIntervalMs?: number;
  /** Largest message (frame and decompressed data). Default 16 MiB. */
  maxMessageBytes?: number;
  /** Default 32 MiB. */
  maxWriteBufferBytes?: number;
  /** After sending Disconnect, how long the peer gets to close before the socket is destroyed. Default 2 s. */
  disconnectGraceMs?: number;
  timers?: Timers;
  /** Cryptographically secure random bytes (keys, nonces, IVs, padding). Default node:crypto. */
  secureRandom: (n: number) => Uint8Array;
}

export interface RlpxReady {
  remoteNodeId: Uint8Array;
  remoteHello: Hello;
  sharedCapabilities: SharedCapability[];
  /** Whether message data is Snappy-compressed (both Hellos at version >= 5). */
  snappy: boolean;
}

export interface RlpxClose {
  reason: DisconnectReasonCode | undefined;
  /** e.g. "breach of protocol (0x02)". */
  reasonText: string;
  initiatedBy: 'local' | 'remote';
  /** What happened, for logs. */
  detail: string;
  /** Whether 'ready' had been emitted. */
  wasReady: boolean;
}

export type RlpxConnectionEvents = {
  ready: [RlpxReady];
  message: [WireMessage];
  close: [RlpxClose];
};

type State = 'awaiting-auth' | 'awaiting-ack' | 'awaiting-hello' | 'ready' | 'closing' | 'closed';

/** Peers at p2p version 4 (EIP-8) and 5 (Snappy) are served; older ones predate 2015. */
const MIN_REMOTE_P2P_VERSION = 4;
const HANDSHAKE_FEED_BYTES = 64 * 1024;
/** Until the peer's Hello is read, a frame may hold no more than a Hello: its 1-byte message id and data. */
export const MAX_FRAME_BYTES_BEFORE_HELLO = 1 + MAX_HELLO_DATA_BYTES;
const DEFAULTS = {
  handshakeTimeoutMs: 10_000,
  pingIntervalMs: 15_000,
  maxMessageBytes: DEFAULT_MAX_FRAME_BYTES,
  maxWriteBufferBytes: 32 * 1024 * 1024,
  disconnectGraceMs: 2_000,
};

export class RlpxConnection extends EventEmitter<RlpxConnectionEvents> {
  readonly role: 'initiator' | 'recipient';
  readonly localNodeId: Uint8Array;
  private readonly socket: Duplex;
  private readonly nodeKey: Uint8Array;
  private readonly capabilities: readonly RlpxCapability[];
  private readonly clientId: string;
  private readonly listenPort: number;
  private readonly timers: Timers;
  private readonly secureRandom: (n: number) => Uint8Array;
  private readonly limits: typeof DEFAULTS;

  private state: State;
  private remoteId: Uint8Array | undefined;
  private shared: SharedCapability[] = [];
  private snappy = false;
  private handshakeQueue: ByteQueue | undefined = new ByteQueue(MAX_HANDSHAKE_PACKET_BYTES + HANDSHAKE_FEED_BYTES);
  private encoder: FrameEncoder | undefined;
  private decoder: FrameDecoder | undefined;
  /** Initiator: what it sent in auth, kept until the ack arrives. */
  private sentAuth: { packet: Uint8Array; ephemeralPrivateKey: Uint8Array; nonce: Uint8Array } | undefined;
  private awaitingPong = false;
  private handshakeTimer: TimerHandle | undefined;
  private pingTimer: TimerHandle | undefined;
  private graceTimer: TimerHandle | undefined;
  private closeInfo: Omit<RlpxClose, 'wasReady' | 'reasonText'> | undefined;
  private wasReady = false;

  constructor(options: RlpxConnectionOptions) {
    super();
    if (!isValidPrivateKey(options.nodeKey)) throw new Error('nodeKey is not a valid secp256k1 private key');
    validateLocalCapabilities(options.capabilities);
    this.role = options.role;
    this.socket = options.socket;
    this.nodeKey = options.nodeKey;
    this.localNodeId = nodeIdFromPrivateKey(options.nodeKey);
    this.capabilities = options.capabilities;
    this.clientId = options.clientId;
    this.listenPort = options.listenPort;
    this.timers = options.timers ?? new LiveTimers({ unref: true });
    this.secureRandom = options.secureRandom;
    this.limits = {
      handshakeTimeoutMs: options.handshakeTimeoutMs ?? DEFAULTS.handshakeTimeoutMs,
      pingIntervalMs: options.pingIntervalMs ?? DEFAULTS.pingIntervalMs,
      maxMessageBytes: options.maxMessageBytes ?? DEFAULTS.maxMessageBytes,
      maxWriteBufferBytes: options.maxWriteBufferBytes ?? DEFAULTS.maxWriteBufferBytes,
      disconnectGraceMs: options.disconnectGraceMs ?? DEFAULTS.disconnectGraceMs,
    };
    if (options.role === 'initiator') {
      if (options.remoteNodeId === undefined || !isValidNodeId(options.remoteNodeId))
        throw new Error('the initiator needs a remoteNodeId: 64 bytes naming a secp256k1 point');
      this.remoteId = options.remoteNodeId;
    }
    this.state = options.role === 'initiator' ? 'awaiting-ack' : 'awaiting-auth';

    this.socket.on('data', (chunk: Uint8Array) => this.onData(chunk));
    this.socket.on('end', () => this.onRemoteEnd());
    this.socket.on('error', (e: Error) => this.onSocketError(e));
    this.socket.on('close', () => this.onSocketClose());
    this.handshakeTimer = this.timers.setTimer(this.limits.handshakeTimeoutMs, () => {
      this.handshakeTimer = undefined;
      this.disconnect(DisconnectReason.TIMEOUT, `handshake not finished within ${this.limits.handshakeTimeoutMs} ms`);
    });
    if (options.role === 'initiator') this.sendAuth();
  }

  /** The peer's node id: known from the start for the initiator, after auth for the recipient. */
  get remoteNodeId(): Uint8Array | undefined {
    return this.remoteId;
  }

  get isReady(): boolean {
    return this.state === 'ready';
  }

  get isClosed(): boolean {
    return this.state === 'closing' || this.state === 'closed';
  }

  get sharedCapabilities(): readonly SharedCapability[] {
    return this.shared;
  }

  /** Received bytes held while waiting for the rest of a handshake packet or frame. */
  get bufferedBytes(): number {
    return (this.handshakeQueue?.length ?? 0) + (this.decoder?.bufferedBytes ?? 0);
  }

  /**
   * Sends one capability message; `code` is relative to the capability (e.g. istanbul 0x12).
   * Returns false when the connection is not ready or the peer does not share `protocol`.
   * Throws RangeError for a code outside the capability's message space or data over maxMessageBytes
   * (before or after compression).
   */
  send(protocol: RlpxProtocolName, code: number, data: Uint8Array): boolean {
    if (this.state !== 'ready') return false;
    const capability = this.shared.find((c) => c.name === protocol);
    if (capability === undefined) return false;
    if (!Number.isInteger(code) || code < 0 || code >= capability.messageCount)
      throw new RangeError(`${protocol} code ${code} is outside its message space of ${capability.messageCount}`);
    if (data.length > this.limits.maxMessageBytes) throw new RangeError(`message of ${data.length} bytes exceeds ${this.limits.maxMessageBytes}`);
    return this.sendMessage(capability.offset + code, data);
  }

  /** Sends Disconnect (when frame keys exist) and closes. Safe to call more than once. */
  disconnect(reason: DisconnectReasonCode = DisconnectReason.REQUESTED, detail?: string): void {
    this.closeLocally(reason, detail ?? `disconnect requested locally: ${describeDisconnectReason(reason)}`);
  }

  // ---- handshake ----

  private randomPrivateKey(): Uint8Array {
    for (let attempt = 0; attempt < 64; attempt++) {
      const key = this.secureRandom(32);
      if (isValidPrivateKey(key)) return key;
    }
    throw new Error('secureRandom produced no valid secp256k1 key in 64 attempts');
  }

  private packetRandomness(): PacketRandomness {
    // EIP-8 recommends 100-300 bytes of padding so packet sizes vary.
    const paddingBytes = 100 + (this.secureRandom(1)[0] % 201);
    return {
      ecies: { ephemeralPrivateKey: this.randomPrivateKey(), iv: this.secureRandom(16) },
      padding: this.secureRandom(paddingBytes),
    };
  }

  private sendAuth(): void {
    const ephemeralPrivateKey = this.randomPrivateKey();
    const nonce = this.secureRandom(NONCE_BYTES);
    const auth = makeAuth({ localPrivateKey: this.nodeKey, remoteNodeId: this.remoteId!, ephemeralPrivateKey, nonce });
    const packet = encodeAuthPacket(auth, nodeIdFromPrivateKey(ephemeralPrivateKey), this.remoteId!, 'eip8', this.packetRandomness());
    this.sentAuth = { packet, ephemeralPrivateKey, nonce };
    this.write(packet);
  }

  /** Feeds handshake bytes; returns what follows the completed handshake packet, if it completed. */
  private feedHandshake(chunk: Uint8Array): Uint8Array | undefined {
    const queue = this.handshakeQueue!;
    for (let offset = 0; offset < chunk.length; offset += HANDSHAKE_FEED_BYTES) {
      queue.push(chunk.subarray(offset, offset + HANDSHAKE_FEED_BYTES));
      const kind = this.state === 'awaiting-auth' ? 'auth' : 'ack';
      const received = takeHandshakePacket(queue, kind, this.nodeKey);
      if (received === undefined) continue;
      if (kind === 'auth') this.onAuth(received.packet, received.body, received.format);
      else this.onAck(received.packet, received.body, received.format);
      this.handshakeQueue = undefined;
      const rest = queue.takeAll();
      const after = chunk.subarray(offset + HANDSHAKE_FEED_BYTES);
      const leftover = new Uint8Array(rest.length + after.length);
      leftover.set(rest);
      leftover.set(after, rest.length);
      return leftover;
    }
    return undefined;
  }

  private onAuth(authPacket: Uint8Array, body: Uint8Array, format: HandshakeFormat): void {
    const auth = parseAuthBody(this.nodeKey, body, format);
    this.remoteId = auth.initiatorNodeId;
    const ephemeralPrivateKey = this.randomPrivateKey();
    const nonce = this.secureRandom(NONCE_BYTES);
    const ackPacket = encodeAckPacket(makeAck({ ephemeralPrivateKey, nonce }), auth.initiatorNodeId, format, this.packetRandomness());
    this.write(ackPacket);
    this.startFraming(
      deriveSessionSecrets({
        role: 'recipient',
        ephemeralPrivateKey,
        remoteEphemeralId: auth.initiatorEphemeralId,
        initiatorNonce: auth.initiatorNonce,
        recipientNonce: nonce,
        authPacket,
        ackPacket,
      }),
    );
  }

  private onAck(ackPacket: Uint8Array, body: Uint8Array, format: HandshakeFormat): void {
    const ack = parseAckBody(body, format);
    const sent = this.sentAuth!;
    this.sentAuth = undefined;
    this.startFraming(
      deriveSessionSecrets({
        role: 'initiator',
        ephemeralPrivateKey: sent.ephemeralPrivateKey,
        remoteEphemeralId: ack.recipientEphemeralId,
        initiatorNonce: sent.nonce,
        recipientNonce: ack.recipientNonce,
        authPacket: sent.packet,
        ackPacket,
      }),
    );
  }

  private startFraming(secrets: ReturnType<typeof deriveSessionSecrets>): void {
    this.encoder = new FrameEncoder(secrets);
    this.decoder = new FrameDecoder(secrets, { maxFrameBytes: MAX_FRAME_BYTES_BEFORE_HELLO });
    this.state = 'awaiting-hello';
    const hello: Hello = {
      protocolVersion: P2P_VERSION,
      clientId: this.clientId,
      capabilities: this.capabilities.map(({ name, version }) => ({ name, version })),
      listenPort: this.listenPort,
      nodeId: this.localNodeId,
    };
    this.sendMessage(P2pCode.Hello, encodeHello(hello));
  }

  // ---- receiving ----

  private onData(chunk: Uint8Array): void {
    if (this.isClosed) return;
    try {
      let frameBytes: Uint8Array | undefined = chunk;
      if (this.state === 'awaiting-auth' || this.state === 'awaiting-ack') frameBytes = this.feedHandshake(chunk);
      if (frameBytes === undefined || frameBytes.length === 0 || this.isClosed) return;
      for (const frame of this.decoder!.decode(frameBytes)) {
        this.onFrame(frame);
        // Leaving the loop stops the decoder: nothing more is read from a closed connection.
        if (this.isClosed) return;
      }
    } catch (e) {
      this.onInputError(e);
    }
  }

  private onInputError(e: unknown): void {
    const message = e instanceof Error ? e.message : String(e);
    // Besu closes without a Disconnect on an oversize frame before Hello (DeFramer); the socket goes
    // at once, so no more of what the peer sends is read.
    if (e instanceof FrameTooLargeError && this.state === 'awaiting-hello')
      return this.closeWithoutDisconnect(DisconnectReason.BREACH_OF_PROTOCOL, 'local', `frame before Hello: ${message}`);
    const what = e instanceof HandshakeError || this.encoder === undefined ? 'handshake failed' : 'invalid input from peer';
    this.closeLocally(DisconnectReason.BREACH_OF_PROTOCOL, `${what}: ${message}`);
  }

  private onFrame(frame: Uint8Array): void {
    const { messageId, data } = decodeFrameData(frame);
    if (messageId === P2pCode.Disconnect) return this.onRemoteDisconnect(data);
    if (this.state === 'awaiting-hello') {
      if (messageId !== P2pCode.Hello)
        return this.closeLocally(DisconnectReason.BREACH_OF_PROTOCOL, `message id 0x${messageId.toString(16)} received before Hello`);
      return this.onHello(data);
    }
    if (messageId < BASE_PROTOCOL_MESSAGE_SPACE) {
      switch (messageId) {
        case P2pCode.Ping:
          this.sendMessage(P2pCode.Pong, EMPTY_LIST);
          return;
        case P2pCode.Pong:
          this.awaitingPong = false;
          return;
        case P2pCode.Hello:
          return this.closeLocally(DisconnectReason.BREACH_OF_PROTOCOL, 'second Hello');
        default:
          return this.closeLocally(DisconnectReason.BREACH_OF_PROTOCOL, `unknown p2p message id 0x${messageId.toString(16)}`);
      }
    }
    const owner = capabilityOfMessageId(this.shared, messageId);
    if (owner === undefined)
      return this.closeLocally(DisconnectReason.BREACH_OF_PROTOCOL, `message id 0x${messageId.toString(16)} belongs to no shared capability`);
    const payload = this.snappy ? snappyDecompress(data, this.limits.maxMessageBytes) : data;
    const message: WireMessage = { protocol: owner.capability.name as RlpxProtocolName, code: owner.code, data: payload };
    this.emitFromListener('message', message);
  }

  private onHello(data: Uint8Array): void {
    const hello = decodeHello(data);
    // Like Besu, compress from the moment the peer's Hello says it can, so a Disconnect for a bad Hello is compressed too.
    this.snappy = hello.protocolVersion >= SNAPPY_P2P_VERSION && P2P_VERSION >= SNAPPY_P2P_VERSION;
    if (!isValidNodeId(hello.nodeId)) return this.closeLocally(DisconnectReason.NULL_NODE_ID, 'Hello node id is not a 64-byte public key');
    if (equalBytes(hello.nodeId, this.localNodeId)) return this.closeLocally(DisconnectReason.LOCAL_IDENTITY, 'connected to ourselves');
    if (!equalBytes(hello.nodeId, this.remoteId!))
      return this.closeLocally(DisconnectReason.UNEXPECTED_ID, 'Hello node id differs from the handshake identity');
    if (hello.protocolVersion < MIN_REMOTE_P2P_VERSION)
      return this.closeLocally(DisconnectReason.INCOMPATIBLE_P2P_PROTOCOL_VERSION, `p2p version ${hello.protocolVersion} is below ${MIN_REMOTE_P2P_VERSION}`);
    const shared = negotiateCapabilities(this.capabilities, hello.capabilities);
    if (shared.length === 0)
      return this.closeLocally(
        DisconnectReason.USELESS_PEER,
        `no shared capability (peer offers ${hello.capabilities.map((c) => `${c.name}/${c.version}`).join(', ') || 'none'})`,
      );
    this.shared = shared;
    this.state = 'ready';
    this.wasReady = true;
    this.decoder!.setMaxFrameBytes(this.limits.maxMessageBytes);
    this.cancelTimer('handshakeTimer');
    this.schedulePing();
    this.emitFromListener('ready', { remoteNodeId: this.remoteId!, remoteHello: hello, sharedCapabilities: shared, snappy: this.snappy });
  }

  private onRemoteDisconnect(data: Uint8Array): void {
    let reason: DisconnectReasonCode | undefined;
    if (this.snappy) {
      try {
        reason = decodeDisconnect(snappyDecompress(data, 1024));
      } catch {
        reason = undefined;
      }
    }
    // Some peers send it uncompressed (e.g. before they saw our Hello).
    reason ??= decodeDisconnect(data);
    this.closeWithoutDisconnect(reason, 'remote', `peer disconnected: ${describeDisconnectReason(reason)}`);
  }

  private emitFromListener<E extends 'ready' | 'message'>(event: E, ...args: RlpxConnectionEvents[E]): void {
    try {
      if (event === 'ready') this.emit('ready', ...(args as RlpxConnectionEvents['ready']));
      else this.emit('message', ...(args as RlpxConnectionEvents['message']));
    } catch (e) {
      this.closeLocally(DisconnectReason.SUBPROTOCOL_TRIGGERED, `'${event}' listener threw: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  // ---- sending ----

  private sendMessage(messageId: number, data: Uint8Array): boolean {
    const payload = this.snappy && messageId !== P2pCode.Hello ? snappyCompress(data) : data;
    const frameData = encodeFrameData(messageId, payload);
    // Incompressible data grows a little under Snappy; the frame must still fit the peer's limit.
    if (frameData.length > Math.min(this.limits.maxMessageBytes, MAX_FRAME_SIZE_FIELD))
      throw new RangeError(`message frame of ${frameData.length} bytes exceeds ${Math.min(this.limits.maxMessageBytes, MAX_FRAME_SIZE_FIELD)}`);
    return this.write(this.encoder!.encode(frameData));
  }

  private write(bytes: Uint8Array): boolean {
    if (this.socket.destroyed) return false;
    if (this.socket.writableLength + bytes.length > this.limits.maxWriteBufferBytes) {
      this.closeWithoutDisconnect(
        DisconnectReason.TCP_SUBSYSTEM_ERROR,
        'local',
        `write buffer of ${this.socket.writableLength} bytes would exceed ${this.limits.maxWriteBufferBytes}: peer is not reading`,
      );
      return false;
    }
    this.socket.write(bytes);
    return true;
  }

  // ---- keep-alive ----

  private schedulePing(): void {
    this.pingTimer = this.timers.setTimer(this.limits.pingIntervalMs, () => {
      this.pingTimer = undefined;
      if (this.state !== 'ready') return;
      if (this.awaitingPong) return this.disconnect(DisconnectReason.TIMEOUT, `no Pong within ${this.limits.pingIntervalMs} ms`);
      this.awaitingPong = true;
      if (this.sendMessage(P2pCode.Ping, EMPTY_LIST)) this.schedulePing();
    });
  }

  // ---- closing ----

  private recordClose(reason: DisconnectReasonCode | undefined, initiatedBy: 'local' | 'remote', detail: string): void {
    this.closeInfo ??= { reason, initiatedBy, detail };
  }

  private closeLocally(reason: DisconnectReasonCode, detail: string): void {
    if (this.isClosed) return;
    // No frame keys yet, so no Disconnect could be sent: nothing to wait for.
    if (this.encoder === undefined) return this.closeWithoutDisconnect(reason, 'local', detail);
    this.recordClose(reason, 'local', detail);
    this.stopTimers();
    if (!this.socket.destroyed) {
      try {
        this.sendMessage(P2pCode.Disconnect, encodeDisconnect(reason));
      } catch {
        // Nothing more can be done for a peer we are leaving.
      }
    }
    this.state = 'closing';
    this.releaseBuffers();
    if (this.socket.destroyed) return;
    this.socket.end();
    this.graceTimer = this.timers.setTimer(this.limits.disconnectGraceMs, () => {
      this.graceTimer = undefined;
      this.socket.destroy();
    });
  }

  private onRemoteEnd(): void {
    if (this.isClosed) return;
    this.closeWithoutDisconnect(undefined, 'remote', 'peer closed the connection without Disconnect');
  }

  private closeWithoutDisconnect(reason: DisconnectReasonCode | undefined, initiatedBy: 'local' | 'remote', detail: string): void {
    this.recordClose(reason, initiatedBy, detail);
    this.state = 'closing';
    this.stopTimers();
    this.releaseBuffers();
    this.socket.destroy();
  }

  /** Drops every buffer of received bytes and the session state, so a closed connection holds none. */
  private releaseBuffers(): void {
    this.handshakeQueue = undefined;
    this.decoder = undefined;
    this.encoder = undefined;
    this.sentAuth = undefined;
  }

  private onSocketError(e: Error): void {
    this.recordClose(DisconnectReason.TCP_SUBSYSTEM_ERROR, 'remote', `socket error: ${e.message}`);
  }

  private onSocketClose(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.stopTimers();
    this.cancelTimer('graceTimer');
    this.releaseBuffers();
    this.recordClose(undefined, 'remote', 'connection closed');
    const info = this.closeInfo!;
    this.emit('close', { ...info, reasonText: describeDisconnectReason(info.reason), wasReady: this.wasReady });
  }

  private stopTimers(): void {
    this.cancelTimer('handshakeTimer');
    this.cancelTimer('pingTimer');
  }

  private cancelTimer(which: 'handshakeTimer' | 'pingTimer' | 'graceTimer'): void {
    const handle = this[which];
    if (handle !== undefined) this.timers.cancelTimer(handle);
    this[which] = undefined;
  }
}
