/**
 * The vocabulary of the pure QBFT state machine: what goes in (events) and what comes out
 * (actions). The machine never touches time, timers, sockets or randomness: the node's QBFT
 * service turns actions into effects and effects' results back into events.
 */
import type { Hex } from '../../crypto/bytes.ts';
import type { BesuHooks } from '../../bugs/hooks.ts';
import type { ConsensusTraceEvent } from '../../runtime/trace-events.ts';
import type {
  CommitMessage,
  PrepareMessage,
  ProposalMessage,
  QbftMessage,
  RoundChangeMessage,
  WireLayout,
} from './messages.ts';

/** A block proposed for a height, decoded and (for remote proposals) already fully validated. */
export interface ProposedBlock {
  readonly number: number;
  readonly coinbase: Hex;
  /** The round written in its extraData. */
  readonly round: number;
  readonly txCount: number;
  /** Block RLP as proposed: its own round, no commit seals. */
  readonly rlp: Uint8Array;
  /** Committed-seal hash with its own round: the digest that prepares and commits name. */
  readonly digest: Hex;
  /** Committed-seal hash with the round replaced (what a commit seal for `round` signs). */
  digestForRound(round: number): Hex;
  /**
   * Committed-seal hash once re-proposed for `round` by `proposer`, as the node's block interface
   * rewrites a prepared block (Besu's replaceRoundAndProposerForProposalBlock: by default the
   * round only; the proposer is ignored).
   */
  digestAsReproposed(round: number, proposer: Hex): Hex;
}

/** Everything the machine needs to know about one height; computed by the node from the chain. */
export interface HeightContext {
  height: number;
  parentTimestampSeconds: number;
  parentCoinbase: Hex;
  /** Validators for this height (after the parent), sorted ascending. */
  validators: Hex[];
  /** When round 0 may start (block timer expiry), absolute ms. */
  blockTimerAtMs: number;
  blockPeriodSeconds: number;
  requestTimeoutMs: number;
  /** Besu's xemptyblockperiodseconds, 0 = off. */
  emptyBlockPeriodSeconds: number;
}

/**
 * Signs a 32-byte hash as this node (Besu's NodeKey, which may sit in a security module): returns
 * the 65-byte signature, or throws when signing fails (an HSM that is down).
 */
export type ConsensusSigner = (hash: Uint8Array) => Uint8Array;

export interface CoreConfig {
  privateKey: Uint8Array;
  /** Signs messages and commit seals; absent: signs with `privateKey`. */
  signer?: ConsensusSigner;
  address: Hex;
  earlyRoundChange: boolean;
  layout: WireLayout;
  /**
   * Highest round a message may name (Besu's MAX_ALLOWED_ROUND, 1000, from the fix of
   * GHSA-23rh-rrqg-wq82): round changes above it are invalid, and prepares and commits above it are
   * not buffered, which bounds the per-height state a hostile validator can grow.
   */
  maxRound: number;
  /** Besu's behaviour at its bug hook points (node/bugs/hooks.ts; current Besu outside the simulator's bug corpus). */
  hooks: BesuHooks;
}

export type CoreEvent =
  | { type: 'newHeight'; nowMs: number; ctx: HeightContext }
  | { type: 'blockTimerExpired'; nowMs: number; height: number; round: number }
  | { type: 'roundTimerExpired'; nowMs: number; height: number; round: number }
  | { type: 'blockCreated'; nowMs: number; height: number; round: number; block: ProposedBlock }
  | { type: 'proposal'; nowMs: number; message: ProposalMessage; block: ProposedBlock | undefined; key?: Hex }
  | { type: 'prepare'; nowMs: number; message: PrepareMessage; key?: Hex }
  | { type: 'commit'; nowMs: number; message: CommitMessage; key?: Hex }
  | {
      type: 'roundChange';
      nowMs: number;
      /** keccak of the message's wire bytes, for messages received from peers (traced with the decision on them). */
      key?: Hex;
      message: RoundChangeMessage;
      /** The prepared block it carries, validated; undefined when none or invalid (see blockInvalid). */
      block: ProposedBlock | undefined;
      blockInvalid?: boolean;
    };

export type CoreAction =
  | { type: 'broadcast'; message: QbftMessage }
  | { type: 'setBlockTimer'; height: number; atMs: number }
  | { type: 'setRoundTimer'; height: number; round: number; delayMs: number }
  | { type: 'cancelRoundTimer'; height: number }
  | {
      type: 'createBlock';
      height: number;
      round: number;
      timestampSeconds: number;
      /**
       * Re-propose this prepared block with only the round in its extraData replaced (coinbase and
       * all else kept: Besu's replaceRoundAndProposerForProposalBlock ignores the proposer).
       */
      repropose?: ProposedBlock;
      /**
       * Not a proposal: a non-proposer inside the empty-block period builds the candidate block only
       * to learn whether it would be empty (Besu's wouldCreateEmptyBlock). Build it exactly as a
       * proposal block (the pool's selection at `timestampSeconds`) and answer with blockCreated.
       */
      emptyCheck?: boolean;
    }
  | { type: 'commitBlock'; height: number; round: number; block: ProposedBlock; seals: Uint8Array[] }
  | { type: 'trace'; event: ConsensusTraceEvent };
