/**
 * `qbft-lab rehearse`: the documented Besu procedure for a configuration change, simulated on the
 * operator's own genesis files. The network runs on OLD until block `atBlock`; every node is
 * stopped; the nodes are restarted one by one within the restart window, each with NEW (its
 * genesis file replaced), except the mistakes asked for: stragglers restarted after the window,
 * nodes left behind on OLD. The run then goes on past every change NEW makes, and the verdict
 * (rehearsal-verdict.ts) is read from what the nodes did.
 *
 * The scenario's network genesis is NEW (the invariant checkers hold every node to the rules the
 * network is moving to, so a node left behind on OLD that goes its own way breaks them); the nodes
 * start on OLD and each is handed NEW while it is down, just before its restart step. (A restart
 * step's own `transitions` cannot carry NEW: the runner does not apply them to a scenario with a
 * baseGenesis, and they would not carry NEW's other config.)
 */
import type { BesuVersion } from '../bugs/version-names.ts';
import { parseGenesis } from '../../node/chain/genesis.ts';
import { quorumSize } from '../../node/consensus/qbft/quorum.ts';
import type { Hex } from '../../node/crypto/bytes.ts';
import type { CheckerFactory } from '../checkers/suite.ts';
import type { Scenario, Step } from '../scenario.ts';
import { runScenario, type RunResult } from '../scenario-runner.ts';
import { bugSwitches } from '../../node/bugs/bug-switches.ts';
import { switchesOfVersion } from '../bugs/versions.ts';
import { SIM_START_TIME_MS, type World } from '../world.ts';
import { BlockSchedule, MAX_SCHEDULED_BLOCKS } from './block-schedule.ts';
import { historyHeightFor, prepareHistory, rebaseForHistory, seedStore, summarizeHistory, type HistorySummary } from './fast-prefix.ts';
import { ChainObserver } from './chain-observer.ts';
import { formatMs } from './check-cases.ts';
import { compareGenesis, type ConfigChange } from './genesis-change.ts';
import { normalAddress, OperatorInputError, type OperatorGenesis, type StandIn } from './operator-genesis.ts';
import { judgeRehearsal, seconds, withCheckerViolations, type RehearsalVerdict, type RehearsedNode } from './rehearsal-verdict.ts';

export const DEFAULT_AT_BLOCK = 10;
export const DEFAULT_RESTART_WINDOW_MS = 30_000;
export const MAX_AT_BLOCK = 1_900_000;
export const MAX_RESTART_WINDOW_MS = 24 * 3_600_000;
/** The scenario language's limit on a run's virtual time. */
const MAX_REHEARSAL_MS = 7 * 24 * 3_600_000;
/** Nodes are down at least this long before the first restart. */
const STOPPED_BEFORE_RESTART_MS = 1_000;
/** The chain must go this many blocks past the stop and past every change. */
export const BLOCKS_PAST_CHANGE = 3;
/** Quiet time at the end of a run, in request timeouts, that is a stall whatever the height. */
export const STALL_REQUEST_TIMEOUTS = 10;

export interface RehearsalOptions {
  /** The Besu release line the nodes behave as (its known bugs on). */
  besuVersion?: BesuVersion;
  stragglers?: number;
  restartWindowMs?: number;
  atBlock?: number;
  /** Nodes restarted with OLD: names (v<i>) or the operator's validator addresses, or a count (the last ones). */
  leftBehind?: string[] | number;
  seed?: number;
  keepTrace?: boolean;
  wallClock?: () => number;
  onRun?: (scenario: Scenario, result: RunResult, world: World) => void;
  /** Invariant checkers of your own, judged with the built-in ones: a violation makes the verdict `violation`. */
  checkers?: readonly CheckerFactory[];
  /**
   * How a node restarted with a genesis that changes its stored blocks' rules behaves: 'besu' (the
   * default) starts anyway, as Besu does; 'qbft-lab' refuses to start, as qbft-lab's node does.
   */
  nodeChecks?: 'besu' | 'qbft-lab';
}

/** The non-validator that joins after the restarts with an empty data directory and the new genesis. */
export const FRESH_NODE = 'o0';

export interface RehearsalNodeRow extends RehearsedNode {
  operatorAddress: Hex;
  headAtStop: number;
  head: number;
  status: 'up' | 'down' | 'refused';
}

export interface RehearsalReport extends RehearsalVerdict {
  old: string;
  new: string;
  validators: number;
  standIns: StandIn[];
  changes: ConfigChange[];
  atBlock: number;
  stopMs: number;
  restartWindowMs: number;
  stragglers: string[];
  leftBehind: string[];
  requiredHeight: number;
  /** What the reader should know: validators of the new genesis no simulated node holds. */
  notes: string[];
  /** A run at a real height: how its history (the blocks before the live part) was made and checked. */
  history?: HistorySummary;
  seed: number;
  durationMs: number;
  timeline: Array<{ atMs: number; text: string }>;
  nodeTable: RehearsalNodeRow[];
  run: { ok: boolean; expectations: Array<{ text: string; ok: boolean }>; traceHash: Hex; simulatedMs: number; wallMs: number; violations: Array<{ checker: string; node: string | null; height: number | null; reason: string }> };
}

function resolveLeftBehind(spec: RehearsalOptions['leftBehind'], standIns: StandIn[]): string[] {
  const names = standIns.map((s) => s.name);
  if (spec === undefined) return [];
  if (typeof spec === 'number') {
    if (!Number.isInteger(spec) || spec < 0 || spec > names.length) throw new OperatorInputError(`--left-behind: ${spec} must be a count from 0 to ${names.length}, or node names`);
    return names.slice(names.length - spec);
  }
  const out = spec.map((who) => {
    if (names.includes(who)) return who;
    const address = normalAddress(who);
    const standIn = address && standIns.find((s) => s.operatorAddress === address);
    if (!standIn) throw new OperatorInputError(`--left-behind: '${who}' is neither a node (${names[0]}..${names[names.length - 1]}) nor one of the genesis validators`);
    return standIn.name;
  });
  return [...new Set(out)];
}

interface Plan {
  nodes: RehearsedNode[];
  stopMs: number;
  requiredHeight: number;
  durationMs: number;
  stallAfterMs: number;
}

/** `offsetMs`: the schedules' time of the simulator's start (after the genesis block: a run with a history). */
function planRestarts(old: OperatorGenesis, changes: ConfigChange[], schedOld: BlockSchedule, schedNew: BlockSchedule, next: OperatorGenesis, o: Required<Pick<RehearsalOptions, 'stragglers' | 'restartWindowMs' | 'atBlock'>>, leftBehind: string[], offsetMs: number): Plan {
  const names = old.standIns.map((s) => s.name);
  const rest = names.filter((n) => !leftBehind.includes(n));
  if (!Number.isInteger(o.stragglers) || o.stragglers < 0 || o.stragglers > rest.length) throw new OperatorInputError(`--stragglers: ${o.stragglers} must be from 0 to ${rest.length} (the nodes not left behind)`);
  const stragglers = rest.slice(rest.length - o.stragglers);
  const inWindow = names.filter((n) => !stragglers.includes(n));
  const stopMs = schedOld.betweenMs(o.atBlock) - offsetMs;
  const firstMs = stopMs + STOPPED_BEFORE_RESTART_MS;
  const spacing = inWindow.length > 1 ? o.restartWindowMs / (inWindow.length - 1) : 0;
  const requestTimeoutMs = Math.max(old.simRules.qbft.requestTimeoutSeconds, next.simRules.qbft.requestTimeoutSeconds) * 1000;
  const nodes: RehearsedNode[] = inWindow.map((name, i) => ({
    name,
    genesis: leftBehind.includes(name) ? 'old' : 'new',
    role: leftBehind.includes(name) ? 'left behind' : 'on time',
    restartMs: Math.round(firstMs + i * spacing),
  }));
  const lateMs = firstMs + o.restartWindowMs + Math.max(o.restartWindowMs / 2, 10 * requestTimeoutMs);
  stragglers.forEach((name, j) => nodes.push({ name, genesis: 'new', role: 'straggler', restartMs: Math.round(lateMs + j * Math.max(spacing, 1000)) }));
  nodes.sort((a, b) => a.restartMs - b.restartMs || (a.name < b.name ? -1 : 1));
  const lastRestartMs = Math.max(...nodes.map((n) => n.restartMs));
  // A node that syncs the whole chain under the new genesis, once the validators are back: it shows
  // whether the history the network made still agrees with the new file.
  nodes.push({ name: FRESH_NODE, genesis: 'new', role: 'fresh sync', restartMs: Math.round(lastRestartMs + 2 * requestTimeoutMs + 1000) });
  const lastChange = Math.max(o.atBlock, ...changes.map((c) => c.fromBlock ?? 0).filter((b) => Number.isFinite(b)));
  const requiredHeight = lastChange + BLOCKS_PAST_CHANGE;
  const intervalMs = Math.max(schedNew.intervalBeforeMs(requiredHeight), schedOld.intervalBeforeMs(o.atBlock + 1));
  // Early nodes climb rounds while they wait for a quorum: give the network as long again to agree on one.
  const recoveryMs = lastRestartMs - stopMs + STALL_REQUEST_TIMEOUTS * requestTimeoutMs + 2 * intervalMs;
  if (requiredHeight > MAX_SCHEDULED_BLOCKS) throw new OperatorInputError(`the change at block ${lastChange} is beyond the ${MAX_SCHEDULED_BLOCKS} blocks a rehearsal can simulate`);
  const crossingMs = schedNew.timeOfBlockMs(requiredHeight) - schedNew.timeOfBlockMs(o.atBlock);
  const durationMs = Math.ceil(lastRestartMs + recoveryMs + crossingMs);
  if (durationMs > MAX_REHEARSAL_MS) {
    throw new OperatorInputError(`the rehearsal would run ${formatMs(durationMs)} of simulated time (the change at block ${lastChange}, the network stopped at block ${o.atBlock}): more than 7 days; give --at-block closer to the change (your network's height)`);
  }
  return {
    nodes,
    stopMs,
    requiredHeight,
    durationMs,
    stallAfterMs: STALL_REQUEST_TIMEOUTS * requestTimeoutMs + 2 * intervalMs,
  };
}

function scenarioFor(old: OperatorGenesis, next: OperatorGenesis, plan: Plan, seed: number, nodeChecks: 'besu' | 'qbft-lab'): Scenario {
  const names = old.standIns.map((s) => s.name);
  const steps: Step[] = [...names, FRESH_NODE].map((node) => ({ atMs: plan.stopMs, do: 'crash', node }));
  for (const n of plan.nodes) steps.push({ atMs: n.restartMs, do: 'restart', node: n.name, ...(n.role === 'fresh sync' ? { wipe: true } : {}) });
  return {
    name: 'rehearsal',
    description: `stop at ${seconds(plan.stopMs)}, restart ${plan.nodes.map((n) => `${n.name}${n.genesis === 'old' ? ' (old genesis)' : ''} at ${seconds(n.restartMs)}`).join(', ')}`,
    seed,
    validators: names.length,
    observers: 1,
    storedHistoryCheck: nodeChecks === 'besu' ? 'warn' : 'refuse',
    baseGenesis: next.simGenesis,
    durationMs: plan.durationMs,
    steps,
    // What the verdict asks, as expectations, so that the run's own verdict (in its trace and
    // reports) agrees with the rehearsal's: every node on one chain, past every change.
    expect: [
      { kind: 'min-height', height: plan.requiredHeight, nodes: names },
      { kind: 'no-fork' },
    ],
  };
}

function timelineOf(observer: ChainObserver, plan: Plan, verdict: RehearsalVerdict, changes: ConfigChange[], atBlock: number, sources: { old: string; new: string }, endMs: number, history?: HistorySummary): Array<{ atMs: number; text: string }> {
  const start = history ? ` at block ${history.height} (its history, blocks 1..${history.height}, made without the message exchange)` : '';
  const out: Array<{ atMs: number; text: string }> = [{ atMs: 0, text: `the network starts on ${sources.old}${start}` }];
  const freshSync = history ? `it imports the history under it (blocks 1..${history.newValidHeight}${history.newValidHeight < history.height ? `: block ${history.newValidHeight + 1} it does not accept` : ''}), then syncs from its peers` : 'it syncs the chain from block 1';
  const heads = observer.headsAt(plan.stopMs);
  const distinct = [...new Set(heads.values())];
  out.push({ atMs: plan.stopMs, text: `every node is stopped ${distinct.length === 1 ? `at block ${distinct[0]}` : `(heads ${[...heads].map(([n, h]) => `${n} ${h}`).join(', ')})`}` });
  for (const n of plan.nodes) {
    const how = n.genesis === 'old' ? `still with ${sources.old} (left behind)` : `with ${sources.new}${n.role === 'straggler' ? ' (a straggler, after the window)' : ''}`;
    out.push({ atMs: n.restartMs, text: n.role === 'fresh sync' ? `${n.name}, a non-validator, joins with an empty data directory and ${sources.new}: ${freshSync}` : `${n.name} restarted ${how}` });
    const h = observer.get(n.name);
    if (h.refused) out.push({ atMs: h.refused.atMs, text: `${n.name} refuses to start: stored block ${h.refused.block} would change (${h.refused.reason}), head ${h.refused.head}` });
    if (h.rejected) out.push({ atMs: h.rejected.atMs, text: `${n.name} rejects block ${h.rejected.number}: ${h.rejected.reason.slice(0, 160)}` });
  }
  const firstAt = (block: number) => Math.min(...[...observer.nodes.values()].map((h) => h.chain.get(block)?.atMs ?? Infinity));
  const resumed = firstAt(Math.max(...heads.values()) + 1);
  if (Number.isFinite(resumed)) out.push({ atMs: resumed, text: `block ${Math.max(...heads.values()) + 1}: the chain resumes` });
  for (const c of changes) {
    if (c.fromBlock === undefined || c.fromBlock <= atBlock) continue;
    const at = firstAt(c.fromBlock);
    if (Number.isFinite(at)) out.push({ atMs: at, text: `block ${c.fromBlock}, the first under: ${c.text}` });
  }
  if (verdict.atMs !== undefined) {
    if (verdict.verdict === 'stall') out.push({ atMs: verdict.atMs, text: `block ${verdict.block! - 1} is the last block: block ${verdict.block} never comes (stall)` });
    else if (verdict.verdict === 'fork' && verdict.sides) out.push({ atMs: verdict.atMs, text: `a second, different block ${verdict.block} is imported (fork)` });
    else if (verdict.verdict === 'fork') out.push({ atMs: verdict.atMs, text: `the history no longer matches the new genesis from block ${verdict.block} (fork)` });
    else if (verdict.verdict === 'forked-off') out.push({ atMs: verdict.atMs, text: `${verdict.nodes.join(', ')} left behind at block ${verdict.block! - 1} (forked off)` });
    else if (verdict.verdict === 'violation') out.push({ atMs: verdict.atMs, text: `an invariant checker reports a violation${verdict.block === null ? '' : ` at block ${verdict.block}`} (violation)` });
  }
  out.push({ atMs: endMs, text: `end of the rehearsal` });
  return out.sort((a, b) => a.atMs - b.atMs);
}

/** Validators a transition of `next` lists that are not genesis validators: no node holds their keys. */
function offlineValidatorNotes(next: OperatorGenesis): string[] {
  const known = new Set(next.standIns.map((s) => s.simAddress));
  return next.simRules.transitions.flatMap((t) => {
    const offline = (t.validators ?? []).filter((v) => !known.has(v));
    if (offline.length === 0) return [];
    return [`the transition at ${t.block} lists ${offline.length} validator${offline.length === 1 ? '' : 's'} that ${offline.length === 1 ? 'is' : 'are'} not in the genesis (${offline.join(', ')}): no simulated node holds ${offline.length === 1 ? 'its key' : 'their keys'}, so ${offline.length === 1 ? 'it is' : 'they are'} offline (quorum ${quorumSize(t.validators!.length)} of ${t.validators!.length}, ${t.validators!.length - offline.length} online)`];
  });
}

/** Rehearses moving a network from `old` to `next`; throws OperatorInputError for a change it cannot rehearse. */
export async function runRehearsal(oldFile: OperatorGenesis, nextFile: OperatorGenesis, opts: RehearsalOptions = {}): Promise<RehearsalReport> {
  const atBlock = opts.atBlock ?? DEFAULT_AT_BLOCK;
  if (!Number.isInteger(atBlock) || atBlock < 1 || atBlock > MAX_AT_BLOCK) throw new OperatorInputError(`--at-block: ${atBlock} must be a block from 1 to ${MAX_AT_BLOCK}`);
  const startHeight = historyHeightFor(atBlock);
  const { old, next, offsetMs } = startHeight > 0 ? rebaseForHistory(oldFile, nextFile, startHeight) : { old: oldFile, next: nextFile, offsetMs: 0 };
  const schedOld = new BlockSchedule(old.simRules, SIM_START_TIME_MS - offsetMs);
  const schedNew = new BlockSchedule(next.simRules, SIM_START_TIME_MS - offsetMs);
  const changes = compareGenesis(old, next, schedOld, schedNew);
  const restartWindowMs = opts.restartWindowMs ?? DEFAULT_RESTART_WINDOW_MS;
  if (!Number.isInteger(restartWindowMs) || restartWindowMs < 0 || restartWindowMs > MAX_RESTART_WINDOW_MS) throw new OperatorInputError(`--restart-window: must be from 0 to 24 h`);
  const leftBehind = resolveLeftBehind(opts.leftBehind, old.standIns);
  const plan = planRestarts(old, changes, schedOld, schedNew, next, { stragglers: opts.stragglers ?? 0, restartWindowMs, atBlock }, leftBehind, offsetMs);
  const bugs = bugSwitches(opts.besuVersion ? switchesOfVersion(opts.besuVersion) : []);
  const history = startHeight > 0 ? await prepareHistory({ old, next, schedOld, schedNew, height: startHeight, offsetMs, bugs }) : undefined;
  const seed = opts.seed ?? 1;
  const planned = scenarioFor(old, next, plan, seed, opts.nodeChecks ?? 'besu');
  const scenario = opts.besuVersion ? { ...planned, besuVersion: opts.besuVersion } : planned;
  const names = old.standIns.map((s) => s.name);
  const observer = new ChainObserver([...names, FRESH_NODE], plan.durationMs, history && { initial: history.height, afterWipe: () => history.next.view.height });
  const oldRules = parseGenesis(old.simGenesis);
  const newRules = parseGenesis(next.simGenesis);
  let world: World | undefined;
  const result = await runScenario(scenario, {
    seed,
    keepTrace: opts.keepTrace,
    wallClock: opts.wallClock,
    ...(opts.checkers ? { checkers: opts.checkers } : {}),
    onWorld: (w) => {
      world = w;
      // The nodes start on OLD; the run's first line (read by the checkers, which hold every node
      // to NEW's rules) is written first, with NEW's timers, as the world's genesis gives them.
      const unsubscribe = w.trace.subscribe((line) => {
        if (line.kind !== 'run-started') return;
        for (const name of [...names, FRESH_NODE]) w.get(name).genesis = oldRules;
        unsubscribe();
      });
      if (history) {
        for (const name of [...names, FRESH_NODE]) seedStore(w.stores.open(name), history.old);
        // The fresh node's empty data directory gets the history as a node with the new genesis imports it.
        w.afterWipe = (name, store) => name === FRESH_NODE && seedStore(store, history.next);
      }
      // The operator replaces the file while the node is down, just before starting it again.
      for (const n of plan.nodes) if (n.genesis === 'new') w.at(n.restartMs - 1, `operator: ${n.name} gets the new genesis`, () => void (w.get(n.name).genesis = newRules));
      observer.attach(w);
    },
  });
  if (world) opts.onRun?.(scenario, result, world);
  const requestTimeoutMs = next.simRules.qbft.requestTimeoutSeconds * 1000;
  const headsAtStop = observer.headsAt(plan.stopMs);
  const historyHeight = Math.max(0, ...names.map((n) => headsAtStop.get(n) ?? 0));
  const summary = history && summarizeHistory(history);
  const verdict = withCheckerViolations(judgeRehearsal(observer, { nodes: plan.nodes, endMs: plan.durationMs, requiredHeight: plan.requiredHeight, requestTimeoutMs, stallAfterMs: plan.stallAfterMs, historyHeight }), result.violations);
  const nodeTable: RehearsalNodeRow[] = plan.nodes
    .map((n) => {
      const h = observer.get(n.name);
      const operatorAddress = old.standIns.find((s) => s.name === n.name)?.operatorAddress ?? ('(not a validator)' as Hex);
      return { ...n, operatorAddress, headAtStop: headsAtStop.get(n.name) ?? 0, head: h.head, status: (h.up ? 'up' : h.refused ? 'refused' : 'down') as RehearsalNodeRow['status'] };
    })
    .sort((a, b) => [...names, FRESH_NODE].indexOf(a.name) - [...names, FRESH_NODE].indexOf(b.name));
  return {
    ...verdict,
    old: old.source,
    new: next.source,
    validators: names.length,
    standIns: old.standIns,
    changes,
    atBlock,
    stopMs: plan.stopMs,
    restartWindowMs,
    stragglers: plan.nodes.filter((n) => n.role === 'straggler').map((n) => n.name),
    leftBehind,
    requiredHeight: plan.requiredHeight,
    notes: offlineValidatorNotes(next),
    ...(summary ? { history: summary } : {}),
    seed,
    durationMs: plan.durationMs,
    timeline: timelineOf(observer, plan, verdict, changes, atBlock, { old: old.source, new: next.source }, plan.durationMs, summary),
    nodeTable,
    run: {
      ok: result.ok,
      expectations: result.expectations,
      traceHash: result.traceHash,
      simulatedMs: result.simulatedMs,
      wallMs: result.wallMs,
      violations: result.violations.map((v) => ({ checker: v.checker, node: v.node, height: v.height, reason: v.reason.split('\n')[0]!.slice(0, 300) })),
    },
  };
}
