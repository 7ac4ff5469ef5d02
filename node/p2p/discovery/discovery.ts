/**
 * Node discovery v4 over UDP (devp2p discv4.md), enough for a private network started as in
 * Besu's tutorials: one bootnode, every other node given `--bootnodes enode://...`.
 *
 * - Bonding: a node enters the table (and `onNodeFound` fires) when it answers our Ping with a
 *   Pong echoing the Ping's hash. A Ping from an unknown node is answered with a Pong and a
 *   Ping back. Bootnodes are pinged at start and again every `bootnodeRetryIntervalMs` while
 *   not bonded.
 * - FindNode is answered only for nodes in the table (endpoint proof, against amplification),
 *   with up to 16 nodes closest to the target, split into Neighbours packets of <= 1280 bytes.
 * - Lookups: a newly bonded node is asked (FindNode) for the nodes near our own id; every
 *   `refreshIntervalMs` the bonded bootnodes and the 3 nodes closest to a target (our id or a
 *   random one, alternately) are asked again. An unanswered FindNode is resent up to 3 times,
 *   since the peer drops it until it has bonded with us. Returned nodes are pinged to bond.
 * - Expiry: every `revalidateIntervalMs` the nodes not heard from for that long are pinged; a
 *   node that misses `maxFailedPings` Pongs in a row is dropped.
 * - Bounds: table size (`maxNodes`), pending Pings (`maxPendingPings`), outstanding FindNodes,
 *   neighbours taken per FindNode (16), and incoming packets per source IP per second.
 *
 * ENRRequest from a bonded node is answered with a minimal signed record (id, secp256k1, ip,
 * tcp, udp; no "eth" fork id entry). We never send ENRRequest; an ENRResponse is ignored.
 */
import dgram from 'node:dgram';
import { bytesToHex } from '../../crypto/bytes.ts';
import type { Clock, Log, TimerHandle, Timers } from '../../runtime/ports.ts';
import { nodeIdFromPrivateKey } from '../rlpx/node-identity.ts';
import { resolveBootnodes, type PingTarget } from './bootnodes.ts';
import { discoverySettings, type DiscoveredNode, type DiscoverySettings, type DiscoveryStats, type Discv4Options } from './discovery-options.ts';
import { encodeEnr } from './enr.ts';
import { ipToBytes, isRelayableIp, normalizeIp } from './ip-address.ts';
import { IpRateLimiter } from './ip-rate-limiter.ts';
import { NodeTable, type TableNode } from './node-table.ts';
import {
  decodePacket,
  encodeNeighbours,
  encodePacket,
  MAX_NEIGHBOURS,
  MAX_PACKET_BYTES,
  NODE_ID_BYTES,
  PING_VERSION,
  type DecodedPacket,
  type EncodedPacket,
  type EnrRequestMessage,
  type FindNodeMessage,
  type NeighboursMessage,
  type OutgoingMessage,
  type PingMessage,
  type PongMessage,
} from './packets.ts';

export type { DiscoveredNode, DiscoveryStats, Discv4Options } from './discovery-options.ts';

interface PendingPing extends PingTarget {
  hashHex: string;
  timer: TimerHandle;
  /** When the target pinged us while our Ping was outstanding. */
  pingedUsAtMs?: number;
}

interface PendingFindNode {
  target: Uint8Array;
  /** Sends so far; an unanswered FindNode is resent (the peer may not have bonded with us yet). */
  attempts: number;
  answered: boolean;
  nodesReceived: number;
  expiresAtMs: number;
  timer: TimerHandle;
}

const REFRESH_QUERIES = 3;
const FIND_NODE_ATTEMPTS = 3;
const REVALIDATIONS_PER_TICK = 16;
const MAX_TRACKED_IPS = 4096;

export class Discv4Discovery {
  readonly nodeId: Uint8Array;
  /** The node id as 128 hex digits. */
  readonly nodeIdHex: string;

  private readonly settings: DiscoverySettings;
  private readonly clock: Clock;
  private readonly timers: Timers;
  private readonly log: Pick<Log, 'log'>;
  private readonly table: NodeTable;
  private readonly rateLimiter: IpRateLimiter;
  private readonly listeners = new Set<(node: DiscoveredNode) => void>();
  private readonly pendingPings = new Map<string, PendingPing>();
  private readonly pingByNode = new Map<string, string>();
  private readonly pendingFindNodes = new Map<string, PendingFindNode>();
  private readonly periodicTimers = new Set<TimerHandle>();
  private readonly statsCounters: DiscoveryStats = {
    packetsReceived: 0,
    packetsSent: 0,
    droppedOversize: 0,
    droppedRateLimited: 0,
    droppedInvalid: 0,
    ignored: 0,
  };

  private socket: dgram.Socket | undefined;
  private ipv6 = false;
  private boundPort = 0;
  private enr: Uint8Array | undefined;
  private enrSeq = 0n;
  private bootnodes: PingTarget[] = [];
  private refreshCount = 0;
  private state: 'new' | 'starting' | 'running' | 'closed' = 'new';

  constructor(opts: Discv4Options) {
    this.settings = discoverySettings(opts);
    this.clock = this.settings.clock;
    this.timers = this.settings.timers;
    this.log = this.settings.log;
    this.nodeId = nodeIdFromPrivateKey(opts.privateKey);
    this.nodeIdHex = bytesToHex(this.nodeId).slice(2);
    if (opts.onNodeFound) this.listeners.add(opts.onNodeFound);
    this.table = new NodeTable(this.nodeIdHex, this.settings.maxNodes);
    this.rateLimiter = new IpRateLimiter(this.settings.maxPacketsPerIpPerSecond, MAX_TRACKED_IPS);
  }

  /** Adds a listener for newly bonded nodes; returns a function that removes it. */
  addNodeFoundListener(listener: (node: DiscoveredNode) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Binds the socket, pings the bootnodes and starts the timers; resolves to the bound UDP port. */
  async start(): Promise<number> {
    if (this.state !== 'new') throw new Error('Discv4Discovery can only be started once');
    this.state = 'starting';
    this.ipv6 = this.settings.bindHost.includes(':');
    const socket = dgram.createSocket({ type: this.ipv6 ? 'udp6' : 'udp4' });
    this.socket = socket;
    await new Promise<void>((resolve, reject) => {
      const onError = (e: Error) => reject(new Error(`cannot bind discovery UDP socket to ${this.settings.bindHost}:${this.settings.udpPort}: ${e.message}`));
      socket.once('error', onError);
      socket.bind(this.settings.udpPort, this.settings.bindHost, () => {
        socket.off('error', onError);
        resolve();
      });
    }).catch((e) => {
      this.state = 'closed';
      this.socket = undefined;
      try {
        socket.close();
      } catch {
        // never bound: nothing to close
      }
      throw e;
    });
    socket.on('error', (e) => this.log.log('warn', 'discovery socket error', { error: e.message }));
    socket.on('message', (msg, rinfo) => this.onDatagram(msg, rinfo.address, rinfo.port));
    this.boundPort = socket.address().port;
    this.enrSeq = BigInt(Math.floor(this.clock.nowMs()));
    this.enr = encodeEnr({ privateKey: this.settings.privateKey, seq: this.enrSeq, ip: this.settings.advertisedHost, tcpPort: this.settings.tcpPort, udpPort: this.boundPort });

    this.bootnodes = await resolveBootnodes(this.settings.bootnodes, { localIdHex: this.nodeIdHex, ipv6: this.ipv6, log: this.log });
    if (this.state !== 'starting') return this.boundPort; // closed while resolving
    this.state = 'running';
    this.log.log('info', 'discovery started', { udpPort: this.boundPort, nodeId: this.nodeIdHex, bootnodes: this.bootnodes.length });
    this.pingBootnodes();
    this.every(this.settings.bootnodeRetryIntervalMs, () => this.pingBootnodes());
    this.every(this.settings.revalidateIntervalMs, () => this.revalidate());
    this.every(this.settings.refreshIntervalMs, () => this.refresh());
    return this.boundPort;
  }

  /** Stops the timers and closes the socket. Safe to call more than once. */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    for (const t of this.periodicTimers) this.timers.cancelTimer(t);
    this.periodicTimers.clear();
    for (const p of this.pendingPings.values()) this.timers.cancelTimer(p.timer);
    this.pendingPings.clear();
    this.pingByNode.clear();
    for (const q of this.pendingFindNodes.values()) this.timers.cancelTimer(q.timer);
    this.pendingFindNodes.clear();
    const socket = this.socket;
    this.socket = undefined;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
  }

  /** The bound UDP port (0 before start()). */
  get port(): number {
    return this.boundPort;
  }

  /** Bonded nodes currently in the table. */
  knownNodes(): DiscoveredNode[] {
    return this.table.all().map(toDiscovered);
  }

  stats(): DiscoveryStats {
    return { ...this.statsCounters };
  }

  // ---- timers -----------------------------------------------------------------------------------

  private every(intervalMs: number, action: () => void): void {
    const arm = () => {
      const handle = this.timers.setTimer(intervalMs, () => {
        this.periodicTimers.delete(handle);
        if (this.state !== 'running') return;
        try {
          action();
        } catch (e) {
          this.log.log('warn', 'discovery timer task failed', { error: (e as Error).message });
        }
        arm();
      });
      this.periodicTimers.add(handle);
    };
    arm();
  }

  private pingBootnodes(): void {
    for (const b of this.bootnodes) if (!this.table.get(b.idHex)) this.startPing(b);
  }

  private revalidate(): void {
    const now = this.clock.nowMs();
    const stale = this.table.leastRecentlySeen(REVALIDATIONS_PER_TICK, (n) => now - n.lastPongMs >= this.settings.revalidateIntervalMs);
    for (const node of stale) this.startPing(node);
  }

  private refresh(): void {
    const now = this.clock.nowMs();
    this.pingBootnodes();
    const target = this.refreshCount++ % 2 === 0 ? this.nodeId : this.randomNodeId();
    const chosen = new Map<string, TableNode>();
    for (const b of this.bootnodes) {
      const node = this.table.get(b.idHex);
      if (node) chosen.set(node.idHex, node);
    }
    for (const node of this.table.closest(target, REFRESH_QUERIES)) chosen.set(node.idHex, node);
    for (const node of chosen.values()) {
      // Without a recent Ping from it, it may hold no endpoint proof of ours: our Ping makes it
      // ping back (and bond) if so; the FindNode is resent until answered or out of attempts.
      if (!this.knowsUs(node, now)) this.startPing(node);
      this.sendFindNode(node, target, now);
    }
  }

  private randomNodeId(): Uint8Array {
    const id = new Uint8Array(NODE_ID_BYTES);
    for (let i = 0; i < id.length; i++) id[i] = this.settings.random.int(256);
    return id;
  }

  // ---- incoming ---------------------------------------------------------------------------------

  private onDatagram(msg: Buffer, address: string, port: number): void {
    try {
      if (this.state !== 'running') return;
      this.statsCounters.packetsReceived++;
      if (msg.length > MAX_PACKET_BYTES) {
        this.statsCounters.droppedOversize++;
        return;
      }
      const host = normalizeIp(address) ?? address;
      const now = this.clock.nowMs();
      if (!this.rateLimiter.allow(host, now)) {
        this.statsCounters.droppedRateLimited++;
        return;
      }
      const result = decodePacket(new Uint8Array(msg.buffer, msg.byteOffset, msg.length), now / 1000);
      if (!result.ok) {
        this.statsCounters.droppedInvalid++;
        this.log.log('debug', 'discarding discovery packet', { from: `${host}:${port}`, reason: result.reason });
        return;
      }
      const packet = result.packet;
      const senderHex = bytesToHex(packet.senderId).slice(2);
      if (senderHex === this.nodeIdHex) return;
      const m = packet.message;
      switch (m.type) {
        case 'ping':
          return this.onPing(packet, m, senderHex, host, port, now);
        case 'pong':
          return this.onPong(packet, m, senderHex, host, now);
        case 'findNode':
          return this.onFindNode(m, senderHex, host, port, now);
        case 'neighbours':
          return this.onNeighbours(m, senderHex, host, now);
        case 'enrRequest':
          return this.onEnrRequest(packet, m, senderHex, host, port, now);
        case 'enrResponse':
          this.statsCounters.ignored++;
          return;
      }
    } catch (e) {
      this.log.log('warn', 'discovery packet handler failed', { error: (e as Error)?.message ?? String(e) });
    }
  }

  private onPing(packet: DecodedPacket, ping: PingMessage, senderHex: string, host: string, port: number, now: number): void {
    this.send(host, port, {
      type: 'pong',
      to: { ip: host, udpPort: port, tcpPort: ping.from?.tcpPort ?? 0 },
      pingHash: packet.hash,
      expiration: this.expiration(now),
      enrSeq: this.enrSeq,
    });
    // As Besu: the TCP port comes from the Ping's `from`, else it is taken to equal the UDP port.
    const tcpPort = ping.from?.tcpPort || port;
    const node = this.table.get(senderHex);
    if (node && node.host === host && node.udpPort === port) {
      node.lastPingFromMs = now;
      if (this.isBonded(node, now)) {
        // It may have bonded with us only now, after dropping our first FindNodes.
        this.queryIfNeverAnswered(node, now);
      } else {
        this.startPing(node);
      }
      return;
    }
    const pending = this.pendingPings.get(this.pingByNode.get(senderHex) ?? '');
    if (pending) {
      pending.pingedUsAtMs = now;
      return;
    }
    // Unknown node, or a known id at a new endpoint (e.g. restarted): bond before trusting it.
    this.startPing({ id: packet.senderId, idHex: senderHex, host, udpPort: port, tcpPort }, now);
  }

  private onPong(packet: DecodedPacket, pong: PongMessage, senderHex: string, host: string, now: number): void {
    const hashHex = bytesToHex(pong.pingHash);
    const pending = this.pendingPings.get(hashHex);
    if (!pending || pending.idHex !== senderHex || pending.host !== host) {
      this.statsCounters.ignored++;
      return;
    }
    this.clearPendingPing(pending);
    const existing = this.table.get(senderHex);
    if (existing) {
      existing.host = pending.host;
      existing.udpPort = pending.udpPort;
      existing.tcpPort = pending.tcpPort;
      existing.lastPongMs = now;
      existing.failedPings = 0;
      if (pending.pingedUsAtMs !== undefined) existing.lastPingFromMs = pending.pingedUsAtMs;
      this.queryIfNeverAnswered(existing, now);
      return;
    }
    const node: TableNode = {
      id: packet.senderId,
      idHex: senderHex,
      host: pending.host,
      udpPort: pending.udpPort,
      tcpPort: pending.tcpPort,
      idHash: NodeTable.hashOf(packet.senderId),
      addedAtMs: now,
      lastPongMs: now,
      failedPings: 0,
    };
    if (pending.pingedUsAtMs !== undefined) node.lastPingFromMs = pending.pingedUsAtMs;
    if (this.table.add(node) !== 'added') {
      this.log.log('debug', 'discovery table full, node not added', { node: senderHex.slice(0, 16) });
      return;
    }
    this.log.log('debug', 'discovery bonded', { node: senderHex.slice(0, 16), host: node.host, udpPort: node.udpPort, tcpPort: node.tcpPort });
    this.emitFound(node);
    // Whether it holds our endpoint proof is unknown (it may have kept an old bond with us and
    // so not ping back): ask right away, the unanswered FindNode is resent.
    this.sendFindNode(node, this.nodeId, now);
  }

  private onFindNode(findNode: FindNodeMessage, senderHex: string, host: string, port: number, now: number): void {
    const node = this.table.get(senderHex);
    if (!node || node.host !== host || !this.isBonded(node, now)) {
      this.statsCounters.ignored++;
      return;
    }
    const closest = this.table.closest(findNode.target, MAX_NEIGHBOURS, (n) => n.idHex !== senderHex && this.isBonded(n, now));
    const nodes = closest.map((n) => ({ ip: n.host, udpPort: n.udpPort, tcpPort: n.tcpPort, nodeId: n.id }));
    for (const p of encodeNeighbours(nodes, this.expiration(now), this.settings.privateKey)) this.sendEncoded(host, port, p);
  }

  private onNeighbours(neighbours: NeighboursMessage, senderHex: string, host: string, now: number): void {
    const query = this.pendingFindNodes.get(senderHex);
    const sender = this.table.get(senderHex);
    if (!query || now > query.expiresAtMs || !sender || sender.host !== host) {
      this.statsCounters.ignored++;
      return;
    }
    query.answered = true;
    sender.lastAnsweredMs = now;
    const senderIp = ipToBytes(host)!;
    const accepted = neighbours.nodes.slice(0, MAX_NEIGHBOURS - query.nodesReceived);
    query.nodesReceived += accepted.length;
    if (query.nodesReceived >= MAX_NEIGHBOURS) this.clearPendingFindNode(senderHex);
    for (const n of accepted) {
      const idHex = bytesToHex(n.nodeId).slice(2);
      if (idHex === this.nodeIdHex || this.table.get(idHex) || this.pingByNode.has(idHex)) continue;
      const ip = ipToBytes(n.ip)!;
      if (n.udpPort === 0 || !isRelayableIp(ip, senderIp) || !this.canReach(ip)) continue;
      this.startPing({ id: n.nodeId, idHex, host: n.ip, udpPort: n.udpPort, tcpPort: n.tcpPort || n.udpPort });
    }
  }

  private onEnrRequest(packet: DecodedPacket, _request: EnrRequestMessage, senderHex: string, host: string, port: number, now: number): void {
    const node = this.table.get(senderHex);
    if (!node || node.host !== host || !this.isBonded(node, now) || !this.enr) {
      this.statsCounters.ignored++;
      return;
    }
    this.send(host, port, { type: 'enrResponse', requestHash: packet.hash, enr: this.enr });
  }

  // ---- outgoing ---------------------------------------------------------------------------------

  /** Pings `target` unless a Ping to it is outstanding or too many are; returns whether it did. */
  private startPing(target: PingTarget, pingedUsAtMs?: number): boolean {
    if (this.state !== 'running' || this.pingByNode.has(target.idHex)) return false;
    if (this.pendingPings.size >= this.settings.maxPendingPings) {
      this.log.log('debug', 'discovery: too many pending pings, skipping', { node: target.idHex.slice(0, 16) });
      return false;
    }
    const now = this.clock.nowMs();
    const encoded = encodePacket(
      {
        type: 'ping',
        version: PING_VERSION,
        from: { ip: this.settings.advertisedHost, udpPort: this.boundPort, tcpPort: this.settings.tcpPort },
        to: { ip: target.host, udpPort: target.udpPort, tcpPort: 0 },
        expiration: this.expiration(now),
        enrSeq: this.enrSeq,
      },
      this.settings.privateKey,
    );
    const hashHex = bytesToHex(encoded.hash);
    const timer = this.timers.setTimer(this.settings.pingTimeoutMs, () => this.onPingTimeout(hashHex));
    const pending: PendingPing = { id: target.id, idHex: target.idHex, host: target.host, udpPort: target.udpPort, tcpPort: target.tcpPort, hashHex, timer };
    if (pingedUsAtMs !== undefined) pending.pingedUsAtMs = pingedUsAtMs;
    this.pendingPings.set(hashHex, pending);
    this.pingByNode.set(target.idHex, hashHex);
    this.sendEncoded(target.host, target.udpPort, encoded);
    return true;
  }

  private onPingTimeout(hashHex: string): void {
    const pending = this.pendingPings.get(hashHex);
    if (!pending) return;
    this.clearPendingPing(pending);
    const node = this.table.get(pending.idHex);
    if (!node) return;
    node.failedPings++;
    if (node.failedPings >= this.settings.maxFailedPings) {
      this.table.remove(node.idHex);
      this.clearPendingFindNode(node.idHex);
      this.log.log('debug', 'discovery dropped unresponsive node', { node: node.idHex.slice(0, 16), failedPings: node.failedPings });
    }
  }

  private clearPendingPing(pending: PendingPing): void {
    this.timers.cancelTimer(pending.timer);
    this.pendingPings.delete(pending.hashHex);
    if (this.pingByNode.get(pending.idHex) === pending.hashHex) this.pingByNode.delete(pending.idHex);
  }

  private sendFindNode(node: TableNode, target: Uint8Array, now: number, attempt = 1): void {
    this.clearPendingFindNode(node.idHex);
    if (this.pendingFindNodes.size >= this.settings.maxPendingFindNodes) return;
    const timer = this.timers.setTimer(this.settings.findNodeTimeoutMs, () => this.onFindNodeTimeout(node.idHex));
    this.pendingFindNodes.set(node.idHex, { target, attempts: attempt, answered: false, nodesReceived: 0, expiresAtMs: now + this.settings.findNodeTimeoutMs, timer });
    node.lastQueriedMs = now;
    this.send(node.host, node.udpPort, { type: 'findNode', target, expiration: this.expiration(now) });
  }

  /** Asks a node that never answered a FindNode, at most once per refresh interval. */
  private queryIfNeverAnswered(node: TableNode, now: number): void {
    if (node.lastAnsweredMs !== undefined || this.pendingFindNodes.has(node.idHex)) return;
    if (node.lastQueriedMs !== undefined && now - node.lastQueriedMs < this.settings.refreshIntervalMs) return;
    this.sendFindNode(node, this.nodeId, now);
  }

  private onFindNodeTimeout(idHex: string): void {
    const query = this.pendingFindNodes.get(idHex);
    if (!query) return;
    this.pendingFindNodes.delete(idHex);
    const node = this.table.get(idHex);
    if (!query.answered && query.attempts < FIND_NODE_ATTEMPTS && node && this.state === 'running') {
      this.sendFindNode(node, query.target, this.clock.nowMs(), query.attempts + 1);
    }
  }

  private clearPendingFindNode(idHex: string): void {
    const query = this.pendingFindNodes.get(idHex);
    if (!query) return;
    this.timers.cancelTimer(query.timer);
    this.pendingFindNodes.delete(idHex);
  }

  private send(host: string, port: number, message: OutgoingMessage): void {
    this.sendEncoded(host, port, encodePacket(message, this.settings.privateKey));
  }

  private sendEncoded(host: string, port: number, packet: EncodedPacket): void {
    const socket = this.socket;
    if (!socket || this.state !== 'running') return;
    this.statsCounters.packetsSent++;
    // A dual-stack IPv6 socket reaches IPv4 hosts through their IPv4-mapped form.
    const address = this.ipv6 && !host.includes(':') ? `::ffff:${host}` : host;
    socket.send(packet.bytes, port, address, (e) => {
      if (e) this.log.log('debug', 'discovery send failed', { to: `${host}:${port}`, error: e.message });
    });
  }

  // ---- helpers ----------------------------------------------------------------------------------

  private expiration(nowMs: number): number {
    return Math.floor(nowMs / 1000) + this.settings.packetExpirySeconds;
  }

  /** An IPv4 socket cannot send to IPv6 addresses; an IPv6 (dual-stack) socket reaches both. */
  private canReach(ip: Uint8Array): boolean {
    return this.ipv6 || ip.length === 4;
  }

  /** It answered our Ping recently enough to count as a verified endpoint. */
  private isBonded(node: TableNode, now: number): boolean {
    return now - node.lastPongMs < this.settings.bondExpiryMs;
  }

  /** We answered its Ping recently enough that it holds our endpoint proof. */
  private knowsUs(node: TableNode, now: number): boolean {
    return node.lastPingFromMs !== undefined && now - node.lastPingFromMs < this.settings.bondExpiryMs;
  }

  private emitFound(node: TableNode): void {
    const found = toDiscovered(node);
    for (const listener of this.listeners) {
      try {
        listener(found);
      } catch (e) {
        this.log.log('warn', 'onNodeFound listener failed', { error: (e as Error)?.message ?? String(e) });
      }
    }
  }
}

function toDiscovered(n: TableNode): DiscoveredNode {
  return { id: n.idHex, host: n.host, tcpPort: n.tcpPort, udpPort: n.udpPort };
}
