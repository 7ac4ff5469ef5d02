/**
 * The simulator's trace schema: the node's events (node/runtime/trace-events.ts) plus what the
 * world, the virtual network and the scenario runner record. Readers switch on `kind` and get the
 * fields typed. A trace read back from a file is checked for `t`, `node` and `kind` only; readers
 * of files from other versions still check the fields they rely on.
 */
import type { NodeTraceEvent } from '../node/runtime/trace-events.ts';
import type { Violation } from './checkers/violation.ts';
import type { NodeRole } from './run-model/roster.ts';

export type FaultTraceEvent =
  | { kind: 'fault'; fault: 'crash' | 'restart' | 'restart-wiped' | 'pause' | 'resume' | 'heal' }
  | { kind: 'fault'; fault: 'partition'; groups: string[][] }
  | { kind: 'fault'; fault: 'clog' | 'unclog'; from: string; to: string }
  | { kind: 'fault'; fault: 'clock-skew'; skewMs: number }
  | { kind: 'fault'; fault: 'byzantine'; behaviour: string };

export type FaultName = FaultTraceEvent['fault'];

interface MessageFields {
  from: string;
  to: string;
  protocol: string;
  code: number;
  /** The send's sequence number: every later line about the same message carries it. */
  id: number;
}

/** The virtual network's observer events (messages only with `--trace-messages`, drops always). */
export type NetworkTraceEvent =
  | ({ kind: 'msg-sent'; size: number } & MessageFields)
  | ({ kind: 'msg-held'; size: number } & MessageFields)
  | ({ kind: 'msg-delivered'; size: number } & MessageFields)
  | ({ kind: 'msg-dropped'; reason: string } & MessageFields)
  | ({ kind: 'msg-duplicated' } & MessageFields)
  | { kind: 'peer-connected'; local: string; peer: string }
  | { kind: 'peer-disconnected'; local: string; peer: string };

export interface RunNodeEntry {
  name: string;
  address: string;
  role: NodeRole;
  /** Byzantine, misconfigured or a twin (or the twinned original): not held to the honest-node invariants. */
  faulty: boolean;
}

/** The trace's first line: enough to read the trace without the scenario that made it. */
export interface RunStartedEvent {
  kind: 'run-started';
  scenario: string;
  seed: number;
  validators: number;
  nodes: RunNodeEntry[];
  blockPeriodSeconds?: number;
  requestTimeoutSeconds?: number;
  epochLength?: number;
  earlyRoundChange: boolean;
  durationMs: number;
  bugs?: string[];
  /** The Besu release line the run's nodes behaved as. */
  besuVersion?: string;
}

/** A checker's first violation, as the run's last line lists it. */
export type TraceViolation = Violation;

/** The trace's last line: the run's verdict. */
export interface RunFinishedEvent {
  kind: 'run-finished';
  ok: boolean;
  height: number;
  roundChanges: number;
  maxRound: number;
  invariants: { agreement: boolean; validity: boolean; liveness: boolean | null };
  violations?: TraceViolation[];
  expectations: Array<{ text: string; ok: boolean }>;
  errors: string[];
}

export type WorldTraceEvent =
  | FaultTraceEvent
  | { kind: 'node-started'; wiped: boolean }
  | { kind: 'node-start-refused'; block: number; head: number; reason: string }
  | { kind: 'vote-queued'; nodes: string[]; subject: string; add: boolean }
  | { kind: 'vote-discarded'; nodes: string[]; subject: string }
  /** A custom step (RunOptions.steps) ran. */
  | { kind: 'custom-step'; name: string }
  | { kind: 'invariant-violated'; checker: string; atMs: number; height: number | null; round: number | null; reason: string }
  | RunStartedEvent
  | RunFinishedEvent;

export type SimTraceEvent = WorldTraceEvent | NetworkTraceEvent;

/** Anything a simulator trace holds. */
export type TraceEvent = NodeTraceEvent | SimTraceEvent;

export type TraceKind = TraceEvent['kind'];

/** One line of the trace: the event with its virtual time and node (null for world events). */
export type TraceLine = { t: number; node: string | null } & TraceEvent;

/** The line of one kind. */
export type TraceLineOf<K extends TraceKind> = Extract<TraceLine, { kind: K }>;

/** The height a line is about, for the kinds that name one. */
export function heightOf(line: TraceLine): number | null {
  return 'height' in line && typeof line.height === 'number' ? line.height : null;
}

const KIND_TABLE: Record<TraceKind, true> = {
  'round-started': true,
  'empty-block-deferred': true,
  'proposal-sent': true,
  'message-rejected': true,
  'message-accepted': true,
  prepared: true,
  committed: true,
  'round-change-sent': true,
  'early-round-change': true,
  'new-head-ignored': true,
  'message-malformed': true,
  'block-timer-set': true,
  'block-timer-expired': true,
  'round-timer-expired': true,
  'block-rejected': true,
  'block-imported': true,
  reorg: true,
  'proposal-block-invalid': true,
  'sync.start': true,
  'sync.end': true,
  log: true,
  'rpc-call': true,
  'rpc-notification': true,
  'rpc-raw': true,
  fault: true,
  'node-started': true,
  'node-start-refused': true,
  'vote-queued': true,
  'vote-discarded': true,
  'custom-step': true,
  'invariant-violated': true,
  'run-started': true,
  'run-finished': true,
  'msg-sent': true,
  'msg-held': true,
  'msg-delivered': true,
  'msg-dropped': true,
  'msg-duplicated': true,
  'peer-connected': true,
  'peer-disconnected': true,
};

/** Every kind the schema names (the table above fails to compile when one is missing or unknown). */
export const TRACE_KINDS: ReadonlySet<string> = new Set(Object.keys(KIND_TABLE));
