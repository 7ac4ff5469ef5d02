/**
 * What the invariant checkers see of a run, as a typed discriminated union: the trace lines they
 * need (read into typed records, so checkers narrow on `type` instead of casting fields), every
 * QBFT message put on the virtual network, and two markers the runner adds (a node restarted
 * with other rules; the last fault step has run). Times are virtual ms since the run started.
 */
import type { FaultTraceEvent, RunNodeEntry, TraceLine } from '../trace-events.ts';
import type { Hex } from './toolkit/crypto.ts';
import type { QbftMessage } from './toolkit/qbft-messages.ts';

/** A node of the run-started line, its address checked. */
export type RunNode = Omit<RunNodeEntry, 'address'> & { address: Hex };

export interface RunStarted {
  type: 'run-started';
  atMs: number;
  line: TraceLine;
  nodes: RunNode[];
  requestTimeoutSeconds: number | undefined;
  blockPeriodSeconds: number | undefined;
  durationMs: number | undefined;
  /** Nodes run Besu's early round change (a ROUND-CHANGE starts round 0 of its height at once). */
  earlyRoundChange: boolean;
}

export interface NodeStarted {
  type: 'node-started';
  atMs: number;
  line: TraceLine;
  node: string;
  wiped: boolean;
}

/** A fault line's own fields (which fault, and its details). */
export type FaultKind = WithoutKind<FaultTraceEvent>;

type WithoutKind<T> = T extends unknown ? Omit<T, 'kind'> : never;

export type Fault = { type: 'fault'; atMs: number; line: TraceLine; node: string | null } & FaultKind;

export interface RoundStarted {
  type: 'round-started';
  atMs: number;
  line: TraceLine;
  node: string;
  height: number;
  round: number;
}

export interface RoundTimerExpired {
  type: 'round-timer-expired';
  atMs: number;
  line: TraceLine;
  node: string;
  height: number;
  round: number;
}

/** A node's block timer expiry reached its height manager (round 0 of `height` may start). */
export interface BlockTimerExpired {
  type: 'block-timer-expired';
  atMs: number;
  line: TraceLine;
  node: string;
  height: number;
}

export interface BlockImported {
  type: 'block-imported';
  atMs: number;
  line: TraceLine;
  node: string;
  number: number;
  /** The hash the node reported. */
  hash: Hex;
  /** 'head' when the block became the node's head, 'side' when it went to a side chain. */
  status: 'head' | 'side' | undefined;
  /** The imported block's RLP, fetched from the node's chain; undefined when it could not be. */
  rlp: Uint8Array | undefined;
}

export interface Reorg {
  type: 'reorg';
  atMs: number;
  line: TraceLine;
  node: string;
  /** Hashes (as the node reported them) of blocks that left its canonical chain. */
  removed: Hex[];
}

export interface MessageSent {
  type: 'message';
  atMs: number;
  /** The node that put it on the network first (a relay may carry someone else's message). */
  from: string;
  code: number;
  data: Uint8Array;
  /** The message decoded by the checkers' own decoder, or why it does not decode. */
  decoded: QbftMessage | { error: string };
}

/** A node's verdict on a QBFT message (its `message-accepted` and `message-rejected` trace lines). */
export interface MessageJudged {
  type: 'message-judged';
  atMs: number;
  line: TraceLine;
  node: string;
  height: number;
  kind: 'proposal' | 'prepare' | 'commit' | 'round-change';
  round: number;
  /** The author the node read from the message. */
  author: string;
  accepted: boolean;
  /** The rule the node named for a rejection. */
  rule: string | undefined;
  /** keccak of the message's wire bytes; undefined for the node's own messages. */
  key: Hex | undefined;
}

/** A node proposed a block for a round (before validating its own proposal). */
export interface ProposalSent {
  type: 'proposal-sent';
  atMs: number;
  line: TraceLine;
  node: string;
  height: number;
  round: number;
  digest: Hex;
}

/** The runner restarted this node with rules of its own (other transitions): from now on it is misconfigured. */
export interface NodeReconfigured {
  type: 'node-reconfigured';
  atMs: number;
  node: string;
}

/**
 * What a node's current height holds per round, sampled by the runner twice a virtual second: the
 * one reading of a node's internals the checkers take (a resource bound cannot be seen on the wire).
 */
export interface StateSample {
  type: 'state-sample';
  atMs: number;
  node: string;
  height: number;
  roundChangeRounds: number;
  highestRoundChangeRound: number;
  futureRoundStates: number;
  /** Per author (address): distinct round-change target rounds and future rounds its messages fill, and their encoded bytes. */
  byAuthor: AuthorHeld[];
}

export interface AuthorHeld {
  author: Hex;
  roundChangeRounds: number;
  futureRounds: number;
  bytes: number;
}

/** The last fault step of the scenario has run: liveness is owed from here on. */
export interface FaultsHealed {
  type: 'faults-healed';
  atMs: number;
}

export type Observation =
  | RunStarted
  | NodeStarted
  | Fault
  | RoundStarted
  | RoundTimerExpired
  | BlockTimerExpired
  | BlockImported
  | Reorg
  | MessageSent
  | MessageJudged
  | ProposalSent
  | NodeReconfigured
  | StateSample
  | FaultsHealed;
