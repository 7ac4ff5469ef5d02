/**
 * The node's Transport over real RLPx connections (node/p2p/rlpx/): a TCP listener, dialled peers
 * kept connected, and one serial inbox of peer events for the node.
 *
 * - Peer ids are node ids: 128 lower-case hex digits, no 0x. A peer's address (for validator
 *   routing) is the last 20 bytes of keccak256(node id).
 * - Maintained peers (static nodes, bootnodes, admin_addPeer) are dialled at start and re-dialled
 *   every `redialIntervalMs` while not connected; discovered peers are dialled once when found.
 * - One connection per peer: when both sides dial each other at once, both keep the connection
 *   dialled by the node with the smaller id and close the other with ALREADY_CONNECTED (0x05).
 * - Peer slots, as Besu's EthPeers (addPeerToEthPeers): beyond `maxPeers`, a new peer that is not
 *   maintained is refused with TOO_MANY_PEERS (0x04). Besu's inbound share
 *   (`maxRemotelyInitiatedPeers`, from --remote-connections-max-percentage) does not refuse an
 *   inbound peer while slots are free; it acts when all slots are taken: then a peer we dialled is
 *   still admitted if more than the share of non-maintained peers are inbound, and one of those
 *   inbound peers is disconnected with TOO_MANY_PEERS to make room. A maintained peer (Besu's
 *   PeerPrivileges: static nodes and admin_addPeer) is never refused and never counted in the
 *   share; arriving when all slots are taken it displaces a non-maintained peer (an inbound one
 *   while the share is exceeded). Besu picks the least useful peer by reputation and chain height;
 *   this transport keeps neither, so the newest candidate goes.
 * - Discovered peers are dialled while slots are free, as Besu, and also while the inbound share is
 *   exceeded: Besu's dials at full slots happen anyway (DefaultP2PNetwork dials three candidates per
 *   free slot and retries discovered peers), while this transport dials a discovered peer once, so
 *   without this the share would never be reclaimed.
 * - Connections before Hello: at most `maxPendingInbound` inbound ones (default max(2 x maxPeers,
 *   10)); a TCP connection beyond it is closed at once, before any byte is read. Besu has no such
 *   bound, only its 10 s handshake timeout (NettyConnectionInitializer.TIMEOUT_SECONDS); the
 *   default mirrors how Besu's EthPeers bounds connections past Hello but before Status
 *   (max(2 x maxPeers, INCOMPLETE_CONNECTIONS_CAP_FLOOR = 10)). Each holds at most about 128 KiB
 *   (rlpx-connection.ts), so the pending ones hold at most a few MiB.
 * - `disconnect(peer, 'subprotocol-triggered')` sends Disconnect SUBPROTOCOL_TRIGGERED (0x10), as
 *   Besu does to a peer on another network. A maintained peer is still re-dialled (and dropped
 *   again if it is still on another network).
 * - The node's handlers see, in order, a peer connect before its first message and disconnect
 *   after its last one; one event at a time (a returned promise is awaited), as the simulator and
 *   the in-process hub deliver. The inbox holds at most `maxInboxEvents` messages; beyond it
 *   messages are dropped and counted (connect and disconnect events are always kept).
 * - With `nodePermissioning` (Besu's nodes allowlist; node/permissioning/node-allowlist.ts), as
 *   Besu's RlpxAgent: a peer that is not permitted is not dialled; an inbound peer is judged after
 *   its Hello by the address it connects from and the listening port its Hello gives, and if not
 *   permitted is disconnected with Besu's UNKNOWN reason (an empty reason, on the wire the same
 *   bytes as this layer's REQUESTED); when the allowlist changes every peer is judged again and one
 *   no longer permitted is disconnected with REQUESTED (0x00). Besu re-judges its peers on every
 *   imported block, so it drops such a peer by the next block; this transport does it at once.
 */
import { randomBytes } from 'node:crypto';
import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes } from '../crypto/bytes.ts';
import type { PeerDirectory } from '../rpc/methods/admin-miner.ts';
import { DisconnectReason } from '../p2p/rlpx/disconnect-reasons.ts';
import { enodeUrl, parseEnodeUrl, type Enode } from '../p2p/rlpx/enode.ts';
import { nodeIdFromPrivateKey } from '../p2p/rlpx/node-identity.ts';
import { ETH_68, ISTANBUL_100, PTM_2 } from '../p2p/rlpx/capabilities.ts';
import { RlpxConnection, type RlpxCapability, type RlpxClose, type RlpxReady } from '../p2p/rlpx/rlpx-connection.ts';
import type { PeerDisconnectReason, PeerId, TimerHandle, Timers, Transport, TransportHandlers, WireMessage } from './ports.ts';
import { LiveTimers } from './live-timers.ts';
import { listenOn } from '../rpc/transports/listen.ts';
import type { NodePermissioning, PeerEndpoint } from '../permissioning/node-allowlist.ts';
import { DEFAULT_REMOTE_CONNECTIONS_MAX_PERCENTAGE, maxRemotelyInitiatedPeers } from '../p2p/peer-limits.ts';

/** The listener name in bind errors (config-error.ts maps it to --p2p-port). */
export const P2P_LISTENER = 'P2P';

export interface RlpxTransportOptions {
  /** The node key (32-byte secp256k1 private key). */
  nodeKey: Uint8Array;
  /** Offer ptm/2 too: the node runs a private transaction manager (--privacy-enabled). */
  privacy?: boolean;
  /** Address listened on (--p2p-interface). */
  listenHost: string;
  /** --p2p-port; 0 picks a free port. */
  listenPort: number;
  /** Host written in the enode URL (--p2p-host). */
  advertisedHost: string;
  clientId: string;
  /** --max-peers. Default 25. */
  maxPeers?: number;
  /** How many non-maintained inbound peers may hold slots once all are taken (peer-limits.ts). Default: 60% of maxPeers. */
  maxRemotelyInitiatedPeers?: number;
  /** Inbound connections still in the handshake (before Hello). Default max(2 x maxPeers, 10). */
  maxPendingInbound?: number;
  /** enode URLs kept connected. */
  maintained?: readonly string[];
  /** Default 5 s. */
  redialIntervalMs?: number;
  /** TCP connect timeout. Default 5 s. */
  dialTimeoutMs?: number;
  /** Default 20,000. */
  maxInboxEvents?: number;
  /** RLPx connection timings (tests shorten them). */
  handshakeTimeoutMs?: number;
  pingIntervalMs?: number;
  timers?: Timers;
  /** Besu's local nodes allowlist: who may be dialled and who may stay connected. */
  nodePermissioning?: NodePermissioning;
  log?: (level: 'debug' | 'info' | 'warn', message: string, fields?: Record<string, unknown>) => void;
}

export interface RlpxPeerInfo {
  nodeId: string;
  clientId: string;
  remoteAddress: string;
  localAddress: string;
  inbound: boolean;
  port: number;
  capabilities: string[];
}

interface Peer {
  readonly conn: RlpxConnection;
  readonly info: RlpxPeerInfo;
  readonly address: string;
  /** The node id of the side that dialled. */
  readonly dialledBy: string;
  /** What the nodes allowlist judges: the address and listening port the peer is known by. */
  readonly endpoint: PeerEndpoint;
}

type InboxEvent = { kind: 'msg'; from: PeerId; message: WireMessage } | { kind: 'up' | 'down'; peer: PeerId };

const EVENTS_PER_TURN = 64;

const DISCONNECT_CODES: Record<PeerDisconnectReason, number> = {
  'subprotocol-triggered': DisconnectReason.SUBPROTOCOL_TRIGGERED,
};

const CAPABILITIES: readonly RlpxCapability[] = [
  { ...ETH_68, name: 'eth' },
  { ...ISTANBUL_100, name: 'istanbul' },
];
/** qbft-lab's own, for privacy-enabled nodes (private transaction managers); Besu peers never share it. */
const PRIVACY_CAPABILITIES: readonly RlpxCapability[] = [...CAPABILITIES, { ...PTM_2, name: 'ptm' }];

export class RlpxTransport implements Transport, PeerDirectory {
  readonly localId: PeerId;
  private readonly nodeId: Uint8Array;
  private readonly timers: Timers;
  private readonly connected = new Map<PeerId, Peer>();
  private readonly byAddress = new Map<string, PeerId>();
  /** Connections not ready yet, and all live ones (closed on close()). */
  private readonly connections = new Set<RlpxConnection>();
  /** Inbound connections whose handshake (Hello included) is not over. */
  private readonly pendingInbound = new Set<RlpxConnection>();
  /** The peer a ready connection stands for, while it is the peer's current one. */
  private readonly idByConn = new Map<RlpxConnection, PeerId>();
  private readonly maintained = new Map<PeerId, Enode>();
  private readonly dialling = new Set<PeerId>();
  private readonly inbox: InboxEvent[] = [];
  private inboxHead = 0;
  private queuedMessages = 0;
  private draining = false;
  private handlers: TransportHandlers | undefined;
  private server: Server | undefined;
  private boundPort = 0;
  private redialTimer: TimerHandle | undefined;
  private closed = false;
  readonly stats = { dialled: 0, accepted: 0, refused: 0, displaced: 0, pendingRefused: 0, notPermitted: 0, droppedMessages: 0, unsendable: 0 };
  private readonly unsubscribePermissioning: (() => void) | undefined;

  constructor(private readonly opts: RlpxTransportOptions) {
    this.nodeId = nodeIdFromPrivateKey(opts.nodeKey);
    this.localId = bytesToHex(this.nodeId).slice(2);
    this.timers = opts.timers ?? new LiveTimers();
    for (const url of opts.maintained ?? []) this.maintain(url);
    this.unsubscribePermissioning = opts.nodePermissioning?.onAllowlistChanged(() => this.recheckPermissions());
  }

  /** Starts listening; returns the bound port. */
  async listen(): Promise<number> {
    const server = createServer((socket) => this.accept(socket));
    this.server = server;
    this.boundPort = await listenOn(server, this.opts.listenHost, this.opts.listenPort, P2P_LISTENER);
    server.on('error', (err) => this.opts.log?.('warn', 'P2P listener error', { error: String(err) }));
    this.redialMaintained();
    return this.boundPort;
  }

  get port(): number {
    return this.boundPort;
  }

  enode(): string {
    return enodeUrl(this.nodeId, this.opts.advertisedHost, this.boundPort);
  }

  peers(): PeerId[] {
    return [...this.connected.keys()].sort();
  }

  send(to: PeerId, message: WireMessage): void {
    try {
      this.connected.get(to)?.conn.send(message.protocol, message.code, message.data);
    } catch (err) {
      // A code outside the capability or a message over the size limit: dropped, like any send to a gone peer.
      this.stats.unsendable++;
      this.opts.log?.('warn', 'message not sent', { peer: to.slice(0, 16), protocol: message.protocol, code: message.code, error: String(err) });
    }
  }

  disconnect(peer: PeerId, reason: PeerDisconnectReason): void {
    this.connected.get(peer)?.conn.disconnect(DISCONNECT_CODES[reason]);
  }

  peerForAddress(address: string): PeerId | undefined {
    return this.byAddress.get(address.toLowerCase());
  }

  addressOfPeer(peer: PeerId): string | undefined {
    return this.connected.get(peer)?.address;
  }

  setHandlers(handlers: TransportHandlers): void {
    this.handlers = handlers;
    this.drain();
  }

  peerInfo(peer: string): RlpxPeerInfo | undefined {
    return this.connected.get(peer)?.info;
  }

  /** admin_addPeer: keep this peer connected. True when it was not maintained before. */
  addPeer(url: string): boolean {
    const added = this.maintain(url);
    this.redialMaintained();
    return added;
  }

  /** admin_removePeer: stop maintaining the peer and disconnect it. True when it was maintained. */
  removePeer(url: string): boolean {
    const id = bytesToHex(parseEnodeUrl(url).nodeId).slice(2);
    const was = this.maintained.delete(id);
    this.connected.get(id)?.conn.disconnect(DisconnectReason.REQUESTED);
    return was;
  }

  /** Dials a peer once (discovery found it), unless connected, dialling or full. */
  connectTo(url: string): void {
    const enode = parseEnodeUrl(url);
    const id = bytesToHex(enode.nodeId).slice(2);
    if (this.slotsFull() && !this.maintained.has(id) && !this.inboundShareExceeded()) return;
    this.dial(id, enode);
  }

  /** Disconnects every peer (CLIENT_QUITTING) and stops listening. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribePermissioning?.();
    if (this.redialTimer !== undefined) this.timers.cancelTimer(this.redialTimer);
    const closing = [...this.connections].map((c) => new Promise<void>((resolve) => {
      c.once('close', () => resolve());
      c.disconnect(DisconnectReason.CLIENT_QUITTING);
    }));
    const server = this.server;
    await Promise.all([...closing, server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve()]);
  }

  private maxPeers(): number {
    return this.opts.maxPeers ?? 25;
  }

  private maxInboundPeers(): number {
    return this.opts.maxRemotelyInitiatedPeers ?? maxRemotelyInitiatedPeers(this.maxPeers(), { enabled: true, maxPercentage: DEFAULT_REMOTE_CONNECTIONS_MAX_PERCENTAGE });
  }

  private maxPendingInbound(): number {
    return this.opts.maxPendingInbound ?? Math.max(2 * this.maxPeers(), 10);
  }

  /** Peers holding a slot: connected and not being disconnected. */
  private slotHolders(): Array<[PeerId, Peer]> {
    return [...this.connected].filter(([, peer]) => !peer.conn.isClosed);
  }

  private slotsFull(): boolean {
    return this.slotHolders().length >= this.maxPeers();
  }

  /** Besu's EthPeers.inboundInitiatedConnectionLimitExceeded: more non-maintained inbound peers than the share. */
  private inboundShareExceeded(): boolean {
    if (this.maxInboundPeers() >= this.maxPeers()) return false;
    const inbound = this.slotHolders().filter(([id, peer]) => peer.info.inbound && !this.maintained.has(id));
    return inbound.length > this.maxInboundPeers();
  }

  /**
   * Whether a new peer may take a slot (Besu's EthPeers.addPeerToEthPeers); when all are taken and
   * it may, the peer it displaces is disconnected with TOO_MANY_PEERS.
   */
  private admit(id: PeerId, inbound: boolean): boolean {
    if (!this.slotsFull()) return true;
    const maintained = this.maintained.has(id);
    const shareExceeded = this.inboundShareExceeded();
    if (!maintained && !(shareExceeded && !inbound)) return false;
    const displaced = this.displaceable(shareExceeded);
    if (displaced !== undefined) {
      this.stats.displaced++;
      this.opts.log?.('debug', 'peer displaced to free a slot', { peer: displaced[0].slice(0, 16), for: id.slice(0, 16) });
      displaced[1].conn.disconnect(DisconnectReason.TOO_MANY_PEERS, 'slot given to a maintained or outbound peer');
    }
    return true;
  }

  /** The newest non-maintained peer (inbound, when the inbound share is exceeded and one is there). */
  private displaceable(inboundFirst: boolean): [PeerId, Peer] | undefined {
    const candidates = this.slotHolders().filter(([id]) => !this.maintained.has(id));
    const inbound = candidates.filter(([, peer]) => peer.info.inbound);
    return (inboundFirst && inbound.length > 0 ? inbound : candidates).at(-1);
  }

  /** Received bytes held by all connections (handshakes and partial frames). */
  bufferedBytes(): number {
    let total = 0;
    for (const conn of this.connections) total += conn.bufferedBytes;
    return total;
  }

  /** Inbound connections still in their handshake. */
  get pendingHandshakes(): number {
    return this.pendingInbound.size;
  }

  private maintain(url: string): boolean {
    const enode = parseEnodeUrl(url);
    const id = bytesToHex(enode.nodeId).slice(2);
    if (id === this.localId || this.maintained.has(id)) return false;
    this.maintained.set(id, enode);
    return true;
  }

  private redialMaintained(): void {
    if (this.closed || this.server === undefined) return;
    if (this.redialTimer !== undefined) this.timers.cancelTimer(this.redialTimer);
    for (const [id, enode] of this.maintained) this.dial(id, enode);
    this.redialTimer = this.timers.setTimer(this.opts.redialIntervalMs ?? 5_000, () => {
      this.redialTimer = undefined;
      this.redialMaintained();
    });
  }

  private dial(id: PeerId, enode: Enode): void {
    if (this.closed || id === this.localId || this.connected.has(id) || this.dialling.has(id)) return;
    if (!this.permitted({ nodeId: id, ip: enode.host, listeningPort: enode.tcpPort })) {
      this.stats.notPermitted++;
      return;
    }
    this.dialling.add(id);
    this.stats.dialled++;
    const socket = tcpConnect({ host: enode.host, port: enode.tcpPort });
    const timeout = this.timers.setTimer(this.opts.dialTimeoutMs ?? 5_000, () => void socket.destroy(new Error('connect timed out')));
    const done = (): void => {
      this.timers.cancelTimer(timeout);
      this.dialling.delete(id);
    };
    socket.once('error', (err) => {
      done();
      this.opts.log?.('debug', 'dial failed', { peer: enodeUrl(enode.nodeId, enode.host, enode.tcpPort), error: err.message });
    });
    socket.once('connect', () => {
      this.timers.cancelTimer(timeout);
      const conn = this.open(socket, 'initiator', enode);
      conn.once('close', () => this.dialling.delete(id));
      conn.once('ready', () => this.dialling.delete(id));
    });
  }

  private accept(socket: Socket): void {
    if (this.closed) return void socket.destroy();
    if (this.pendingInbound.size >= this.maxPendingInbound()) {
      this.stats.pendingRefused++;
      this.opts.log?.('debug', 'inbound connection refused: too many handshakes in progress', { address: socket.remoteAddress, pending: this.pendingInbound.size });
      return void socket.destroy();
    }
    this.stats.accepted++;
    const conn = this.open(socket, 'recipient');
    this.pendingInbound.add(conn);
    const settled = (): void => void this.pendingInbound.delete(conn);
    conn.once('ready', settled);
    conn.once('close', settled);
  }

  /** `dialled`: the enode dialled (initiator only). */
  private open(socket: Socket, role: 'initiator' | 'recipient', dialled?: Enode): RlpxConnection {
    const conn = new RlpxConnection({
      socket,
      role,
      nodeKey: this.opts.nodeKey,
      remoteNodeId: dialled?.nodeId,
      clientId: this.opts.clientId,
      capabilities: this.opts.privacy ? PRIVACY_CAPABILITIES : CAPABILITIES,
      listenPort: this.boundPort,
      handshakeTimeoutMs: this.opts.handshakeTimeoutMs,
      pingIntervalMs: this.opts.pingIntervalMs,
      timers: this.timers,
      secureRandom: (n) => new Uint8Array(randomBytes(n)),
    });
    this.connections.add(conn);
    conn.on('ready', (ready) => this.onReady(conn, socket, role, ready, dialled));
    conn.on('message', (message) => this.onMessage(conn, message));
    conn.on('close', (close) => this.onClose(conn, close));
    return conn;
  }

  private onReady(conn: RlpxConnection, socket: Socket, role: 'initiator' | 'recipient', ready: RlpxReady, dialled: Enode | undefined): void {
    const id = bytesToHex(ready.remoteNodeId).slice(2);
    const dialledBy = role === 'initiator' ? this.localId : id;
    // Besu knows an inbound peer by the address it connects from and the port its Hello gives.
    const endpoint: PeerEndpoint = dialled
      ? { nodeId: id, ip: dialled.host, listeningPort: dialled.tcpPort }
      : { nodeId: id, ip: socket.remoteAddress ?? '', listeningPort: ready.remoteHello.listenPort };
    if (!this.permitted(endpoint)) {
      this.stats.notPermitted++;
      this.opts.log?.('debug', 'peer not permitted by the nodes allowlist', { peer: id.slice(0, 16), address: endpoint.ip, port: endpoint.listeningPort });
      // Besu's DisconnectReason.UNKNOWN carries no code: an empty reason, which REQUESTED encodes to here.
      return void conn.disconnect(DisconnectReason.REQUESTED, 'not on the nodes allowlist');
    }
    const existing = this.connected.get(id);
    if (existing) {
      // Both ends decide alike: the connection dialled by the smaller node id stays.
      const keepNew = dialledBy < existing.dialledBy;
      if (!keepNew) return void conn.disconnect(DisconnectReason.ALREADY_CONNECTED);
      this.connected.delete(id);
      this.idByConn.delete(existing.conn);
      existing.conn.disconnect(DisconnectReason.ALREADY_CONNECTED);
    } else if (!this.admit(id, role === 'recipient')) {
      this.stats.refused++;
      return void conn.disconnect(DisconnectReason.TOO_MANY_PEERS);
    }
    const address = `0x${bytesToHex(keccak_256(hexToBytes(`0x${id}`))).slice(-40)}`;
    const info: RlpxPeerInfo = {
      nodeId: id,
      clientId: ready.remoteHello.clientId,
      remoteAddress: `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? 0}`,
      localAddress: `${socket.localAddress ?? '?'}:${socket.localPort ?? 0}`,
      inbound: role === 'recipient',
      port: ready.remoteHello.listenPort,
      capabilities: ready.sharedCapabilities.map((c) => `${c.name}/${c.version}`),
    };
    this.connected.set(id, { conn, info, address, dialledBy, endpoint });
    this.idByConn.set(conn, id);
    this.byAddress.set(address, id);
    if (!existing) this.enqueue({ kind: 'up', peer: id });
    this.opts.log?.('debug', 'peer connected', { peer: id.slice(0, 16), inbound: info.inbound, client: info.clientId });
  }

  private permitted(endpoint: PeerEndpoint): boolean {
    return this.opts.nodePermissioning?.isPeerPermitted(endpoint) ?? true;
  }

  /** The allowlist changed: peers it no longer permits go (Besu's RlpxAgent.handlePermissionsUpdate). */
  private recheckPermissions(): void {
    for (const peer of this.connected.values()) {
      if (!this.permitted(peer.endpoint)) {
        this.stats.notPermitted++;
        peer.conn.disconnect(DisconnectReason.REQUESTED, 'no longer on the nodes allowlist');
      }
    }
  }

  private onMessage(conn: RlpxConnection, message: WireMessage): void {
    const id = this.idByConn.get(conn);
    if (id === undefined) return;
    if (this.queuedMessages >= (this.opts.maxInboxEvents ?? 20_000)) {
      this.stats.droppedMessages++;
      return;
    }
    this.queuedMessages++;
    this.enqueue({ kind: 'msg', from: id, message });
  }

  private onClose(conn: RlpxConnection, close: RlpxClose): void {
    this.connections.delete(conn);
    const id = this.idByConn.get(conn);
    if (id === undefined) return;
    this.idByConn.delete(conn);
    const peer = this.connected.get(id)!;
    this.connected.delete(id);
    if (this.byAddress.get(peer.address) === id) this.byAddress.delete(peer.address);
    this.enqueue({ kind: 'down', peer: id });
    this.opts.log?.('debug', 'peer disconnected', { peer: id.slice(0, 16), reason: close.reasonText, by: close.initiatedBy });
  }

  private enqueue(event: InboxEvent): void {
    this.inbox.push(event);
    this.drain();
  }

  private drain(): void {
    if (this.draining || this.handlers === undefined) return;
    this.draining = true;
    void this.drainLoop();
  }

  private async drainLoop(): Promise<void> {
    try {
      let handled = 0;
      while (this.inboxHead < this.inbox.length && this.handlers !== undefined) {
        // Let sockets and timers run between batches of events.
        if (++handled % EVENTS_PER_TURN === 0) await new Promise<void>((resolve) => setImmediate(resolve));
        const event = this.inbox[this.inboxHead++]!;
        if (this.inboxHead > 1024 && this.inboxHead * 2 > this.inbox.length) {
          this.inbox.splice(0, this.inboxHead);
          this.inboxHead = 0;
        }
        try {
          if (event.kind === 'msg') {
            this.queuedMessages--;
            await this.handlers.onMessage(event.from, event.message);
          } else if (event.kind === 'up') await this.handlers.onPeerConnected(event.peer);
          else await this.handlers.onPeerDisconnected(event.peer);
        } catch (err) {
          this.opts.log?.('warn', 'peer event handler failed', { event: event.kind, error: String(err) });
        }
      }
    } finally {
      this.draining = false;
    }
  }
}
