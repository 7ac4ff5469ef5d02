/**
 * The cases of `qbft-lab check`, sized to an operator's genesis: n validators, f = floor((n-1)/3),
 * its block periods, request timeout, transitions and selection mode. Each case is a scenario on
 * the operator's own genesis (stand-ins for its validators, see operator-genesis.ts) whose
 * expectations, with the invariant checkers every run gets, decide pass or fail.
 *
 * Faults are placed between blocks of a fault-free schedule (block-schedule.ts). Progress targets
 * are half of what a model of the fault allows (every down proposer's turn costs a round-0
 * timeout), so a chain that keeps going passes and a chain that stops fails.
 */
import { maxFaulty, quorumSize } from '../../node/consensus/qbft/quorum.ts';
import type { Hex } from '../../node/crypto/bytes.ts';
import type { QbftTransition } from '../../node/chain/genesis.ts';
import type { Expectation, Scenario, Step } from '../scenario.ts';
import { BlockSchedule, MAX_SCHEDULED_BLOCKS, comparedWithTime } from './block-schedule.ts';
import { describeTransition } from './describe-transition.ts';
import { nameOfAddress, type OperatorGenesis } from './operator-genesis.ts';

/** Fault-free blocks before any fault. */
export const WARM_UP_BLOCKS = 3;
/** The battery does not run longer than this unless told (--duration); farther transitions are reported as not reached. */
export const MAX_DEFAULT_DURATION_MS = 24 * 3_600_000;
/** Blocks a transition case runs past the transition. */
export const BLOCKS_PAST_TRANSITION = 5;

export interface CheckCase {
  id: string;
  title: string;
  /** Absent when skipped. */
  scenario?: Scenario;
  skipped?: string;
  /** What the reader should know about the case (offline validators, Besu's time-typed transitions). */
  notes: string[];
  /** Virtual time the case needs to be judged. */
  needsMs: number;
}

export interface BatteryPlan {
  /** The first block under each transition (where a stopped chain may point). */
  transitionBlocks: number[];
  validators: number;
  f: number;
  quorum: number;
  durationMs: number;
  /** The duration the battery would choose by itself: the cases' needs and the last transition crossed. */
  defaultDurationMs: number;
  cases: CheckCase[];
}

interface Ctx {
  g: OperatorGenesis;
  sched: BlockSchedule;
  n: number;
  f: number;
  names: string[];
  requestTimeoutMs: number;
  seed: number;
  quorum: number;
}

/** f validators spread so that no two are next to each other in proposer order: v1, v4, v7, ... */
export function spreadFaulty(n: number, f: number): string[] {
  return Array.from({ length: f }, (_, j) => `v${1 + 3 * j}`).filter((_, j) => 1 + 3 * j < n);
}

/**
 * Blocks a chain makes in [fromMs, toMs] starting after block `from` when `down` of `n` validators
 * cannot propose: each block costs its interval, plus a round-0 timeout and another interval for
 * the share of turns that fall to a down proposer.
 */
export function modelledBlocks(sched: BlockSchedule, from: number, fromMs: number, toMs: number, down: number, n: number, requestTimeoutMs: number): number {
  let t = Math.max(fromMs, sched.timeOfBlockMs(from));
  let k = from;
  const share = down / n;
  for (;;) {
    const interval = sched.intervalBeforeMs(k + 1);
    const next = t + interval + share * (requestTimeoutMs + interval);
    if (next > toMs || k - from > 1_000_000) return k - from;
    t = next;
    k++;
  }
}

/** Virtual time after which `modelledBlocks` reaches `blocks`. */
function timeForBlocks(sched: BlockSchedule, from: number, fromMs: number, blocks: number, down: number, n: number, requestTimeoutMs: number): number {
  let t = Math.max(fromMs, sched.timeOfBlockMs(from));
  const share = down / n;
  for (let k = from; k < from + blocks; k++) {
    const interval = sched.intervalBeforeMs(k + 1);
    t += interval + share * (requestTimeoutMs + interval);
  }
  return Math.ceil(t);
}

/** Slack after a case's last expected block: a few timeouts and periods for rounds and latency. */
function slackMs(c: Ctx, k: number): number {
  return 2 * c.requestTimeoutMs + 2 * c.sched.intervalBeforeMs(k + 1) + 1000;
}

/** Half the modelled progress, at least `minBlocks`. */
function progressTarget(c: Ctx, from: number, fromMs: number, toMs: number, down: number, minBlocks: number): number {
  return from + Math.max(minBlocks, Math.floor(modelledBlocks(c.sched, from, fromMs, toMs, down, c.n, c.requestTimeoutMs) / 2));
}

function scenarioOf(c: Ctx, id: string, description: string, durationMs: number, steps: Step[], expect: Expectation[], observers = 0): Scenario {
  return { name: `check-${id}`, description, seed: c.seed, validators: c.n, observers, baseGenesis: c.g.simGenesis, durationMs, steps, expect };
}

/** Every proposer turn once, and then some: the progress a fault case must show at least. */
function minProgress(c: Ctx): number {
  return Math.max(4, c.n + 1);
}

function faultCaseNeeds(c: Ctx, down: number): number {
  const fromMs = c.sched.betweenMs(WARM_UP_BLOCKS);
  return timeForBlocks(c.sched, WARM_UP_BLOCKS, fromMs, 2 * minProgress(c), down, c.n, c.requestTimeoutMs) + slackMs(c, WARM_UP_BLOCKS);
}

function crashCase(c: Ctx, durationMs: number): CheckCase {
  const id = 'crash-f';
  const title = `crash of f = ${c.f} validator${c.f === 1 ? '' : 's'}: the chain keeps going`;
  if (c.f === 0) return { id, title, skipped: `f = 0: ${c.n} validator${c.n === 1 ? ' tolerates' : 's tolerate'} no crashed validator`, notes: [], needsMs: 0 };
  const crashed = spreadFaulty(c.n, c.f);
  const atMs = c.sched.betweenMs(WARM_UP_BLOCKS);
  const needsMs = faultCaseNeeds(c, c.f);
  const target = progressTarget(c, WARM_UP_BLOCKS, atMs, durationMs, c.f, minProgress(c));
  return {
    id,
    title,
    needsMs,
    notes: [],
    scenario: scenarioOf(c, id, `${crashed.join(', ')} crash after block ${WARM_UP_BLOCKS}; the other ${c.n - c.f} (quorum ${c.quorum}) go on`, durationMs, crashed.map((node) => ({ atMs, do: 'crash', node })), [
      { kind: 'min-height', height: target },
      { kind: 'no-fork' },
    ]),
  };
}

/** The round-0 proposer of block k on a fault-free chain (round-robin from the genesis coinbase). */
function roundZeroProposer(c: Ctx, k: number): string {
  const addresses = c.g.standIns.map((s) => s.simAddress);
  const coinbase = c.g.simRules.coinbase.toLowerCase();
  let base = addresses.findIndex((a) => a > coinbase);
  if (base < 0) base = 0;
  return c.names[(base + k - 1) % c.n];
}

/** The first block whose validators a transition sets (a list, or a switch of selection mode). */
function firstValidatorChange(c: Ctx): number {
  const blocks = c.g.simRules.transitions.filter((t) => t.validators || t.validatorSelectionMode).map((t) => c.sched.firstBlockOf(c.g.simRules, t));
  return Math.min(Infinity, ...blocks);
}

function proposerCrashCase(c: Ctx, durationMs: number): CheckCase {
  const id = 'proposer-crash';
  const title = 'proposer crash: a round change, then progress';
  const k = WARM_UP_BLOCKS + 2;
  if (c.f === 0) return { id, title, skipped: `f = 0: losing the proposer of ${c.n} validator${c.n === 1 ? '' : 's'} stops the chain`, notes: [], needsMs: 0 };
  const change = firstValidatorChange(c);
  if (change <= k + 1) return { id, title, skipped: `the validator set changes at block ${change}, before block ${k} whose proposer the case crashes`, notes: [], needsMs: 0 };
  const proposer = roundZeroProposer(c, k);
  const atMs = c.sched.betweenMs(k - 1);
  const recoveredByMs = c.sched.timeOfBlockMs(k - 1) + 2 * c.requestTimeoutMs + c.sched.intervalBeforeMs(k) + 1000;
  const needsMs = Math.max(recoveredByMs, faultCaseNeeds(c, 1));
  return {
    id,
    title,
    needsMs,
    notes: [],
    scenario: scenarioOf(c, id, `${proposer}, the round-0 proposer of block ${k}, crashes just before it; round 1's proposer makes block ${k}`, durationMs, [{ atMs, do: 'crash', node: proposer }], [
      { kind: 'round-changes', min: 1 },
      { kind: 'max-round', min: 1 },
      { kind: 'height-by', atMs: recoveredByMs, height: k },
      { kind: 'min-height', height: progressTarget(c, k - 1, atMs, durationMs, 1, minProgress(c)) },
      { kind: 'no-fork' },
    ]),
  };
}

function partitionCase(c: Ctx, durationMs: number): CheckCase {
  const id = 'partition';
  const title = 'partition with a quorum on one side, then heal: no fork, progress, the others catch up';
  if (c.f === 0) return { id, title, skipped: `f = 0: any partition of ${c.n} validator${c.n === 1 ? '' : 's'} leaves no side with a quorum and another side`, notes: [], needsMs: 0 };
  const minority = spreadFaulty(c.n, c.f);
  const majority = c.names.filter((n) => !minority.includes(n));
  const fromMs = c.sched.betweenMs(WARM_UP_BLOCKS);
  const healMs = fromMs + Math.max(10 * c.sched.intervalBeforeMs(WARM_UP_BLOCKS + 1), 4 * c.requestTimeoutMs);
  const duringTarget = progressTarget(c, WARM_UP_BLOCKS, fromMs, healMs, c.f, 1);
  const needsMs = Math.max(healMs + slackMs(c, WARM_UP_BLOCKS), faultCaseNeeds(c, c.f));
  return {
    id,
    title,
    needsMs,
    notes: [],
    scenario: scenarioOf(
      c,
      id,
      `${majority.join(', ')} | ${minority.join(', ')} from ${fromMs} ms to ${healMs} ms`,
      durationMs,
      [
        { atMs: fromMs, do: 'partition', groups: [majority, minority] },
        { atMs: healMs, do: 'heal' },
      ],
      [
        { kind: 'height-by', atMs: healMs, height: duringTarget, nodes: majority },
        { kind: 'min-height', height: progressTarget(c, WARM_UP_BLOCKS, fromMs, durationMs, c.f, minProgress(c)), nodes: c.names },
        { kind: 'no-fork' },
      ],
    ),
  };
}

function wipedRestartCase(c: Ctx, durationMs: number): CheckCase {
  const id = 'wiped-restart';
  const title = 'restart with a wiped data directory: the node catches up';
  if (c.n === 1) return { id, title, skipped: 'a single validator has no peer to catch up from', notes: [], needsMs: 0 };
  const node = c.names[c.n - 1];
  const atMs = c.sched.betweenMs(WARM_UP_BLOCKS + 1);
  const needsMs = faultCaseNeeds(c, 0);
  return {
    id,
    title,
    needsMs,
    notes: [],
    scenario: scenarioOf(c, id, `${node} restarts with an empty data directory after block ${WARM_UP_BLOCKS + 1}, syncs and takes part again`, durationMs, [{ atMs, do: 'restart', node, wipe: true }], [
      { kind: 'min-height', height: progressTarget(c, WARM_UP_BLOCKS + 1, atMs, durationMs, 1, minProgress(c)), nodes: c.names },
      { kind: 'no-fork' },
    ]),
  };
}

function votesCase(c: Ctx, durationMs: number): CheckCase {
  const id = 'votes';
  const title = 'votes add a validator, then remove it (block-header selection)';
  const usesContract = c.g.selectionModeAtGenesis === 'contract' || c.g.simRules.transitions.some((t) => t.validatorSelectionMode === 'contract');
  if (usesContract) return { id, title, skipped: 'skipped: contract selection (validators come from a contract, not from votes)', notes: [], needsMs: 0 };
  // The add vote rides in the next n blocks; once a majority has voted, o0 validates from the next block.
  const addCheck = WARM_UP_BLOCKS + c.n + 1;
  const removeCheck = addCheck + c.n + 3;
  const epoch = c.g.simRules.qbft.epochLength;
  if (epoch <= removeCheck + 1) return { id, title, skipped: `epochlength ${epoch} restarts the vote count inside the ${removeCheck + 1} blocks the case needs`, notes: [], needsMs: 0 };
  const change = firstValidatorChange(c);
  if (change <= removeCheck + 1) return { id, title, skipped: `a transition sets the validators at block ${change}, inside the blocks the votes need (1..${removeCheck + 1})`, notes: [], needsMs: 0 };
  const addMs = c.sched.betweenMs(WARM_UP_BLOCKS);
  const removeMs = c.sched.betweenMs(addCheck);
  const needsMs = c.sched.timeOfBlockMs(removeCheck + 1) + slackMs(c, removeCheck);
  return {
    id,
    title,
    needsMs,
    notes: [],
    scenario: scenarioOf(
      c,
      id,
      `all validators vote o0 (a running non-validator) in after block ${WARM_UP_BLOCKS}, and (with o0) out again after block ${addCheck}`,
      durationMs,
      [
        { atMs: addMs, do: 'vote', nodes: c.names, subject: 'o0', add: true },
        // o0 votes itself out too: with one original validator, its vote alone is not a majority of two.
        { atMs: removeMs, do: 'vote', nodes: [...c.names, 'o0'], subject: 'o0', add: false },
      ],
      [
        { kind: 'validators-at', block: addCheck, validators: [...c.names, 'o0'] },
        { kind: 'validators-at', block: removeCheck, validators: c.names },
        { kind: 'min-height', height: removeCheck },
        { kind: 'no-fork' },
      ],
      1,
    ),
  };
}

/** Selection mode in force at a block: the genesis', then each transition's switch. */
function modeAt(c: Ctx, block: number): 'blockheader' | 'contract' {
  let mode = c.g.selectionModeAtGenesis;
  for (const t of c.g.simRules.transitions) if (t.validatorSelectionMode && c.sched.firstBlockOf(c.g.simRules, t) <= block) mode = t.validatorSelectionMode;
  return mode;
}

/** The validators a transition makes: its contract's list when it switches to one, its list in block-header mode. */
function validatorsSetBy(c: Ctx, t: QbftTransition, first: number): Hex[] | undefined {
  if (t.validatorSelectionMode === 'contract' && t.validatorContractAddress) return c.g.contractValidators.get(t.validatorContractAddress);
  return t.validators && modeAt(c, first) === 'blockheader' ? t.validators : undefined;
}

function transitionCase(c: Ctx, t: QbftTransition, durationMs: number): CheckCase {
  const first = c.sched.firstBlockOf(c.g.simRules, t);
  const byTime = comparedWithTime(c.g.simRules, t.block);
  const id = byTime ? `transition-time-${t.block}` : `transition-${t.block}`;
  const title = `${byTime ? `transition at time ${t.block}` : `transition at block ${t.block}`} (${describeTransition(c.g.standIns, t)}) crossed: progress and no fork after it`;
  const notes: string[] = [];
  if (byTime) {
    notes.push(
      first === 0
        ? `its 'block' ${t.block} is compared with block timestamps (a time-based hardfork rules there, as in Besu), so it is in force from the genesis`
        : `its 'block' ${t.block} is compared with block timestamps (a time-based hardfork rules there, as in Besu): block ${first} is the first under it`,
    );
  }
  const expect: Expectation[] = [];
  const set = validatorsSetBy(c, t, first);
  if (set) {
    const known = new Set(c.g.standIns.map((s) => s.simAddress));
    const offline = set.filter((v) => !known.has(v));
    if (offline.length > 0) {
      notes.push(`${offline.length} of the ${set.length} validators from block ${first} (${offline.join(', ')}) are not genesis validators: no simulated node holds their keys, so they are offline (quorum ${quorumSize(set.length)}, online ${set.length - offline.length})`);
    }
    // The set after the transition block, whether the list rules its block or the next.
    expect.push({ kind: 'validators-at', block: Math.max(1, first) + 1, validators: set.map((v) => nameOfAddress(c.g.standIns, v)) });
  }
  const target = Math.max(1, first) + BLOCKS_PAST_TRANSITION;
  if (target > MAX_SCHEDULED_BLOCKS) return { id, title, notes, needsMs: Infinity, skipped: `not reached: block ${first} is beyond the ${MAX_SCHEDULED_BLOCKS} blocks the battery can simulate` };
  expect.push({ kind: 'min-height', height: target }, { kind: 'no-fork' });
  const needsMs = c.sched.timeOfBlockMs(target) + slackMs(c, target);
  if (needsMs > durationMs) {
    return { id, title, notes, needsMs, skipped: `not reached: block ${target} is due at ${formatMs(needsMs)} of simulated time, and the battery runs ${formatMs(durationMs)} (--duration)` };
  }
  return { id, title, notes, needsMs, scenario: scenarioOf(c, id, `the network runs past block ${first} into block ${target}`, needsMs, [], expect) };
}

export function formatMs(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`;
  if (ms < 7_200_000) return `${(ms / 60_000).toFixed(1)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/** The battery for a genesis; `durationMs` caps or sets how long the fault cases run. */
export function planCheckBattery(g: OperatorGenesis, opts: { durationMs?: number; seed?: number } = {}): BatteryPlan {
  const n = g.standIns.length;
  const f = maxFaulty(n);
  const sched = new BlockSchedule(g.simRules);
  const c: Ctx = { g, sched, n, f, names: g.standIns.map((s) => s.name), requestTimeoutMs: g.simRules.qbft.requestTimeoutSeconds * 1000, seed: opts.seed ?? 1, quorum: quorumSize(n) };
  const transitions = [...g.simRules.transitions].sort((a, b) => a.block - b.block);
  const build = (durationMs: number) => [
    crashCase(c, durationMs),
    proposerCrashCase(c, durationMs),
    partitionCase(c, durationMs),
    wipedRestartCase(c, durationMs),
    votesCase(c, durationMs),
    ...transitions.map((t) => transitionCase(c, t, durationMs)),
  ];
  // Built once with no time at all, every case says what it needs.
  const defaultDurationMs = Math.max(...build(0).map((k) => k.needsMs).filter((ms) => ms <= MAX_DEFAULT_DURATION_MS));
  const durationMs = opts.durationMs ?? defaultDurationMs;
  const cases = build(durationMs).map((k) =>
    k.scenario && k.needsMs > durationMs ? { ...k, scenario: undefined, skipped: `needs ${formatMs(k.needsMs)} of simulated time; --duration is ${formatMs(durationMs)}` } : k,
  );
  const transitionBlocks = transitions.map((t) => sched.firstBlockOf(g.simRules, t)).filter((b) => Number.isFinite(b));
  return { transitionBlocks, validators: n, f, quorum: quorumSize(n), durationMs, defaultDurationMs, cases };
}
