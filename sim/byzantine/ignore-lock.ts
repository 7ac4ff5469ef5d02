/**
 * A proposer that ignores its lock. The node hides its own lock (its round changes go out without
 * their prepared certificate), and when, as the proposer of a round above 0, it would re-propose
 * a prepared block, it proposes a fresh block instead:
 * - dropped-prepared: justified by a quorum of round changes that carry no prepared certificate,
 *   chosen from every round change it has seen for the round, when there are enough of them (QBFT
 *   allows this: such a quorum proves no block can have been committed);
 * - swapped-block: otherwise with the genuine certificate and prepares, but another block. If
 *   enough unprepared round changes arrive later in the round, the dropped-prepared proposal
 *   follows then.
 * The fresh block is the node's own earlier block at this height moved to this round, or else the
 * prepared block with the node as coinbase; either with a new vanity.
 */
import { encodeMessage, MessageCode, signPayload, type ProposalMessage, type QbftMessage, type RoundChangeMessage, type RoundChangePayload, type Signed } from '../../node/consensus/qbft/messages.ts';
import type { Hex } from '../../node/crypto/bytes.ts';
import { reproposeWith } from './classic.ts';
import { blockCoinbase, istanbul, variantBlock, type Behaviour, type ByzantineKit } from './kit.ts';

type Fresh = { rlp: Uint8Array; from: 'own' | 'rebased' };

function freshBlock(kit: ByzantineKit, proposal: ProposalMessage): Fresh {
  const { sequence, round, blockRlp } = proposal.signed.payload;
  const own = kit.memory.ownBlocks.get(sequence);
  if (own) return { rlp: variantBlock(own, kit.common, { round }), from: 'own' };
  return { rlp: variantBlock(blockRlp, kit.common, { round, coinbase: kit.own }), from: 'rebased' };
}

/** A quorum of round changes for the proposal's round that carry no prepared certificate, if known. */
function unpreparedQuorum(kit: ByzantineKit, proposal: ProposalMessage): Signed<RoundChangePayload>[] | undefined {
  const { sequence, round } = proposal.signed.payload;
  const quorum = proposal.roundChanges.length;
  const byAuthor = new Map<Hex, Signed<RoundChangePayload>>();
  for (const rc of [...kit.memory.roundChangesFor(sequence, round), ...proposal.roundChanges]) if (!byAuthor.has(rc.author)) byAuthor.set(rc.author, rc);
  const unprepared = [...byAuthor.values()].filter((rc) => !rc.payload.prepared);
  return unprepared.length >= quorum ? unprepared.slice(0, quorum) : undefined;
}

export function lockIgnoringProposal(kit: ByzantineKit, proposal: ProposalMessage): { message: ProposalMessage; kind: 'dropped-prepared' | 'swapped-block'; from: Fresh['from'] } | undefined {
  if (proposal.signed.payload.round === 0 || !proposal.roundChanges.some((rc) => rc.payload.prepared)) return undefined;
  const fresh = freshBlock(kit, proposal);
  const unprepared = unpreparedQuorum(kit, proposal);
  if (unprepared) return { message: reproposeWith(kit, proposal, fresh.rlp, { roundChanges: unprepared, prepares: [] }), kind: 'dropped-prepared', from: fresh.from };
  return { message: reproposeWith(kit, proposal, fresh.rlp), kind: 'swapped-block', from: fresh.from };
}

/** The node's own round change without its prepared certificate. */
export function withoutLock(kit: ByzantineKit, rc: RoundChangeMessage): RoundChangeMessage {
  const { prepared: _hidden, ...payload } = rc.signed.payload;
  return { kind: 'roundChange', signed: signPayload(payload, kit.privateKey), prepares: [] };
}

const PENDING = 'ignore-lock:pending';

export const ignoreLock: Behaviour = {
  observes: [MessageCode.ROUND_CHANGE],
  observesOwn: false,
  plan(kit, out) {
    const m = out.own ? out.decoded() : undefined;
    if (m?.kind === 'roundChange') {
      const sent = m.signed.payload.prepared ? withoutLock(kit, m) : m;
      if (sent !== m) kit.act('ignore-lock:hid-own-lock');
      kit.memory.observe(sent);
      return [istanbul(out.code, sent === m ? out.data : encodeMessage(sent, kit.layout))];
    }
    if (m?.kind !== 'proposal') return [istanbul(out.code, out.data)];
    const { sequence, blockRlp } = m.signed.payload;
    if (!kit.memory.ownBlocks.has(sequence) && blockCoinbase(blockRlp, kit.common) === kit.own) kit.memory.ownBlocks.set(sequence, blockRlp);
    const hostile = lockIgnoringProposal(kit, m);
    if (!hostile) return [istanbul(out.code, out.data)];
    kit.act(`ignore-lock:${hostile.kind}`);
    kit.act(`ignore-lock:fresh-from-${hostile.from}`);
    kit.state.set(PENDING, hostile.kind === 'swapped-block' ? m : undefined);
    return [istanbul(out.code, encodeMessage(hostile.message, kit.layout))];
  },
  onIncoming(kit, message: QbftMessage) {
    const pending = kit.state.get(PENDING) as ProposalMessage | undefined;
    if (!pending || message.kind !== 'roundChange') return [];
    const { sequence, round } = pending.signed.payload;
    if (kit.memory.height > sequence) {
      kit.state.delete(PENDING);
      return [];
    }
    if (message.signed.payload.sequence !== sequence || message.signed.payload.round !== round) return [];
    const unprepared = unpreparedQuorum(kit, pending);
    if (!unprepared) return [];
    kit.state.delete(PENDING);
    kit.act('ignore-lock:dropped-prepared-later');
    const fresh = freshBlock(kit, pending);
    return [istanbul(MessageCode.PROPOSAL, encodeMessage(reproposeWith(kit, pending, fresh.rlp, { roundChanges: unprepared, prepares: [] }), kit.layout))];
  },
};
