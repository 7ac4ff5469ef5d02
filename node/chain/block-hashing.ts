/**
 * Besu's BFT header hashes (BftBlockHashing): keccak of the header RLP with extraData re-encoded.
 * On-chain hash: round 0, no seals. Committed-seal hash: the block's (or a given) round, no seals.
 * Genesis (number 0) is hashed with its raw extraData.
 */
import { createBlockFromBytesArray, type Block, type BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from '../crypto/keccak.ts';
import { bytesToHex, hexToBytes, type Hex } from '../crypto/bytes.ts';
import { decodingCommon } from './decoding-common.ts';
import { decodeExtraData, encodeExtraData, type QbftExtraData } from './extra-data.ts';

const EXTRA_DATA_INDEX = 12;
const COINBASE_INDEX = 2;

// Headers are frozen by @ethereumjs/block, so a header's hashes never change.
const onchainCache = new WeakMap<BlockHeader, Uint8Array>();
const sealCache = new WeakMap<BlockHeader, Uint8Array>();

function hashWithExtraData(header: BlockHeader, extraData: Uint8Array): Uint8Array {
  const raw = header.raw();
  raw[EXTRA_DATA_INDEX] = extraData;
  return keccak256(RLP.encode(raw));
}

const plainCache = new WeakMap<BlockHeader, Uint8Array>();

/** keccak of the header RLP as it stands: the hash of non-BFT blocks, and of every genesis block. */
export function plainBlockHash(header: BlockHeader): Uint8Array {
  let hash = plainCache.get(header);
  if (hash === undefined) {
    hash = keccak256(RLP.encode(header.raw()));
    plainCache.set(header, hash);
  }
  return hash;
}

const genesisHash = plainBlockHash;

const extraCache = new WeakMap<BlockHeader, QbftExtraData>();

export function extraDataOf(header: BlockHeader): QbftExtraData {
  let extra = extraCache.get(header);
  if (extra === undefined) {
    extra = decodeExtraData(header.extraData);
    extraCache.set(header, extra);
  }
  return extra;
}

function fieldToBigInt(field: unknown): bigint {
  if (!(field instanceof Uint8Array) || field.length === 0) return 0n;
  return BigInt(bytesToHex(field));
}

function decodeCommonFor(common: Common, header: unknown): Common {
  const fields = Array.isArray(header) ? header : [];
  return decodingCommon(common, { blockNumber: fieldToBigInt(fields[8]), timestamp: fieldToBigInt(fields[11]) });
}

/**
 * Decoded blocks, shared by every node that uses the same Common: the simulator's nodes receive
 * the same bytes many times, and building an ethereumjs block is costly. Blocks are immutable.
 */
const BLOCK_CACHE_CAP = 512;
const blockCache = new WeakMap<Common, Map<string, Block>>();

function cachedBlock(common: Common, key: string, make: () => Block): Block {
  let cache = blockCache.get(common);
  if (!cache) blockCache.set(common, (cache = new Map()));
  let block = cache.get(key);
  if (block === undefined) {
    block = make();
    if (cache.size >= BLOCK_CACHE_CAP) cache.delete(cache.keys().next().value as string);
    cache.set(key, block);
  }
  return block;
}

export function onchainBlockHash(header: BlockHeader): Uint8Array {
  let hash = onchainCache.get(header);
  if (hash === undefined) {
    hash = header.number === 0n ? genesisHash(header) : hashWithExtraData(header, encodeExtraData({ ...extraDataOf(header), round: 0, seals: [] }));
    onchainCache.set(header, hash);
  }
  return hash;
}

/**
 * The on-chain hash straight from raw header fields (as they arrive on the wire), with no block
 * object and without decoding addresses: the extraData list keeps its first three items raw and
 * gets round 0 and no seals. Throws on a malformed header.
 */
export function onchainHashOfFields(fields: Uint8Array[]): Uint8Array {
  const number = fields[8];
  if (number === undefined || fields.length <= EXTRA_DATA_INDEX) throw new Error('header has too few fields');
  if (number.length === 0) return keccak256(RLP.encode(fields));
  const extra = RLP.decode(fields[EXTRA_DATA_INDEX]);
  if (!Array.isArray(extra) || extra.length < 5) throw new Error('extraData is not a QBFT extraData list');
  const copy = [...fields];
  copy[EXTRA_DATA_INDEX] = RLP.encode([extra[0], extra[1], extra[2], new Uint8Array(0), []] as never);
  return keccak256(RLP.encode(copy));
}

export function committedSealHash(header: BlockHeader, round?: number): Uint8Array {
  if (header.number === 0n) return onchainBlockHash(header);
  if (round === undefined) {
    let hash = sealCache.get(header);
    if (hash === undefined) {
      hash = hashWithExtraData(header, encodeExtraData({ ...extraDataOf(header), seals: [] }));
      sealCache.set(header, hash);
    }
    return hash;
  }
  return hashWithExtraData(header, encodeExtraData({ ...extraDataOf(header), round, seals: [] }));
}

export function blockFromRlp(bytes: Uint8Array, common: Common): Block {
  return cachedBlock(common, bytesToHex(keccak256(bytes)), () => {
    const values = RLP.decode(bytes);
    if (!Array.isArray(values)) throw new Error('a block must be an RLP list');
    return createBlockFromBytesArray(values as never, { common: decodeCommonFor(common, values[0]), skipConsensusFormatValidation: true });
  });
}

export function blockToRlp(block: Block): Uint8Array {
  return block.serialize();
}

/** Builds a block from its raw RLP values, through the shared decoded-block cache. */
export function blockFromValues(values: Uint8Array[][] | unknown[], common: Common): Block {
  const key = bytesToHex(keccak256(RLP.encode(values as never)));
  return cachedBlock(common, key, () => createBlockFromBytesArray(values as never, { common: decodeCommonFor(common, (values as unknown[])[0]), skipConsensusFormatValidation: true }));
}

/** The block with one header field replaced (its state root and body left as they were). */
function withHeaderField(block: Block, index: number, value: Uint8Array, common: Common): Block {
  const raw = block.raw();
  const header = [...raw[0]];
  header[index] = value;
  raw[0] = header;
  return blockFromValues(raw, common);
}

export function withCoinbase(block: Block, coinbase: Hex, common: Common): Block {
  return withHeaderField(block, COINBASE_INDEX, hexToBytes(coinbase), common);
}

export function withExtraData(block: Block, extra: QbftExtraData, common: Common): Block {
  return withHeaderField(block, EXTRA_DATA_INDEX, encodeExtraData(extra), common);
}
