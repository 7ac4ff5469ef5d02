/**
 * Every structured event the node writes through `Log.trace`: one discriminated union on `kind`.
 * The simulator records them in its trace (sim/trace-events.ts adds its own kinds); the live
 * runtime writes them to the debug log. Field order in each object literal that produces an event
 * is the order written to the trace, so producers keep it stable (trace hashes depend on it).
 * Values are JSON-ready: hashes and digests are 0x-hex strings, big numbers decimal strings.
 */
import type { LogLevel } from './ports.ts';
import type { RejectionRule } from './validation-rules.ts';

/** A 0x-hex string, as node/crypto/bytes.ts spells it; declared here so the ports import nothing above them. */
type Hex = `0x${string}`;

export type JudgedMessageType = 'proposal' | 'prepare' | 'commit' | 'roundChange';

/** The consensus core's events (height manager), all for one height. */
export type ConsensusTraceEvent =
  | { kind: 'round-started'; height: number; round: number; proposer: string; timeoutMs: number }
  | { kind: 'empty-block-deferred'; height: number; untilMs: number }
  | { kind: 'proposal-sent'; height: number; round: number; digest: Hex; txs: number }
  /** `key` (keccak of the message's wire bytes) is absent for the node's own messages. */
  | { kind: 'message-rejected'; height: number; type: JudgedMessageType; round: number; author: string; reason: string; rule: RejectionRule; key?: Hex }
  /** A message received from a peer, accepted by the node's validation. */
  | { kind: 'message-accepted'; height: number; type: JudgedMessageType; round: number; author: string; key: Hex }
  | { kind: 'prepared'; height: number; round: number; digest: Hex }
  | { kind: 'committed'; height: number; round: number; digest: Hex; seals: number }
  | { kind: 'round-change-sent'; height: number; round: number; preparedRound: number | null }
  | { kind: 'early-round-change'; height: number; from: number; to: number };

/** The QBFT service around the core: heights, timers and the wire. */
export type ServiceTraceEvent =
  | { kind: 'new-head-ignored'; height: number; current: number }
  | { kind: 'message-malformed'; from: string; code: number; reason: string }
  | { kind: 'block-timer-set'; height: number; atMs: number; delayMs: number }
  | { kind: 'block-timer-expired'; height: number }
  | { kind: 'round-timer-expired'; height: number; round: number };

/** The chain: imports, rejections and reorganisations. */
export type ChainTraceEvent =
  | { kind: 'block-rejected'; number: number; hash: Hex; reason: string }
  | { kind: 'block-imported'; number: number; hash: Hex; round: number | undefined; txs: number; status: 'known' | 'side' | 'head' }
  | { kind: 'reorg'; removed: Hex[]; added: Hex[]; removedLogs: number }
  | { kind: 'proposal-block-invalid'; number: number; digest: Hex; reason: string };

/** Block synchronisation with peers. */
export type SyncTraceEvent =
  | { kind: 'sync.start'; peer: string; ourHead: number; peerHead: number; peerTd: string }
  | { kind: 'sync.end'; peer: string; reason: string; head: number };

/** A log call recorded into the trace (simulator, at or above its record level). */
export type LogTraceEvent = { kind: 'log'; level: LogLevel; message: string; fields?: Record<string, unknown> };

export type NodeTraceEvent = ConsensusTraceEvent | ServiceTraceEvent | ChainTraceEvent | SyncTraceEvent | LogTraceEvent | InProcessRecord;

export type NodeTraceKind = NodeTraceEvent['kind'];

/** The in-process RPC transport's calls and notifications (node/rpc/transports/in-process.ts), recorded as trace events. */
export interface RpcCallRecord {
  kind: 'rpc-call';
  connection: string;
  id: number;
  method: string;
  params: unknown[];
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export interface RpcNotificationRecord {
  kind: 'rpc-notification';
  connection: string;
  subscription: string;
  result: unknown;
}

export interface RpcRawRecord {
  kind: 'rpc-raw';
  connection: string;
  request: string;
  response: string | null;
}

export type InProcessRecord = RpcCallRecord | RpcNotificationRecord | RpcRawRecord;
