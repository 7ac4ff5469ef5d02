/**
 * Replayed old messages: after each of its own messages the node re-sends up to REPLAYS_PER_SEND
 * earlier messages (its own and others', byte for byte) of lower heights, or of lower rounds of
 * the same height, taken in turn from what it has recently sent and received.
 */
import { istanbul, type Behaviour } from './kit.ts';

export const REPLAYS_PER_SEND = 3;

export const replayOld: Behaviour = {
  keepsRecent: true,
  plan(kit, out) {
    const now = out.roundId;
    if (!out.own || !now) return [istanbul(out.code, out.data)];
    const old = kit.memory.recent.filter((m) => m.roundId.sequence < now.sequence || (m.roundId.sequence === now.sequence && m.roundId.round < now.round));
    const sent = [istanbul(out.code, out.data)];
    if (old.length === 0) return sent;
    const start = kit.turn('replay-old');
    for (let i = 0; i < Math.min(REPLAYS_PER_SEND, old.length); i++) {
      const m = old[(start * REPLAYS_PER_SEND + i) % old.length];
      sent.push(istanbul(m.code, m.data));
      kit.act(m.roundId.sequence < now.sequence ? 'replay-old:older-height' : 'replay-old:older-round');
      if (!m.own) kit.act('replay-old:other-author');
    }
    return sent;
  },
};
