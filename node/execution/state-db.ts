/**
 * The trie node store behind the execution engine's state, with a mark-and-sweep pruner.
 *
 * @ethereumjs/mpt without node pruning never deletes a node: every block that changes state
 * leaves its old path nodes behind, so a long simulation grows without bound. With
 * `useNodePruning` the trie deletes replaced nodes at once, which makes older state roots
 * unreadable (we need the parent's state after a round change, eth_call at recent blocks, ...).
 *
 * Strategy: the store is content-addressed (key = keccak of the node, or 'c' || codeHash for
 * contract code), so sharing is free and "garbage" is simply "not reachable from any state root
 * we still want". Each engine keeps a bounded, most-recently-used list of the state roots it
 * produced or opened (`RootRetention`, default 256 roots) plus pinned roots (genesis, whatever the
 * caller pins). When the store has grown to twice its size after the previous sweep (and past a
 * floor), `maybePrune()` walks every retained root — account trie, each account's storage trie,
 * its code — and deletes every other key. Cost is amortised O(1) per written node, memory stays
 * below ~2x the live set, and blocks that do not change state (empty blocks) write nothing.
 * One store may be shared by several engines (nodes of one simulated world): the pruner keeps the
 * union of their retained roots.
 *
 * Everything is synchronous over a Map, iteration order is insertion order: deterministic.
 */
import { RLP } from '@ethereumjs/rlp';
import type { BatchDBOp, DB, EncodingOpts } from '@ethereumjs/util';
import { bytesToHex, hexToBytes, type Hex } from '../crypto/bytes.ts';

/** keccak256(RLP('')): the root of an empty trie. */
export const EMPTY_TRIE_ROOT_HEX = '56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';
/** keccak256(''): the code hash of an account without code. */
const EMPTY_CODE_HASH_HEX = 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470';
/** MerkleStateManager stores code under 'c' || codeHash. */
const CODE_PREFIX_HEX = '63';

const HEX = '0123456789abcdef';
function toKey(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i++) s += HEX[b[i] >> 4] + HEX[b[i] & 15];
  return s;
}

type Nested = Uint8Array | Nested[];

export interface PruneStats {
  /** keys kept (reachable from a retained root) */
  live: number;
  /** keys deleted */
  removed: number;
  /** number of distinct roots walked */
  roots: number;
}

export interface TrieNodeStoreOptions {
  /** Do not sweep while the store holds fewer keys than this (default 10,000). */
  pruneFloor?: number;
  /** Sweep when size > growthFactor * live size after the previous sweep (default 2). */
  growthFactor?: number;
}

/** A `DB` for @ethereumjs/mpt (string keys = unprefixed hex, values = bytes). */
export class TrieNodeStore implements DB<string, string | Uint8Array> {
  private readonly map = new Map<string, Uint8Array>();
  private readonly retainers = new Set<() => Iterable<Uint8Array>>();
  private liveAfterLastPrune = 0;
  private busy = 0;
  private readonly pruneFloor: number;
  private readonly growthFactor: number;
  /** Totals for diagnostics. */
  readonly stats = { prunes: 0, removed: 0, lastPrune: undefined as PruneStats | undefined };

  constructor(opts: TrieNodeStoreOptions = {}) {
    this.pruneFloor = opts.pruneFloor ?? 10_000;
    this.growthFactor = opts.growthFactor ?? 2;
  }

  // ---- DB interface ---------------------------------------------------------------------------

  async get(key: string, _opts?: EncodingOpts): Promise<Uint8Array | undefined> {
    return this.map.get(key);
  }

  async put(key: string, val: string | Uint8Array, _opts?: EncodingOpts): Promise<void> {
    this.map.set(key, typeof val === 'string' ? hexToBytes(val) : val);
  }

  async del(key: string, _opts?: EncodingOpts): Promise<void> {
    this.map.delete(key);
  }

  async batch(opStack: BatchDBOp<string, string | Uint8Array>[]): Promise<void> {
    for (const op of opStack) {
      if (op.type === 'put') this.map.set(op.key, typeof op.value === 'string' ? hexToBytes(op.value) : op.value);
      else this.map.delete(op.key);
    }
  }

  /** Tries and storage tries all share this one store. */
  shallowCopy(): DB<string, string | Uint8Array> {
    return this;
  }

  open(): Promise<void> {
    return Promise.resolve();
  }

  // ---- store API ------------------------------------------------------------------------------

  get size(): number {
    return this.map.size;
  }

  /** True when the trie rooted at `root` has its root node here (the empty root always counts). */
  hasRoot(root: Uint8Array): boolean {
    const k = toKey(root);
    return k === EMPTY_TRIE_ROOT_HEX || this.map.has(k);
  }

  /** Registers a source of roots that must survive pruning; returns an unregister function. */
  addRetainer(roots: () => Iterable<Uint8Array>): () => void {
    this.retainers.add(roots);
    return () => this.retainers.delete(roots);
  }

  /**
   * Brackets work that writes nodes not yet reachable from a retained root (a block being built
   * or executed): no sweep runs while any work is open, so engines sharing a store cannot prune
   * each other's fresh nodes.
   */
  beginWork(): void {
    this.busy++;
  }

  endWork(): void {
    if (this.busy > 0) this.busy--;
  }

  /** Sweeps if the store has grown enough since the last sweep (never while work is open). */
  maybePrune(): PruneStats | undefined {
    if (this.busy > 0) return undefined;
    const threshold = Math.max(this.pruneFloor, this.liveAfterLastPrune * this.growthFactor);
    if (this.map.size <= threshold) return undefined;
    return this.prune();
  }

  /** Mark every key reachable from the retained roots, delete the rest. */
  prune(): PruneStats {
    const marked = new Set<string>();
    const rootKeys = new Set<string>();
    for (const retainer of this.retainers) for (const r of retainer()) rootKeys.add(toKey(r));
    for (const rk of rootKeys) this.markTrie(rk, true, marked);
    let removed = 0;
    for (const key of this.map.keys()) {
      if (!marked.has(key)) {
        this.map.delete(key);
        removed++;
      }
    }
    this.liveAfterLastPrune = this.map.size;
    const s: PruneStats = { live: this.map.size, removed, roots: rootKeys.size };
    this.stats.prunes++;
    this.stats.removed += removed;
    this.stats.lastPrune = s;
    return s;
  }

  /** Walks one trie from its root key; for the account trie also walks storage tries and code. */
  private markTrie(rootKey: string, isAccountTrie: boolean, marked: Set<string>): void {
    if (rootKey === EMPTY_TRIE_ROOT_HEX || marked.has(rootKey)) return;
    const stack: string[] = [rootKey];
    while (stack.length > 0) {
      const key = stack.pop()!;
      if (marked.has(key)) continue;
      const raw = this.map.get(key);
      if (raw === undefined) continue; // already pruned or never stored: nothing to keep
      marked.add(key);
      this.visitNode(RLP.decode(raw) as Nested, isAccountTrie, stack, marked);
    }
  }

  private visitNode(node: Nested, isAccountTrie: boolean, stack: string[], marked: Set<string>): void {
    if (!Array.isArray(node)) return;
    if (node.length === 17) {
      for (let i = 0; i < 16; i++) this.visitRef(node[i], isAccountTrie, stack, marked);
      // branch values cannot occur with fixed-length (hashed) keys
      return;
    }
    if (node.length === 2) {
      const path = node[0] as Uint8Array;
      const flag = path.length > 0 ? path[0] >> 4 : 0;
      if (flag === 2 || flag === 3) {
        if (isAccountTrie) this.visitAccount(node[1] as Uint8Array, marked);
      } else {
        this.visitRef(node[1], isAccountTrie, stack, marked);
      }
    }
  }

  private visitRef(ref: Nested, isAccountTrie: boolean, stack: string[], marked: Set<string>): void {
    if (Array.isArray(ref)) {
      // embedded node (< 32 bytes), stored inline in its parent
      this.visitNode(ref, isAccountTrie, stack, marked);
    } else if (ref.length === 32) {
      stack.push(toKey(ref));
    }
  }

  private visitAccount(value: Uint8Array, marked: Set<string>): void {
    const fields = RLP.decode(value) as Uint8Array[];
    if (!Array.isArray(fields) || fields.length < 4) return;
    const storageRoot = fields[2];
    const codeHash = fields[3];
    if (storageRoot.length === 32) this.markTrie(toKey(storageRoot), false, marked);
    if (codeHash.length === 32) {
      const ch = toKey(codeHash);
      if (ch !== EMPTY_CODE_HASH_HEX) marked.add(CODE_PREFIX_HEX + ch);
    }
  }
}

/**
 * A bounded most-recently-used set of state roots plus pinned roots. `touch` moves a root to the
 * newest position; beyond `capacity` the oldest unpinned roots fall out (and become prunable).
 */
export class RootRetention {
  private readonly recent = new Map<string, Uint8Array>();
  private readonly pins = new Map<string, { root: Uint8Array; count: number }>();

  constructor(readonly capacity: number = 256) {
    if (capacity < 1) throw new Error('root retention capacity must be at least 1');
  }

  touch(root: Uint8Array): void {
    const k = toKey(root);
    this.recent.delete(k);
    this.recent.set(k, root.slice());
    while (this.recent.size > this.capacity) {
      const oldest = this.recent.keys().next().value as string;
      this.recent.delete(oldest);
    }
  }

  pin(root: Uint8Array): void {
    const k = toKey(root);
    const p = this.pins.get(k);
    if (p) p.count++;
    else this.pins.set(k, { root: root.slice(), count: 1 });
  }

  unpin(root: Uint8Array): void {
    const k = toKey(root);
    const p = this.pins.get(k);
    if (!p) return;
    if (--p.count === 0) this.pins.delete(k);
  }

  has(root: Uint8Array): boolean {
    const k = toKey(root);
    return this.recent.has(k) || this.pins.has(k);
  }

  *roots(): Iterable<Uint8Array> {
    for (const r of this.recent.values()) yield r;
    for (const p of this.pins.values()) yield p.root;
  }

  /** Hex of the retained roots, oldest first (diagnostics). */
  list(): Hex[] {
    return [...this.recent.values()].map((r) => bytesToHex(r));
  }
}
