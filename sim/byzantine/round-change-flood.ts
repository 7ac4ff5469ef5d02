/**
 * A round-change flood (the GHSA-23rh-rrqg-wq82 attack on Besu): with each of its own ROUND_CHANGEs
 * (a height held open) the node sends validly signed ROUND_CHANGEs for the current height and each
 * of the distinct huge rounds of FLOOD_ROUNDS. FLOOD_ROUNDS holds more distinct rounds than Besu's
 * cap (MAX_ALLOWED_ROUND 1000) lets one author fill, so a receiver without the cap ends up holding
 * more than 1000 collections from this one author, which is what the bounded-state checker
 * measures (not how large a round number it saw).
 */
import { encodeMessage, MessageCode, signPayload } from '../../node/consensus/qbft/messages.ts';
import { istanbul, type Behaviour, type ByzantineKit } from './kit.ts';

/** 1100 rounds from 2000 to 1,101,000 in steps of 1000, then the largest round the wire allows. */
export const FLOOD_ROUNDS: readonly number[] = [...Array.from({ length: 1_100 }, (_, i) => 1000 * (i + 2)), 0x7fffffff];
export const FLOOD_PER_SEND = FLOOD_ROUNDS.length;

export function floodRoundChange(kit: ByzantineKit, sequence: number, round: number): Uint8Array {
  const signed = signPayload({ kind: 'roundChange', sequence, round }, kit.privateKey);
  return encodeMessage({ kind: 'roundChange', signed, prepares: [] }, kit.layout);
}

export const roundChangeFlood: Behaviour = {
  plan(kit, out) {
    const sent = [istanbul(out.code, out.data)];
    // Only while a height is held open: a flood per message of every height would cost the simulator dearly.
    if (!out.own || !out.roundId || out.code !== MessageCode.ROUND_CHANGE) return sent;
    for (const round of FLOOD_ROUNDS) {
      sent.push(istanbul(MessageCode.ROUND_CHANGE, floodRoundChange(kit, out.roundId.sequence, round)));
      kit.act('round-change-flood:sent');
    }
    return sent;
  },
};
