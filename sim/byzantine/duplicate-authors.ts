/**
 * Certificates padded with duplicate authors. The node's own round-change proposals and prepared
 * round changes go out with one author repeated in their justification, in turn:
 * - padded: the last distinct entry replaced by a repeat of the first (the count stays at quorum,
 *   one author short);
 * - extra: a repeat of the first appended to a full certificate (duplicates are invalid even
 *   when the distinct authors alone would make a quorum).
 * In a proposal, the round changes are padded, or the prepares when it carries some (in turn).
 */
import { encodeMessage } from '../../node/consensus/qbft/messages.ts';
import { istanbul, type Behaviour } from './kit.ts';

export function withDuplicate<T>(list: readonly T[], mode: 'padded' | 'extra'): T[] {
  if (list.length === 0) return [];
  return mode === 'padded' && list.length >= 2 ? [...list.slice(0, -1), list[0]] : [...list, list[0]];
}

export const duplicateAuthors: Behaviour = {
  plan(kit, out) {
    const m = out.own ? out.decoded() : undefined;
    const original = [istanbul(out.code, out.data)];
    if (m?.kind === 'proposal') {
      if (m.signed.payload.round === 0 || m.roundChanges.length === 0) return original;
      const turn = kit.turn('duplicate-authors:proposal', m.signed.payload.sequence + m.signed.payload.round);
      const mode = turn % 2 === 0 ? 'padded' : 'extra';
      const padPrepares = m.prepares.length > 0 && Math.floor(turn / 2) % 2 === 1;
      const tampered = padPrepares ? { ...m, prepares: withDuplicate(m.prepares, mode) } : { ...m, roundChanges: withDuplicate(m.roundChanges, mode) };
      kit.act(`duplicate-authors:proposal-${padPrepares ? 'prepares' : 'round-changes'}-${mode}`);
      return [istanbul(out.code, encodeMessage(tampered, kit.layout))];
    }
    if (m?.kind === 'roundChange' && m.prepares.length > 0) {
      const mode = kit.turn('duplicate-authors:round-change', m.signed.payload.sequence + m.signed.payload.round) % 2 === 0 ? 'padded' : 'extra';
      kit.act(`duplicate-authors:round-change-prepares-${mode}`);
      return [istanbul(out.code, encodeMessage({ ...m, prepares: withDuplicate(m.prepares, mode) }, kit.layout))];
    }
    return original;
  },
};
