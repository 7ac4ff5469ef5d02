/**
 * The node's block tree and canonical chain. Fork choice is by total difficulty (QBFT difficulty
 * is always 1, so the longest chain wins; on a tie the chain seen first stays); a child of the
 * head always extends it. Blocks and the
 * canonical index are written through the Store port so a restarted node resumes.
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
  private readonly canonical: Hex[] = [];
  private headEntry: ChainEntry;

  private constructor(
    private readonly store: Store,
    readonly genesis: ChainEntry,
    readonly hashOf: BlockHasher,
  ) {
    this.byHash.set(genesis.hash, genesis);
    this.canonical.push(genesis.hash);
    this.headEntry = genesis;
  }

  /** Opens the chain from the store, or starts it at genesis when the store is empty. */
  static async open(store: Store, genesisBlock: Block, common: Common, hashOf: BlockHasher = onchainBlockHash): Promise<Chain> {
    const genesis = entryFromBlock(genesisBlock, 0n, hashOf);
    const chain = new Chain(store, genesis, hashOf);
    const head = await store.get(HEAD_KEY);
    if (!head) {
      await store.write([
        { key: blockKey(genesis.hash), value: blockToRlp(genesisBlock) },
        { key: canonKey(0), value: hexToBytes(genesis.hash) },
        { key: HEAD_KEY, value: hexToBytes(genesis.hash) },
      ]);
      return chain;
    }
    const storedGenesis = await store.get(canonKey(0));
    if (!storedGenesis || bytesToHex(storedGenesis) !== genesis.hash)
      throw new Error('the data directory holds a chain with another genesis block');
    // Reads run OPEN_READ_AHEAD blocks at a time (LevelDB serves them concurrently); blocks are
    // still taken in height order, and the walk stops at the first gap, break or the stored head.
    const headHash = bytesToHex(head);
    for (let from = 1; ; from += OPEN_READ_AHEAD) {
      const heights = Array.from({ length: OPEN_READ_AHEAD }, (_, i) => from + i);
      const hashes = await Promise.all(heights.map((n) => store.get(canonKey(n))));
      const rlps = await Promise.all(hashes.map((h) => (h ? store.get(blockKey(bytesToHex(h))) : Promise.resolve(undefined))));
      for (const rlp of rlps) {
        if (!rlp) return chain;
        const entry = entryFromBlock(blockFromRlp(rlp, common), chain.headEntry.td, hashOf);
        if (entry.parentHash !== chain.headEntry.hash) return chain;
        chain.byHash.set(entry.hash, entry);
        chain.canonical.push(entry.hash);
        chain.headEntry = entry;
        if (entry.hash === headHash) return chain;
      }
    }
  }

  head(): ChainEntry {
    return this.headEntry;
  }

  get(hash: Hex): ChainEntry | undefined {
    return this.byHash.get(hash);
  }

  has(hash: Hex): boolean {
    return this.byHash.has(hash);
  }

  canonicalAt(n: number): ChainEntry | undefined {
    const hash = this.canonical[n];
    return hash === undefined ? undefined : this.byHash.get(hash);
  }

  isCanonical(entry: ChainEntry): boolean {
    return this.canonical[entry.number] === entry.hash;
  }

  /** Adds a block whose parent is known and that the caller has fully validated and executed. */
  /**
   * `onCanonical` runs the moment the block becomes the head in memory, before the store write is
   * awaited, so that readers never see the new head without what the caller derives from it.
   */
  async add(block: Block, onCanonical?: (reorg: ReorgEvent) => void): Promise<AddResult> {
    const parentHash = bytesToHex(block.header.parentHash);
    const parent = this.byHash.get(parentHash);
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
    while (cursor && this.canonical[cursor.number] !== cursor.hash) {
      added.push(cursor);
      cursor = this.byHash.get(cursor.parentHash);
    }
    if (!cursor) throw new Error('new head does not connect to the canonical chain');
    const removed: ChainEntry[] = [];
    for (let n = this.canonical.length - 1; n > cursor.number; n--) removed.push(this.byHash.get(this.canonical[n])!);
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
