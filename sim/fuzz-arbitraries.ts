/**
 * fast-check arbitraries for random, valid scenarios: a cluster of 4 to 10 validators (and up to
 * two observers), a random network model, chain parameters that move (epochs, transitions,
 * validator-set changes), JSON-RPC traffic and a fault schedule that stays within what QBFT
 * tolerates, so that every generated scenario must keep agreement, validity and (once the faults
 * have healed) liveness.
 *
 * The fault model
 * - A set F of at most f = maxFaulty(n) validators is picked. Only members of F are ever crashed,
 *   restarted, made Byzantine (any behaviour of sim/byzantine.ts), twinned (a second node with the
 *   same key runs for a while), clock-skewed or isolated by a partition. Each member has at most
 *   one role, never healed back to honesty once Byzantine, so at most f validators count as faulty
 *   for the runner's liveness check (Byzantine ones plus those crashed at the end).
 * - Partition episodes never overlap (a partition replaces the previous one) and each is healed:
 *   'isolate' cuts a non-empty subset of F off from everyone else; 'split' divides all nodes
 *   (honest ones included) into two groups for a short while (at most 4 s), which may leave
 *   neither side a quorum.
 * - Every step that changes connectivity or health happens at or before the fault horizon
 *   durationMs - healMarginMs (default 25 s), so the fault-free tail is long enough for the
 *   runner's liveness bound (requestTimeoutMs * 2^(maxRound+1) + 3 block periods) as long as
 *   rounds stay low; a scenario shorter than healMarginMs + 1.5 s gets no faults at all.
 * - At most one change of the validator set per scenario: honest validators (a majority of all,
 *   never members of F) vote an observer in or a validator out, or a transition at some block
 *   replaces the list (block-header mode) or switches to a validator contract. Every set that can
 *   be in force, the first one and the changed one, holds at most f(set) members of F: a removal
 *   of an honest validator that would break this removes a member of F instead, and a new list
 *   drops members of F until it holds. Observers added are honest; they never fault. No set has
 *   fewer than MIN_VALIDATOR_SET members (a new list is filled up with honest validators).
 * - Chain parameters that do not touch the fault model also move: a small epoch length (votes are
 *   reset at each epoch block), block period (lengthened, and often shortened back a few blocks
 *   later) / block reward / mining beneficiary transitions.
 * - JSON-RPC calls (read-only) go to honest nodes only, which are always running.
 *
 * Everything is built from fc.record / fc.array / fc.integer and mapped, with time values clamped
 * into the horizon and soundness repaired at mapping time, so fast-check shrinks scenarios
 * naturally (fewer faults, fewer validators, shorter runs, less loss) and every shrunk value is
 * still a valid scenario.
 */
import fc from 'fast-check';
import { maxFaulty } from '../node/consensus/qbft/quorum.ts';
import { HOSTILE_BEHAVIOURS, type HostileBehaviour } from './byzantine/names.ts';
import type { LatencyModel } from './network.ts';
import type { Scenario, Step, TransitionStep } from './scenario.ts';

export interface FuzzArbitraryOptions {
  /** Default 4. */
  minValidators?: number;
  /** Default 10. */
  maxValidators?: number;
  /** Default 20 000. */
  minDurationMs?: number;
  /** Default 60 000. */
  maxDurationMs?: number;
  /** Fault-free tail: every fault heals at or before durationMs - healMarginMs. Default 25 000. */
  healMarginMs?: number;
  /** Default 2. */
  maxObservers?: number;
  /** Byzantine behaviours to draw from. Default: all of HOSTILE_BEHAVIOURS. */
  behaviours?: readonly HostileBehaviour[];
}

export const DEFAULT_HEAL_MARGIN_MS = 25_000;
/** The longest 'split' partition (all nodes, honest ones included, in two groups). */
export const MAX_SPLIT_MS = 4_000;
/** The longest extra delay of a reordered message. */
export const MAX_REORDER_WINDOW_MS = 1_500;

/**
 * Read-only JSON-RPC calls the fuzz makes ('latest' and 'earliest' always exist; later numbers may
 * answer null). Not qbft_getSignerMetrics: it answers an error (as Besu does) while the node's head
 * is still the genesis block.
 */
export const FUZZ_RPC_CALLS: ReadonlyArray<{ method: string; params: unknown[]; blockHeaderModeOnly?: boolean }> = [
  { method: 'eth_blockNumber', params: [] },
  { method: 'eth_getBlockByNumber', params: ['latest', false] },
  { method: 'eth_getBlockByNumber', params: ['0x3', true] },
  { method: 'eth_getBlockByNumber', params: ['earliest', false] },
  { method: 'qbft_getValidatorsByBlockNumber', params: ['latest'] },
  { method: 'qbft_getValidatorsByBlockNumber', params: ['0x2'] },
  { method: 'qbft_getPendingVotes', params: [], blockHeaderModeOnly: true },
  { method: 'qbft_getRequestTimeoutSeconds', params: [] },
  { method: 'eth_syncing', params: [] },
  { method: 'net_peerCount', params: [] },
  { method: 'eth_chainId', params: [] },
];

const ONE_ETH = '1000000000000000000';

/**
 * Validator sets never shrink below four: with fewer, one lost message stalls a round (nobody
 * else relays it), and the random message loss the fuzz injects without retransmission would
 * stall the chain for longer than any liveness bound, although no fault limit is broken.
 */
export const MIN_VALIDATOR_SET = 4;

/** One fault role for one member of F. Times are raw and get clamped into the fault horizon. */
export type RawFault =
  | { kind: 'crash'; atMs: number; downMs: number; wipe: boolean }
  | { kind: 'crash-forever'; atMs: number }
  | { kind: 'restart'; atMs: number; wipe: boolean }
  | { kind: 'byzantine'; atMs: number; behaviour: HostileBehaviour }
  | { kind: 'twin'; atMs: number; lengthMs: number }
  | { kind: 'skew'; atMs: number; skewMs: number; lengthMs: number };

export type RawPartition =
  | { kind: 'isolate'; atMs: number; lengthMs: number; mask: number }
  | { kind: 'split'; atMs: number; lengthMs: number; mask: number };

/** A change of the validator set (see the fault model for how soundness is kept). */
export type RawValidatorChange =
  | { kind: 'vote-add'; atMs: number; viaRpc: boolean; extraVoters: number }
  | { kind: 'vote-remove'; atMs: number; slot: number; viaRpc: boolean; extraVoters: number }
  | { kind: 'list'; block: number; keepMask: number; addObserver: boolean; contract: boolean };

export type RawTransition =
  /** The period lengthens from the genesis' 1 s at `block` and, unless `backAfterBlocks` is null, shortens back to 1 s that many blocks later. */
  | { kind: 'period'; block: number; seconds: 2; backAfterBlocks: number | null }
  | { kind: 'reward'; block: number; reward: '0' | typeof ONE_ETH }
  | { kind: 'beneficiary'; block: number; who: 'account1' | 'v0' | '' };

export interface RawDelivery {
  duplicatePermille: number;
  reorderPermille: number;
  reorderWindowMs: number;
  /** null: Besu's default duplicate filter (100 message hashes). */
  duplicateMessageLimit: number | null;
  /** false: nodes do not re-gossip what they receive, so a lost message stays lost. */
  regossip: boolean;
}

/** The unmapped, shrinkable description of a fuzz scenario. */
export interface RawFuzzCase {
  seed: number;
  validators: number;
  observers: number;
  durationMs: number;
  requestTimeoutSeconds: 1 | 2;
  earlyRoundChange: boolean;
  latency: LatencyModel;
  lossPermille: number;
  /** Copies, late deliveries and a small duplicate filter: how re-delivered messages get past it. */
  delivery: RawDelivery | null;
  /**
   * The faulty set F: validator indices taken modulo n, deduplicated, at most f kept, each with
   * its role (null: the member is only ever isolated by partitions, if at all).
   */
  faulty: Array<{ slot: number; fault: RawFault | null }>;
  partitions: RawPartition[];
  transfers: Array<{ atMs: number; count: number }>;
  /** null: the default epoch length (30000). */
  epochLength: number | null;
  genesisReward: boolean;
  transitions: RawTransition[];
  validatorChange: RawValidatorChange | null;
  rpc: Array<{ atMs: number; call: number; target: number }>;
}

const ms = (min: number, max: number, step = 100) => fc.integer({ min: Math.ceil(min / step), max: Math.floor(max / step) }).map((k) => k * step);

export function rawFaultArbitrary(behaviours: readonly HostileBehaviour[] = HOSTILE_BEHAVIOURS): fc.Arbitrary<RawFault> {
  const atMs = ms(500, 35_000);
  return fc.oneof(
    fc.record({ kind: fc.constant('crash' as const), atMs, downMs: ms(500, 15_000), wipe: fc.boolean() }),
    fc.record({ kind: fc.constant('crash-forever' as const), atMs }),
    fc.record({ kind: fc.constant('restart' as const), atMs, wipe: fc.boolean() }),
    { arbitrary: fc.record({ kind: fc.constant('byzantine' as const), atMs: ms(0, 35_000), behaviour: fc.constantFrom(...behaviours) }), weight: 4 },
    fc.record({ kind: fc.constant('twin' as const), atMs, lengthMs: ms(500, 15_000) }),
    fc.record({ kind: fc.constant('skew' as const), atMs, skewMs: fc.integer({ min: -500, max: 500 }), lengthMs: ms(500, 15_000) }),
  );
}

export function rawPartitionArbitrary(): fc.Arbitrary<RawPartition> {
  return fc.oneof(
    fc.record({ kind: fc.constant('isolate' as const), atMs: ms(500, 35_000), lengthMs: ms(500, 15_000), mask: fc.integer({ min: 1, max: 7 }) }),
    fc.record({ kind: fc.constant('split' as const), atMs: ms(500, 35_000), lengthMs: ms(500, MAX_SPLIT_MS), mask: fc.integer({ min: 1, max: 32_767 }) }),
  );
}

export function latencyArbitrary(): fc.Arbitrary<LatencyModel> {
  return fc.oneof(
    fc.record({ kind: fc.constant('fixed' as const), ms: fc.integer({ min: 1, max: 200 }) }),
    fc.tuple(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1, max: 200 })).map(([a, b]): LatencyModel => ({ kind: 'uniform', minMs: Math.min(a, b), maxMs: Math.max(a, b) })),
  );
}

export function rawDeliveryArbitrary(): fc.Arbitrary<RawDelivery> {
  return fc.record({
    duplicatePermille: fc.integer({ min: 0, max: 300 }),
    reorderPermille: fc.integer({ min: 0, max: 500 }),
    reorderWindowMs: ms(100, MAX_REORDER_WINDOW_MS),
    duplicateMessageLimit: fc.option(fc.integer({ min: 2, max: 32 }), { freq: 2 }),
    regossip: fc.boolean(),
  });
}

export function rawValidatorChangeArbitrary(): fc.Arbitrary<RawValidatorChange> {
  return fc.oneof(
    fc.record({ kind: fc.constant('vote-add' as const), atMs: ms(0, 20_000), viaRpc: fc.boolean(), extraVoters: fc.integer({ min: 0, max: 9 }) }),
    fc.record({ kind: fc.constant('vote-remove' as const), atMs: ms(0, 20_000), slot: fc.integer({ min: 0, max: 9 }), viaRpc: fc.boolean(), extraVoters: fc.integer({ min: 0, max: 9 }) }),
    fc.record({ kind: fc.constant('list' as const), block: fc.integer({ min: 2, max: 25 }), keepMask: fc.integer({ min: 0, max: 1023 }), addObserver: fc.boolean(), contract: fc.boolean() }),
  );
}

export function rawTransitionArbitrary(): fc.Arbitrary<RawTransition> {
  const block = fc.integer({ min: 2, max: 30 });
  return fc.oneof(
    fc.record({ kind: fc.constant('period' as const), block, seconds: fc.constant(2 as const), backAfterBlocks: fc.option(fc.integer({ min: 1, max: 6 }), { freq: 2 }) }),
    fc.record({ kind: fc.constant('reward' as const), block, reward: fc.constantFrom('0' as const, ONE_ETH) }),
    fc.record({ kind: fc.constant('beneficiary' as const), block, who: fc.constantFrom('account1' as const, 'v0' as const, '' as const) }),
  );
}

export function rawFuzzCaseArbitrary(opts: FuzzArbitraryOptions = {}): fc.Arbitrary<RawFuzzCase> {
  const minV = opts.minValidators ?? 4;
  const maxV = opts.maxValidators ?? 10;
  const minD = opts.minDurationMs ?? 20_000;
  const maxD = opts.maxDurationMs ?? 60_000;
  const healMargin = opts.healMarginMs ?? DEFAULT_HEAL_MARGIN_MS;
  return fc.record({
    seed: fc.integer({ min: 1, max: 0x7fff_ffff }),
    validators: fc.integer({ min: minV, max: maxV }),
    observers: fc.integer({ min: 0, max: opts.maxObservers ?? 2 }),
    // Mostly long enough to leave room for faults before the heal margin.
    durationMs: fc.oneof(
      { arbitrary: ms(Math.max(minD, Math.min(maxD, healMargin + 10_000)), maxD, 1000), weight: 3 },
      { arbitrary: ms(minD, maxD, 1000), weight: 1 },
    ),
    requestTimeoutSeconds: fc.constantFrom(1 as const, 2 as const),
    earlyRoundChange: fc.boolean(),
    latency: latencyArbitrary(),
    lossPermille: fc.integer({ min: 0, max: 50 }),
    delivery: fc.option(rawDeliveryArbitrary(), { freq: 3 }),
    faulty: fc.array(fc.record({ slot: fc.integer({ min: 0, max: maxV - 1 }), fault: fc.option(rawFaultArbitrary(opts.behaviours), { freq: 5 }) }), { minLength: 1, maxLength: Math.max(1, maxFaulty(maxV)) }),
    partitions: fc.array(rawPartitionArbitrary(), { maxLength: 2 }),
    transfers: fc.array(fc.record({ atMs: ms(0, 50_000), count: fc.integer({ min: 1, max: 4 }) }), { maxLength: 2 }),
    epochLength: fc.option(fc.integer({ min: 2, max: 12 }), { freq: 3 }),
    genesisReward: fc.boolean(),
    transitions: fc.array(rawTransitionArbitrary(), { maxLength: 2 }),
    validatorChange: fc.option(rawValidatorChangeArbitrary(), { freq: 2 }),
    rpc: fc.array(fc.record({ atMs: ms(0, 50_000), call: fc.integer({ min: 0, max: FUZZ_RPC_CALLS.length - 1 }), target: fc.integer({ min: 0, max: 11 }) }), { maxLength: 3 }),
  });
}

/** The faulty set F for a raw case (slots modulo n, deduplicated, at most f) with each member's role. */
export function faultySet(raw: Pick<RawFuzzCase, 'validators' | 'faulty'>): Array<{ node: string; fault: RawFault | null }> {
  const f = maxFaulty(raw.validators);
  const out: Array<{ node: string; fault: RawFault | null }> = [];
  for (const { slot, fault } of raw.faulty) {
    const node = `v${slot % raw.validators}`;
    if (out.length < f && !out.some((m) => m.node === node)) out.push({ node, fault });
  }
  return out;
}

/** Whether a validator set holds at most f(set) members of F. */
export function setTolerates(set: readonly string[], F: readonly string[]): boolean {
  return set.filter((v) => F.includes(v)).length <= maxFaulty(set.length);
}

/** The validator-set change as steps or a transition, repaired so that every set in force tolerates F. */
function validatorChange(
  change: RawValidatorChange,
  ctx: { validators: string[]; observers: string[]; F: string[]; latestMs: number },
): { steps: Step[]; transition?: TransitionStep; note: string; sets: string[][] } | undefined {
  const { validators, observers, F } = ctx;
  const honest = validators.filter((v) => !F.includes(v));
  const voters = (extra: number) => honest.slice(0, Math.min(honest.length, Math.floor(validators.length / 2) + 1 + extra));
  const voteSteps = (atMs: number, who: string[], subject: string, add: boolean, viaRpc: boolean): Step[] =>
    viaRpc
      ? who.map((node): Step => ({ atMs, do: 'rpc', node, method: 'qbft_proposeValidatorVote', params: [subject, add] }))
      : [{ atMs, do: 'vote', nodes: who, subject, add }];
  switch (change.kind) {
    case 'vote-add': {
      if (observers.length === 0) return undefined;
      const who = voters(change.extraVoters);
      const atMs = Math.min(change.atMs, ctx.latestMs);
      return { steps: voteSteps(atMs, who, observers[0], true, change.viaRpc), note: `${who.join(',')} vote ${observers[0]} in at ${atMs}`, sets: [[...validators, observers[0]]] };
    }
    case 'vote-remove': {
      if (validators.length - 1 < MIN_VALIDATOR_SET) return undefined;
      let target = validators[change.slot % validators.length];
      const rest = (t: string) => validators.filter((v) => v !== t);
      if (!setTolerates(rest(target), F)) target = F[0];
      if (!target || !setTolerates(rest(target), F) || validators.length < 2) return undefined;
      const who = voters(change.extraVoters).filter((v) => v !== target);
      if (who.length <= validators.length / 2) return undefined;
      const atMs = Math.min(change.atMs, ctx.latestMs);
      return { steps: voteSteps(atMs, who, target, false, change.viaRpc), note: `${who.join(',')} vote ${target} out at ${atMs}`, sets: [rest(target)] };
    }
    case 'list': {
      let set = validators.filter((_, i) => (change.keepMask >> i) & 1);
      if (change.addObserver && observers.length > 0) set.push(observers[0]);
      while (!setTolerates(set, F)) set = set.filter((v) => v !== set.find((x) => F.includes(x)));
      // Filling up with honest validators keeps the set tolerant; members of F only while it stays so.
      for (const v of honest) if (set.length < MIN_VALIDATOR_SET && !set.includes(v)) set.push(v);
      for (const v of F) if (set.length < MIN_VALIDATOR_SET && !set.includes(v) && setTolerates([...set, v], F)) set.push(v);
      const order = [...validators, ...observers];
      set.sort((a, b) => order.indexOf(a) - order.indexOf(b));
      const transition: TransitionStep = change.contract ? { block: change.block, contractValidators: set } : { block: change.block, validators: set };
      return { steps: [], transition, note: `${change.contract ? 'validator contract' : 'validators'} ${set.join(',')} from block ${change.block}`, sets: [set] };
    }
  }
}

function transitionSteps(t: RawTransition): TransitionStep[] {
  switch (t.kind) {
    case 'period': {
      const lengthen = { block: t.block, blockPeriodSeconds: t.seconds };
      return t.backAfterBlocks === null ? [lengthen] : [lengthen, { block: t.block + t.backAfterBlocks, blockPeriodSeconds: 1 }];
    }
    default: return [transitionStep(t)];
  }
}

function transitionStep(t: Exclude<RawTransition, { kind: 'period' }>): TransitionStep {
  switch (t.kind) {
    case 'reward': return { block: t.block, blockReward: t.reward };
    case 'beneficiary': return { block: t.block, miningBeneficiary: t.who };
  }
}

/** Transitions merged by block (one entry per block, later fields win), in block order. */
function mergeTransitions(list: TransitionStep[]): TransitionStep[] {
  const byBlock = new Map<number, TransitionStep>();
  for (const t of list) byBlock.set(t.block, { ...byBlock.get(t.block), ...t });
  return [...byBlock.values()].sort((a, b) => a.block - b.block);
}

/** Where one fuzz scenario's fault episodes go: its steps, the notes of its description, and the nodes given twins. */
interface Episodes {
  steps: Step[];
  notes: string[];
  twins: string[];
}

/** One member of F's fault, clamped so that it starts by horizon - 1 s and heals by the horizon. */
function faultEpisode({ node, fault }: { node: string; fault: RawFault | null }, horizon: number, out: Episodes): void {
  if (!fault) return;
  const { steps, notes } = out;
  const at = Math.min(fault.atMs, horizon - 1_000);
  switch (fault.kind) {
    case 'crash': {
      const back = Math.min(at + fault.downMs, horizon);
      steps.push({ atMs: at, do: 'crash', node }, { atMs: back, do: 'restart', node, ...(fault.wipe ? { wipe: true } : {}) });
      notes.push(`${node} down ${at}-${back}${fault.wipe ? ' (wiped)' : ''}`);
      break;
    }
    case 'crash-forever':
      steps.push({ atMs: at, do: 'crash', node });
      notes.push(`${node} down from ${at}`);
      break;
    case 'restart':
      steps.push({ atMs: at, do: 'restart', node, ...(fault.wipe ? { wipe: true } : {}) });
      notes.push(`${node} restarted at ${at}${fault.wipe ? ' (wiped)' : ''}`);
      break;
    case 'byzantine':
      steps.push({ atMs: Math.min(fault.atMs, horizon), do: 'byzantine', node, behaviour: fault.behaviour });
      notes.push(`${node} ${fault.behaviour} from ${Math.min(fault.atMs, horizon)}`);
      break;
    case 'twin': {
      const twin = `${node}-twin`;
      const stop = Math.min(at + fault.lengthMs, horizon);
      out.twins.push(node);
      steps.push({ atMs: 0, do: 'crash', node: twin }, { atMs: at, do: 'restart', node: twin }, { atMs: stop, do: 'crash', node: twin });
      notes.push(`${twin} runs ${at}-${stop}`);
      break;
    }
    case 'skew': {
      if (fault.skewMs === 0) break;
      const back = Math.min(at + fault.lengthMs, horizon);
      steps.push({ atMs: at, do: 'skew', node, ms: fault.skewMs }, { atMs: back, do: 'skew', node, ms: 0 });
      notes.push(`${node} skewed ${fault.skewMs} ms ${at}-${back}`);
      break;
    }
  }
}

/** Partition episodes, in start order, never overlapping, each starting by horizon - 1 s and healed by the horizon. */
function partitionEpisodes(partitions: readonly RawPartition[], nodes: { everyone: string[]; F: string[] }, horizon: number, out: Episodes): void {
  const latest = horizon - 1_000;
  let free = 0;
  for (const p of [...partitions].sort((a, b) => a.atMs - b.atMs)) {
    const at = Math.max(p.atMs, free);
    if (at > latest) continue;
    const groups = partitionGroups(p, nodes);
    if (!groups) continue;
    const heal = Math.min(at + p.lengthMs, horizon);
    out.steps.push({ atMs: at, do: 'partition', groups }, { atMs: heal, do: 'heal' });
    out.notes.push(`partition ${groups.map((g) => g.join(',')).join(' | ')} ${at}-${heal}`);
    free = heal + 500;
  }
}

/** The two sides of a partition, or undefined when its mask leaves one side empty. */
function partitionGroups(p: RawPartition, { everyone, F }: { everyone: string[]; F: string[] }): string[][] | undefined {
  if (p.kind === 'isolate') {
    const cut = F.filter((_, i) => (p.mask >> i) & 1);
    return cut.length === 0 ? undefined : [cut, everyone.filter((x) => !cut.includes(x))];
  }
  const a = everyone.filter((_, i) => (p.mask >> i) & 1);
  const b = everyone.filter((_, i) => !((p.mask >> i) & 1));
  return a.length === 0 || b.length === 0 ? undefined : [a, b];
}

/** Sets the delivery faults on the network and genesis; returns their description ('' for none). */
function applyDelivery(d: RawDelivery, network: NonNullable<Scenario['network']>, genesis: NonNullable<Scenario['genesis']>): string {
  if (d.duplicatePermille > 0) network.duplicate = d.duplicatePermille / 1000;
  if (d.reorderPermille > 0) Object.assign(network, { reorder: d.reorderPermille / 1000, reorderWindowMs: d.reorderWindowMs });
  if (d.duplicateMessageLimit !== null) genesis.duplicateMessageLimit = d.duplicateMessageLimit;
  if (!d.regossip) network.gossip = false;
  return [
    d.duplicatePermille > 0 ? `${d.duplicatePermille / 10}% delivered twice` : '',
    d.reorderPermille > 0 ? `${d.reorderPermille / 10}% delayed up to ${d.reorderWindowMs} ms` : '',
    d.duplicateMessageLimit !== null ? `duplicate filter ${d.duplicateMessageLimit}` : '',
    d.regossip ? '' : 'no re-gossip',
  ].filter(Boolean).join(', ');
}

/** Turns a raw case into a scenario, clamping every fault into the horizon. Pure. */
export function scenarioFromRaw(raw: RawFuzzCase, opts: FuzzArbitraryOptions = {}): Scenario {
  const healMargin = opts.healMarginMs ?? DEFAULT_HEAL_MARGIN_MS;
  const n = raw.validators;
  const horizon = raw.durationMs - healMargin;
  const members = faultySet(raw);
  const F = members.map((m) => m.node);
  const validators = Array.from({ length: n }, (_, i) => `v${i}`);
  const wantsObserver = raw.validatorChange?.kind === 'vote-add' || (raw.validatorChange?.kind === 'list' && raw.validatorChange.addObserver);
  const observerCount = wantsObserver ? Math.max(1, raw.observers) : raw.observers;
  const observers = Array.from({ length: observerCount }, (_, i) => `o${i}`);
  const twins: string[] = [];
  const steps: Step[] = [];
  const notes: string[] = [];

  if (horizon >= 1_500) {
    const episodes = { steps, notes, twins };
    for (const member of members) faultEpisode(member, horizon, episodes);
    partitionEpisodes(raw.partitions, { everyone: [...validators, ...observers, ...twins.map((t) => `${t}-twin`)], F }, horizon, episodes);
  }

  const transitions = raw.transitions.flatMap(transitionSteps);
  for (const t of transitions) notes.push(`transition at block ${t.block}: ${JSON.stringify({ ...t, block: undefined })}`);
  if (raw.validatorChange) {
    const change = validatorChange(raw.validatorChange, { validators, observers, F, latestMs: Math.max(0, raw.durationMs - healMargin) });
    if (change) {
      steps.push(...change.steps);
      if (change.transition) transitions.push(change.transition);
      notes.push(change.note);
    }
  }

  // Read-only calls go to nodes that never fault: honest validators and observers. Vote queries
  // answer "Method not enabled" in contract mode, so they are left out once it may be in force.
  const callable = [...validators.filter((v) => !F.includes(v)), ...observers];
  const contractMode = transitions.some((t) => t.contractValidators);
  const calls = FUZZ_RPC_CALLS.filter((c) => !(contractMode && c.blockHeaderModeOnly));
  for (const call of raw.rpc) {
    const { method, params } = calls[call.call % calls.length];
    steps.push({ atMs: Math.min(call.atMs, raw.durationMs - 1_000), do: 'rpc', node: callable[call.target % callable.length], method, params: [...params] });
  }
  for (const t of raw.transfers) steps.push({ atMs: Math.min(t.atMs, raw.durationMs - 1_000), do: 'transfer', count: t.count });

  steps.sort((a, b) => a.atMs - b.atMs);
  const latency = raw.latency.kind === 'fixed' ? `fixed ${raw.latency.ms} ms` : raw.latency.kind === 'uniform' ? `${raw.latency.minMs}-${raw.latency.maxMs} ms` : 'normal';
  const chain = [raw.epochLength !== null ? `epoch ${raw.epochLength}` : '', raw.genesisReward ? 'reward 1 ETH' : ''].filter(Boolean).join(', ');
  const genesis: Scenario['genesis'] = { blockPeriodSeconds: 1, requestTimeoutSeconds: raw.requestTimeoutSeconds };
  if (raw.epochLength !== null) genesis.epochLength = raw.epochLength;
  if (raw.genesisReward) genesis.blockReward = ONE_ETH;
  const network: NonNullable<Scenario['network']> = { latency: raw.latency, loss: raw.lossPermille / 1000 };
  const delivery = raw.delivery ? applyDelivery(raw.delivery, network, genesis) : '';
  const merged = mergeTransitions(transitions);
  if (merged.length > 0) genesis.transitions = merged;
  const scenario: Scenario = {
    name: `fuzz-${raw.seed}`,
    description: `fuzz: ${n} validators${observerCount ? ` + ${observerCount} observers` : ''}, ${latency}, loss ${raw.lossPermille / 10}%${delivery ? `, ${delivery}` : ''}, timeout ${raw.requestTimeoutSeconds} s${raw.earlyRoundChange ? ', early round change' : ''}${chain ? `, ${chain}` : ''}; F = {${F.join(',')}}; ${notes.length ? notes.join('; ') : 'no faults'}`,
    seed: raw.seed,
    validators: n,
    genesis,
    network,
    durationMs: raw.durationMs,
    steps,
    expect: [{ kind: 'no-fork' }],
  };
  if (observerCount > 0) scenario.observers = observerCount;
  if (twins.length > 0) scenario.twins = twins;
  if (raw.earlyRoundChange) scenario.earlyRoundChange = true;
  return scenario;
}

/** Random valid scenarios (see the module comment for the fault model). */
export function scenarioArbitrary(opts: FuzzArbitraryOptions = {}): fc.Arbitrary<Scenario> {
  return rawFuzzCaseArbitrary(opts).map((raw) => scenarioFromRaw(raw, opts));
}
