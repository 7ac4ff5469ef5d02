/** QBFT consensus message shapes (Besu's istanbul/100 sub-protocol, qbft-notes §2). */
import type { Hex } from '../../../crypto/bytes.ts';

export const MessageCode = { PROPOSAL: 0x12, PREPARE: 0x13, COMMIT: 0x14, ROUND_CHANGE: 0x15 } as const;

/**
 * besu26 = Besu >= 26.1: a 4th item (block access list, or 0x80 when none) in ProposalPayload, and in
 * RoundChange before the prepares. legacy = GoQuorum / Besu < 26.1.
 */
export type WireLayout = 'besu26' | 'legacy';

export interface PreparePayload {
  kind: 'prepare';
  sequence: number;
  round: number;
  digest: Uint8Array;
}

export interface CommitPayload {
  kind: 'commit';
  sequence: number;
  round: number;
  digest: Uint8Array;
  commitSeal: Uint8Array;
}

export interface PreparedMetadata {
  preparedRound: number;
  preparedBlockHash: Uint8Array;
}

export interface RoundChangePayload {
  kind: 'roundChange';
  sequence: number;
  round: number;
  prepared?: PreparedMetadata;
}

export interface ProposalPayload {
  kind: 'proposal';
  sequence: number;
  round: number;
  blockRlp: Uint8Array;
  /** Raw RLP item of the block access list, when present and not 0x80. */
  blockAccessList?: Uint8Array;
}

export type Payload = PreparePayload | CommitPayload | RoundChangePayload | ProposalPayload;

export interface Signed<P extends Payload> {
  payload: P;
  signature: Uint8Array;
  author: Hex;
  /** The SignedData RLP [payloadList, signature], exactly as signed / received. */
  encoded: Uint8Array;
}

export interface PrepareMessage {
  kind: 'prepare';
  signed: Signed<PreparePayload>;
}

export interface CommitMessage {
  kind: 'commit';
  signed: Signed<CommitPayload>;
}

export interface RoundChangeMessage {
  kind: 'roundChange';
  signed: Signed<RoundChangePayload>;
  preparedBlockRlp?: Uint8Array;
  prepares: Signed<PreparePayload>[];
}

export interface ProposalMessage {
  kind: 'proposal';
  signed: Signed<ProposalPayload>;
  roundChanges: Signed<RoundChangePayload>[];
  prepares: Signed<PreparePayload>[];
}

export type QbftMessage = PrepareMessage | CommitMessage | RoundChangeMessage | ProposalMessage;
