/**
 * Block propagation and catch-up sync over eth/68.
 *
 * - Handshake: Status on connect, carrying our EIP-2124 fork id at our head. A peer's Status
 *   with another network id, a fork id our schedule rejects, or another genesis (checked in that
 *   order, as Besu does) shows another network: the peer is disconnected with
 *   'subprotocol-triggered' (RLPx 0x10) when the transport can; otherwise it stays connected,
 *   marked incompatible (never synced from; its requests are still answered).
 * - Blocks and transactions are not sent to peers found on another network. Unlike Besu, which
 *   waits for a peer's Status, they go to a peer whose Status has not arrived yet: the simulator's
 *   network may lose any message, and a lost Status must not cut a peer off announcements for good.
 * - Propagation: NewBlock to every connected peer not known to have the block (Besu sends
 *   NewBlock to sqrt(peers) and hashes to the rest; with a handful of validators, full blocks to
 *   all is simpler and faster). A NewBlock whose parent we hold is imported at once.
 * - Sync: when a peer is ahead (higher td from Status / NewBlock, or NewBlockHashes numbers),
 *   one task at a time pulls from the best peer (td desc, id asc): GetBlockHeaders ascending from
 *   head - rewindDepth, take the first header we lack whose parent we hold (the fork point),
 *   GetBlockBodies for the rest, import in order, stop at the first failure; repeat. When no
 *   header connects, step back exponentially (bounded), which reorganizes a node stranded on a
 *   minority fork. A peer that times out, answers garbage or serves a bad block rests for a while.
 * - Every handler is driven by one message or timer and awaits only local work (decoding,
 *   importing), so the simulator can run it as one event. Nothing throws out of onMessage.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { onchainBlockHash, onchainHashOfFields } from '../chain/block-hashing.ts';
import { bytesToHex, type Hex } from '../crypto/bytes.ts';
import type { Log, PeerId, TimerHandle, Timers, Transport, WireMessage } from '../runtime/ports.ts';
import type { BlockSink, ChainView } from './chain-view.ts';
import { blockFromWire, blockToWire, bodyMatchesHeader, headerFromWire } from './eth-blocks.ts';
import {
  decodeEthMessage,
  ETH_VERSION,
  EthCode,
  ethMessageName,
  toWireMessage,
  type BlockBodiesMsg,
  type BlockHeadersMsg,
  type EthMessage,
  type ForkId,
  type HeaderFields,
  type NewBlockMsg,
  type SerializedTx,
  type StatusMsg,
} from './eth-messages.ts';
import { serveBlockBodies, serveBlockHeaders } from './eth-server.ts';
import { forkIdOf } from './fork-id.ts';
import { SyncPeers, type SyncPeer } from './sync-peers.ts';

export type { BlockSink, ChainView, ImportResult } from './chain-view.ts';

export interface BlockSyncOptions {
  transport: Transport;
  timers: Timers;
  log: Log;
  chain: ChainView;
  sink: BlockSink;
  common: Common;
  /** Headers (and bodies) asked per request. Default 128. */
  maxHeadersPerRequest?: number;
  /** Default 5000 ms. */
  requestTimeoutMs?: number;
  /** How far below our head a sync starts looking for the fork point (K). Default 32. */
  rewindDepth?: number;
  /** How many times a sync steps back (K·2, K·4, ...) looking for a connecting header. Default 10. */
  maxBackSteps?: number;
  /** How long a useless peer rests before it is tried again. Default 30000 ms. */
  uselessPeerMs?: number;
  /** Peers tracked at most (more connected peers are served but not synced from). Default 256. */
  maxPeers?: number;
  /** The block hash of a header. Default: QBFT on-chain hash (onchainBlockHash). */
  hashOf?: (header: BlockHeader) => Hex;
  /** Our EIP-2124 fork id with `head` as chain head, asked each time we send Status. Default: [crc32(genesisHash), 0] (all forks at genesis). */
  forkId?: (head: SyncHead) => ForkId;
  /** Whether a peer's Status fork id fits our fork schedule at `head` (fork-id.ts acceptsRemoteForkId). Default: any does. */
  acceptsForkId?: (remote: ForkId, head: SyncHead) => boolean;
  /** Told when a sync task begins (true) and ends (false). */
  onSyncing?(syncing: boolean): void;
}

/** Our chain head as the ChainView gives it. */
export type SyncHead = ReturnType<ChainView['head']>;

export interface SyncCounters {
  received: number;
  malformed: number;
  unsolicited: number;
  oversized: number;
  timeouts: number;
  imported: number;
  importFailures: number;
  peersRested: number;
  /** Headers of a batch found in our chain by their raw fields' hash, so never built. */
  knownHeadersSkipped: number;
}

interface HeaderEntry {
  header: BlockHeader;
  fields: HeaderFields;
  hash: Hex;
}

type Pending =
  | { kind: 'headers'; id: bigint; timer: TimerHandle; from: number; amount: number }
  | { kind: 'bodies'; id: bigint; timer: TimerHandle; entries: HeaderEntry[]; full: boolean }
  | { kind: 'pooled'; id: bigint; timer: TimerHandle; count: number };

interface SyncTask {
  peer: PeerId;
  backSteps: number;
  /** The peer's known td when the current header request went out (did it announce more since?). */
  peerTdAtRequest: bigint;
}

const RESPONSE_KIND: Record<number, Pending['kind'] | undefined> = {
  [EthCode.BlockHeaders]: 'headers',
  [EthCode.BlockBodies]: 'bodies',
  [EthCode.PooledTransactions]: 'pooled',
};
const MAX_TXS_PER_BROADCAST = 1024;
/** Raw transaction bytes per Transactions message at most (geth caps its broadcasts near 100 KiB). */
const MAX_TX_BYTES_PER_BROADCAST = 128 * 1024;
/**
 * How long accepted transactions wait to be sent together: one message per peer for a burst
 * instead of one per transaction (Besu queues them per peer and sends from a worker task).
 */
const TX_BROADCAST_DELAY_MS = 25;
const MAX_POOLED_REQUEST = 256;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const SERVED_TO_ANYONE = new Set<number>([EthCode.Status, EthCode.GetBlockHeaders, EthCode.GetBlockBodies, EthCode.GetPooledTransactions]);

const defaultHashOf = (header: BlockHeader): Hex => bytesToHex(onchainBlockHash(header));

/**
 * Block announcements are read-only once decoded, and a transport that hands one buffer to many
 * receivers (the simulator) sends the same bytes to every peer: decode them once per buffer.
 */
const decodedAnnouncements = new WeakMap<Uint8Array, EthMessage>();
const announcedHashes = new WeakMap<NewBlockMsg, Hex>();

function decodeAnnouncement(msg: WireMessage): EthMessage | undefined {
  if (msg.code !== EthCode.NewBlock && msg.code !== EthCode.NewBlockHashes) return undefined;
  let m = decodedAnnouncements.get(msg.data);
  if (m === undefined) {
    m = decodeEthMessage(msg.code, msg.data);
    decodedAnnouncements.set(msg.data, m);
  }
  return m;
}

/** Consecutive request timeouts after which a peer is rested. */
const TIMEOUTS_BEFORE_REST = 3;

export class BlockSync {
  /** The node sets this to feed its transaction pool (Transactions and PooledTransactions). */
  onTransactions?: (peer: PeerId, rawTxs: Uint8Array[]) => void;
  /** Optional: whether the pool already holds a transaction (skips fetching announced hashes). */
  hasTransaction?: (hash: Hex) => boolean;
  /** Optional: a pooled transaction by hash, serialized, to answer GetPooledTransactions. */
  pooledTransaction?: (hash: Hex) => Uint8Array | undefined;

  readonly counters: SyncCounters = {
    received: 0,
    malformed: 0,
    unsolicited: 0,
    oversized: 0,
    timeouts: 0,
    imported: 0,
    importFailures: 0,
    peersRested: 0,
    knownHeadersSkipped: 0,
  };

  private readonly transport: Transport;
  private readonly timers: Timers;
  private readonly log: Log;
  private readonly chain: ChainView;
  private readonly sink: BlockSink;
  private readonly common: Common;
  private readonly maxHeaders: number;
  private readonly timeoutMs: number;
  private readonly rewindDepth: number;
  private readonly maxBackSteps: number;
  private readonly uselessPeerMs: number;
  private readonly hashOf: (header: BlockHeader) => Hex;
  private readonly forkIdAt: (head: SyncHead) => ForkId;
  private readonly acceptsForkId: (remote: ForkId, head: SyncHead) => boolean;
  private readonly peers: SyncPeers;
  private readonly pending = new Map<PeerId, Pending>();
  private task: SyncTask | undefined;
  private nextRequestId = 1n;

  constructor(opts: BlockSyncOptions) {
    this.transport = opts.transport;
    this.timers = opts.timers;
    this.log = opts.log;
    this.chain = opts.chain;
    this.sink = opts.sink;
    this.common = opts.common;
    this.maxHeaders = Math.max(1, Math.min(opts.maxHeadersPerRequest ?? 128, 1024));
    this.timeoutMs = opts.requestTimeoutMs ?? 5000;
    this.rewindDepth = Math.max(1, opts.rewindDepth ?? 32);
    this.maxBackSteps = opts.maxBackSteps ?? 10;
    this.uselessPeerMs = opts.uselessPeerMs ?? 30_000;
    this.hashOf = opts.hashOf ?? defaultHashOf;
    const genesisForkId = forkIdOf(opts.chain.genesisHash);
    this.forkIdAt = opts.forkId ?? (() => genesisForkId);
    this.acceptsForkId = opts.acceptsForkId ?? (() => true);
    this.peers = new SyncPeers(opts.timers, opts.maxPeers ?? 256);
    this.onSyncing = opts.onSyncing;
  }

  private readonly onSyncing: ((syncing: boolean) => void) | undefined;

  /**
   * A peer showed it works on a later height (a consensus message for a future height, Besu's
   * FutureMessageSynchronizerHandler): it has at least `number`, so sync may start from it.
   */
  notePeerAhead(peer: PeerId, number: number): void {
    const p = this.peers.ensure(peer);
    if (!p || p.incompatible || number <= this.chain.head().number) return;
    this.peers.noteHead(p, BigInt(number) + 1n, number);
    this.maybeStartSync();
  }

  /** A sync task is running (Besu: the node has a sync target). */
  isSyncing(): boolean {
    return this.task !== undefined;
  }

  // -------------------------------------------------------------------------------------------
  // public surface

  onPeerConnected(peer: PeerId): void {
    this.peers.ensure(peer);
    const head = this.chain.head();
    this.send(peer, {
      code: EthCode.Status,
      version: ETH_VERSION,
      networkId: this.chain.networkId,
      td: head.td,
      bestHash: head.hash,
      genesisHash: this.chain.genesisHash,
      forkId: this.forkIdAt(head),
    });
  }

  onPeerDisconnected(peer: PeerId): void {
    this.clearPending(peer);
    this.peers.remove(peer);
    if (this.task?.peer === peer) this.endTask('peer disconnected');
  }

  async onMessage(peer: PeerId, msg: WireMessage): Promise<void> {
    if (msg.protocol !== 'eth') return;
    this.counters.received++;
    let m: EthMessage;
    try {
      m = decodeAnnouncement(msg) ?? decodeEthMessage(msg.code, msg.data);
    } catch (e) {
      this.onMalformed(peer, msg.code, (e as Error).message);
      return;
    }
    try {
      await this.handle(peer, m);
    } catch (e) {
      this.log.log('warn', 'eth message handling failed', { peer, message: ethMessageName(msg.code), error: (e as Error).message });
    }
  }

  /**
   * Announces a block we imported: the whole block to the square root of the peers that may lack
   * it, its hash to the others (they fetch it if they need it), as geth does. Announcing the whole
   * block to every peer costs n^2 decodes per block when every validator announces.
   */
  announceBlock(block: Block, hash: Hex): void {
    const head = this.chain.head();
    const td = head.hash === hash ? head.td : block.header.number + 1n; // QBFT: difficulty 1 per block
    const targets = this.peers.sorted().filter((p) => this.mayAnnounceTo(p) && !p.known.has(hash));
    if (targets.length === 0) return;
    const fullCount = Math.ceil(Math.sqrt(targets.length));
    const start = Number(block.header.number % BigInt(targets.length));
    let full: WireMessage | undefined;
    let hashes: WireMessage | undefined;
    targets.forEach((p, i) => {
      p.known.add(hash);
      if ((i - start + targets.length) % targets.length < fullCount) {
        full ??= toWireMessage({ code: EthCode.NewBlock, block: blockToWire(block), td });
        this.transport.send(p.id, full);
      } else {
        hashes ??= toWireMessage({ code: EthCode.NewBlockHashes, entries: [{ hash, number: Number(block.header.number) }] });
        this.transport.send(p.id, hashes);
      }
    });
  }

  /** Transactions waiting for the next broadcast; never more than one message's worth. */
  private txsToBroadcast: Uint8Array[] = [];
  private txBytesToBroadcast = 0;
  private txBroadcastTimer: TimerHandle | undefined;

  /**
   * Sends transactions to every peer, TX_BROADCAST_DELAY_MS later together with the others
   * accepted meanwhile; a full message goes at once.
   */
  broadcastTransactions(rawTxs: Uint8Array[]): void {
    for (const raw of rawTxs) {
      const full = this.txsToBroadcast.length >= MAX_TXS_PER_BROADCAST || this.txBytesToBroadcast + raw.length > MAX_TX_BYTES_PER_BROADCAST;
      if (full && this.txsToBroadcast.length > 0) this.flushTransactions();
      this.txsToBroadcast.push(raw);
      this.txBytesToBroadcast += raw.length;
    }
    if (this.txsToBroadcast.length > 0 && this.txBroadcastTimer === undefined) {
      this.txBroadcastTimer = this.timers.setTimer(TX_BROADCAST_DELAY_MS, () => {
        this.txBroadcastTimer = undefined;
        this.flushTransactions();
      });
    }
  }

  private flushTransactions(): void {
    if (this.txBroadcastTimer !== undefined) {
      this.timers.cancelTimer(this.txBroadcastTimer);
      this.txBroadcastTimer = undefined;
    }
    const txs = this.txsToBroadcast;
    this.txsToBroadcast = [];
    this.txBytesToBroadcast = 0;
    const peers = this.peers.sorted().filter((p) => this.mayAnnounceTo(p));
    if (txs.length === 0 || peers.length === 0) return;
    const wire = toWireMessage({ code: EthCode.Transactions, txs });
    for (const p of peers) this.transport.send(p.id, wire);
  }

  status(): { syncing: boolean; highestKnown: number; peers: number } {
    return {
      syncing: this.task !== undefined,
      highestKnown: Math.max(this.chain.head().number, this.peers.highestNumber()),
      peers: this.peers.size,
    };
  }

  // -------------------------------------------------------------------------------------------
  // dispatch

  private async handle(peer: PeerId, m: EthMessage): Promise<void> {
    // A peer on another network is answered, but its blocks and transactions are not taken.
    if (this.peers.get(peer)?.incompatible && !SERVED_TO_ANYONE.has(m.code)) return;
    switch (m.code) {
      case EthCode.Status:
        return this.onStatus(peer, m);
      case EthCode.NewBlockHashes: {
        const p = this.peers.ensure(peer);
        if (!p) return;
        for (const e of m.entries) {
          p.known.add(e.hash);
          if (!this.chain.hasBlock(e.hash)) this.peers.noteHead(p, BigInt(e.number) + 1n, e.number, e.hash);
        }
        this.maybeStartSync();
        return;
      }
      case EthCode.NewBlock:
        return this.onNewBlock(peer, m);
      case EthCode.Transactions:
        if (m.txs.length > 0) this.onTransactions?.(peer, m.txs);
        return;
      case EthCode.GetBlockHeaders:
        this.send(peer, { code: EthCode.BlockHeaders, requestId: m.requestId, headers: serveBlockHeaders(this.chain, m) });
        return;
      case EthCode.GetBlockBodies:
        this.send(peer, { code: EthCode.BlockBodies, requestId: m.requestId, bodies: serveBlockBodies(this.chain, m.hashes) });
        return;
      case EthCode.NewPooledTransactionHashes:
        return this.onPooledHashes(peer, m.hashes);
      case EthCode.GetPooledTransactions: {
        const txs: SerializedTx[] = [];
        for (const h of m.hashes.slice(0, MAX_POOLED_REQUEST)) {
          const tx = this.pooledTransaction?.(h);
          if (tx) txs.push(tx);
        }
        this.send(peer, { code: EthCode.PooledTransactions, requestId: m.requestId, txs });
        return;
      }
      case EthCode.BlockHeaders:
        return this.onBlockHeaders(peer, m);
      case EthCode.BlockBodies:
        return this.onBlockBodies(peer, m);
      case EthCode.PooledTransactions: {
        const req = this.takePending(peer, 'pooled', m.requestId);
        if (!req) return;
        if (m.txs.length > req.count) this.counters.oversized++;
        else if (m.txs.length > 0) this.onTransactions?.(peer, m.txs);
        this.maybeStartSync();
        return;
      }
    }
  }

  private onStatus(peer: PeerId, m: StatusMsg): void {
    const p = this.peers.ensure(peer);
    if (!p) return;
    const mismatch = this.networkMismatch(m);
    p.incompatible = mismatch !== undefined;
    if (mismatch !== undefined) {
        this.log.log('info', 'peer on another network', {
        peer,
        mismatch,
        networkId: m.networkId.toString(),
        genesis: m.genesisHash,
        forkId: { hash: bytesToHex(m.forkId.hash), next: m.forkId.next.toString() },
      });
      if (this.transport.disconnect) {
        this.clearPending(peer);
        if (this.task?.peer === peer) this.endTask('peer on another network');
        this.transport.disconnect(peer, 'subprotocol-triggered');
      }
      return;
    }
    const number = m.td > 0n ? m.td - 1n : 0n; // QBFT: difficulty 1, td = number + 1
    this.peers.noteHead(p, m.td, number > MAX_SAFE ? Number.MAX_SAFE_INTEGER : Number(number), m.bestHash);
    this.maybeStartSync();
  }

  /** What shows a peer's Status to be from another network, in Besu's order of checks; undefined when none. */
  private networkMismatch(m: StatusMsg): 'network id' | 'fork id' | 'genesis hash' | undefined {
    if (m.networkId !== this.chain.networkId) return 'network id';
    if (!this.acceptsForkId(m.forkId, this.chain.head())) return 'fork id';
    if (m.genesisHash !== this.chain.genesisHash) return 'genesis hash';
    return undefined;
  }

  /** Blocks and transactions go to every peer not found on another network. */
  private mayAnnounceTo(p: SyncPeer): boolean {
    return !p.incompatible;
  }

  private async onNewBlock(peer: PeerId, m: NewBlockMsg): Promise<void> {
    if (this.hashOf === defaultHashOf && this.alreadyHave(peer, m)) return;
    let block: Block;
    let hash: Hex;
    try {
      block = blockFromWire(m.block.header, m.block, this.common);
      hash = this.hashOf(block.header);
    } catch (e) {
      this.onMalformed(peer, m.code, (e as Error).message);
      return;
    }
    const p = this.peers.ensure(peer);
    if (p) {
      p.known.add(hash);
      this.peers.noteHead(p, m.td, Number(block.header.number), hash);
    }
    if (!this.chain.hasBlock(hash) && this.chain.hasBlock(bytesToHex(block.header.parentHash))) {
      if (!(await bodyMatchesHeader(block))) {
        this.onMalformed(peer, m.code, 'body does not match header');
        return;
      }
      const r = await this.sink.importBlock(block);
      if (r.ok) this.counters.imported++;
      else {
        this.counters.importFailures++;
        this.log.log('debug', 'announced block rejected', { peer, hash, reason: r.reason });
      }
    }
    this.maybeStartSync();
  }

  /** Most announcements are of blocks we already hold: answer those from the raw header alone. */
  private alreadyHave(peer: PeerId, m: NewBlockMsg): boolean {
    let hash = announcedHashes.get(m);
    if (hash === undefined) {
      try {
        hash = bytesToHex(onchainHashOfFields(m.block.header));
      } catch {
        return false;
      }
      announcedHashes.set(m, hash);
    }
    if (!this.chain.hasBlock(hash)) return false;
    const p = this.peers.ensure(peer);
    if (p) {
      p.known.add(hash);
      this.peers.noteHead(p, m.td, m.td > 0n ? Number(m.td - 1n) : 0, hash);
    }
    this.maybeStartSync();
    return true;
  }

  private onPooledHashes(peer: PeerId, hashes: Hex[]): void {
    if (!this.onTransactions || this.pending.has(peer)) return;
    const wanted = hashes.filter((h) => !this.hasTransaction?.(h)).slice(0, MAX_POOLED_REQUEST);
    if (wanted.length === 0) return;
    const id = this.newRequestId();
    this.pending.set(peer, { kind: 'pooled', id, timer: this.requestTimer(peer, id), count: wanted.length });
    this.send(peer, { code: EthCode.GetPooledTransactions, requestId: id, hashes: wanted });
  }

  // -------------------------------------------------------------------------------------------
  // requests

  private newRequestId(): bigint {
    return this.nextRequestId++;
  }

  private requestTimer(peer: PeerId, id: bigint): TimerHandle {
    return this.timers.setTimer(this.timeoutMs, () => this.onTimeout(peer, id));
  }

  private onTimeout(peer: PeerId, id: bigint): void {
    const req = this.pending.get(peer);
    if (!req || req.id !== id) return;
    this.pending.delete(peer);
    this.counters.timeouts++;
    if (req.kind === 'pooled') return this.maybeStartSync();
    // A lost message is not a useless peer: retry (the best peer may be the same one) and rest the
    // peer only after several timeouts in a row.
    const p = this.peers.get(peer);
    if (p && ++p.timeouts >= TIMEOUTS_BEFORE_REST) return this.restPeer(peer, `${req.kind} request timed out ${p.timeouts} times`);
    if (this.task?.peer === peer) this.endTask(`${req.kind} request timed out`);
    else this.maybeStartSync();
  }

  /** The pending request a response answers, removed; undefined (and counted) if unsolicited. */
  private takePending<K extends Pending['kind']>(peer: PeerId, kind: K, id: bigint): Extract<Pending, { kind: K }> | undefined {
    const req = this.pending.get(peer);
    if (!req || req.kind !== kind || req.id !== id) {
      this.counters.unsolicited++;
      return undefined;
    }
    this.clearPending(peer);
    const p = this.peers.get(peer);
    if (p) p.timeouts = 0;
    return req as Extract<Pending, { kind: K }>;
  }

  private clearPending(peer: PeerId): void {
    const req = this.pending.get(peer);
    if (!req) return;
    this.timers.cancelTimer(req.timer);
    this.pending.delete(peer);
  }

  private requestHeaders(peer: PeerId, from: number): void {
    const p = this.peers.get(peer);
    if (this.task?.peer === peer && p) this.task.peerTdAtRequest = p.td;
    const id = this.newRequestId();
    const amount = this.maxHeaders;
    this.pending.set(peer, { kind: 'headers', id, timer: this.requestTimer(peer, id), from, amount });
    this.send(peer, { code: EthCode.GetBlockHeaders, requestId: id, origin: { number: from }, amount, skip: 0, reverse: false });
  }

  /** `full`: whether the header batch these come from was full (the peer may have more). */
  private requestBodies(peer: PeerId, entries: HeaderEntry[], full: boolean): void {
    const id = this.newRequestId();
    this.pending.set(peer, { kind: 'bodies', id, timer: this.requestTimer(peer, id), entries, full });
    this.send(peer, { code: EthCode.GetBlockBodies, requestId: id, hashes: entries.map((e) => e.hash) });
  }

  // -------------------------------------------------------------------------------------------
  // sync

  private maybeStartSync(): void {
    if (this.task) return;
    const best = this.peers.best();
    const head = this.chain.head();
    if (!best || best.td <= head.td || this.pending.has(best.id)) return;
    this.task = { peer: best.id, backSteps: 0, peerTdAtRequest: best.td };
    this.log.trace({ kind: 'sync.start', peer: best.id, ourHead: head.number, peerHead: best.number, peerTd: best.td.toString() });
    this.onSyncing?.(true);
    this.requestHeaders(best.id, Math.max(1, head.number - this.rewindDepth));
  }

  private endTask(reason: string): void {
    const task = this.task;
    if (!task) return;
    this.task = undefined;
    this.log.trace({ kind: 'sync.end', peer: task.peer, reason, head: this.chain.head().number });
    this.onSyncing?.(false);
    this.maybeStartSync();
  }

  /** Rests a peer that proved useless and moves any sync to another peer. */
  private restPeer(peer: PeerId, reason: string): void {
    this.clearPending(peer);
    const p = this.peers.get(peer);
    if (p) {
      p.timeouts = 0;
      this.counters.peersRested++;
      this.log.log('debug', 'peer rested', { peer, reason });
      this.peers.markUseless(p, this.uselessPeerMs, () => this.maybeStartSync());
    }
    if (this.task?.peer === peer) this.endTask(`peer useless: ${reason}`);
  }

  private onMalformed(peer: PeerId, code: number, error: string): void {
    this.counters.malformed++;
    this.log.log('debug', 'malformed eth message dropped', { peer, message: ethMessageName(code), error });
    // A garbled answer to our own request: do not wait for the timeout.
    const req = this.pending.get(peer);
    if (req && RESPONSE_KIND[code] === req.kind) this.restPeer(peer, `malformed ${ethMessageName(code)}`);
  }

  private onBlockHeaders(peer: PeerId, m: BlockHeadersMsg): void {
    const req = this.takePending(peer, 'headers', m.requestId);
    if (!req) return;
    const task = this.task;
    if (!task || task.peer !== peer) return;
    if (m.headers.length > req.amount) {
      this.counters.oversized++;
      return this.restPeer(peer, 'too many headers');
    }
    if (m.headers.length === 0) return this.restPeer(peer, 'no headers');
    const entries: HeaderEntry[] = [];
    try {
      let inKnownRun = true;
      for (const fields of m.headers) {
        const known = inKnownRun ? this.knownHeader(fields) : undefined;
        if (known) {
          entries.push(known);
          continue;
        }
        inKnownRun = false;
        const header = headerFromWire(fields, this.common);
        entries.push({ header, fields, hash: this.hashOf(header) });
      }
    } catch (e) {
      this.counters.malformed++;
      return this.restPeer(peer, `bad header: ${(e as Error).message}`);
    }
    for (let i = 0; i < entries.length; i++) {
      const h = entries[i].header;
      if (Number(h.number) !== req.from + i) return this.restPeer(peer, 'headers not at the requested numbers');
      if (i > 0 && bytesToHex(h.parentHash) !== entries[i - 1].hash) return this.restPeer(peer, 'headers do not chain');
    }
    const full = entries.length === req.amount;
    let start = 0;
    while (start < entries.length && this.chain.hasBlock(entries[start].hash)) start++;
    if (start === entries.length) return this.afterBatch(task, entries[entries.length - 1], full);
    if (!this.chain.hasBlock(bytesToHex(entries[start].header.parentHash))) {
      // start is 0 here: nothing connects. Step back to find the fork point.
      if (req.from <= 1 || task.backSteps >= this.maxBackSteps) return this.restPeer(peer, 'headers do not connect to our chain');
      task.backSteps++;
      const back = this.rewindDepth * 2 ** task.backSteps;
      return this.requestHeaders(peer, Math.max(1, req.from - back));
    }
    this.requestBodies(peer, entries.slice(start), full);
  }

  /**
   * A header we already hold, found by the on-chain hash of its raw fields, so a sync that starts
   * a few blocks back does not build an ethereumjs header for each block it already has. Only for
   * the BFT hash (a custom hashOf must see the built header) and only while the batch is still in
   * its leading known run.
   */
  private knownHeader(fields: HeaderFields): HeaderEntry | undefined {
    if (this.hashOf !== defaultHashOf) return undefined;
    let hash: Hex;
    try {
      hash = bytesToHex(onchainHashOfFields(fields));
    } catch {
      return undefined; // headerFromWire will say what is wrong with it
    }
    const block = this.chain.blockByHash(hash);
    if (!block) return undefined;
    this.counters.knownHeadersSkipped++;
    return { header: block.header, fields, hash };
  }

  private async onBlockBodies(peer: PeerId, m: BlockBodiesMsg): Promise<void> {
    const req = this.takePending(peer, 'bodies', m.requestId);
    if (!req) return;
    const task = this.task;
    if (!task || task.peer !== peer) return;
    if (m.bodies.length > req.entries.length) {
      this.counters.oversized++;
      return this.restPeer(peer, 'too many bodies');
    }
    if (m.bodies.length === 0) return this.restPeer(peer, 'no bodies');
    const blocks: Block[] = [];
    for (let i = 0; i < m.bodies.length; i++) {
      let block: Block;
      try {
        block = blockFromWire(req.entries[i].fields, m.bodies[i], this.common);
      } catch (e) {
        this.counters.malformed++;
        return this.restPeer(peer, `bad body: ${(e as Error).message}`);
      }
      if (!(await bodyMatchesHeader(block))) return this.restPeer(peer, 'body does not match its header');
      blocks.push(block);
    }
    for (let i = 0; i < blocks.length; i++) {
      if (this.task !== task) return; // the task ended while we awaited
      if (this.chain.hasBlock(req.entries[i].hash)) continue;
      const r = await this.sink.importBlock(blocks[i]);
      if (this.task !== task) return;
      if (!r.ok) {
        this.counters.importFailures++;
        this.log.log('info', 'sync import failed', { peer, number: Number(blocks[i].header.number), reason: r.reason });
        return this.restPeer(peer, `block rejected: ${r.reason}`);
      }
      this.counters.imported++;
    }
    const rest = req.entries.slice(m.bodies.length);
    if (rest.length > 0) return this.requestBodies(peer, rest, req.full);
    task.backSteps = 0;
    this.afterBatch(task, req.entries[req.entries.length - 1], req.full);
  }

  /**
   * After a batch up to `last` is on our side: ask for more while the peer is ahead and may have
   * more (its answer was a full batch, or it announced more since we asked). Otherwise the peer
   * has shown us its head: record that (so a stale or inflated claim does not restart the same
   * sync over and over) and stop.
   */
  private afterBatch(task: SyncTask, last: HeaderEntry, full: boolean): void {
    const p = this.peers.get(task.peer);
    const head = this.chain.head();
    const announcedMore = p !== undefined && p.td !== task.peerTdAtRequest;
    if (p && !full && !announcedMore) {
      const td = head.hash === last.hash ? head.td : last.header.number + 1n; // QBFT: difficulty 1
      this.peers.lowerHead(p, td, Number(last.header.number), last.hash);
    }
    if (p && (full || announcedMore) && p.td > head.td) return this.requestHeaders(task.peer, Number(last.header.number) + 1);
    this.endTask(p && p.td > head.td ? 'peer exhausted' : 'caught up');
  }

  private send(peer: PeerId, m: EthMessage): void {
    this.transport.send(peer, toWireMessage(m));
  }
}
