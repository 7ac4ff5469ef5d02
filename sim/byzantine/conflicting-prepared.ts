/**
 * Conflicting prepared certificates. Each of the node's own ROUND_CHANGEs is preceded by a
 * tampered copy, validly signed by the node. When the node really prepared a block:
 * - other-block: another block attached and named in the metadata, with the genuine prepares;
 * - hash-mismatch: the genuine block attached, another block's digest in the metadata;
 * - wrong-round: the genuine certificate, but a prepared round one higher.
 * When it did not prepare:
 * - claim-seen-proposal: claims the latest proposal it saw at this height as prepared, with at
 *   most its own prepare for it;
 * - metadata-without-block: prepared metadata naming a made-up digest and no block.
 * The genuine round change follows.
 */
import { hexToBytes } from '../../node/crypto/bytes.ts';
import { keccak256 } from '../../node/crypto/keccak.ts';
import { encodeMessage, MessageCode, signPayload, type RoundChangeMessage } from '../../node/consensus/qbft/messages.ts';
import { blockDigest, istanbul, variantBlock, type Behaviour, type ByzantineKit } from './kit.ts';

export const PREPARED_VARIANTS = ['other-block', 'hash-mismatch', 'wrong-round'] as const;
export const UNPREPARED_VARIANTS = ['claim-seen-proposal', 'metadata-without-block'] as const;
export type ConflictingVariant = (typeof PREPARED_VARIANTS)[number] | (typeof UNPREPARED_VARIANTS)[number];

export function conflictingRoundChange(kit: ByzantineKit, rc: RoundChangeMessage, variant: ConflictingVariant): { message: RoundChangeMessage; variant: ConflictingVariant } {
  const p = rc.signed.payload;
  const sign = (prepared: RoundChangeMessage['signed']['payload']['prepared']) => signPayload({ ...p, prepared }, kit.privateKey);
  const prepared = p.prepared;
  if (prepared && rc.preparedBlockRlp) {
    switch (variant) {
      case 'other-block': {
        const other = variantBlock(rc.preparedBlockRlp, kit.common);
        const signed = sign({ preparedRound: prepared.preparedRound, preparedBlockHash: hexToBytes(blockDigest(other, kit.common)) });
        return { message: { ...rc, signed, preparedBlockRlp: other }, variant };
      }
      case 'hash-mismatch': {
        const other = variantBlock(rc.preparedBlockRlp, kit.common);
        const signed = sign({ preparedRound: prepared.preparedRound, preparedBlockHash: hexToBytes(blockDigest(other, kit.common)) });
        return { message: { ...rc, signed }, variant };
      }
      case 'wrong-round':
      default:
        return { message: { ...rc, signed: sign({ ...prepared, preparedRound: prepared.preparedRound + 1 }) }, variant: 'wrong-round' };
    }
  }
  const seen = kit.memory.proposalBefore(p.sequence, p.round);
  if (variant === 'claim-seen-proposal' && seen) {
    const digest = blockDigest(seen.blockRlp, kit.common);
    const ownPrepare = kit.memory.preparesFor(p.sequence, seen.round, digest).filter((x) => x.author === kit.own);
    const signed = sign({ preparedRound: seen.round, preparedBlockHash: hexToBytes(digest) });
    return { message: { kind: 'roundChange', signed, preparedBlockRlp: seen.blockRlp, prepares: ownPrepare }, variant };
  }
  const madeUp = keccak256(rc.signed.signature);
  return { message: { kind: 'roundChange', signed: sign({ preparedRound: Math.max(0, p.round - 1), preparedBlockHash: madeUp }), prepares: [] }, variant: 'metadata-without-block' };
}

export const conflictingPrepared: Behaviour = {
  observes: [MessageCode.PROPOSAL, MessageCode.PREPARE],
  plan(kit, out) {
    const rc = out.own ? out.decoded() : undefined;
    if (rc?.kind !== 'roundChange') return [istanbul(out.code, out.data)];
    const list = rc.signed.payload.prepared ? PREPARED_VARIANTS : UNPREPARED_VARIANTS;
    const pick = list[kit.turn(`conflicting-prepared:${list.length}`, rc.signed.payload.sequence + rc.signed.payload.round) % list.length];
    const tampered = conflictingRoundChange(kit, rc, pick);
    kit.act(`conflicting-prepared:${tampered.variant}`);
    return [istanbul(out.code, encodeMessage(tampered.message, kit.layout)), istanbul(out.code, out.data)];
  },
};
