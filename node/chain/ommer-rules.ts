/**
 * Ommers of a BFT block. QBFT has no ommers rule of its own: Besu judges them with the generic
 * body validation (MainnetBlockBodyValidator.validateEthHash), which every QBFT proposal and import
 * goes through, with the ommers validated in FULL header mode:
 *
 *  - the header's ommers hash must be the keccak of the RLP list of the body's ommer headers;
 *  - at most 2 ommers, no two the same header (Besu compares header hashes: the BFT on-chain hash);
 *  - each ommer must pass the BFT header rules against its own stored parent, commit seals included
 *    (BaseBftProtocolScheduleBuilder makes the ommer header validator the block header ruleset);
 *    an ommer whose parent is not stored fails;
 *  - each ommer must be a sibling (same parent, not the same header) of one of the block's ancestors
 *    down to block number max(number - 6, 0).
 *
 * So a sealed fork block of the last 6 heights is a valid ommer (the blocks BFT proposers build never
 * have any; such an ommer earns nothing, there being no ommer reward in BFT); anything else is rejected.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, equalBytes, type Hex } from '../crypto/bytes.ts';
import { keccak256 } from '../crypto/keccak.ts';

export const MAX_OMMERS = 2;
export const MAX_OMMER_GENERATIONS = 6;

/** Besu's BodyValidation.ommersHash. */
export function ommersHash(ommers: readonly BlockHeader[]): Uint8Array {
  return keccak256(RLP.encode(ommers.map((o) => o.raw())));
}

/** What the ommer checks need from the node. */
export interface OmmerContext {
  /** The hash a header is known by (BFT on-chain hash). */
  hashOf(header: BlockHeader): Hex;
  /** A stored block, canonical or not. */
  get(hash: Hex): { hash: Hex; number: number; parentHash: Hex } | undefined;
  /** The header rules of an ommer against its stored parent, seals included; the reason it fails, if it does. */
  checkOmmerHeader(ommer: BlockHeader, parentHash: Hex): Promise<string | undefined>;
}

/** Why the block's ommers are invalid, or undefined. */
export async function checkOmmers(block: Block, ctx: OmmerContext): Promise<string | undefined> {
  const header = block.header;
  const ommers = block.uncleHeaders;
  const bodyHash = ommersHash(ommers);
  if (!equalBytes(bodyHash, header.uncleHash))
    return `ommers hash ${bytesToHex(header.uncleHash)} does not match the body's ${bytesToHex(bodyHash)}`;
  if (ommers.length > MAX_OMMERS) return `${ommers.length} ommers, at most ${MAX_OMMERS}`;
  const hashes = ommers.map((o) => ctx.hashOf(o));
  if (new Set(hashes).size !== hashes.length) return 'ommers are not unique';
  for (let i = 0; i < ommers.length; i++) {
    const parentHash = bytesToHex(ommers[i].parentHash);
    const problem = ctx.get(parentHash) ? await ctx.checkOmmerHeader(ommers[i], parentHash) : `parent ${parentHash} unknown`;
    if (problem) return `ommer ${hashes[i]} is invalid: ${problem}`;
    if (!isSiblingOfAncestor(block, hashes[i], parentHash, ctx))
      return `ommer ${hashes[i]} is not a sibling of an ancestor within ${MAX_OMMER_GENERATIONS} generations`;
  }
  return undefined;
}

function isSiblingOfAncestor(block: Block, ommerHash: Hex, ommerParentHash: Hex, ctx: OmmerContext): boolean {
  const lowest = Math.max(Number(block.header.number) - MAX_OMMER_GENERATIONS, 0);
  let number = Number(block.header.number);
  let parentHash = bytesToHex(block.header.parentHash);
  while (number > lowest) {
    const ancestor = ctx.get(parentHash);
    if (!ancestor) return false;
    if (ancestor.parentHash === ommerParentHash && ancestor.hash !== ommerHash) return true;
    number = ancestor.number;
    parentHash = ancestor.parentHash;
  }
  return false;
}
