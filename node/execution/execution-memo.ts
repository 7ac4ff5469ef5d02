/**
 * Block execution is a pure function of the parent state and the block (and of the chain's rules,
 * the rewards and the fee recipient). Nodes that run in one process on one content-addressed
 * trie node store (a simulated world, a one-process network) share this memo: the first node to
 * build or execute a block records the outcome, and the others take it instead of re-running
 * every transaction, when the resulting state is still in the shared store. Each node still makes
 * every check of its own on the outcome (gas used, receipts root, bloom, state root).
 *
 * The key covers every input: the header without its extraData (the EVM never reads extraData;
 * QBFT's round and seals live there, so a proposal and its sealed block share one key), the parent
 * state root, the fork, the rewards, the fee recipient and whether foreign blocks' withdrawals and
 * blobs are accepted. Bounded: oldest entries go first.
 */
import type { BlockHeader } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import type { TxReceipt } from '@ethereumjs/vm';
import { bytesToHex, utf8ToBytes } from '../crypto/bytes.ts';
import { keccak256 } from '../crypto/keccak.ts';

const EXTRA_DATA_INDEX = 12;

export interface ExecutionOutcome {
  stateRoot: Uint8Array;
  receipts: TxReceipt[];
  gasUsed: bigint;
  bloom: Uint8Array;
  requestsHash?: Uint8Array;
}

export interface ExecutionInputs {
  header: BlockHeader;
  parentStateRoot: Uint8Array;
  hardfork: string;
  rewards: ReadonlyArray<{ to: string; amountWei: bigint }>;
  feeRecipient: string | undefined;
  foreign: boolean;
}

export function executionKey(inputs: ExecutionInputs): string {
  const raw = inputs.header.raw();
  raw[EXTRA_DATA_INDEX] = new Uint8Array(0);
  const rewards = inputs.rewards.map((r) => [utf8ToBytes(r.to.toLowerCase()), utf8ToBytes(r.amountWei.toString())]);
  const encoded = RLP.encode([
    raw,
    inputs.parentStateRoot,
    utf8ToBytes(inputs.hardfork),
    rewards,
    utf8ToBytes(inputs.feeRecipient?.toLowerCase() ?? ''),
    utf8ToBytes(inputs.foreign ? 'foreign' : 'bft'),
  ] as never);
  return bytesToHex(keccak256(encoded));
}

export class ExecutionMemo {
  private readonly outcomes = new Map<string, ExecutionOutcome>();
  /** Counters for diagnostics and tests. */
  readonly stats = { hits: 0, misses: 0 };

  constructor(readonly capacity = 1024) {}

  get(key: string): ExecutionOutcome | undefined {
    const outcome = this.outcomes.get(key);
    if (outcome) this.stats.hits++;
    else this.stats.misses++;
    return outcome;
  }

  set(key: string, outcome: ExecutionOutcome): void {
    if (this.outcomes.has(key)) return;
    if (this.outcomes.size >= this.capacity) this.outcomes.delete(this.outcomes.keys().next().value as string);
    this.outcomes.set(key, outcome);
  }

  get size(): number {
    return this.outcomes.size;
  }
}
