/**
 * A restart may bring a new genesis configuration (operators add `transitions` to change the block
 * period, reward, validators or selection mode). It may change the rules of blocks not yet made,
 * never those of blocks a node has stored: those blocks were sealed under the old rules, and
 * re-reading them under new ones would silently rewrite history. This module finds the first stored
 * block whose rules differ between the configuration it was stored under and the new one.
 */
import { QbftForkSchedule, type QbftForkParams } from './fork-schedule.ts';
import type { Genesis } from './genesis.ts';

export interface StoredBlockRef {
  number: number;
  timestamp: number;
}

export interface RulesChange {
  /** The first stored block whose rules differ. */
  block: number;
  /** What differs, old -> new. */
  what: string;
}

const PARAM_FIELDS = ['blockPeriodSeconds', 'blockPeriodMilliseconds', 'emptyBlockPeriodSeconds', 'blockReward', 'miningBeneficiary', 'validatorSelectionMode', 'validatorContractAddress', 'validators'] as const;

function show(v: unknown): string {
  if (v === undefined || v === null) return 'unset';
  if (Array.isArray(v)) return `[${v.join(',')}]`;
  return String(v);
}

function paramsChange(a: QbftForkParams, b: QbftForkParams): string | undefined {
  const changed = PARAM_FIELDS.filter((f) => show(a[f]) !== show(b[f]));
  return changed.length === 0 ? undefined : changed.map((f) => `${f} ${show(a[f])} -> ${show(b[f])}`).join(', ');
}

/** The fork QbftForkSchedule.paramsAt picks for (number, timestamp), as its index in `forks`. */
function forkIndex(forks: readonly QbftForkParams[], blockNumber: number, timestamp: number): number {
  for (let i = forks.length - 1; i > 0; i--) if ((forks[i].scheduleType === 'time' ? timestamp : blockNumber) >= forks[i].fromBlock) return i;
  return 0;
}

/**
 * The first of blocks 1..head (`stored(n)` gives each) whose rules differ between `before` and
 * `after`: chain id, consensus, a hardfork activated at or before it, or (QBFT) the options in
 * force for it, compared both by its own timestamp and by its parent's, as Besu's call sites use
 * either (see fork-schedule.ts).
 */
export function firstRulesChange(before: Genesis, after: Genesis, head: number, stored: (n: number) => StoredBlockRef): RulesChange | undefined {
  if (head < 1) return undefined;
  if (before.chainId !== after.chainId) return { block: 1, what: `chainId ${before.chainId} -> ${after.chainId}` };
  if (before.consensus !== after.consensus) return { block: 1, what: `consensus ${show(before.consensus)} -> ${show(after.consensus)}` };
  let first: RulesChange | undefined;
  const note = (change: RulesChange | undefined) => {
    if (change && (!first || change.block < first.block)) first = change;
  };
  for (const name of new Set([...Object.keys(before.forkBlocks), ...Object.keys(after.forkBlocks)])) {
    const a = before.forkBlocks[name];
    const b = after.forkBlocks[name];
    if (a === b) continue;
    const from = Math.max(1, Math.min(a ?? Infinity, b ?? Infinity));
    if (from <= head) note({ block: from, what: `${name}Block ${show(a)} -> ${show(b)}` });
  }
  for (const name of new Set([...Object.keys(before.forkTimestamps), ...Object.keys(after.forkTimestamps)])) {
    const a = before.forkTimestamps[name];
    const b = after.forkTimestamps[name];
    if (a === b) continue;
    const from = Math.min(a ?? Infinity, b ?? Infinity);
    for (let n = 1; n <= head; n++) {
      if (stored(n).timestamp >= from) {
        note({ block: n, what: `${name}Time ${show(a)} -> ${show(b)}` });
        break;
      }
    }
  }
  if (before.consensus === 'qbft' && after.consensus === 'qbft') {
    const old = new QbftForkSchedule(before);
    const next = new QbftForkSchedule(after);
    const limit = first?.block ?? head;
    const oldForks = old.forks();
    const newForks = next.forks();
    const radix = Math.max(oldForks.length, newForks.length);
    let parentTimestamp = before.timestamp;
    let compared = -1;
    for (let n = 1; n <= limit; n++) {
      const { timestamp } = stored(n);
      // The options of a block follow from the fork each schedule picks (and its own validator
      // list): they are compared again only where that changes, not at each of a long history's blocks.
      const forks = ((forkIndex(oldForks, n, timestamp) * radix + forkIndex(newForks, n, timestamp)) * radix + forkIndex(oldForks, n, parentTimestamp)) * radix + forkIndex(newForks, n, parentTimestamp);
      const listsValidators = old.transitionAt(n)?.validators !== undefined || next.transitionAt(n)?.validators !== undefined;
      if (forks !== compared || listsValidators) {
        compared = listsValidators ? -1 : forks;
        const change = paramsChange(old.paramsAt(n, timestamp), next.paramsAt(n, timestamp)) ?? paramsChange(old.paramsAt(n, parentTimestamp), next.paramsAt(n, parentTimestamp));
        if (change) {
          note({ block: n, what: change });
          break;
        }
      }
      parentTimestamp = timestamp;
    }
  }
  return first;
}

/** A node refuses to start rather than change the rules of blocks it has stored. */
export class StoredHistoryError extends Error {
  readonly change: RulesChange;
  readonly head: number;
  constructor(change: RulesChange, head: number) {
    super(
      `the genesis configuration changes the rules of stored block ${change.block} (${change.what}) and the chain head is ${head}: ` +
        `stored history is never rewritten; a transition must name a block above the head (or, when transitions compare timestamps, a later time), or restore the previous genesis`,
    );
    this.name = 'StoredHistoryError';
    this.change = change;
    this.head = head;
  }
}
