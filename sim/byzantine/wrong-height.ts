/**
 * Messages for the wrong height: each of the node's own messages is followed by validly signed
 * copies for heights +1, +5 and -1; everything else, the block
 * and the justification included, is unchanged.
 */
import { encodeMessage, signPayload, type QbftMessage } from '../../node/consensus/qbft/messages.ts';
import { istanbul, type Behaviour, type ByzantineKit } from './kit.ts';

export const HEIGHT_OFFSETS = [1, 5, -1] as const;

export function atHeight(kit: ByzantineKit, m: QbftMessage, sequence: number): QbftMessage {
  switch (m.kind) {
    case 'prepare':
      return { ...m, signed: signPayload({ ...m.signed.payload, sequence }, kit.privateKey) };
    case 'commit':
      return { ...m, signed: signPayload({ ...m.signed.payload, sequence }, kit.privateKey) };
    case 'roundChange':
      return { ...m, signed: signPayload({ ...m.signed.payload, sequence }, kit.privateKey) };
    case 'proposal':
      return { ...m, signed: signPayload({ ...m.signed.payload, sequence }, kit.privateKey, kit.layout) };
  }
}

export const wrongHeight: Behaviour = {
  plan(kit, out) {
    const m = out.own ? out.decoded() : undefined;
    const sent = [istanbul(out.code, out.data)];
    if (!m) return sent;
    for (const offset of HEIGHT_OFFSETS) {
      const sequence = m.signed.payload.sequence + offset;
      if (sequence < 0) continue;
      sent.push(istanbul(out.code, encodeMessage(atHeight(kit, m, sequence), kit.layout)));
      kit.act(`wrong-height:${offset > 0 ? '+' : ''}${offset}`);
    }
    return sent;
  },
};
