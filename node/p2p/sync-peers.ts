/**
 * What block sync knows about each connected peer: its best known head (from Status, NewBlock,
 * NewBlockHashes or what it served), whether it is on our network, whether it is resting after
 * being useless, and a bounded memory of block hashes it is known to have.
 * Only connected peers are held; iteration is always in sorted peer-id order.
 */
import type { Hex } from '../crypto/bytes.ts';
import type { PeerId, TimerHandle, Timers } from '../runtime/ports.ts';
import { BoundedSet } from '../collections/bounded-set.ts';

const KNOWN_HASHES_PER_PEER = 256;

export interface SyncPeer {
  readonly id: PeerId;
  /** Best total difficulty known for the peer (0 until it tells us). */
  td: bigint;
  number: number;
  hash?: Hex;
  /** Status showed another network or genesis: never synced from. */
  incompatible: boolean;
  uselessTimer?: TimerHandle;
  /** Requests in a row that timed out. */
  timeouts: number;
  readonly known: BoundedSet;
}

export class SyncPeers {
  private readonly peers = new Map<PeerId, SyncPeer>();
  /** Peers in id order, rebuilt only when a peer joins or leaves. */
  private order: SyncPeer[] | undefined;

  constructor(
    private readonly timers: Timers,
    private readonly maxPeers: number,
  ) {}

  get size(): number {
    return this.peers.size;
  }

  get(id: PeerId): SyncPeer | undefined {
    return this.peers.get(id);
  }

  /** The peer's record, created when missing (unless the table is full). */
  ensure(id: PeerId): SyncPeer | undefined {
    let p = this.peers.get(id);
    if (!p && this.peers.size < this.maxPeers) {
      p = { id, td: 0n, number: 0, incompatible: false, timeouts: 0, known: new BoundedSet(KNOWN_HASHES_PER_PEER) };
      this.peers.set(id, p);
      this.order = undefined;
    }
    return p;
  }

  remove(id: PeerId): void {
    const p = this.peers.get(id);
    if (!p) return;
    if (p.uselessTimer !== undefined) this.timers.cancelTimer(p.uselessTimer);
    this.peers.delete(id);
    this.order = undefined;
  }

  sorted(): readonly SyncPeer[] {
    this.order ??= [...this.peers.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return this.order;
  }

  /** Raises the peer's known head; a lower td is ignored. */
  noteHead(p: SyncPeer, td: bigint, number: number, hash?: Hex): void {
    if (td <= p.td) return;
    p.td = td;
    p.number = number;
    p.hash = hash;
  }

  /** Lowers the peer's known head to what it proved to have. */
  lowerHead(p: SyncPeer, td: bigint, number: number, hash: Hex): void {
    if (td >= p.td) return;
    p.td = td;
    p.number = number;
    p.hash = hash;
  }

  isUseless(p: SyncPeer): boolean {
    return p.uselessTimer !== undefined;
  }

  /** Rests the peer for `ms`; `onRested` runs when it may be used again. */
  markUseless(p: SyncPeer, ms: number, onRested: () => void): void {
    if (p.uselessTimer !== undefined) this.timers.cancelTimer(p.uselessTimer);
    p.uselessTimer = this.timers.setTimer(ms, () => {
      if (this.peers.get(p.id) !== p) return;
      p.uselessTimer = undefined;
      onRested();
    });
  }

  /** The peer to sync from: highest td, then lowest id; compatible and not resting. */
  best(): SyncPeer | undefined {
    let best: SyncPeer | undefined;
    for (const p of this.sorted()) {
      if (p.incompatible || this.isUseless(p)) continue;
      if (!best || p.td > best.td) best = p;
    }
    return best;
  }

  /** The highest head number claimed by a peer we would sync from (resting peers' claims are not trusted). */
  highestNumber(): number {
    let n = 0;
    for (const p of this.peers.values()) if (!p.incompatible && !this.isUseless(p) && p.number > n) n = p.number;
    return n;
  }
}
