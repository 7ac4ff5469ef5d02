/**
 * The messages between the node's thread and a simulator worker (worker-simulator.ts, the node's
 * side; simulator-worker.ts, the worker's). Everything here survives structured clone: bigints,
 * bytes, plain objects, arrays and maps; blocks and transactions travel as their RLP.
 */
import type { Genesis } from '../../chain/genesis.ts';
import type { Hex } from '../../crypto/bytes.ts';
import type { CallBlockContext, CallOptions, CallRequest } from '../../execution/calls/call-types.ts';
import type { TxReplay } from '../../execution/calls/replay.ts';
import type { StructLogOptions } from '../../execution/tracers/struct-logger.ts';
import type { SimulateBlocksRequest } from '../../execution/calls/block-simulator.ts';

export interface WorkerInit {
  /** The chain's genesis without its allocation (the worker only builds the chain's Common). */
  genesis: Genesis;
  /** Bytes of trie nodes the worker keeps (remote-node-store.ts). */
  nodeCacheBytes: number;
}

/** A block to re-execute, as bytes. */
export interface WireReplayBlock {
  number: bigint;
  timestamp: bigint;
  header: Uint8Array;
  parentHash: Uint8Array;
  feeRecipient: Hex;
  txs: Uint8Array[];
}

export type Job =
  | { kind: 'simulate'; block: CallBlockContext; req: CallRequest; gasLimit: bigint; opts: CallOptions }
  | { kind: 'proof'; root: Uint8Array; number: bigint; timestamp: bigint; address: Hex; slots: Uint8Array[] }
  | { kind: 'simulateBlocks'; req: SimulateBlocksRequest }
  | {
      kind: 'replay';
      parentRoot: Uint8Array;
      blocks: WireReplayBlock[];
      /** wanted[block][tx] */
      wanted: boolean[][];
      stateDiff: boolean;
      structLogs?: StructLogOptions;
    };

/** A failure, by the name of its class (the node's side rebuilds the classes it knows). */
export interface WireError {
  name: string;
  message: string;
}

export type ToWorker =
  | { kind: 'job'; id: number; job: Job }
  /** The answer to a worker's question (a node, a block hash, whether a replay goes on). */
  | { kind: 'answer'; askId: number; value: unknown };

export type Question =
  | { kind: 'node'; key: string }
  | { kind: 'hash'; number: bigint }
  /** A replayed block's transactions; the answer says whether to go on. */
  | { kind: 'replayed'; jobId: number; block: number; replays: Array<TxReplay | undefined> };

export type FromWorker =
  | { kind: 'ready' }
  | { kind: 'ask'; askId: number; question: Question }
  | { kind: 'done'; id: number; value: unknown }
  | { kind: 'failed'; id: number; error: WireError };
