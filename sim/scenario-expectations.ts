/**
 * The scenario expectations: for each kind, its sentence and its judge. A judge reads the run
 * model built from the run's trace (sim/run-model/: heads, round changes, round timers, reorgs,
 * kept lines, and heads sampled at the times the expectation names), the invariant checkers'
 * agreement verdict, and, where the trace cannot answer (balances, validator sets, transactions,
 * canonical hashes), the reads of one reference node's chain (sim/scenario-node-access.ts).
 */
import type { Hex } from '../node/crypto/bytes.ts';
import type { RunFinishedEvent, TraceLine } from './trace-events.ts';
import type { TraceModel } from './run-model/trace-model.ts';
import type { Expectation } from './scenario.ts';
import type { ChainReads } from './scenario-node-access.ts';

/** What a judge reads: the run model as the scenario ends, and what the trace cannot tell. */
export interface JudgeInput {
  model: TraceModel;
  /** Each node's height (-1 when down) in the model at a time an expectation named (see sampleTimes). */
  heightsAt(atMs: number): ReadonlyMap<string, number> | undefined;
  /** No two honest nodes imported different blocks at one height (the agreement checker, at the scenario's end). */
  agreementHeld: boolean;
  /** Reads of the reference node's chain (the honest running node with the highest head); undefined when none runs. */
  chain: ChainReads | undefined;
  addressOf(who: string): Hex;
  privacy: { logsOf(node: string): { added: number; removed: number }; untouched(node: string): boolean } | undefined;
  api: { judge(node: string, minRemovedLogs?: number): Promise<{ problem?: string }> } | undefined;
}

/** A judge's answer; `note` says why it failed, when the judge can tell. */
export interface Verdict {
  ok: boolean;
  note?: string;
}

type ExpectationOf<K extends Expectation['kind']> = Extract<Expectation, { kind: K }>;

interface ExpectationKind<K extends Expectation['kind']> {
  describe(e: ExpectationOf<K>): string;
  judge(e: ExpectationOf<K>, run: JudgeInput): boolean | Verdict | Promise<boolean | Verdict>;
  /** Times (virtual ms) at which the judge needs the model's heights. */
  sampleTimes?(e: ExpectationOf<K>): number[];
  /** Trace kinds whose lines the model must keep for the judge. */
  keptKinds?(e: ExpectationOf<K>): string[];
}

const who = (nodes: string[] | undefined, fallback: string) => (nodes ? nodes.join(',') : fallback);
const range = (e: { min?: number; max?: number }) =>
  `${e.min !== undefined ? `>= ${e.min}` : ''}${e.min !== undefined && e.max !== undefined ? ' and ' : ''}${e.max !== undefined ? `<= ${e.max}` : ''}`;
const within = (value: number, e: { min?: number; max?: number }) => (e.min === undefined || value >= e.min) && (e.max === undefined || value <= e.max);
/** Honest nodes running now, in the run's node order. */
export function honestRunning(model: TraceModel): string[] {
  return model.nodes().map((n) => n.name).filter((n) => model.honest(n) && model.statusOf(n).up);
}

const pick = (nodes: string[] | undefined, run: JudgeInput) => nodes ?? honestRunning(run.model);

/** Distinct (height, round > 0) entered by honest nodes, with the round. */
function honestRoundChanges(model: TraceModel): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of model.roundChanges()) if (model.honest(c.node)) out.set(`${c.height}/${c.toRound}`, c.toRound);
  return out;
}

/** Round changes as a run's result counts them: distinct (height, round > 0) honest nodes entered, and the highest such round. */
export function roundChangeSummary(model: TraceModel): { roundChanges: number; maxRound: number } {
  const changes = honestRoundChanges(model);
  return { roundChanges: changes.size, maxRound: Math.max(0, ...changes.values()) };
}

/** A field a scenario file names by string (the schema cannot know which). */
function fieldOf(line: TraceLine, name: string): unknown {
  return Object.hasOwn(line, name) ? (line as unknown as Record<string, unknown>)[name] : undefined;
}

export const EXPECTATIONS: { readonly [K in Expectation['kind']]: ExpectationKind<K> } = {
  'min-height': {
    describe: (e) => `${who(e.nodes, 'honest nodes')} reach height ${e.height}`,
    judge: (e, run) => pick(e.nodes, run).every((n) => run.model.heightOf(n) >= e.height),
  },
  'max-height': {
    describe: (e) => `${who(e.nodes, 'honest nodes')} stay at or below height ${e.height}`,
    judge: (e, run) => pick(e.nodes, run).every((n) => run.model.heightOf(n) <= e.height),
  },
  'height-by': {
    describe: (e) => `${who(e.nodes, 'honest nodes')} at height >= ${e.height} by ${e.atMs} ms`,
    sampleTimes: (e) => [e.atMs],
    judge(e, run) {
      const m = run.heightsAt(e.atMs);
      return !!m && pick(e.nodes, run).every((n) => (m.get(n) ?? -1) >= e.height);
    },
  },
  'round-changes': {
    describe: (e) => `round changes ${range(e)}`,
    judge: (e, run) => within(honestRoundChanges(run.model).size, e),
  },
  'max-round': {
    describe: (e) => `highest round ${range(e)}`,
    judge: (e, run) => within(Math.max(0, ...honestRoundChanges(run.model).values()), e),
  },
  'round-timeouts': {
    describe: (e) => `round r's timer is requesttimeoutseconds * 2^r for rounds 0..${e.rounds}`,
    judge(e, run) {
      const timeoutSeconds = run.model.runInfo().requestTimeoutSeconds;
      if (honestRunning(run.model).length === 0 || timeoutSeconds === null) return false;
      const honest = run.model.roundIntervals().filter((r) => run.model.honest(r.node));
      for (let r = 0; r <= e.rounds; r++) {
        const seen = honest.filter((i) => i.round === r);
        if (seen.length === 0 || !seen.every((i) => i.timeoutMs === timeoutSeconds * 1000 * 2 ** r)) return false;
      }
      return true;
    },
  },
  'validators-at': {
    describe: (e) => `validators for block ${e.block} are ${e.validators.join(',')}`,
    async judge(e, run) {
      const got = run.chain?.validatorsFor(e.block);
      if (!got) return false;
      const want = e.validators.map((v) => run.addressOf(v)).sort();
      return JSON.stringify(await got) === JSON.stringify(want);
    },
  },
  'no-fork': {
    describe: () => 'no two honest nodes import different blocks at one height',
    judge: (_e, run) => run.agreementHeld,
  },
  fork: {
    describe: () => 'a fork is detected (different blocks imported at one height)',
    judge: (_e, run) => !run.agreementHeld,
  },
  'forked-off': {
    describe: (e) => `${e.node} forks off the network's chain`,
    judge: (e, run) => run.chain?.forkedOff(e.node) ?? false,
  },
  reorg: {
    describe: (e) => `${who(e.nodes, 'some node')} reorganizes onto the longer chain`,
    judge(e, run) {
      const reorged = new Set(run.model.reorgs().filter((r) => run.model.honest(r.node)).map((r) => r.node));
      return e.nodes ? e.nodes.every((n) => reorged.has(n)) : reorged.size > 0;
    },
  },
  'balance-at-least': {
    describe: (e) => `${e.account} holds at least ${e.wei} wei`,
    judge: async (e, run) => !!run.chain && (await run.chain.balanceOf(run.addressOf(e.account))) >= BigInt(e.wei),
  },
  'balance-equals': {
    describe: (e) => `${e.account} holds exactly ${e.wei} wei`,
    judge: async (e, run) => !!run.chain && (await run.chain.balanceOf(run.addressOf(e.account))) === BigInt(e.wei),
  },
  'transactions-included': {
    describe: (e) => `at least ${e.min} transactions included`,
    judge: (e, run) => !!run.chain && run.chain.transactionsIncluded() >= e.min,
  },
  'no-progress-between': {
    describe: (e) => `no block is added between ${e.fromMs} ms and ${e.toMs} ms`,
    sampleTimes: (e) => [e.fromMs, e.toMs],
    judge(e, run) {
      const a = run.heightsAt(e.fromMs);
      const b = run.heightsAt(e.toMs);
      return !!a && !!b && honestRunning(run.model).every((n) => (a.get(n) ?? -1) === (b.get(n) ?? -1));
    },
  },
  'trace-event': {
    describe: (e) => `at least ${e.min} '${e.event}' event(s)${e.nonNullField ? ` with ${e.nonNullField} set` : ''}`,
    keptKinds: (e) => [e.event],
    judge: (e, run) => run.model.linesOf(e.event).filter((line) => !e.nonNullField || fieldOf(line, e.nonNullField) != null).length >= e.min,
  },
  'removed-logs': {
    describe: (e) => `${who(e.nodes, 'some node')} drops logs of blocks removed by a reorganization`,
    judge(e, run) {
      const removed = new Map<string, number>();
      for (const r of run.model.reorgs()) if (run.model.honest(r.node) && r.removedLogs > 0) removed.set(r.node, (removed.get(r.node) ?? 0) + r.removedLogs);
      return e.nodes ? e.nodes.every((n) => (removed.get(n) ?? 0) > 0) : removed.size > 0;
    },
  },
  'private-logs': {
    describe: (e) => `${e.nodes.join(',')} receive${e.min !== undefined ? ` at least ${e.min}` : ''} private logs through priv_subscribe${e.removed !== undefined ? `, at least ${e.removed} with removed: true` : ''}`,
    judge: (e, run) => !!run.privacy && e.nodes.every((n) => run.privacy!.logsOf(n).added >= (e.min ?? 0) && run.privacy!.logsOf(n).removed >= (e.removed ?? 0)),
  },
  'no-private-state': {
    describe: (e) => `${e.nodes.join(',')} hold no private receipt, log or state (non-members)`,
    judge: (e, run) => !!run.privacy && e.nodes.every((n) => run.privacy!.untouched(n)),
  },
  'api-streams': {
    describe: (e) => `API clients on ${e.nodes.join(',')} see every head change as Besu reports it (removed logs again with removed: true, new logs, new heads)${e.minRemovedLogs ? `, at least ${e.minRemovedLogs} removed logs` : ''}`,
    async judge(e, run) {
      const problems: string[] = [];
      for (const n of e.nodes) {
        const verdict = run.api ? await run.api.judge(n, e.minRemovedLogs) : { problem: 'the scenario has no api-clients step' };
        if (verdict.problem) problems.push(verdict.problem);
      }
      return { ok: problems.length === 0, note: problems[0] };
    },
  },
};

function kindOf<K extends Expectation['kind']>(e: ExpectationOf<K>): ExpectationKind<K> {
  return EXPECTATIONS[e.kind as K];
}

export function describeExpectation(e: Expectation): string {
  return kindOf(e).describe(e);
}

/** The expectation judged: its sentence (with why it failed, when the judge says) and the verdict. */
export async function judgeExpectation(e: Expectation, run: JudgeInput): Promise<RunFinishedEvent['expectations'][number]> {
  const answer = await kindOf(e).judge(e, run);
  const { ok, note } = typeof answer === 'boolean' ? { ok: answer, note: undefined } : answer;
  const text = describeExpectation(e);
  return { text: !ok && note ? `${text}: ${note}` : text, ok };
}

/** Times at which these expectations need the model's heights, ascending. */
export function sampleTimesOf(expect: readonly Expectation[]): number[] {
  const times = new Set<number>();
  for (const e of expect) for (const t of kindOf(e).sampleTimes?.(e) ?? []) times.add(t);
  return [...times].sort((a, b) => a - b);
}

/** Trace kinds whose lines the model must keep for these expectations. */
export function keptKindsOf(expect: readonly Expectation[]): string[] {
  return [...new Set(expect.flatMap((e) => kindOf(e).keptKinds?.(e) ?? []))];
}
