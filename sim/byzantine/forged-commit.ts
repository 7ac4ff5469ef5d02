/**
 * Forged commit seals. Each of the node's own COMMITs is preceded by a forged copy, validly signed
 * as a message by the node but whose commit seal is wrong, in turn:
 * - wrong-digest: the seal signs keccak(digest) instead of the digest;
 * - foreign-key: the seal signs the right digest with a key no validator holds;
 * - copied-seal: another validator's seal for this very block (falls back to foreign-key);
 * - zero-seal: 65 zero bytes;
 * - missing-seal: a 3-item commit payload;
 * - empty-seal: an empty byte string where the seal goes;
 * - digest-mismatch: the right seal, but the payload names another digest.
 * The genuine commit follows, so a receiver that keeps the first commit per author and checks it
 * only once the proposal arrives is exercised too.
 */
import { bytesToHex } from '../../node/crypto/bytes.ts';
import { keccak256 } from '../../node/crypto/keccak.ts';
import { encodeMessage, MessageCode, signPayload, type CommitMessage } from '../../node/consensus/qbft/messages.ts';
import { EMPTY_STRING } from '../../node/consensus/qbft/messages/rlp-raw.ts';
import { signRemembered } from '../../node/consensus/qbft/signer-cache.ts';
import { FORGER_KEY, istanbul, rlpBytes, rlpScalar, signRaw, type Behaviour, type ByzantineKit } from './kit.ts';

export const FORGED_COMMIT_VARIANTS = ['wrong-digest', 'foreign-key', 'copied-seal', 'zero-seal', 'missing-seal', 'empty-seal', 'digest-mismatch'] as const;
export type ForgedCommitVariant = (typeof FORGED_COMMIT_VARIANTS)[number];

/** The bytes of a forged copy of `commit` (an own, well-formed commit). */
export function forgedCommit(kit: ByzantineKit, commit: CommitMessage, variant: ForgedCommitVariant): { data: Uint8Array; variant: ForgedCommitVariant } {
  const p = commit.signed.payload;
  const withSeal = (commitSeal: Uint8Array, digest = p.digest) => encodeMessage({ kind: 'commit', signed: signPayload({ ...p, digest, commitSeal }, kit.privateKey) });
  const head = [rlpScalar(p.sequence), rlpScalar(p.round), rlpBytes(p.digest)];
  switch (variant) {
    case 'wrong-digest':
      return { data: withSeal(signRemembered(keccak256(p.digest), kit.privateKey)), variant };
    case 'copied-seal': {
      const seal = kit.memory.sealsFor(bytesToHex(p.digest), kit.own)[0];
      if (seal) return { data: withSeal(seal), variant };
      return forgedCommit(kit, commit, 'foreign-key');
    }
    case 'foreign-key':
      return { data: withSeal(signRemembered(p.digest, FORGER_KEY)), variant };
    case 'zero-seal':
      return { data: withSeal(new Uint8Array(65)), variant };
    case 'missing-seal':
      return { data: signRaw(MessageCode.COMMIT, head, kit.privateKey), variant };
    case 'empty-seal':
      return { data: signRaw(MessageCode.COMMIT, [...head, EMPTY_STRING], kit.privateKey), variant };
    case 'digest-mismatch':
      return { data: withSeal(p.commitSeal, keccak256(p.digest)), variant };
  }
}

export const forgeCommitSeal: Behaviour = {
  observes: [MessageCode.COMMIT],
  plan(kit, out) {
    const commit = out.own ? out.decoded() : undefined;
    if (commit?.kind !== 'commit') return [istanbul(out.code, out.data)];
    const pick = FORGED_COMMIT_VARIANTS[kit.turn('forge-commit-seal', commit.signed.payload.sequence + commit.signed.payload.round) % FORGED_COMMIT_VARIANTS.length];
    const forged = forgedCommit(kit, commit, pick);
    kit.act(`forge-commit-seal:${forged.variant}`);
    return [istanbul(out.code, forged.data), istanbul(out.code, out.data)];
  },
};
