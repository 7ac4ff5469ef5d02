/**
 * Besu's BFT header hashes (BftBlockHashing): keccak of the header RLP with extraData re-encoded.
 * On-chain hash: round 0, no seals. Committed-seal hash: the block's (or a given) round, no seals.
 * Genesis (number 0) is hashed with its raw extraData.
 */
import { createBlockFromBytesArray, createBlockFromRLP, type Block, type BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from '../crypto/keccak.ts';
import { decodeExtraData, encodeExtraData, type QbftExtraData } from './extra-data.ts';

const EXTRA_DATA_INDEX = 12;

// Headers are frozen by @ethereumjs/block, so a header's hashes never change.
const onchainCache = new WeakMap<BlockHeader, Uint8Array>();
const sealCache = new WeakMap<BlockHeader, Uint8Array>();

function hashWithExtraData(header: BlockHeader, extraData: Uint8Array): Uint8Array {
  const raw = header.raw();
  raw[EXTRA_DATA_INDEX] = extraData;
  return keccak256(RLP.encode(raw));
}

function genesisHash(header: BlockHeader): Uint8Array {
  return keccak256(RLP.encode(header.raw()));
}

export function extraDataOf(header: BlockHeader): QbftExtraData {
  return decodeExtraData(header.extraData);
}

export function onchainBlockHash(header: BlockHeader): Uint8Array {
  let hash = onchainCache.get(header);
  if (hash === undefined) {
    hash = header.number === 0n ? genesisHash(header) : hashWithExtraData(header, encodeExtraData({ ...extraDataOf(header), round: 0, seals: [] }));
    onchainCache.set(header, hash);
  }
  return hash;
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
  return createBlockFromRLP(bytes, { common, skipConsensusFormatValidation: true });
}

export function blockToRlp(block: Block): Uint8Array {
  return block.serialize();
}

export function withExtraData(block: Block, extra: QbftExtraData, common: Common): Block {
  const raw = block.raw();
  const header = [...raw[0]];
  header[EXTRA_DATA_INDEX] = encodeExtraData(extra);
  raw[0] = header;
  return createBlockFromBytesArray(raw, { common, skipConsensusFormatValidation: true });
}
