/**
 * The bounded table of bonded discovery nodes (nodes that answered one of our Pings with a
 * matching Pong). Distance between nodes is the XOR of keccak256(node id), as in Kademlia; the
 * table is small (a private network's worth, at most `maxNodes`), so lookups sort the whole table
 * instead of keeping 256 k-buckets.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';

export interface TableNode {
  id: Uint8Array;
  /** 128 lowercase hex digits, no 0x. */
  idHex: string;
  host: string;
  udpPort: number;
  tcpPort: number;
  /** keccak256(id), the node's position in the XOR metric. */
  idHash: Uint8Array;
  addedAtMs: number;
  /** When the node last answered our Ping (its endpoint proof). */
  lastPongMs: number;
  /** When we last answered a Ping from it, i.e. when it last received our endpoint proof. */
  lastPingFromMs?: number;
  /** When we last sent it a FindNode. */
  lastQueriedMs?: number;
  /** When it last answered a FindNode of ours with Neighbours. */
  lastAnsweredMs?: number;
  /** Consecutive Pings that went unanswered. */
  failedPings: number;
}

export type AddOutcome = 'added' | 'updated' | 'full';

/** Compares the XOR distances of `a` and `b` to `target` (all 32-byte hashes). */
function compareDistance(target: Uint8Array, a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < target.length; i++) {
    const da = a[i]! ^ target[i]!;
    const db = b[i]! ^ target[i]!;
    if (da !== db) return da - db;
  }
  return 0;
}

export class NodeTable {
  private readonly nodes = new Map<string, TableNode>();

  constructor(
    private readonly localIdHex: string,
    private readonly maxNodes: number,
  ) {
    if (!Number.isInteger(maxNodes) || maxNodes < 1) throw new RangeError(`maxNodes must be a positive integer, got ${maxNodes}`);
  }

  static hashOf(id: Uint8Array): Uint8Array {
    return keccak_256(id);
  }

  get size(): number {
    return this.nodes.size;
  }

  get(idHex: string): TableNode | undefined {
    return this.nodes.get(idHex);
  }

  /**
   * Inserts a node, or updates the entry with the same id. When the table is full, the entry with
   * the most unanswered Pings (at least one) makes room; if every entry is healthy the newcomer is
   * refused, since long-lived nodes are the more likely to stay (Kademlia's preference).
   */
  add(node: TableNode): AddOutcome {
    if (node.idHex === this.localIdHex) throw new Error('the local node cannot be added to its own table');
    if (this.nodes.has(node.idHex)) {
      this.nodes.set(node.idHex, node);
      return 'updated';
    }
    if (this.nodes.size >= this.maxNodes) {
      let worst: TableNode | undefined;
      for (const n of this.nodes.values()) if (n.failedPings > 0 && (!worst || n.failedPings > worst.failedPings)) worst = n;
      if (!worst) return 'full';
      this.nodes.delete(worst.idHex);
    }
    this.nodes.set(node.idHex, node);
    return 'added';
  }

  remove(idHex: string): boolean {
    return this.nodes.delete(idHex);
  }

  all(): TableNode[] {
    return [...this.nodes.values()];
  }

  /** Up to `limit` nodes closest to `target` (a 64-byte node id) passing `accept`, nearest first. */
  closest(target: Uint8Array, limit: number, accept: (n: TableNode) => boolean = () => true): TableNode[] {
    const targetHash = keccak_256(target);
    return this.all()
      .filter(accept)
      .sort((a, b) => compareDistance(targetHash, a.idHash, b.idHash))
      .slice(0, limit);
  }

  /** Up to `limit` nodes whose last Pong is oldest, oldest first. */
  leastRecentlySeen(limit: number, accept: (n: TableNode) => boolean = () => true): TableNode[] {
    return this.all()
      .filter(accept)
      .sort((a, b) => a.lastPongMs - b.lastPongMs)
      .slice(0, limit);
  }
}
