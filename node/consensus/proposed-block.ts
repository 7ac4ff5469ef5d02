/** Adapts an ethereumjs block to the state machine's ProposedBlock, with memoized digests. */
import type { Block } from '@ethereumjs/block';
import { bytesToHex, type Hex } from '../crypto/bytes.ts';
import { blockToRlp, committedSealHash, extraDataOf } from '../chain/block-hashing.ts';
import type { ProposedBlock } from './qbft/core-types.ts';

export interface NodeProposedBlock extends ProposedBlock {
  readonly block: Block;
}

export function proposedBlockFrom(block: Block, rlp?: Uint8Array): NodeProposedBlock {
  const extra = extraDataOf(block.header);
  const digest = bytesToHex(committedSealHash(block.header));
  const digests = new Map<number, Hex>([[extra.round, digest]]);
  let encoded = rlp;
  return {
    block,
    number: Number(block.header.number),
    coinbase: block.header.coinbase.toString().toLowerCase() as Hex,
    round: extra.round,
    txCount: block.transactions.length,
    get rlp() {
      encoded ??= blockToRlp(block);
      return encoded;
    },
    digest,
    digestForRound(round: number): Hex {
      let d = digests.get(round);
      if (d === undefined) {
        d = bytesToHex(committedSealHash(block.header, round));
        digests.set(round, d);
      }
      return d;
    },
  };
}
