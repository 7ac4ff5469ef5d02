/**
 * An in-process peer-to-peer hub for several live nodes in one process on the real clock (what
 * `qbft-lab network --validators N` runs on): every attached node is connected to every other
 * unless a link is cut with `disconnect(a, b)`.
 *
 * Semantics
 * - Delivery is asynchronous: `send` only queues; events reach the receiver's handlers from a
 *   setImmediate turn, never inside `send`.
 * - Each node has one inbox holding, in order, the messages sent to it and its peer-connected /
 *   peer-disconnected callbacks. So messages are FIFO per link, and a node sees a peer connect
 *   before that peer's first message and disconnect after its last delivered one.
 * - A node's events are handled one at a time: a promise returned by a handler is awaited before
 *   the node's next event (as the simulator's kernel does). Different nodes run concurrently.
 *   Handler errors go to `onError` and do not stop delivery.
 * - Events for a node whose handlers are not set yet wait in its inbox until `setHandlers`.
 * - `send` drops (counted by reason) when the sender's transport is stale (detached), the target
 *   is not a connected peer, the message is over `maxMessageBytes`, or the link already has
 *   `maxQueuedPerLink` undelivered messages. A queued message whose link went down (or down and up
 *   again) before delivery is dropped at delivery, like a TCP connection's unread bytes.
 * - Connectivity changes (attach, detach, connect, disconnect) update `peers()` at once and queue
 *   callbacks, disconnects first, each sorted by (observer, peer).
 * - `peerForAddress(address)`: the connected peer registered with that address (attach option
 *   or `setAddress`; compared case-insensitively), never the node itself.
 * - A node's transport may drop a peer (`disconnect(peer, reason)`, e.g. a peer on another
 *   network): the pair goes down like a cut link (both sides told, queued messages dropped) and
 *   stays down until either node is detached (a restarted node attaches afresh and is connected
 *   again) or `connect(a, b)` restores it. The reason is not carried: the hub has no wire.
 * - Bytes are copied at send (one copy per message) unless `copyBytes: false`.
 */
import type { PeerDisconnectReason, PeerId, Transport, TransportHandlers, WireMessage } from './ports.ts';

export interface LoopbackNetworkOptions {
  /** Undelivered messages per directed link; beyond it, sends are dropped ('overflow'). Default 10,000. */
  maxQueuedPerLink?: number;
  /** Larger messages are dropped ('too-large'). Default 16 MiB (RLPx's frame limit). */
  maxMessageBytes?: number;
  /** Default true. */
  copyBytes?: boolean;
  /** Events handled per event-loop turn before yielding (so I/O and timers keep running). Default 64. */
  eventsPerTurn?: number;
  /** Handler failures. Default: console.error. */
  onError?: (error: unknown, context: { node: PeerId; event: string }) => void;
  /** Observer, called synchronously: msg-dropped {from,to,reason}, peer-connected / peer-disconnected {local, peer}. */
  onEvent?: (e: LoopbackEvent) => void;
}

export type LoopbackEvent =
  | { kind: 'msg-dropped'; from: PeerId; to: PeerId; reason: LoopbackDropReason }
  | { kind: 'peer-connected' | 'peer-disconnected'; local: PeerId; peer: PeerId };

export type LoopbackDropReason = 'stale-transport' | 'not-connected' | 'too-large' | 'overflow' | 'link-down';

export interface LoopbackStats {
  sent: number;
  delivered: number;
  dropped: number;
}

/** A Transport with a way out: `close()` detaches the node (its peers see it disconnect). */
export interface LoopbackTransport extends Transport {
  peerForAddress(address: string): PeerId | undefined;
  disconnect(peer: PeerId, reason: PeerDisconnectReason): void;
  close(): void;
}

type InboxEvent =
  | { kind: 'msg'; from: PeerId; epoch: number; message: WireMessage }
  | { kind: 'up' | 'down'; peer: PeerId };

interface Endpoint {
  readonly id: PeerId;
  readonly gen: number;
  address: string | undefined;
  handlers: TransportHandlers | undefined;
  readonly inbox: InboxEvent[];
  /** Head index into inbox (amortised O(1) shift). */
  head: number;
  draining: boolean;
  scheduled: boolean;
  detached: boolean;
  /** Queued, undelivered messages by sender. */
  readonly queuedFrom: Map<PeerId, number>;
}

const DEFAULT_MAX_QUEUED_PER_LINK = 10_000;
const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function pairKey(a: PeerId, b: PeerId): string {
  return a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
}

export class LoopbackNetwork {
  private readonly endpoints = new Map<PeerId, Endpoint>();
  /** Pairs cut by disconnect(). */
  private readonly cut = new Set<string>();
  /** Pairs dropped by one of their nodes (transport disconnect), until either node detaches or connect() restores them. */
  private readonly dropped = new Set<string>();
  /** Bumped each time a pair's connection goes down, so queued messages of an older connection are dropped. */
  private readonly epochs = new Map<string, number>();
  private readonly maxQueuedPerLink: number;
  private readonly maxMessageBytes: number;
  private readonly copyBytes: boolean;
  private readonly eventsPerTurn: number;
  private readonly onError: NonNullable<LoopbackNetworkOptions['onError']>;
  private readonly onEvent: LoopbackNetworkOptions['onEvent'];
  private readonly counters: LoopbackStats = { sent: 0, delivered: 0, dropped: 0 };
  private readonly dropReasons = new Map<LoopbackDropReason, number>();
  private nextGen = 1;
  private closed = false;

  constructor(opts: LoopbackNetworkOptions = {}) {
    this.maxQueuedPerLink = opts.maxQueuedPerLink ?? DEFAULT_MAX_QUEUED_PER_LINK;
    this.maxMessageBytes = opts.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.copyBytes = opts.copyBytes ?? true;
    this.eventsPerTurn = opts.eventsPerTurn ?? 64;
    if (!(Number.isSafeInteger(this.maxQueuedPerLink) && this.maxQueuedPerLink >= 0)) throw new RangeError('maxQueuedPerLink must be an integer >= 0');
    if (!(this.maxMessageBytes >= 0)) throw new RangeError('maxMessageBytes must be >= 0');
    if (!(Number.isSafeInteger(this.eventsPerTurn) && this.eventsPerTurn >= 1)) throw new RangeError('eventsPerTurn must be an integer >= 1');
    this.onError = opts.onError ?? ((e, c) => console.error(`loopback network: ${c.event} handler of ${c.node} failed:`, e));
    this.onEvent = opts.onEvent;
  }

  /** Adds a node, connected to every attached node (except cut pairs). Throws if `id` is attached. */
  attach(id: PeerId, opts: { address?: string } = {}): LoopbackTransport {
    if (this.closed) throw new Error('attach: the network is closed');
    if (typeof id !== 'string' || id.length === 0) throw new TypeError('attach: id must be a non-empty string');
    if (this.endpoints.has(id)) throw new Error(`attach: ${id} is already attached`);
    const ep: Endpoint = {
      id,
      gen: this.nextGen++,
      address: opts.address?.toLowerCase(),
      handlers: undefined,
      inbox: [],
      head: 0,
      draining: false,
      scheduled: false,
      detached: false,
      queuedFrom: new Map(),
    };
    this.changeConnectivity(() => this.endpoints.set(id, ep));
    const net = this;
    return {
      localId: id,
      peers: () => (ep.detached ? [] : net.peersOf(id)),
      send: (to, message) => net.send(ep, to, message),
      peerForAddress: (address) => (ep.detached ? undefined : net.peerForAddress(id, address)),
      addressOfPeer: (peer) => (ep.detached ? undefined : net.endpoints.get(peer)?.address),
      disconnect: (peer) => {
        if (!ep.detached && net.isConnected(id, peer)) net.changeConnectivity(() => net.dropped.add(pairKey(id, peer)));
      },
      setHandlers: (handlers) => {
        if (ep.detached) return;
        ep.handlers = handlers;
        net.schedule(ep);
      },
      close: () => net.detach(id, ep.gen),
    };
  }

  /** Removes a node: its peers see it disconnect; its transport goes inert; its queued events are dropped. */
  detach(id: PeerId, gen?: number): void {
    const ep = this.endpoints.get(id);
    if (ep === undefined || (gen !== undefined && ep.gen !== gen)) return;
    this.changeConnectivity(() => {
      this.endpoints.delete(id);
      for (const other of this.endpoints.keys()) this.dropped.delete(pairKey(id, other));
    });
    ep.detached = true;
    ep.handlers = undefined;
    ep.inbox.length = 0;
    ep.head = 0;
    ep.queuedFrom.clear();
  }

  /** Registers the node-key address of `id` (for peerForAddress). */
  setAddress(id: PeerId, address: string | undefined): void {
    const ep = this.endpoints.get(id);
    if (ep === undefined) throw new Error(`setAddress: ${id} is not attached`);
    ep.address = address?.toLowerCase();
  }

  /** Cuts the link between a and b (both see the other disconnect). */
  disconnect(a: PeerId, b: PeerId): void {
    if (a === b) return;
    this.changeConnectivity(() => this.cut.add(pairKey(a, b)));
  }

  /** Restores a link cut by disconnect() or dropped by one of its nodes. */
  connect(a: PeerId, b: PeerId): void {
    if (a === b) return;
    this.changeConnectivity(() => {
      this.cut.delete(pairKey(a, b));
      this.dropped.delete(pairKey(a, b));
    });
  }

  isConnected(a: PeerId, b: PeerId): boolean {
    return a !== b && this.endpoints.has(a) && this.endpoints.has(b) && this.linked(pairKey(a, b));
  }

  /** Attached node ids, sorted. */
  nodes(): PeerId[] {
    return [...this.endpoints.keys()].sort(cmp);
  }

  stats(): LoopbackStats {
    return { ...this.counters };
  }

  /** Drops by reason, reasons sorted. */
  dropsByReason(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const r of [...this.dropReasons.keys()].sort(cmp)) out[r] = this.dropReasons.get(r)!;
    return out;
  }

  /** Undelivered events (messages and callbacks) across all nodes. */
  pendingEvents(): number {
    let n = 0;
    for (const ep of this.endpoints.values()) n += ep.inbox.length - ep.head;
    return n;
  }

  /** Detaches every node; later attach() throws. */
  close(): void {
    for (const id of this.nodes()) this.detach(id);
    this.closed = true;
  }

  // ---------------------------------------------------------------------------------------------

  private linked(pair: string): boolean {
    return !this.cut.has(pair) && !this.dropped.has(pair);
  }

  private peersOf(id: PeerId): PeerId[] {
    const out: PeerId[] = [];
    for (const other of this.endpoints.keys()) if (other !== id && this.linked(pairKey(id, other))) out.push(other);
    return out.sort(cmp);
  }

  private peerForAddress(self: PeerId, address: string): PeerId | undefined {
    if (typeof address !== 'string') return undefined;
    const want = address.toLowerCase();
    for (const peer of this.peersOf(self)) if (this.endpoints.get(peer)!.address === want) return peer;
    return undefined;
  }

  private connectedPairs(): Set<string> {
    const out = new Set<string>();
    const ids = [...this.endpoints.keys()];
    for (let i = 0; i < ids.length; i++) {
      for (let j = i + 1; j < ids.length; j++) {
        const k = pairKey(ids[i]!, ids[j]!);
        if (this.linked(k)) out.add(k);
      }
    }
    return out;
  }

  private changeConnectivity(mutate: () => void): void {
    const before = this.connectedPairs();
    mutate();
    const after = this.connectedPairs();
    const down: Array<[PeerId, PeerId]> = [];
    const up: Array<[PeerId, PeerId]> = [];
    for (const k of before) {
      if (after.has(k)) continue;
      const [a, b] = k.split('\u0000') as [PeerId, PeerId];
      this.epochs.set(k, (this.epochs.get(k) ?? 0) + 1);
      down.push([a, b], [b, a]);
    }
    for (const k of after) {
      if (before.has(k)) continue;
      const [a, b] = k.split('\u0000') as [PeerId, PeerId];
      up.push([a, b], [b, a]);
    }
    const order = (x: [PeerId, PeerId], y: [PeerId, PeerId]): number => cmp(x[0], y[0]) || cmp(x[1], y[1]);
    // A detached node is no longer in `endpoints`: only the nodes still attached are told.
    for (const [observer, peer] of down.sort(order)) {
      const ep = this.endpoints.get(observer);
      if (ep !== undefined) this.enqueue(ep, { kind: 'down', peer });
    }
    for (const [observer, peer] of up.sort(order)) {
      const ep = this.endpoints.get(observer);
      if (ep !== undefined) this.enqueue(ep, { kind: 'up', peer });
    }
  }

  private drop(from: PeerId, to: PeerId, reason: LoopbackDropReason): void {
    this.counters.dropped++;
    this.dropReasons.set(reason, (this.dropReasons.get(reason) ?? 0) + 1);
    this.onEvent?.({ kind: 'msg-dropped', from, to, reason });
  }

  private send(src: Endpoint, to: PeerId, message: WireMessage): void {
    if (message === null || typeof message !== 'object' || !(message.data instanceof Uint8Array) || typeof message.code !== 'number' || typeof message.protocol !== 'string') {
      throw new TypeError('send: message must be { protocol, code, data: Uint8Array }');
    }
    this.counters.sent++;
    if (src.detached || this.endpoints.get(src.id) !== src) return this.drop(src.id, to, 'stale-transport');
    const dst = this.endpoints.get(to);
    if (dst === undefined || !this.isConnected(src.id, to)) return this.drop(src.id, to, 'not-connected');
    if (message.data.length > this.maxMessageBytes) return this.drop(src.id, to, 'too-large');
    const queued = dst.queuedFrom.get(src.id) ?? 0;
    if (queued >= this.maxQueuedPerLink) return this.drop(src.id, to, 'overflow');
    dst.queuedFrom.set(src.id, queued + 1);
    const data = this.copyBytes ? message.data.slice() : message.data;
    const epoch = this.epochs.get(pairKey(src.id, to)) ?? 0;
    this.enqueue(dst, { kind: 'msg', from: src.id, epoch, message: { protocol: message.protocol, code: message.code, data } });
  }

  private enqueue(ep: Endpoint, e: InboxEvent): void {
    ep.inbox.push(e);
    this.schedule(ep);
  }

  private schedule(ep: Endpoint): void {
    if (ep.scheduled || ep.draining || ep.detached || ep.handlers === undefined || ep.head >= ep.inbox.length) return;
    ep.scheduled = true;
    setImmediate(() => {
      ep.scheduled = false;
      void this.drain(ep);
    });
  }

  private async drain(ep: Endpoint): Promise<void> {
    if (ep.draining) return;
    ep.draining = true;
    try {
      for (let handled = 0; handled < this.eventsPerTurn; handled++) {
        if (ep.detached || ep.handlers === undefined || ep.head >= ep.inbox.length) break;
        const e = ep.inbox[ep.head]!;
        ep.inbox[ep.head] = undefined as unknown as InboxEvent;
        ep.head++;
        if (ep.head > 1024 && ep.head * 2 > ep.inbox.length) {
          ep.inbox.splice(0, ep.head);
          ep.head = 0;
        }
        await this.deliver(ep, e);
      }
    } finally {
      ep.draining = false;
    }
    this.schedule(ep);
  }

  private async deliver(ep: Endpoint, e: InboxEvent): Promise<void> {
    const handlers = ep.handlers!;
    try {
      if (e.kind === 'msg') {
        const left = (ep.queuedFrom.get(e.from) ?? 1) - 1;
        if (left === 0) ep.queuedFrom.delete(e.from);
        else ep.queuedFrom.set(e.from, left);
        const k = pairKey(e.from, ep.id);
        if (!this.isConnected(e.from, ep.id) || (this.epochs.get(k) ?? 0) !== e.epoch) return this.drop(e.from, ep.id, 'link-down');
        this.counters.delivered++;
        await handlers.onMessage(e.from, e.message);
      } else if (e.kind === 'up') {
        this.onEvent?.({ kind: 'peer-connected', local: ep.id, peer: e.peer });
        await handlers.onPeerConnected(e.peer);
      } else {
        this.onEvent?.({ kind: 'peer-disconnected', local: ep.id, peer: e.peer });
        await handlers.onPeerDisconnected(e.peer);
      }
    } catch (err) {
      this.onError(err, { node: ep.id, event: e.kind === 'msg' ? 'onMessage' : e.kind === 'up' ? 'onPeerConnected' : 'onPeerDisconnected' });
    }
  }
}
