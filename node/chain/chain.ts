/**
 * The node's block tree and canonical chain. Fork choice is by total difficulty (QBFT difficulty
 * is always 1, so the longest chain wins; on a tie the chain seen first stays); a child of the
 * head always extends it. Blocks and the
 * canonical index are written through the Store port so a restarted node resumes.
 *
 * A Store may carry a `history` (ChainHistory): canonical blocks 1..height kept outside its block
 * keys, compactly and read-only (a simulated data directory's imported history). They are read
 * from it on demand, never loaded whole; the blocks the store itself holds start above it.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { bytesToHex, hexToBytes, type Hex } from '../crypto/bytes.ts';
import type { Store } from '../runtime/ports.ts';
import { blockFromRlp, blockToRlp, extraDataOf, onchainBlockHash } from './block-hashing.ts';
import type { QbftExtraData } from './extra-data.ts';

export interface ChainEntry {
  hash: Hex;
  number: number;
  parentHash: Hex;
  td: bigint;
  timestamp: number;
  coinbase: Hex;
  block: Block;
  extra: QbftExtraData;
}

export interface ReorgEvent {
  /** Blocks that left the canonical chain, highest first. */
  removed: ChainEntry[];
  /** Blocks that joined it, lowest first. */
  added: ChainEntry[];
}

export type AddResult = { status: 'known' } | { status: 'side' } | { status: 'head'; reorg: ReorgEvent };

/**
 * Canonical blocks 1..height below a store's own (see the file comment): QBFT blocks with empty
 * bodies and difficulty 1. Header facts are read without building the block, which is built (and
 * sealed) only when its `block` is read.
 */
export interface ChainHistory {
  readonly height: number;
  /** On-chain hash of block n (1 <= n <= height). */
  hashAt(n: number): Hex;
  /** The number of a block of the history, else undefined. */
  numberOf(hash: Hex): number | undefined;
  timestampAt(n: number): number;
  coinbaseAt(n: number): Hex;
  /** Block n's extraData, decoded (as its block's). */
  extraAt(n: number): QbftExtraData;
  /** Block n, sealed, decoded under `common`. */
  blockAt(n: number, common: Common): Block;
}

/** History entries kept decoded (the blocks around the head and what sync asks for). */
const HISTORY_ENTRY_CACHE = 512;

const HEAD_KEY = 'head';
const OPEN_READ_AHEAD = 256;
const blockKey = (hash: Hex) => `b:${hash}`;
const canonKey = (n: number) => `c:${n.toString().padStart(12, '0')}`;

/** The hash a chain knows its blocks by: QBFT's on-chain hash, or the plain header hash of other chains. */
export type BlockHasher = (header: BlockHeader) => Uint8Array;

/** `extra` is decoded on first use: only QBFT chains read it (other chains' extraData is free-form). */
export function entryFromBlock(block: Block, parentTd: bigint, hashOf: BlockHasher = onchainBlockHash): ChainEntry {
  const header = block.header;
  return {
    hash: bytesToHex(hashOf(header)),
    number: Number(header.number),
    parentHash: bytesToHex(header.parentHash),
    td: parentTd + header.difficulty,
    timestamp: Number(header.timestamp),
    coinbase: header.coinbase.toString().toLowerCase() as Hex,
    block,
    get extra() {
      return extraDataOf(header);
    },
  };
}

export class Chain {
  private readonly byHash = new Map<Hex, ChainEntry>();
  /** Hashes of blocks known off the canonical chain, for pruning without scanning everything. */
  private readonly sideHashes = new Set<Hex>();
  /** Canonical hashes of the blocks the store holds (indices at or below the history's height are unused). */
  private readonly canonical: Hex[] = [];
  private headEntry: ChainEntry;
  private readonly history: ChainHistory | undefined;
  private readonly historyEntries = new Map<number, ChainEntry>();

  private constructor(
    private readonly store: Store,
    readonly genesis: ChainEntry,
    readonly hashOf: BlockHasher,
    private readonly common: Common,
  ) {
    this.history = store.history;
    this.byHash.set(genesis.hash, genesis);
    this.canonical.push(genesis.hash);
    this.headEntry = genesis;
  }

  /** Opens the chain from the store, or starts it at genesis when the store is empty. */
  static async open(store: Store, genesisBlock: Block, common: Common, hashOf: BlockHasher = onchainBlockHash): Promise<Chain> {
    const genesis = entryFromBlock(genesisBlock, 0n, hashOf);
    const chain = new Chain(store, genesis, hashOf, common);
    if (chain.historyHeight > 0) chain.headEntry = chain.canonicalAt(chain.historyHeight)!;
    const head = await store.get(HEAD_KEY);
    if (!head) {
      await store.write([
        { key: blockKey(genesis.hash), value: blockToRlp(genesisBlock) },
        { key: canonKey(0), value: hexToBytes(genesis.hash) },
        { key: HEAD_KEY, value: hexToBytes(chain.headEntry.hash) },
      ]);
      return chain;
    }
    const storedGenesis = await store.get(canonKey(0));
    if (!storedGenesis || bytesToHex(storedGenesis) !== genesis.hash)
      throw new Error('the data directory holds a chain with another genesis block');
    // Reads run OPEN_READ_AHEAD blocks at a time (LevelDB serves them concurrently); blocks are
    // still taken in height order, and the walk stops at the first gap, break or the stored head.
    const headHash = bytesToHex(head);
    if (headHash === chain.headEntry.hash) return chain;
    for (let from = chain.historyHeight + 1; ; from += OPEN_READ_AHEAD) {
      const heights = Array.from({ length: OPEN_READ_AHEAD }, (_, i) => from + i);
      const hashes = await Promise.all(heights.map((n) => store.get(canonKey(n))));
      const rlps = await Promise.all(hashes.map((h) => (h ? store.get(blockKey(bytesToHex(h))) : Promise.resolve(undefined))));
      for (const rlp of rlps) {
        if (!rlp) return chain;
        const entry = entryFromBlock(blockFromRlp(rlp, common), chain.headEntry.td, hashOf);
        if (entry.parentHash !== chain.headEntry.hash) return chain;
        chain.byHash.set(entry.hash, entry);
        chain.canonical[entry.number] = entry.hash;
        chain.headEntry = entry;
        if (entry.hash === headHash) return chain;
      }
    }
  }

  head(): ChainEntry {
    return this.headEntry;
  }

  get(hash: Hex): ChainEntry | undefined {
    const entry = this.byHash.get(hash);
    if (entry || !this.history) return entry;
    const n = this.history.numberOf(hash);
    return n === undefined ? undefined : this.canonicalAt(n);
  }

  has(hash: Hex): boolean {
    return this.byHash.has(hash) || this.history?.numberOf(hash) !== undefined;
  }

  /** The height of the store's history (0 without one): blocks at or below it come from it. */
  get historyHeight(): number {
    return this.history?.height ?? 0;
  }

  canonicalAt(n: number): ChainEntry | undefined {
    if (n >= 1 && n <= this.historyHeight) return this.historyEntry(n);
    const hash = this.canonical[n];
    return hash === undefined ? undefined : this.byHash.get(hash);
  }

  /** A canonical block's timestamp, without decoding a block of the history. */
  timestampAt(n: number): number | undefined {
    if (n >= 1 && n <= this.historyHeight) return this.history!.timestampAt(n);
    return this.canonicalAt(n)?.timestamp;
  }

  isCanonical(entry: ChainEntry): boolean {
    return this.canonicalHashAt(entry.number) === entry.hash;
  }

  private canonicalHashAt(n: number): Hex | undefined {
    return n >= 1 && n <= this.historyHeight ? this.history!.hashAt(n) : this.canonical[n];
  }

  private historyEntry(n: number): ChainEntry {
    let entry = this.historyEntries.get(n);
    if (!entry) {
      const history = this.history!;
      const common = this.common;
      let block: Block | undefined;
      entry = {
        hash: history.hashAt(n),
        number: n,
        parentHash: n === 1 ? this.genesis.hash : history.hashAt(n - 1),
        // Difficulty 1 per block: the total difficulty is the genesis' plus the height.
        td: this.genesis.td + BigInt(n),
        timestamp: history.timestampAt(n),
        coinbase: history.coinbaseAt(n),
        get block() {
          return (block ??= history.blockAt(n, common));
        },
        get extra() {
          return history.extraAt(n);
        },
      };
      if (this.historyEntries.size >= HISTORY_ENTRY_CACHE) this.historyEntries.delete(this.historyEntries.keys().next().value as number);
      this.historyEntries.set(n, entry);
    }
    return entry;
  }

  /** Adds a block whose parent is known and that the caller has fully validated and executed. */
  /**
   * `onCanonical` runs the moment the block becomes the head in memory, before the store write is
   * awaited, so that readers never see the new head without what the caller derives from it.
   */
  async add(block: Block, onCanonical?: (reorg: ReorgEvent) => void): Promise<AddResult> {
    const parentHash = bytesToHex(block.header.parentHash);
    const parent = this.get(parentHash);
    if (!parent) throw new Error(`unknown parent ${parentHash}`);
    const entry = entryFromBlock(block, parent.td, this.hashOf);
    if (this.byHash.has(entry.hash)) return { status: 'known' };
    this.byHash.set(entry.hash, entry);
    const writes: Array<{ key: string; value: Uint8Array | undefined }> = [{ key: blockKey(entry.hash), value: blockToRlp(block) }];
    // As Besu's DefaultBlockchain: a child of the head always becomes the head (post-merge blocks of
    // difficulty 0 add nothing to the total); any other block needs a greater total difficulty.
    if (entry.parentHash !== this.headEntry.hash && entry.td <= this.headEntry.td) {
      this.sideHashes.add(entry.hash);
      await this.store.write(writes);
      return { status: 'side' };
    }
    const reorg = this.reorgTo(entry);
    for (const e of reorg.added) writes.push({ key: canonKey(e.number), value: hexToBytes(e.hash) });
    for (let n = entry.number + 1; n < this.canonical.length; n++) writes.push({ key: canonKey(n), value: undefined });
    writes.push({ key: HEAD_KEY, value: hexToBytes(entry.hash) });
    for (const e of reorg.removed) this.sideHashes.add(e.hash);
    this.canonical.length = entry.number + 1;
    for (const e of reorg.added) {
      this.canonical[e.number] = e.hash;
      this.sideHashes.delete(e.hash);
    }
    this.headEntry = entry;
    onCanonical?.(reorg);
    await this.store.write(writes);
    return { status: 'head', reorg };
  }

  private reorgTo(newHead: ChainEntry): ReorgEvent {
    const added: ChainEntry[] = [];
    let cursor: ChainEntry | undefined = newHead;
    while (cursor && this.canonicalHashAt(cursor.number) !== cursor.hash) {
      added.push(cursor);
      cursor = this.get(cursor.parentHash);
    }
    if (!cursor) throw new Error('new head does not connect to the canonical chain');
    const removed: ChainEntry[] = [];
    for (let n = this.headEntry.number; n > cursor.number; n--) removed.push(this.canonicalAt(n)!);
    return { removed, added: added.reverse() };
  }

  /** Drops side-chain blocks more than `depth` below the head from memory (they stay in the store). */
  pruneSideChains(depth: number): void {
    const floor = this.headEntry.number - depth;
    if (floor <= 0) return;
    for (const hash of this.sideHashes) {
      const e = this.byHash.get(hash);
      if (e && this.canonical[e.number] === hash) this.sideHashes.delete(hash);
      else if (!e || e.number < floor) {
        this.byHash.delete(hash);
        this.sideHashes.delete(hash);
      }
    }
  }
}
