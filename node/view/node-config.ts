/** What a node is built from (createNode's first argument) and the hooks its config may carry. */
import type { Hex } from '../crypto/bytes.ts';
import type { Genesis } from '../chain/genesis.ts';
import type { ChainEntry } from '../chain/chain.ts';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { PrivacyConfig } from '../privacy/node-privacy.ts';
import type { NodeProposedBlock, Reproposal } from '../consensus/proposed-block.ts';
import type { ConsensusSigner } from '../consensus/qbft/core-types.ts';
import type { WireLayout } from '../consensus/qbft/messages.ts';
import type { TrieNodeStore } from '../execution/state-db.ts';
import type { ExecutionMemo } from '../execution/execution-memo.ts';
import type { BugSwitches } from '../bugs/bug-switches.ts';
import type { LocalPermissioning } from '../permissioning/local-permissioning.ts';
import type { PeerId } from '../runtime/ports.ts';

export interface NodeConfig {
  name: string;
  genesis: Genesis;
  privateKey: Uint8Array;
  earlyRoundChange?: boolean;
  layout?: WireLayout;
  /** Re-gossip QBFT messages (Besu does). */
  gossip?: boolean;
  /** Source of the 32-byte extraData vanity (Besu: --miner-extra-data). */
  minerExtraData?: Uint8Array;
  minGasPrice?: bigint;
  /**
   * Nodes of one process (a simulated world, a one-process network) may share their state: one
   * content-addressed trie node store and the memo of block outcomes (execution-memo.ts), so a
   * block is executed once, not once per node. Nodes with different genesis files share a store
   * but never a memo.
   */
  sharedExecution?: { store: TrieNodeStore; memo?: ExecutionMemo };
  /** Known-bug switches (simulation only; the live node refuses them). */
  bugs?: BugSwitches;
  /**
   * A new genesis configuration that changes the rules of stored blocks: 'refuse' (the default)
   * stops the start with StoredHistoryError; 'warn' logs it and starts, as Besu does (it does not
   * compare), so its stored history may no longer match what a node syncing from genesis computes.
   */
  storedHistoryCheck?: 'refuse' | 'warn';
  /** Privacy with the embedded private transaction manager (Besu's --privacy-enabled). */
  privacy?: PrivacyConfig;
  /** Besu's local permissioning (--permissions-*-config-file-enabled): the accounts allowlist gates the pool; the PERM methods use it. */
  permissioning?: LocalPermissioning;
  /** Signs consensus messages and commit seals (Besu's NodeKey or security module); default: `privateKey`. */
  signer?: ConsensusSigner;
  /**
   * How a prepared block is re-proposed and how validation recomputes its hash (Besu's
   * QbftBlockInterface.replaceRoundAndProposerForProposalBlock). Default: Besu's, which replaces
   * the round only and keeps the coinbase.
   */
  reproposal?: Reproposal;
  /** Builds the blocks this node proposes (Besu's QbftBlockCreator); `build` is the node's own creator. */
  blockCreator?: BlockCreator;
  /**
   * New chain heads reach consensus as events (true, the default, as Besu's mining coordinator
   * wires them); false leaves them to the caller (`deliverNewHead`), as Besu's QBFT integration
   * tests do.
   */
  deliverNewChainHeads?: boolean;
  /**
   * Told first whenever consensus learns that a peer is at a later height (a future-height
   * message), before sync notes it (Besu's StubbedSynchronizerUpdater in its integration tests).
   */
  onPeerAhead?: (peer: PeerId, number: number) => void;
}

/** What the consensus service asks a block creator for. */
export interface BlockRequest {
  height: number;
  round: number;
  timestampSeconds: number;
  /** Re-propose this prepared block with its round replaced instead of building a new one. */
  repropose?: NodeProposedBlock;
}

export type BlockCreator = (req: BlockRequest, build: (req: BlockRequest) => Promise<NodeProposedBlock>) => Promise<NodeProposedBlock>;

/** A block proposal built on any parent: its coinbase, round, timestamp and transactions chosen. */
export interface ProposalBlockSpec {
  parent: ChainEntry;
  round: number;
  timestampSeconds: number;
  coinbase: Hex;
  transactions: TypedTransaction[];
}
