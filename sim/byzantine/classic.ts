/**
 * The first Byzantine behaviours: a silent validator sends no QBFT messages; an equivocating
 * proposer sends one block to half its peers and a different, equally valid block to the other
 * half; an invalid justifier strips the round-change certificate from its round-change
 * proposals; a proposal withholder sends everything but its own proposals (the Twins generator
 * uses it to choose which copy of a twinned key leads).
 */
import { bytesToHex, hexToBytes, type Hex } from '../../node/crypto/bytes.ts';
import { encodeMessage, MessageCode, signPayload, type ProposalMessage } from '../../node/consensus/qbft/messages.ts';
import { signRemembered } from '../../node/consensus/qbft/signer-cache.ts';
import type { PeerId } from '../../node/runtime/ports.ts';
import { blockDigest, istanbul, variantBlock, type Behaviour, type ByzantineKit } from './kit.ts';

const asOwnProposal = (out: Parameters<Behaviour['plan']>[1]): ProposalMessage | undefined => {
  if (!out.own || out.decoded()?.kind !== 'proposal') return undefined;
  return out.decoded() as ProposalMessage;
};

export function reproposeWith(kit: ByzantineKit, message: ProposalMessage, blockRlp: Uint8Array, justification?: Pick<ProposalMessage, 'roundChanges' | 'prepares'>): ProposalMessage {
  const signed = signPayload({ ...message.signed.payload, blockRlp }, kit.privateKey, kit.layout);
  return { kind: 'proposal', signed, roundChanges: justification?.roundChanges ?? message.roundChanges, prepares: justification?.prepares ?? message.prepares };
}

export const silent: Behaviour = {
  plan: (kit) => {
    kit.act('silent:dropped');
    return [];
  },
};

/**
 * Of a block and its variant, the one with the smaller digest goes to the peers at even places in
 * the sorted list of all nodes (this one included), the other to the odd places. Every equivocating
 * node applies the same rule, so colluding equivocators split the honest nodes the same way.
 */
function evenSide(kit: ByzantineKit, to: PeerId): boolean {
  const everyone = [...kit.peers(), kit.self].sort();
  return everyone.indexOf(to) % 2 === 0;
}

function blockAt(kit: ByzantineKit, sequence: number, round: number, digest: Hex): Uint8Array | undefined {
  return kit.memory.proposalsAt(sequence, round).find((p) => blockDigest(p.blockRlp, kit.common) === digest)?.blockRlp;
}

export const equivocate: Behaviour = {
  observes: [MessageCode.PROPOSAL],
  plan(kit, out) {
    const m = out.own ? out.decoded() : undefined;
    const genuine = istanbul(out.code, out.data);
    if (m?.kind === 'proposal') {
      const blockRlp = m.signed.payload.blockRlp;
      const variant = variantBlock(blockRlp, kit.common);
      const other = istanbul(out.code, encodeMessage(reproposeWith(kit, m, variant), kit.layout));
      const genuineIsEven = blockDigest(blockRlp, kit.common) < blockDigest(variant, kit.common);
      kit.act('equivocate:second-block');
      return (to) => [evenSide(kit, to) === genuineIsEven ? genuine : other];
    }
    if (m?.kind !== 'prepare' && m?.kind !== 'commit') return [genuine];
    const { sequence, round } = m.signed.payload;
    const digest = bytesToHex(m.signed.payload.digest);
    const blockRlp = blockAt(kit, sequence, round, digest);
    if (!blockRlp) return [genuine];
    const otherDigest = hexToBytes(blockDigest(variantBlock(blockRlp, kit.common), kit.common));
    const otherVote =
      m.kind === 'prepare'
        ? encodeMessage({ kind: 'prepare', signed: signPayload({ ...m.signed.payload, digest: otherDigest }, kit.privateKey) })
        : encodeMessage({ kind: 'commit', signed: signPayload({ ...m.signed.payload, digest: otherDigest, commitSeal: signRemembered(otherDigest, kit.privateKey) }, kit.privateKey) });
    const genuineIsEven = digest < bytesToHex(otherDigest);
    kit.act(`equivocate:double-${m.kind}`);
    return (to) => [evenSide(kit, to) === genuineIsEven ? genuine : istanbul(out.code, otherVote)];
  },
};

export const invalidJustification: Behaviour = {
  plan(kit, out) {
    const proposal = asOwnProposal(out);
    if (!proposal || proposal.signed.payload.round === 0) return [istanbul(out.code, out.data)];
    kit.act('invalid-justification:stripped');
    return [istanbul(out.code, encodeMessage({ ...proposal, roundChanges: proposal.roundChanges.slice(0, 1), prepares: [] }, kit.layout))];
  },
};

export const withholdProposals: Behaviour = {
  plan(kit, out) {
    if (asOwnProposal(out)) {
      kit.act('withhold-proposals:dropped');
      return [];
    }
    return [istanbul(out.code, out.data)];
  },
};
