/**
 * fast-check arbitraries for random, valid scenarios: a cluster of 4 to 10 validators (and up to
 * two observers), a random network model and a fault schedule that stays within what QBFT
 * tolerates, so that every generated scenario must keep agreement, validity and (once the faults
 * have healed) liveness.
 *
 * The fault model
 * - A set F of at most f = maxFaulty(n) validators is picked. Only members of F are ever crashed,
 *   made Byzantine, clock-skewed or isolated by a partition. Each member has at most one role:
 *   crash (restarted, maybe wiped, or left down to the end), Byzantine from some time on (never
 *   healed back to honesty), or a temporary clock skew. So at most f validators count as faulty
 *   for the runner's liveness check (Byzantine ones plus those crashed at the end).
 * - Partition episodes never overlap (a partition replaces the previous one) and each is healed:
 *   'isolate' cuts a non-empty subset of F off from everyone else; 'split' divides all nodes
 *   (honest ones included) into two groups for a short while (at most 4 s), which may leave
 *   neither side a quorum.
 * - Every step that changes connectivity or health happens at or before the fault horizon
 *   durationMs - healMarginMs (default 25 s), so the fault-free tail is long enough for the
 *   runner's liveness bound (requestTimeoutMs * 2^(maxRound+1) + 3 block periods) as long as
 *   rounds stay low; a scenario shorter than healMarginMs + 1.5 s gets no faults at all.
 *
 * Everything is built from fc.record / fc.array / fc.integer and mapped, with time values clamped
 * into the horizon at mapping time, so fast-check shrinks scenarios naturally (fewer faults,
 * fewer validators, shorter runs, less loss) and every shrunk value is still a valid scenario.
 */
import fc from 'fast-check';
import { maxFaulty } from '../node/consensus/qbft/quorum.ts';
import type { ByzantineBehaviour } from './byzantine.ts';
import type { LatencyModel } from './network.ts';
import type { Scenario, Step } from './scenario.ts';

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
}

export const DEFAULT_HEAL_MARGIN_MS = 25_000;
/** The longest 'split' partition (all nodes, honest ones included, in two groups). */
export const MAX_SPLIT_MS = 4_000;
const BEHAVIOURS: readonly ByzantineBehaviour[] = ['equivocate', 'silent', 'invalid-justification'];

/** One fault role for one member of F. Times are raw and get clamped into the fault horizon. */
export type RawFault =
  | { kind: 'crash'; atMs: number; downMs: number; wipe: boolean }
  | { kind: 'crash-forever'; atMs: number }
  | { kind: 'byzantine'; atMs: number; behaviour: ByzantineBehaviour }
  | { kind: 'skew'; atMs: number; skewMs: number; lengthMs: number };

export type RawPartition =
  | { kind: 'isolate'; atMs: number; lengthMs: number; mask: number }
  | { kind: 'split'; atMs: number; lengthMs: number; mask: number };

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
  /**
   * The faulty set F: validator indices taken modulo n, deduplicated, at most f kept, each with
   * its role (null: the member is only ever isolated by partitions, if at all).
   */
  faulty: Array<{ slot: number; fault: RawFault | null }>;
  partitions: RawPartition[];
  transfers: Array<{ atMs: number; count: number }>;
}

const ms = (min: number, max: number, step = 100) => fc.integer({ min: Math.ceil(min / step), max: Math.floor(max / step) }).map((k) => k * step);

export function rawFaultArbitrary(): fc.Arbitrary<RawFault> {
  const atMs = ms(500, 35_000);
  return fc.oneof(
    fc.record({ kind: fc.constant('crash' as const), atMs, downMs: ms(500, 15_000), wipe: fc.boolean() }),
    fc.record({ kind: fc.constant('crash-forever' as const), atMs }),
    fc.record({ kind: fc.constant('byzantine' as const), atMs: ms(0, 35_000), behaviour: fc.constantFrom(...BEHAVIOURS) }),
    fc.record({ kind: fc.constant('skew' as const), atMs, skewMs: fc.integer({ min: -500, max: 500 }), lengthMs: ms(500, 15_000) }),
  );
}

export function rawPartitionArbitrary(): fc.Arbitrary<RawPartition> {
  return fc.oneof(
    fc.record({ kind: fc.constant('isolate' as const), atMs: ms(500, 35_000), lengthMs: ms(500, 15_000), mask: fc.integer({ min: 1, max: 7 }) }),
    fc.record({ kind: fc.constant('split' as const), atMs: ms(500, 35_000), lengthMs: ms(500, MAX_SPLIT_MS), mask: fc.integer({ min: 1, max: 4095 }) }),
  );
}

export function latencyArbitrary(): fc.Arbitrary<LatencyModel> {
  return fc.oneof(
    fc.record({ kind: fc.constant('fixed' as const), ms: fc.integer({ min: 1, max: 200 }) }),
    fc.tuple(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1, max: 200 })).map(([a, b]): LatencyModel => ({ kind: 'uniform', minMs: Math.min(a, b), maxMs: Math.max(a, b) })),
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
    faulty: fc.array(fc.record({ slot: fc.integer({ min: 0, max: maxV - 1 }), fault: fc.option(rawFaultArbitrary(), { freq: 5 }) }), { minLength: 1, maxLength: Math.max(1, maxFaulty(maxV)) }),
    partitions: fc.array(rawPartitionArbitrary(), { maxLength: 2 }),
    transfers: fc.array(fc.record({ atMs: ms(0, 50_000), count: fc.integer({ min: 1, max: 4 }) }), { maxLength: 2 }),
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

/** Turns a raw case into a scenario, clamping every fault into the horizon. Pure. */
export function scenarioFromRaw(raw: RawFuzzCase, opts: FuzzArbitraryOptions = {}): Scenario {
  const healMargin = opts.healMarginMs ?? DEFAULT_HEAL_MARGIN_MS;
  const n = raw.validators;
  const horizon = raw.durationMs - healMargin;
  const members = faultySet(raw);
  const F = members.map((m) => m.node);
  const validators = Array.from({ length: n }, (_, i) => `v${i}`);
  const observers = Array.from({ length: raw.observers }, (_, i) => `o${i}`);
  const everyone = [...validators, ...observers];
  const steps: Step[] = [];
  const notes: string[] = [];

  if (horizon >= 1_500) {
    const latest = horizon - 1_000;
    for (const { node, fault } of members) {
      if (!fault) continue;
      const at = Math.min(fault.atMs, latest);
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
        case 'byzantine':
          steps.push({ atMs: Math.min(fault.atMs, horizon), do: 'byzantine', node, behaviour: fault.behaviour });
          notes.push(`${node} ${fault.behaviour} from ${Math.min(fault.atMs, horizon)}`);
          break;
        case 'skew': {
          if (fault.skewMs === 0) break;
          const back = Math.min(at + fault.lengthMs, horizon);
          steps.push({ atMs: at, do: 'skew', node, ms: fault.skewMs }, { atMs: back, do: 'skew', node, ms: 0 });
          notes.push(`${node} skewed ${fault.skewMs} ms ${at}-${back}`);
          break;
        }
      }
    }

    // Partition episodes, in start order, never overlapping, each healed by the horizon.
    let free = 0;
    for (const p of [...raw.partitions].sort((a, b) => a.atMs - b.atMs)) {
      const at = Math.max(p.atMs, free);
      if (at > latest) continue;
      let groups: string[][];
      if (p.kind === 'isolate') {
        const cut = F.filter((_, i) => (p.mask >> i) & 1);
        if (cut.length === 0) continue;
        groups = [cut, everyone.filter((x) => !cut.includes(x))];
      } else {
        const a = everyone.filter((_, i) => (p.mask >> i) & 1);
        const b = everyone.filter((_, i) => !((p.mask >> i) & 1));
        if (a.length === 0 || b.length === 0) continue;
        groups = [a, b];
      }
      const heal = Math.min(at + p.lengthMs, horizon);
      steps.push({ atMs: at, do: 'partition', groups }, { atMs: heal, do: 'heal' });
      notes.push(`partition ${groups.map((g) => g.join(',')).join(' | ')} ${at}-${heal}`);
      free = heal + 500;
    }
  }

  for (const t of raw.transfers) steps.push({ atMs: Math.min(t.atMs, raw.durationMs - 1_000), do: 'transfer', count: t.count });

  steps.sort((a, b) => a.atMs - b.atMs);
  const latency = raw.latency.kind === 'fixed' ? `fixed ${raw.latency.ms} ms` : raw.latency.kind === 'uniform' ? `${raw.latency.minMs}-${raw.latency.maxMs} ms` : 'normal';
  const scenario: Scenario = {
    name: `fuzz-${raw.seed}`,
    description: `fuzz: ${n} validators${raw.observers ? ` + ${raw.observers} observers` : ''}, ${latency}, loss ${raw.lossPermille / 10}%, timeout ${raw.requestTimeoutSeconds} s${raw.earlyRoundChange ? ', early round change' : ''}; F = {${F.join(',')}}; ${notes.length ? notes.join('; ') : 'no faults'}`,
    seed: raw.seed,
    validators: n,
    genesis: { blockPeriodSeconds: 1, requestTimeoutSeconds: raw.requestTimeoutSeconds },
    network: { latency: raw.latency, loss: raw.lossPermille / 1000 },
    durationMs: raw.durationMs,
    steps,
    expect: [{ kind: 'no-fork' }],
  };
  if (raw.observers > 0) scenario.observers = raw.observers;
  if (raw.earlyRoundChange) scenario.earlyRoundChange = true;
  return scenario;
}

/** Random valid scenarios (see the module comment for the fault model). */
export function scenarioArbitrary(opts: FuzzArbitraryOptions = {}): fc.Arbitrary<Scenario> {
  return rawFuzzCaseArbitrary(opts).map((raw) => scenarioFromRaw(raw, opts));
}
