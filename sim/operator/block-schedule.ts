/**
 * When each block of a fault-free simulated chain is due: every block period (or empty-block
 * period, since simulated blocks carry no transactions) after its parent, with the period each
 * transition sets. The operator commands use it to place faults between blocks and to size runs;
 * verdicts come from the runs themselves.
 *
 * A transition's `block` is compared with the parent's timestamp instead of a block number when a
 * time-based hardfork rules at that value (Besu's behaviour, kept by the node: see
 * node/chain/fork-schedule.ts); this module follows the same reading, for timing only.
 */
import type { Genesis, QbftTransition } from '../../node/chain/genesis.ts';
import { SIM_START_TIME_MS } from '../world.ts';

/** Longest chain a schedule is computed for (memory bound). */
export const MAX_SCHEDULED_BLOCKS = 2_000_000;

interface PeriodRule {
  from: number;
  byTime: boolean;
  periodMs: number;
}

/** The hardfork milestone in force at `value` read both as a block number and as a timestamp (Besu's BftProtocolSchedule.getSpecTypeByBlockNumberOrTimestamp). */
export interface RulingMilestone {
  /** The genesis key: `shanghaiTime`, `londonBlock`; undefined when no hardfork is named at or below `value` (frontier). */
  key?: string;
  at: number;
  byTime: boolean;
}

export function rulingMilestone(genesis: Genesis, value: number): RulingMilestone {
  let out: RulingMilestone = { at: 0, byTime: false };
  for (const [name, block] of Object.entries(genesis.forkBlocks)) {
    if (name !== 'dao' && block <= value && block >= out.at) out = { key: `${name}Block`, at: block, byTime: false };
  }
  for (const [name, time] of Object.entries(genesis.forkTimestamps)) {
    if (time <= value && time >= out.at) out = { key: `${name}Time`, at: time, byTime: true };
  }
  return out;
}

/** Whether a time-based hardfork rules at `value` (the latest hardfork at or below it is time-based). */
export function comparedWithTime(genesis: Genesis, value: number): boolean {
  return rulingMilestone(genesis, value).byTime;
}

function periodOf(seconds: number, milliseconds: number | undefined, emptySeconds: number): number {
  const period = milliseconds && milliseconds > 0 ? milliseconds : seconds * 1000;
  return emptySeconds > 0 ? Math.max(period, emptySeconds * 1000) : period;
}

export class BlockSchedule {
  private readonly rules: PeriodRule[];
  /** dueMs[k] for k < computed: when block k is due, in virtual ms after the genesis block (block 0: 0). */
  private dueMs = new Float64Array(1024);
  private computed = 1;
  readonly genesisTimestampMs: number;

  constructor(genesis: Genesis, genesisTimestampMs = SIM_START_TIME_MS) {
    this.genesisTimestampMs = genesisTimestampMs;
    const q = genesis.qbft;
    let seconds = q.blockPeriodSeconds;
    let ms = q.blockPeriodMilliseconds;
    let empty = q.emptyBlockPeriodSeconds;
    this.rules = [{ from: 0, byTime: false, periodMs: periodOf(seconds, ms, empty) }];
    for (const t of [...genesis.transitions].sort((a, b) => a.block - b.block)) {
      if (t.blockPeriodSeconds !== undefined) seconds = t.blockPeriodSeconds;
      if (t.blockPeriodMilliseconds !== undefined) ms = t.blockPeriodMilliseconds;
      if (t.emptyBlockPeriodSeconds !== undefined) empty = t.emptyBlockPeriodSeconds;
      this.rules.push({ from: t.block, byTime: comparedWithTime(genesis, t.block), periodMs: periodOf(seconds, ms, empty) });
    }
  }

  /** The interval before block `k` (k >= 1). */
  intervalBeforeMs(k: number): number {
    return this.timeOfBlockMs(k) - this.timeOfBlockMs(k - 1);
  }

  timeOfBlockMs(k: number): number {
    if (!Number.isSafeInteger(k) || k < 0) throw new RangeError(`block ${k}`);
    if (k > MAX_SCHEDULED_BLOCKS) throw new RangeError(`block ${k} is beyond the ${MAX_SCHEDULED_BLOCKS} blocks a schedule covers`);
    if (k >= this.dueMs.length) {
      const grown = new Float64Array(Math.min(Math.max(2 * this.dueMs.length, k + 1), MAX_SCHEDULED_BLOCKS + 1));
      grown.set(this.dueMs.subarray(0, this.computed));
      this.dueMs = grown;
    }
    while (this.computed <= k) {
      const next = this.computed;
      const parentMs = this.dueMs[next - 1]!;
      const parentSeconds = Math.floor((this.genesisTimestampMs + parentMs) / 1000);
      let period = this.rules[0].periodMs;
      for (let i = this.rules.length - 1; i >= 0; i--) {
        const r = this.rules[i];
        if ((r.byTime ? parentSeconds : next) >= r.from) {
          period = r.periodMs;
          break;
        }
      }
      this.dueMs[this.computed++] = parentMs + period;
    }
    return this.dueMs[k]!;
  }

  /** Halfway between block k and block k + 1: a moment to act on a chain at height k. */
  betweenMs(k: number): number {
    return Math.round((this.timeOfBlockMs(k) + this.timeOfBlockMs(k + 1)) / 2);
  }

  /** The height a fault-free chain has at `ms`. */
  heightAtMs(ms: number): number {
    let lo = 0;
    let hi = 1;
    while (this.timeOfBlockMs(hi) <= ms) {
      lo = hi;
      hi = Math.min(hi * 2, MAX_SCHEDULED_BLOCKS);
      if (lo === hi) return lo;
    }
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (this.timeOfBlockMs(mid) <= ms) lo = mid;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The first block a transition rules: its number, or for a transition compared with timestamps,
   * the first block whose parent is at or after that time (0 when it rules from the genesis).
   */
  firstBlockOf(genesis: Genesis, t: QbftTransition): number {
    if (!comparedWithTime(genesis, t.block)) return t.block;
    const atMs = t.block * 1000 - this.genesisTimestampMs;
    if (atMs <= 0) return 0;
    if (atMs >= this.timeOfBlockMs(MAX_SCHEDULED_BLOCKS)) return Infinity;
    return this.heightAtMs(atMs) + 1;
  }
}
