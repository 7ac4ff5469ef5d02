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
 * Persistence (state-persistence.ts) copies the state to the node's Store by difference, not by
 * recording writes: `nodesNewSince(newRoot, oldRoot)` walks the new trie beside the old one and
 * returns the stored keys of subtrees that are not already under the old root at the same place,
 * plus changed storage tries and new code. That is exactly what a copy holding `oldRoot`'s state
 * lacks for `newRoot`, whoever wrote the nodes (a shared store, a memo hit, another node's engine),
 * at the cost of the changed paths only. `reachable(roots)` marks what a set of roots needs (the
 * persisted copy's own sweep) and tells whether anything is missing; `load` puts persisted keys back.
 *
 * Everything is synchronous over a Map, iteration order is insertion order: deterministic.
 */
import { RLP } from '@ethereumjs/rlp';
import type { BatchDBOp, DB, EncodingOpts } from '@ethereumjs/util';
import { bytesToHex, equalBytes, hexToBytes, type Hex } from '../crypto/bytes.ts';

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

/** Nibbles and kind of a compact-encoded (hex-prefix) leaf or extension path. */
function decodePath(encoded: Uint8Array): { nibbles: number[]; leaf: boolean } {
  const flag = encoded.length > 0 ? encoded[0] >> 4 : 0;
  const nibbles: number[] = [];
  if (flag & 1) nibbles.push(encoded[0] & 15);
  for (let i = 1; i < encoded.length; i++) nibbles.push(encoded[i] >> 4, encoded[i] & 15);
  return { nibbles, leaf: flag >= 2 };
}

/**
 * A place in the old trie while walking the new one: a node starting exactly here (`ref`: a hash,
 * or an embedded/decoded node), a point inside an extension's or leaf's key (`at` nibbles of
 * `nibbles` consumed), or the value at the end of a leaf.
 */
type OldPlace =
  | { kind: 'node'; ref: Nested }
  | { kind: 'path'; nibbles: number[]; at: number; next: Nested; leaf: boolean }
  | { kind: 'value'; value: Uint8Array }
  | undefined;

function isHashRef(ref: Nested): ref is Uint8Array {
  return !Array.isArray(ref) && ref.length === 32;
}

/** Stored keys (with their values) that a copy of the old state lacks for the new one. */
export interface NewNodes {
  nodes: Map<string, Uint8Array>;
  /** Keys the new state references that this store does not hold (the walk is then incomplete). */
  missing: number;
}

export interface Reachable {
  keys: Set<string>;
  /** Referenced keys (nodes, code) this store does not hold. */
  missing: number;
}

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
    const rootKeys = new Set<string>();
    for (const retainer of this.retainers) for (const r of retainer()) rootKeys.add(toKey(r));
    const { keys: marked } = this.mark(rootKeys);
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

  /** Every stored key the states at `roots` need (tries, storage tries, code), and how many are absent. */
  reachable(roots: Iterable<Uint8Array>): Reachable {
    const rootKeys = new Set<string>();
    for (const r of roots) rootKeys.add(toKey(r));
    return this.mark(rootKeys);
  }

  /** The value stored under `key` (the store's own buffer: do not mutate). */
  valueOf(key: string): Uint8Array | undefined {
    return this.map.get(key);
  }

  /**
   * Puts persisted keys back (synchronously: no sweep can run between two of them). A key already
   * here keeps its value: content addressing makes it the same, and memory is the better copy.
   */
  load(entries: Iterable<readonly [string, Uint8Array]>): number {
    let count = 0;
    for (const [key, value] of entries) {
      if (!this.map.has(key)) this.map.set(key, value);
      count++;
    }
    return count;
  }

  /**
   * Stored keys reachable from `newRoot` that a store holding the whole state at `oldRoot` may
   * lack: every node whose subtree differs from the old trie's at the same path (an unchanged
   * subtree keeps its path, so it is skipped by one hash comparison), changed storage tries, new
   * code. Without `oldRoot`, everything reachable from `newRoot`. Values are the store's buffers.
   */
  nodesNewSince(newRoot: Uint8Array, oldRoot?: Uint8Array): NewNodes {
    const out: NewNodes = { nodes: new Map(), missing: 0 };
    this.diffTrie(newRoot, oldRoot, true, out);
    return out;
  }

  private diffTrie(newRoot: Uint8Array, oldRoot: Uint8Array | undefined, isAccountTrie: boolean, out: NewNodes): void {
    if (toKey(newRoot) === EMPTY_TRIE_ROOT_HEX) return;
    const old: OldPlace = oldRoot && toKey(oldRoot) !== EMPTY_TRIE_ROOT_HEX ? { kind: 'node', ref: oldRoot } : undefined;
    this.diffNode(newRoot, old, isAccountTrie, out);
  }

  private diffNode(ref: Nested, oldIn: OldPlace, isAccountTrie: boolean, out: NewNodes): void {
    // An embedded node (< 32 bytes) holds no hash reference and no account: nothing stored below it.
    if (!isHashRef(ref)) return;
    let old = oldIn;
    if (old?.kind === 'node' && isHashRef(old.ref)) {
      if (equalBytes(old.ref, ref)) return;
      const raw = this.map.get(toKey(old.ref));
      old = raw === undefined ? undefined : { kind: 'node', ref: RLP.decode(raw) as Nested[] };
    }
    const key = toKey(ref);
    if (out.nodes.has(key)) return;
    const raw = this.map.get(key);
    if (raw === undefined) {
      out.missing++;
      return;
    }
    out.nodes.set(key, raw);
    const node = RLP.decode(raw) as Nested;
    if (!Array.isArray(node)) return;
    if (node.length === 17) {
      for (let i = 0; i < 16; i++) {
        const child = node[i];
        if (isHashRef(child)) this.diffNode(child, this.advance(old, [i]), isAccountTrie, out);
      }
    } else if (node.length === 2) {
      const { nibbles, leaf } = decodePath(node[0] as Uint8Array);
      const oldAfter = this.advance(old, nibbles);
      if (!leaf) this.diffNode(node[1], oldAfter, isAccountTrie, out);
      else if (isAccountTrie) this.diffAccount(node[1] as Uint8Array, oldAfter?.kind === 'value' ? oldAfter.value : undefined, out);
    }
  }

  private diffAccount(value: Uint8Array, oldValue: Uint8Array | undefined, out: NewNodes): void {
    const fields = RLP.decode(value) as Uint8Array[];
    if (!Array.isArray(fields) || fields.length < 4) return;
    const oldFields = oldValue === undefined ? undefined : (RLP.decode(oldValue) as Uint8Array[]);
    const storageRoot = fields[2];
    const oldStorageRoot = Array.isArray(oldFields) && oldFields[2]?.length === 32 ? oldFields[2] : undefined;
    if (storageRoot.length === 32 && !(oldStorageRoot && equalBytes(oldStorageRoot, storageRoot))) this.diffTrie(storageRoot, oldStorageRoot, false, out);
    const codeHash = fields[3];
    if (codeHash.length !== 32) return;
    const ch = toKey(codeHash);
    if (ch === EMPTY_CODE_HASH_HEX) return;
    if (Array.isArray(oldFields) && oldFields[3] instanceof Uint8Array && equalBytes(oldFields[3], codeHash)) return;
    const codeKey = CODE_PREFIX_HEX + ch;
    if (out.nodes.has(codeKey)) return;
    const code = this.map.get(codeKey);
    if (code === undefined) out.missing++;
    else out.nodes.set(codeKey, code);
  }

  /** The place in the old trie `steps` nibbles below `place` (undefined: the old trie has nothing there). */
  private advance(place: OldPlace, steps: readonly number[]): OldPlace {
    let at = place;
    let i = 0;
    while (at !== undefined) {
      if (at.kind === 'path' && at.at === at.nibbles.length) {
        at = at.leaf ? (at.next instanceof Uint8Array ? { kind: 'value', value: at.next } : undefined) : { kind: 'node', ref: at.next };
        continue;
      }
      if (i === steps.length) return at;
      if (at.kind === 'value') return undefined;
      if (at.kind === 'path') {
        let k = at.at;
        while (k < at.nibbles.length && i < steps.length) {
          if (at.nibbles[k] !== steps[i]) return undefined;
          k++;
          i++;
        }
        at = { ...at, at: k };
        continue;
      }
      const node = this.resolve(at.ref);
      if (node === undefined) return undefined;
      if (node.length === 17) {
        const child = node[steps[i++]];
        at = Array.isArray(child) || child.length > 0 ? { kind: 'node', ref: child } : undefined;
      } else if (node.length === 2) {
        const { nibbles, leaf } = decodePath(node[0] as Uint8Array);
        at = { kind: 'path', nibbles, at: 0, next: node[1], leaf };
      } else return undefined;
    }
    return undefined;
  }

  private resolve(ref: Nested): Nested[] | undefined {
    if (Array.isArray(ref)) return ref;
    if (ref.length !== 32) return undefined;
    const raw = this.map.get(toKey(ref));
    if (raw === undefined) return undefined;
    const node = RLP.decode(raw) as Nested;
    return Array.isArray(node) ? node : undefined;
  }

  private mark(rootKeys: Iterable<string>): Reachable {
    const ctx: Reachable = { keys: new Set<string>(), missing: 0 };
    for (const rk of rootKeys) this.markTrie(rk, true, ctx);
    return ctx;
  }

  /** Walks one trie from its root key; for the account trie also walks storage tries and code. */
  private markTrie(rootKey: string, isAccountTrie: boolean, ctx: Reachable): void {
    const marked = ctx.keys;
    if (rootKey === EMPTY_TRIE_ROOT_HEX || marked.has(rootKey)) return;
    const stack: string[] = [rootKey];
    while (stack.length > 0) {
      const key = stack.pop()!;
      if (marked.has(key)) continue;
      const raw = this.map.get(key);
      if (raw === undefined) {
        // already pruned or never stored: nothing to keep
        ctx.missing++;
        continue;
      }
      marked.add(key);
      this.visitNode(RLP.decode(raw) as Nested, isAccountTrie, stack, ctx);
    }
  }

  private visitNode(node: Nested, isAccountTrie: boolean, stack: string[], ctx: Reachable): void {
    if (!Array.isArray(node)) return;
    if (node.length === 17) {
      for (let i = 0; i < 16; i++) this.visitRef(node[i], isAccountTrie, stack, ctx);
      // branch values cannot occur with fixed-length (hashed) keys
      return;
    }
    if (node.length === 2) {
      const path = node[0] as Uint8Array;
      const flag = path.length > 0 ? path[0] >> 4 : 0;
      if (flag === 2 || flag === 3) {
        if (isAccountTrie) this.visitAccount(node[1] as Uint8Array, ctx);
      } else {
        this.visitRef(node[1], isAccountTrie, stack, ctx);
      }
    }
  }

  private visitRef(ref: Nested, isAccountTrie: boolean, stack: string[], ctx: Reachable): void {
    if (Array.isArray(ref)) {
      // embedded node (< 32 bytes), stored inline in its parent
      this.visitNode(ref, isAccountTrie, stack, ctx);
    } else if (ref.length === 32) {
      stack.push(toKey(ref));
    }
  }

  private visitAccount(value: Uint8Array, ctx: Reachable): void {
    const fields = RLP.decode(value) as Uint8Array[];
    if (!Array.isArray(fields) || fields.length < 4) return;
    const storageRoot = fields[2];
    const codeHash = fields[3];
    if (storageRoot.length === 32) this.markTrie(toKey(storageRoot), false, ctx);
    if (codeHash.length === 32) {
      const ch = toKey(codeHash);
      if (ch !== EMPTY_CODE_HASH_HEX) {
        const codeKey = CODE_PREFIX_HEX + ch;
        if (!ctx.keys.has(codeKey) && !this.map.has(codeKey)) ctx.missing++;
        ctx.keys.add(codeKey);
      }
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
