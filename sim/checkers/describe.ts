/** Human-readable descriptions of signed QBFT messages, for violation reports. */
import type { RunModel } from './run-model.ts';
import { keccak, toHex } from './toolkit/crypto.ts';
import type { AnySigned } from './toolkit/qbft-messages.ts';

export const KIND_NAMES = { proposal: 'PROPOSAL', prepare: 'PREPARE', commit: 'COMMIT', 'round-change': 'ROUND_CHANGE' } as const;

export function describeSigned(part: AnySigned, model: RunModel): string {
  const p = part.payload;
  const who = part.signer ? `${part.signer} (${model.nameOf(part.signer)})` : 'an unrecoverable signature';
  const detail =
    p.kind === 'prepare' || p.kind === 'commit'
      ? ` digest ${p.digest}`
      : p.kind === 'round-change'
        ? p.prepared
          ? ` prepared round ${p.prepared.round} digest ${p.prepared.digest}`
          : ' not prepared'
        : ` block ${toHex(keccak(p.blockRlp))}`;
  return `${KIND_NAMES[p.kind]} height ${p.height} round ${p.round}${detail}, signed by ${who}`;
}
