/**
 * The ports through which the node touches the outside world. The simulator (sim/) and the live
 * runtime (node/runtime/live-*.ts) implement them; node code never reaches past them for time,
 * timers, randomness, network, storage or logging.
 */
import type { NodeTraceEvent } from './trace-events.ts';
import type { ChainHistory } from '../chain/chain.ts';

export interface Clock {
  /** Milliseconds since the Unix epoch (virtual in the simulator). */
  nowMs(): number;
}

export type TimerHandle = number;

export interface Timers {
  /** Calls `fire` once after `delayMs` (clamped at 0). The callback may return a promise. */
  setTimer(delayMs: number, fire: () => void | Promise<void>): TimerHandle;
  cancelTimer(handle: TimerHandle): void;
}

export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, maxExclusive). */
  int(maxExclusive: number): number;
}

export type PeerId = string;

/**
 * One message on the peer-to-peer wire: a sub-protocol and its message code with RLP data. `ptm`
 * is qbft-lab's own: private transaction managers' messages (node/privacy/ptm-wire.ts).
 */
export interface WireMessage {
  protocol: 'eth' | 'istanbul' | 'ptm';
  code: number;
  data: Uint8Array;
}

export interface TransportHandlers {
  onMessage(from: PeerId, message: WireMessage): void | Promise<void>;
  onPeerConnected(peer: PeerId): void | Promise<void>;
  onPeerDisconnected(peer: PeerId): void | Promise<void>;
}

export interface Transport {
  readonly localId: PeerId;
  /** Peers currently connected, sorted. */
  peers(): PeerId[];
  send(to: PeerId, message: WireMessage): void;
  /** The connected peer whose node key has this address, when the transport knows identities. */
  peerForAddress?(address: string): PeerId | undefined;
  /** The node-key address of a connected peer (lower case), when the transport knows identities. */
  addressOfPeer?(peer: PeerId): string | undefined;
  /**
   * Drops the connection to a peer, telling it why (where the wire can). Optional: without it
   * the node keeps such a peer connected and ignores it. Asynchronous like any connectivity change:
   * onPeerDisconnected follows (messages already received may still be delivered before it); a
   * peer not connected is ignored. Whether and when the peer may connect again is the
   * transport's to say.
   */
  disconnect?(peer: PeerId, reason: PeerDisconnectReason): void;
  setHandlers(handlers: TransportHandlers): void;
}

/**
 * Why the node drops a peer. 'subprotocol-triggered': the eth handshake showed another network
 * (network id, genesis hash or fork id), RLPx Disconnect reason 0x10 as Besu sends.
 */
export type PeerDisconnectReason = 'subprotocol-triggered';

export type StoreKey = string;

/** A key-value store. A write batch is atomic and durable once its promise resolves. */
export interface Store {
  get(key: StoreKey): Promise<Uint8Array | undefined>;
  write(batch: Array<{ key: StoreKey; value: Uint8Array | undefined }>): Promise<void>;
  /** Keys starting with `prefix`, sorted. */
  keys(prefix: string): Promise<StoreKey[]>;
  /** Canonical blocks kept below the store's own, read-only (node/chain/chain.ts); none on a live node's store. */
  readonly history?: ChainHistory;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Log {
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void;
  /** A structured event for the trace (simulator) or the debug log (live). */
  trace(event: NodeTraceEvent): void;
}

export interface Runtime {
  clock: Clock;
  /**
   * The clock block headers' timestamps are judged against (Besu: the system clock, while its
   * consensus clock is injected). Absent: `clock`.
   */
  systemClock?: Clock;
  timers: Timers;
  random: Random;
  transport: Transport;
  store: Store;
  log: Log;
}
