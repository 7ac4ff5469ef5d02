/** Adapts an ethereumjs block to the state machine's ProposedBlock, with memoized digests. */
import type { Block } from '@ethereumjs/block';
import { bytesToHex, type Hex } from '../crypto/bytes.ts';
import { blockToRlp, committedSealHash, extraDataOf } from '../chain/block-hashing.ts';
import type { ProposedBlock } from './qbft/core-types.ts';

export interface NodeProposedBlock extends ProposedBlock {
  readonly block: Block;
}

/** Besu's QbftBlockInterface.replaceRoundAndProposerForProposalBlock: a prepared block rewritten for a new round and proposer. */
export type Reproposal = (block: Block, round: number, proposer: Hex) => Block;

/** `reproposal`: the node's block interface when it has its own (default: Besu's, the round only). */
export function proposedBlockFrom(block: Block, rlp?: Uint8Array, reproposal?: Reproposal): NodeProposedBlock {
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
    digestAsReproposed(round: number, proposer: Hex): Hex {
      if (!reproposal) return this.digestForRound(round);
      return bytesToHex(committedSealHash(reproposal(block, round, proposer).header));
    },
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
