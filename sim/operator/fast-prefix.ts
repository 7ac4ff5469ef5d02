/**
 * A rehearsal at a real height starts near the stop block: the blocks before it (the history) are
 * built under the old genesis without the message exchange (prefix-builder.ts), imported under
 * each genesis a node of the run holds (prefix-validation.ts), and put in the nodes' data
 * directories (sim/storage.ts: a store's `history`, with the persisted state of its last block in
 * the node's own format) before they start. The run then goes on from there with the message
 * exchange. The genesis block's time is moved back so that the history ends at the simulator's start.
 */
import type { ChainHistory } from '../../node/chain/chain.ts';
import type { Genesis } from '../../node/chain/genesis.ts';
import type { BugSwitches } from '../../node/bugs/bug-switches.ts';
import { bytesToHex } from '../../node/crypto/bytes.ts';
import { TrieNodeStore } from '../../node/execution/state-db.ts';
import { deterministicKey, validatorKeys } from '../keys.ts';
import type { SimStore } from '../storage.ts';
import { SIM_START_TIME_MS } from '../world.ts';
import { BlockSchedule } from './block-schedule.ts';
import { OperatorInputError, withGenesisTime, type OperatorGenesis } from './operator-genesis.ts';
import { buildPrefix } from './prefix-builder.ts';
import type { PrefixHistory } from './prefix-history.ts';
import { stateImage, validatePrefix, type PrefixVerdict } from './prefix-validation.ts';
import { ruleBoundaries } from './rule-boundaries.ts';

/** A rehearsal stopped above this block starts from a history; below, from the genesis block. */
export const HISTORY_ABOVE_BLOCK = 64;
/** Blocks made with the message exchange before the stop, after the history. */
export const LIVE_BLOCKS_BEFORE_STOP = 5;

export function historyHeightFor(atBlock: number): number {
  return atBlock > HISTORY_ABOVE_BLOCK ? atBlock - LIVE_BLOCKS_BEFORE_STOP : 0;
}

/** A data directory as a node's store holds the history: the blocks, and the state of the last one. */
export interface StoreImage {
  view: ChainHistory;
  entries: Array<{ key: string; value: Uint8Array }>;
}

export interface RehearsalHistory {
  /** The history's last block. */
  height: number;
  /** Virtual ms from the genesis block's time to the simulator's start. */
  offsetMs: number;
  history: PrefixHistory;
  /** As the nodes on the old genesis hold it (every block valid under it). */
  old: StoreImage;
  /** As a node with an empty data directory and the new genesis gets it: up to the first block the new genesis rejects. */
  next: StoreImage;
  oldCheck: PrefixVerdict;
  newCheck: PrefixVerdict;
  /** Blocks the node's block creator built. */
  built: number;
}

/** Whole seconds from the genesis block to block `height` when the genesis is `offsetMs` before the start; time-typed rules depend on it, so it is looked for. */
function offsetFor(rules: Genesis, height: number): number {
  let offsetMs = 0;
  for (let i = 0; i < 8; i++) {
    const sched = new BlockSchedule(rules, SIM_START_TIME_MS - offsetMs);
    const next = Math.ceil(sched.timeOfBlockMs(height) / 1000) * 1000;
    if (next === offsetMs) return offsetMs;
    offsetMs = Math.max(offsetMs, next);
  }
  const sched = new BlockSchedule(rules, SIM_START_TIME_MS - offsetMs);
  if (sched.timeOfBlockMs(height) > offsetMs) throw new OperatorInputError(`the old genesis' time-typed transitions leave no time for block ${height} before the run`);
  return offsetMs;
}

/** Both genesis files with the genesis block moved back so that block `height` of the old one comes at the simulator's start. */
export function rebaseForHistory(old: OperatorGenesis, next: OperatorGenesis, height: number): { old: OperatorGenesis; next: OperatorGenesis; offsetMs: number } {
  const offsetMs = offsetFor(old.simRules, height);
  const seconds = (SIM_START_TIME_MS - offsetMs) / 1000;
  return { old: withGenesisTime(old, seconds), next: withGenesisTime(next, seconds), offsetMs };
}

async function imageAt(history: PrefixHistory, height: number, db: TrieNodeStore): Promise<StoreImage> {
  const stateRoot = height === 0 ? '0x' : bytesToHex(history.template(history.templateOf(height)).header[3]!);
  return { view: history.view(height), entries: await stateImage(history, height, stateRoot, db) };
}

export interface HistoryPlan {
  /** Both rebased (rebaseForHistory), with their schedules. */
  old: OperatorGenesis;
  next: OperatorGenesis;
  schedOld: BlockSchedule;
  schedNew: BlockSchedule;
  height: number;
  offsetMs: number;
  bugs: BugSwitches;
}

/** Builds and checks the history of blocks 1..height. */
export async function prepareHistory({ old, next, schedOld, schedNew, height, offsetMs, bugs }: HistoryPlan): Promise<RehearsalHistory> {
  // Trie nodes of every state the history passes through: never pruned, the run is short-lived.
  const db = new TrieNodeStore({ pruneFloor: Number.MAX_SAFE_INTEGER });
  const keys = validatorKeys(old.standIns.length);
  const built = await buildPrefix({ genesis: old.simRules, sched: schedOld, height, keys, bugs, boundaries: ruleBoundaries(old.simRules, schedOld, height), db });
  const importer = deterministicKey('history-importer', 0);
  const oldCheck = await validatePrefix(built.history, { genesis: old.simRules, sched: schedOld, bugs, db, key: importer });
  if (oldCheck.height !== height) throw new Error(`the history built under the old genesis fails its own rules at block ${oldCheck.rejected?.number}: ${oldCheck.rejected?.reason}`);
  const newCheck = await validatePrefix(built.history, { genesis: next.simRules, sched: schedNew, bugs, db, key: importer });
  return {
    height,
    offsetMs,
    history: built.history,
    old: await imageAt(built.history, height, db),
    next: await imageAt(built.history, newCheck.height, db),
    oldCheck,
    newCheck,
    built: built.built,
  };
}

/** Puts a history into an empty data directory (a node's SimStore), as the node would have left it. */
export function seedStore(store: SimStore, image: StoreImage): void {
  if (image.view.height === 0) return;
  store.writeSync(image.entries);
  store.history = image.view;
}

/** What a report says of a run's history. */
export interface HistorySummary {
  height: number;
  /** Blocks the node's block creator built (the others are copies of them with their own parent hash, coinbase, number and timestamp). */
  built: number;
  /** Blocks imported through the node's own import, under each genesis. */
  imported: number;
  /** Blocks whose seals were recovered, under each genesis. */
  sealsChecked: number;
  /** The history is valid under the new genesis up to this block. */
  newValidHeight: number;
  /** What the history holds, in bytes (for every node: one copy). */
  bytes: number;
}

export function summarizeHistory(h: RehearsalHistory): HistorySummary {
  return {
    height: h.height,
    built: h.built,
    imported: h.oldCheck.imported + h.newCheck.imported,
    sealsChecked: h.oldCheck.sealsChecked + h.newCheck.sealsChecked,
    newValidHeight: h.newCheck.height,
    bytes: h.history.sizeBytes,
  };
}
