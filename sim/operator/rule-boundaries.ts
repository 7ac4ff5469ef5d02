/**
 * Blocks around which a genesis' rules may change: its transitions (at their block, or at the first
 * block after their time when Besu reads them as timestamps, and at their block number anyway for
 * a validator list), its hardforks by block and by time. The history of a run at a real height is
 * built and checked block by block, through the node, around these; between them every block
 * follows the same rules.
 */
import type { Genesis } from '../../node/chain/genesis.ts';
import type { BlockSchedule } from './block-schedule.ts';

/** Blocks on either side of a change that are taken block by block. */
const MARGIN_BLOCKS = 1;

export function ruleBoundaries(genesis: Genesis, sched: BlockSchedule, upTo: number): Set<number> {
  const at = new Set<number>();
  const near = (n: number) => {
    if (!Number.isFinite(n)) return;
    for (let k = n - MARGIN_BLOCKS; k <= n + MARGIN_BLOCKS; k++) if (k >= 1 && k <= upTo) at.add(k);
  };
  for (const t of genesis.transitions) {
    near(sched.firstBlockOf(genesis, t));
    near(t.block);
  }
  for (const [name, block] of Object.entries(genesis.forkBlocks)) if (name !== 'dao') near(block);
  for (const time of Object.values(genesis.forkTimestamps)) near(firstBlockAtTime(sched, time, upTo));
  return at;
}

/** The first block whose timestamp is at or after `timeSeconds` (Infinity past `upTo`). */
export function firstBlockAtTime(sched: BlockSchedule, timeSeconds: number, upTo: number): number {
  const ms = timeSeconds * 1000 - sched.genesisTimestampMs;
  if (ms <= 0) return 1;
  if (sched.timeOfBlockMs(upTo) < ms) return Infinity;
  // The last block due before that time, then the next.
  return sched.heightAtMs(ms - 1) + 1;
}
