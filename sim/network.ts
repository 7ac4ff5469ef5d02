/**
 * The virtual network: a mesh among attached nodes that are up (full, or the peer topology a
 * peer limit leaves), carrying the same encoded bytes as the live wire, with per-link latency models and faults.
 *
 * Semantics
 * - `send` decides at send time: dropped (sender down or stale, unknown or down receiver,
 *   partitioned, too large, loss, link over its bound) or scheduled for delivery through the
 *   kernel at now + latency (+ a random extra delay when reordering). A duplicate is an extra copy
 *   with its own latency draw. Deliveries are checked again when they fire: if either side went
 *   down or was restarted (a new incarnation from `attach`), or a partition now separates them,
 *   the message is dropped then. Latencies are rounded to whole milliseconds.
 * - A clogged link (`clog`, or `clogged: true` in its faults) holds messages, both newly sent ones
 *   and in-flight ones when they arrive, and releases them in order, each with a fresh latency
 *   draw, once it is no longer clogged. Held plus in-flight messages per link are bounded by
 *   `maxInFlightPerLink`; beyond it messages are dropped ('overflow').
 * - Per-link configuration: the most specific setting wins as a whole (pair, then from-only,
 *   then to-only, then the network default); LinkFaults objects are not merged.
 * - Connectivity as a node sees it: `peers()` lists the other attached nodes that are up, in
 *   its partition group and its peers in the topology (when one is set: Besu's --max-peers), sorted, reflecting the current state at once. Every change (attach,
 *   setUp, partition, heal) schedules onPeerDisconnected / onPeerConnected callbacks at the current
 *   virtual time, disconnects first, each sorted by (observer, peer); a callback whose observer is
 *   down or has been replaced by a new incarnation when it fires is skipped.
 * - Draws from `random` are made only when a probability is > 0 or a latency model is random, in
 *   send order, so a run is a function of the seed and of the order of calls.
 * - Bytes: by default each delivery hands the receiver its own copy, made when the message is
 *   sent (so neither a sender reusing its buffer nor a receiver mutating what it got can affect
 *   anyone else); `copyBytes: false` passes the sender's Uint8Array through (treat as immutable).
 */
import type { PeerId, Transport, TransportHandlers, WireMessage } from '../node/runtime/ports.ts';
import type { NetworkTraceEvent } from './trace-events.ts';
import type { SimKernel } from './kernel.ts';
import type { SeededRandom } from './random.ts';
import type { Topology } from './topology.ts';

export type LatencyModel =
  | { kind: 'fixed'; ms: number }
  | { kind: 'uniform'; minMs: number; maxMs: number }
  | { kind: 'normal'; meanMs: number; sdMs: number; minMs?: number };

export interface LinkFaults {
  /** Probability (0..1) that a message is lost. */
  loss?: number;
  /** Probability (0..1) that a message is delivered twice. */
  duplicate?: number;
  /** Probability (0..1) of an extra random delay in [0, reorderWindowMs). */
  reorder?: number;
  /** Default 50 ms. */
  reorderWindowMs?: number;
  /** The link holds messages until unclogged. */
  clogged?: boolean;
}

export interface NetworkStats {
  sent: number;
  delivered: number;
  dropped: number;
  duplicated: number;
}

export type DropReason =
  | 'stale-transport'
  | 'sender-down'
  | 'unknown-peer'
  | 'peer-down'
  | 'peer-restarted'
  | 'sender-restarted'
  | 'partitioned'
  | 'not-peers'
  | 'too-large'
  | 'loss'
  | 'overflow'
  | 'no-handler';

export interface VirtualNetworkOptions {
  /** Default { kind: 'fixed', ms: 10 }. */
  latency?: LatencyModel;
  faults?: LinkFaults;
  /** Bound on in-flight + held messages per directed link; default 10,000. */
  maxInFlightPerLink?: number;
  /** Messages with more data bytes are dropped ('too-large'); default 16 MiB (RLPx's frame limit). */
  maxMessageBytes?: number;
  /** Copy message bytes (one copy per delivery, made at send). Default true. */
  copyBytes?: boolean;
  /**
   * Observer, called synchronously: {kind:'msg-sent'|'msg-delivered'|'msg-held', from, to, protocol,
   * code, size, id}, {kind:'msg-dropped', from, to, protocol, code, reason, id}, {kind:'msg-duplicated',
   * from, to, protocol, code, id}, {kind:'peer-connected'|'peer-disconnected', local, peer} (when the
   * callback is actually made). `id` numbers sends from 1 on, so a delivery, hold or drop names the
   * send it belongs to (a duplicate shares its original's id). No `node` or `t` fields, so events
   * can go to the trace as they are.
   */
  onEvent?: (e: NetworkTraceEvent) => void;
  /**
   * false: onEvent hears of drops only (no msg-sent, msg-delivered, msg-held, msg-duplicated or
   * peer events), and those events are never built (a 100-validator block is ~500,000 deliveries).
   * Default true.
   */
  reportTraffic?: boolean;
}

interface Endpoint {
  readonly id: PeerId;
  gen: number;
  up: boolean;
  handlers: TransportHandlers | undefined;
}

interface Packet {
  readonly from: PeerId;
  readonly to: PeerId;
  readonly fromGen: number;
  readonly toGen: number;
  readonly protocol: WireMessage['protocol'];
  readonly code: number;
  readonly data: Uint8Array;
  /** The send's number (1, 2, ...): the `id` of its trace events, which ties a delivery to its send. */
  readonly id: number;
}

interface Link {
  readonly from: PeerId;
  readonly to: PeerId;
  version: number;
  latency: LatencyModel;
  faults: LinkFaults;
  /** clog(from, to) was called (separate from faults.clogged). */
  clogCalled: boolean;
  inFlight: number;
  held: Packet[];
}

const DEFAULT_LATENCY: LatencyModel = { kind: 'fixed', ms: 10 };
export const DEFAULT_REORDER_WINDOW_MS = 50;
const NO_FAULTS: LinkFaults = {};

function checkProbability(name: string, p: number | undefined): void {
  if (p === undefined) return;
  if (typeof p !== 'number' || !(p >= 0 && p <= 1)) throw new RangeError(`${name} must be a probability in [0, 1], got ${p}`);
}

function checkMs(name: string, v: number | undefined, optional = false): void {
  if (v === undefined && optional) return;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new RangeError(`${name} must be a finite number >= 0, got ${v}`);
}

function validateLatency(m: LatencyModel): LatencyModel {
  if (m === null || typeof m !== 'object') throw new TypeError('latency model must be an object');
  switch (m.kind) {
    case 'fixed':
      checkMs('latency ms', m.ms);
      return { kind: 'fixed', ms: m.ms };
    case 'uniform':
      checkMs('latency minMs', m.minMs);
      checkMs('latency maxMs', m.maxMs);
      if (m.maxMs < m.minMs) throw new RangeError(`latency maxMs (${m.maxMs}) < minMs (${m.minMs})`);
      return { kind: 'uniform', minMs: m.minMs, maxMs: m.maxMs };
    case 'normal':
      checkMs('latency meanMs', m.meanMs);
      checkMs('latency sdMs', m.sdMs);
      checkMs('latency minMs', m.minMs, true);
      return m.minMs === undefined ? { kind: 'normal', meanMs: m.meanMs, sdMs: m.sdMs } : { kind: 'normal', meanMs: m.meanMs, sdMs: m.sdMs, minMs: m.minMs };
    default:
      throw new TypeError(`unknown latency model kind ${String((m as { kind?: unknown }).kind)}`);
  }
}

function validateFaults(f: LinkFaults): LinkFaults {
  if (f === null || typeof f !== 'object') throw new TypeError('link faults must be an object');
  checkProbability('loss', f.loss);
  checkProbability('duplicate', f.duplicate);
  checkProbability('reorder', f.reorder);
  checkMs('reorderWindowMs', f.reorderWindowMs, true);
  const out: LinkFaults = {};
  if (f.loss !== undefined) out.loss = f.loss;
  if (f.duplicate !== undefined) out.duplicate = f.duplicate;
  if (f.reorder !== undefined) out.reorder = f.reorder;
  if (f.reorderWindowMs !== undefined) out.reorderWindowMs = f.reorderWindowMs;
  if (f.clogged !== undefined) out.clogged = !!f.clogged;
  return out;
}

function checkId(id: PeerId): void {
  if (typeof id !== 'string' || id.length === 0 || id.length > 256) throw new TypeError(`peer id must be a non-empty string of at most 256 characters, got ${String(id)}`);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Two-level override table: pair, from-only, to-only, default. */
class Overrides<T> {
  readonly pair = new Map<PeerId, Map<PeerId, T>>();
  readonly from = new Map<PeerId, T>();
  readonly to = new Map<PeerId, T>();
  constructor(public base: T) {}

  set(value: T, from?: PeerId, to?: PeerId): void {
    if (from !== undefined && to !== undefined) {
      let m = this.pair.get(from);
      if (m === undefined) this.pair.set(from, (m = new Map()));
      m.set(to, value);
    } else if (from !== undefined) this.from.set(from, value);
    else if (to !== undefined) this.to.set(to, value);
    else this.base = value;
  }

  resolve(from: PeerId, to: PeerId): T {
    return this.pair.get(from)?.get(to) ?? this.from.get(from) ?? this.to.get(to) ?? this.base;
  }

  clear(): void {
    this.pair.clear();
    this.from.clear();
    this.to.clear();
  }
}

export class VirtualNetwork {
  private readonly kernel: SimKernel;
  private readonly random: SeededRandom;
  private readonly endpoints = new Map<PeerId, Endpoint>();
  private sortedIds: PeerId[] = [];
  private readonly links = new Map<PeerId, Map<PeerId, Link>>();
  private readonly latency: Overrides<LatencyModel>;
  private readonly faults: Overrides<LinkFaults>;
  private configVersion = 0;
  /** Partition group per node; nodes not listed share group -1. Empty: no partition. */
  private groups = new Map<PeerId, number>();
  /** Who may hold a connection to whom (sim/topology.ts); undefined: a full mesh. */
  private topology: Topology | undefined;
  /** reachableFrom's answers until connectivity next changes (a node multicasts hundreds of times a block). */
  private readonly reachable = new Map<PeerId, readonly PeerId[]>();
  private readonly maxInFlightPerLink: number;
  private readonly maxMessageBytes: number;
  private readonly copyBytes: boolean;
  private readonly onEvent: ((e: NetworkTraceEvent) => void) | undefined;
  /** onEvent, for the events reportTraffic covers; undefined when those are not reported. */
  private readonly onTraffic: ((e: NetworkTraceEvent) => void) | undefined;
  private readonly counters: NetworkStats = { sent: 0, delivered: 0, dropped: 0, duplicated: 0 };
  private readonly dropReasons = new Map<DropReason, number>();
  private taps: Array<(from: PeerId, message: WireMessage) => void> = [];

  constructor(kernel: SimKernel, random: SeededRandom, opts: VirtualNetworkOptions = {}) {
    this.kernel = kernel;
    this.random = random;
    this.latency = new Overrides(validateLatency(opts.latency ?? DEFAULT_LATENCY));
    this.faults = new Overrides(validateFaults(opts.faults ?? NO_FAULTS));
    this.maxInFlightPerLink = opts.maxInFlightPerLink ?? 10_000;
    this.maxMessageBytes = opts.maxMessageBytes ?? 16 * 1024 * 1024;
    if (!(Number.isSafeInteger(this.maxInFlightPerLink) && this.maxInFlightPerLink >= 0)) throw new RangeError('maxInFlightPerLink must be an integer >= 0');
    if (!(this.maxMessageBytes >= 0)) throw new RangeError('maxMessageBytes must be >= 0');
    this.copyBytes = opts.copyBytes ?? true;
    this.onEvent = opts.onEvent;
    this.onTraffic = opts.reportTraffic === false ? undefined : opts.onEvent;
  }

  /**
   * Registers `id` (or a new incarnation of it) as up and returns its transport. A previous
   * transport for the same id goes inert: its sends are dropped ('stale-transport'), its peers()
   * is empty, and messages in flight to or from the old incarnation are dropped on arrival.
   * Peers see the old incarnation disconnect and the new one connect.
   */
  attach(id: PeerId): Transport {
    checkId(id);
    const net = this;
    let ep!: Endpoint;
    this.changeConnectivity(() => {
      const old = this.endpoints.get(id);
      if (old === undefined) {
        ep = { id, gen: 1, up: true, handlers: undefined };
        this.endpoints.set(id, ep);
        this.sortedIds = [...this.endpoints.keys()].sort(cmp);
      } else {
        ep = old;
        ep.gen++;
        ep.up = true;
        ep.handlers = undefined;
      }
    });
    const gen = ep.gen;
    const endpoint = ep;
    return {
      localId: id,
      peers(): PeerId[] {
        if (endpoint.gen !== gen || !endpoint.up) return [];
        return net.reachableFrom(id).slice();
      },
      send(to: PeerId, message: WireMessage): void {
        net.send(endpoint, gen, to, message);
      },
      setHandlers(handlers: TransportHandlers): void {
        if (endpoint.gen === gen) endpoint.handlers = handlers;
      },
    };
  }

  isAttached(id: PeerId): boolean {
    return this.endpoints.has(id);
  }

  isUp(id: PeerId): boolean {
    return this.endpoints.get(id)?.up ?? false;
  }

  /** Attached node ids, sorted. */
  nodes(): PeerId[] {
    return this.sortedIds.slice();
  }

  /** Crashed nodes are down: messages to/from them are dropped and peers are told. */
  setUp(id: PeerId, up: boolean): void {
    const ep = this.endpoints.get(id);
    if (ep === undefined) throw new Error(`setUp: ${id} is not attached`);
    if (ep.up === up) return;
    this.changeConnectivity(() => {
      ep.up = up;
    });
  }

  /** Latency for the pair (from, to), all links from `from`, all links to `to`, or the default. */
  setLatency(model: LatencyModel, from?: PeerId, to?: PeerId): void {
    this.latency.set(validateLatency(model), from, to);
    this.configVersion++;
  }

  /** Faults for the pair, all links from `from`, all links to `to`, or the default (replacing, not merging). */
  setLinkFaults(faults: LinkFaults, from?: PeerId, to?: PeerId): void {
    this.faults.set(validateFaults(faults), from, to);
    this.configVersion++;
    this.releaseUnclogged();
  }

  /** Drops every per-pair / per-node latency and fault override (defaults stay; clog() calls stay). */
  clearLinkOverrides(): void {
    this.latency.clear();
    this.faults.clear();
    this.configVersion++;
    this.releaseUnclogged();
  }

  /**
   * Nodes in different groups cannot exchange messages; nodes not listed form one more group
   * together. Replaces any earlier partition. A node listed twice throws.
   */
  partition(groups: PeerId[][]): void {
    if (!Array.isArray(groups)) throw new TypeError('partition: groups must be an array of arrays');
    const next = new Map<PeerId, number>();
    groups.forEach((g, i) => {
      if (!Array.isArray(g)) throw new TypeError('partition: each group must be an array');
      for (const id of g) {
        checkId(id);
        if (next.has(id)) throw new Error(`partition: ${id} is listed in more than one group`);
        next.set(id, i);
      }
    });
    this.changeConnectivity(() => {
      this.groups = next;
    });
  }

  heal(): void {
    this.changeConnectivity(() => {
      this.groups = new Map();
    });
  }

  /**
   * Limits connections to the pairs `topology` lists (a node missing from it has no peers);
   * undefined restores the full mesh. Partitions then act within it.
   */
  setTopology(topology: Topology | undefined): void {
    this.changeConnectivity(() => {
      this.topology = topology;
    });
  }

  /** true when a and b may hold a connection (the topology; partitions and up state not considered). */
  arePeers(a: PeerId, b: PeerId): boolean {
    return this.topology === undefined || (this.topology.get(a)?.has(b) ?? false);
  }

  /** true when a and b are in the same partition group (attachment and up state not considered). */
  sameSide(a: PeerId, b: PeerId): boolean {
    return (this.groups.get(a) ?? -1) === (this.groups.get(b) ?? -1);
  }

  clog(from: PeerId, to: PeerId): void {
    checkId(from);
    checkId(to);
    this.link(from, to).clogCalled = true;
  }

  unclog(from: PeerId, to: PeerId): void {
    const l = this.links.get(from)?.get(to);
    if (l === undefined || !l.clogCalled) return;
    l.clogCalled = false;
    this.releaseUnclogged();
  }

  stats(): NetworkStats {
    return { ...this.counters };
  }

  /**
   * Calls `listener` with every message a live node sends, before any fault decides its fate (the
   * invariant checkers' view of the wire; the buffer is the sender's, not a copy). Returns an
   * unsubscribe function.
   */
  tap(listener: (from: PeerId, message: WireMessage) => void): () => void {
    this.taps = [...this.taps, listener];
    return () => {
      this.taps = this.taps.filter((l) => l !== listener);
    };
  }

  /** Drops by reason, reasons sorted. */
  dropsByReason(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const r of [...this.dropReasons.keys()].sort(cmp)) out[r] = this.dropReasons.get(r)!;
    return out;
  }

  /** Messages scheduled but not yet delivered, and messages held by clogged links. */
  pending(): { inFlight: number; held: number } {
    let inFlight = 0;
    let held = 0;
    for (const m of this.links.values()) {
      for (const l of m.values()) {
        inFlight += l.inFlight;
        held += l.held.length;
      }
    }
    return { inFlight, held };
  }

  // ---------------------------------------------------------------------------------------------

  private reachableFrom(id: PeerId): readonly PeerId[] {
    let cached = this.reachable.get(id);
    if (cached === undefined) this.reachable.set(id, (cached = this.computeReachable(id)));
    return cached;
  }

  private computeReachable(id: PeerId): PeerId[] {
    const out: PeerId[] = [];
    const g = this.groups.get(id) ?? -1;
    for (const other of this.sortedIds) {
      if (other === id) continue;
      if (!this.endpoints.get(other)!.up) continue;
      if ((this.groups.get(other) ?? -1) !== g) continue;
      if (!this.arePeers(id, other)) continue;
      out.push(other);
    }
    return out;
  }

  private connectedPairs(): Map<string, [Endpoint, number, PeerId]> {
    const out = new Map<string, [Endpoint, number, PeerId]>();
    for (const a of this.sortedIds) {
      const ea = this.endpoints.get(a)!;
      if (!ea.up) continue;
      for (const b of this.reachableFrom(a)) {
        const eb = this.endpoints.get(b)!;
        out.set(`${a}\u0000${ea.gen}\u0000${b}\u0000${eb.gen}`, [ea, ea.gen, b]);
      }
    }
    return out;
  }

  private changeConnectivity(mutate: () => void): void {
    const before = this.connectedPairs();
    mutate();
    this.reachable.clear();
    const after = this.connectedPairs();
    const down: Array<[Endpoint, number, PeerId]> = [];
    const upList: Array<[Endpoint, number, PeerId]> = [];
    for (const [k, v] of before) if (!after.has(k)) down.push(v);
    for (const [k, v] of after) if (!before.has(k)) upList.push(v);
    const order = (x: [Endpoint, number, PeerId], y: [Endpoint, number, PeerId]): number => cmp(x[0].id, y[0].id) || x[1] - y[1] || cmp(x[2], y[2]);
    down.sort(order);
    upList.sort(order);
    for (const [ep, gen, peer] of down) this.notify(ep, gen, peer, false);
    for (const [ep, gen, peer] of upList) this.notify(ep, gen, peer, true);
  }

  private notify(ep: Endpoint, gen: number, peer: PeerId, connected: boolean): void {
    this.kernel.post(
      this.kernel.nowMs(),
      () => {
        if (ep.gen !== gen || !ep.up || ep.handlers === undefined) return;
        this.onTraffic?.({ kind: connected ? 'peer-connected' : 'peer-disconnected', local: ep.id, peer });
        return connected ? ep.handlers.onPeerConnected(peer) : ep.handlers.onPeerDisconnected(peer);
      },
      connected ? 'net:peer-connected' : 'net:peer-disconnected',
    );
  }

  private link(from: PeerId, to: PeerId): Link {
    let m = this.links.get(from);
    if (m === undefined) this.links.set(from, (m = new Map()));
    let l = m.get(to);
    if (l === undefined) {
      l = { from, to, version: -1, latency: DEFAULT_LATENCY, faults: NO_FAULTS, clogCalled: false, inFlight: 0, held: [] };
      m.set(to, l);
    }
    if (l.version !== this.configVersion) {
      l.latency = this.latency.resolve(from, to);
      l.faults = this.faults.resolve(from, to);
      l.version = this.configVersion;
    }
    return l;
  }

  private isClogged(l: Link): boolean {
    return l.clogCalled || l.faults.clogged === true;
  }

  private drop(from: PeerId, to: PeerId, protocol: string, code: number, reason: DropReason, id: number): void {
    this.counters.dropped++;
    this.dropReasons.set(reason, (this.dropReasons.get(reason) ?? 0) + 1);
    this.onEvent?.({ kind: 'msg-dropped', from, to, protocol, code, reason, id });
  }

  private send(src: Endpoint, gen: number, to: PeerId, message: WireMessage): void {
    if (message === null || typeof message !== 'object' || !(message.data instanceof Uint8Array) || typeof message.code !== 'number' || typeof message.protocol !== 'string') {
      throw new TypeError('send: message must be { protocol, code, data: Uint8Array }');
    }
    const from = src.id;
    const { protocol, code } = message;
    const id = ++this.counters.sent;
    this.onTraffic?.({ kind: 'msg-sent', from, to, protocol, code, size: message.data.length, id });
    if (src.gen !== gen) return this.drop(from, to, protocol, code, 'stale-transport', id);
    if (!src.up) return this.drop(from, to, protocol, code, 'sender-down', id);
    for (const tap of this.taps) tap(from, message);
    const dst = this.endpoints.get(to);
    if (dst === undefined || to === from) return this.drop(from, to, protocol, code, 'unknown-peer', id);
    if (!dst.up) return this.drop(from, to, protocol, code, 'peer-down', id);
    if (!this.sameSide(from, to)) return this.drop(from, to, protocol, code, 'partitioned', id);
    if (!this.arePeers(from, to)) return this.drop(from, to, protocol, code, 'not-peers', id);
    if (message.data.length > this.maxMessageBytes) return this.drop(from, to, protocol, code, 'too-large', id);
    const l = this.link(from, to);
    const f = l.faults;
    if (f.loss !== undefined && this.random.chance(f.loss)) return this.drop(from, to, protocol, code, 'loss', id);
    const dup = f.duplicate !== undefined && this.random.chance(f.duplicate);
    this.enqueue(l, { from, to, fromGen: gen, toGen: dst.gen, protocol, code, data: this.copy(message.data), id });
    if (dup) {
      this.counters.duplicated++;
      this.onTraffic?.({ kind: 'msg-duplicated', from, to, protocol, code, id });
      this.enqueue(l, { from, to, fromGen: gen, toGen: dst.gen, protocol, code, data: this.copy(message.data), id });
    }
  }

  private enqueue(l: Link, p: Packet): void {
    if (l.inFlight + l.held.length >= this.maxInFlightPerLink) return this.drop(p.from, p.to, p.protocol, p.code, 'overflow', p.id);
    if (this.isClogged(l)) {
      l.held.push(p);
      this.onTraffic?.({ kind: 'msg-held', from: p.from, to: p.to, protocol: p.protocol, code: p.code, size: p.data.length, id: p.id });
      return;
    }
    this.schedule(l, p);
  }

  private drawLatency(l: Link): number {
    const m = l.latency;
    let ms: number;
    switch (m.kind) {
      case 'fixed':
        ms = m.ms;
        break;
      case 'uniform':
        ms = m.maxMs > m.minMs ? m.minMs + this.random.next() * (m.maxMs - m.minMs) : m.minMs;
        break;
      case 'normal': {
        const v = m.sdMs > 0 ? this.random.normal(m.meanMs, m.sdMs) : m.meanMs;
        ms = Math.max(m.minMs ?? 0, v);
        break;
      }
    }
    const f = l.faults;
    if (f.reorder !== undefined && this.random.chance(f.reorder)) {
      ms += this.random.next() * (f.reorderWindowMs ?? DEFAULT_REORDER_WINDOW_MS);
    }
    return Math.max(0, Math.round(ms));
  }

  private schedule(l: Link, p: Packet): void {
    const delay = this.drawLatency(l);
    l.inFlight++;
    this.kernel.post(this.kernel.nowMs() + delay, () => this.deliver(l, p), 'net:deliver');
  }

  private deliver(l: Link, p: Packet): void | Promise<void> {
    l.inFlight--;
    // Re-resolve the link's config (it may have changed while in flight) to see faults.clogged.
    const link = this.link(p.from, p.to); // the same object as l
    if (this.isClogged(link)) {
      link.held.push(p); // in-flight + held is unchanged, so the bound still holds
      this.onTraffic?.({ kind: 'msg-held', from: p.from, to: p.to, protocol: p.protocol, code: p.code, size: p.data.length, id: p.id });
      return;
    }
    const src = this.endpoints.get(p.from)!;
    const dst = this.endpoints.get(p.to)!;
    if (!src.up) return this.drop(p.from, p.to, p.protocol, p.code, 'sender-down', p.id);
    if (src.gen !== p.fromGen) return this.drop(p.from, p.to, p.protocol, p.code, 'sender-restarted', p.id);
    if (!dst.up) return this.drop(p.from, p.to, p.protocol, p.code, 'peer-down', p.id);
    if (dst.gen !== p.toGen) return this.drop(p.from, p.to, p.protocol, p.code, 'peer-restarted', p.id);
    if (!this.sameSide(p.from, p.to)) return this.drop(p.from, p.to, p.protocol, p.code, 'partitioned', p.id);
    const h = dst.handlers;
    if (h === undefined) return this.drop(p.from, p.to, p.protocol, p.code, 'no-handler', p.id);
    this.counters.delivered++;
    this.onTraffic?.({ kind: 'msg-delivered', from: p.from, to: p.to, protocol: p.protocol, code: p.code, size: p.data.length, id: p.id });
    return h.onMessage(p.from, { protocol: p.protocol, code: p.code, data: p.data });
  }

  private copy(data: Uint8Array): Uint8Array {
    if (!this.copyBytes) return data;
    const c = new Uint8Array(data.length);
    c.set(data);
    return c;
  }

  /** Schedules held messages of links that are no longer clogged, links in (from, to) order. */
  private releaseUnclogged(): void {
    const froms = [...this.links.keys()].sort(cmp);
    for (const from of froms) {
      const m = this.links.get(from)!;
      for (const to of [...m.keys()].sort(cmp)) {
        const l0 = m.get(to)!;
        if (l0.held.length === 0) continue;
        const l = this.link(from, to);
        if (this.isClogged(l)) continue;
        const held = l.held;
        l.held = [];
        for (const p of held) this.schedule(l, p);
      }
    }
  }
}
