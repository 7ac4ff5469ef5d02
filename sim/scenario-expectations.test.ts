/**
 * Each expectation judge on a run model built from hand-made trace lines: one case where it must
 * pass and one where it must fail, for every kind; and judges planted to ignore their input
 * (always pass, always fail) are caught by these cases.
 */
import test from 'ava';
import type { Hex } from '../node/crypto/bytes.ts';
import { TraceModel } from './run-model/trace-model.ts';
import type { Expectation } from './scenario.ts';
import type { ChainReads } from './scenario-node-access.ts';
import { EXPECTATIONS, judgeExpectation, keptKindsOf, roundChangeSummary, sampleTimesOf, type JudgeInput } from './scenario-expectations.ts';
import { EXPECT_KINDS } from './scenario-validate-expect.ts';
import type { TraceEvent, TraceLine } from './trace-events.ts';

const T0 = 1_000_000;
const address = (name: string) => `0x${name === 'v0' ? '0a' : name === 'v1' ? '0b' : name === 'v2' ? '0c' : '0d'}${'0'.repeat(38)}` as Hex;

const line = (atMs: number, node: string | null, event: TraceEvent) => ({ t: T0 + atMs, node, ...event }) as TraceLine;

/** v0..v3 started; v3 is faulty (Byzantine) unless said otherwise. */
function runStart(faulty: string[] = ['v3']): TraceLine[] {
  const nodes = ['v0', 'v1', 'v2', 'v3'].map((name) => ({ name, address: address(name), role: 'validator' as const, faulty: faulty.includes(name) }));
  return [
    line(0, null, { kind: 'run-started', scenario: 'unit', seed: 1, validators: 4, nodes, blockPeriodSeconds: 1, requestTimeoutSeconds: 2, earlyRoundChange: false, durationMs: 10_000 }),
    ...nodes.map((n) => line(0, n.name, { kind: 'node-started', wiped: false })),
  ];
}

const head = (atMs: number, node: string, number: number) => line(atMs, node, { kind: 'block-imported', number, hash: `0x${number.toString(16).padStart(64, '0')}`, status: 'head' } as TraceEvent);
const heads = (atMs: number, number: number, nodes = ['v0', 'v1', 'v2', 'v3']) => nodes.map((n) => head(atMs, n, number));
const roundStarted = (atMs: number, node: string, height: number, round: number, timeoutMs = 2000 * 2 ** round) =>
  line(atMs, node, { kind: 'round-started', height, round, proposer: address('v0'), timeoutMs });
const reorg = (atMs: number, node: string, removedLogs: number) => line(atMs, node, { kind: 'reorg', removed: ['0x01'], added: ['0x02'], removedLogs } as TraceEvent);
const crash = (atMs: number, node: string) => line(atMs, node, { kind: 'fault', fault: 'crash' });

interface Case {
  name: string;
  e: Expectation;
  lines?: TraceLine[];
  /** Heights sampled at times, per node. */
  samples?: Record<number, Record<string, number>>;
  input?: Partial<Omit<JudgeInput, 'model' | 'heightsAt'>>;
  ok: boolean;
}

function chainOf(over: Partial<ChainReads>): ChainReads {
  return {
    validatorsFor: () => undefined,
    balanceOf: async () => 0n,
    transactionsIncluded: () => 0,
    forkedOff: () => false,
    ...over,
  };
}

const at5 = [...runStart(), ...heads(1000, 5)];

const CASES: Case[] = [
  { name: 'every honest running node at 5', e: { kind: 'min-height', height: 5 }, lines: at5, ok: true },
  { name: 'none at 6', e: { kind: 'min-height', height: 6 }, lines: at5, ok: false },
  { name: 'a crashed node counts as height -1', e: { kind: 'min-height', height: 5, nodes: ['v2'] }, lines: [...at5, crash(2000, 'v2')], ok: false },
  { name: 'the faulty node lagging does not count', e: { kind: 'min-height', height: 5 }, lines: [...runStart(), ...heads(1000, 5, ['v0', 'v1', 'v2']), head(1000, 'v3', 1)], ok: true },
  { name: 'all at or below 5', e: { kind: 'max-height', height: 5 }, lines: at5, ok: true },
  { name: 'above 4', e: { kind: 'max-height', height: 4 }, lines: at5, ok: false },
  { name: 'sampled at 3 s', e: { kind: 'height-by', atMs: 3000, height: 2 }, lines: at5, samples: { 3000: { v0: 2, v1: 2, v2: 3, v3: 0 } }, ok: true },
  { name: 'one node short at 3 s', e: { kind: 'height-by', atMs: 3000, height: 2 }, lines: at5, samples: { 3000: { v0: 2, v1: 1, v2: 3, v3: 0 } }, ok: false },
  { name: 'no sample at that time', e: { kind: 'height-by', atMs: 3000, height: 0 }, lines: at5, ok: false },
  { name: 'one distinct round change (two nodes, one height/round; the faulty node not counted)', e: { kind: 'round-changes', min: 1, max: 1 }, lines: [...at5, roundStarted(3000, 'v0', 6, 1), roundStarted(3000, 'v1', 6, 1), roundStarted(3000, 'v3', 6, 2)], ok: true },
  { name: 'fewer round changes than the minimum', e: { kind: 'round-changes', min: 2 }, lines: [...at5, roundStarted(3000, 'v0', 6, 1), roundStarted(3000, 'v3', 6, 2)], ok: false },
  { name: 'more round changes than the maximum', e: { kind: 'round-changes', max: 0 }, lines: [...at5, roundStarted(3000, 'v0', 6, 1)], ok: false },
  { name: 'highest honest round 1', e: { kind: 'max-round', min: 1, max: 1 }, lines: [...at5, roundStarted(3000, 'v0', 6, 1), roundStarted(3000, 'v3', 6, 4)], ok: true },
  { name: 'highest honest round above the maximum', e: { kind: 'max-round', max: 0 }, lines: [...at5, roundStarted(3000, 'v2', 6, 1)], ok: false },
  { name: 'timers double', e: { kind: 'round-timeouts', rounds: 1 }, lines: [...at5, roundStarted(1000, 'v0', 6, 0), roundStarted(3000, 'v0', 6, 1)], ok: true },
  { name: 'a round-1 timer that does not double', e: { kind: 'round-timeouts', rounds: 1 }, lines: [...at5, roundStarted(1000, 'v0', 6, 0), roundStarted(3000, 'v0', 6, 1, 3000)], ok: false },
  { name: 'a round never entered', e: { kind: 'round-timeouts', rounds: 2 }, lines: [...at5, roundStarted(1000, 'v0', 6, 0), roundStarted(3000, 'v0', 6, 1)], ok: false },
  { name: 'the reference chain names them', e: { kind: 'validators-at', block: 3, validators: ['v1', 'v0'] }, input: { chain: chainOf({ validatorsFor: async () => [address('v0'), address('v1')] }) }, ok: true },
  { name: 'the reference chain names others', e: { kind: 'validators-at', block: 3, validators: ['v1', 'v0'] }, input: { chain: chainOf({ validatorsFor: async () => [address('v0'), address('v2')] }) }, ok: false },
  { name: 'no reference chain', e: { kind: 'validators-at', block: 3, validators: ['v0'] }, input: { chain: undefined }, ok: false },
  { name: 'agreement held', e: { kind: 'no-fork' }, input: { agreementHeld: true }, ok: true },
  { name: 'agreement broken', e: { kind: 'no-fork' }, input: { agreementHeld: false }, ok: false },
  { name: 'a fork was seen', e: { kind: 'fork' }, input: { agreementHeld: false }, ok: true },
  { name: 'no fork was seen', e: { kind: 'fork' }, input: { agreementHeld: true }, ok: false },
  { name: 'the node left the chain', e: { kind: 'forked-off', node: 'v3' }, input: { chain: chainOf({ forkedOff: (n) => n === 'v3' }) }, ok: true },
  { name: 'the node stayed on the chain', e: { kind: 'forked-off', node: 'v2' }, input: { chain: chainOf({ forkedOff: (n) => n === 'v3' }) }, ok: false },
  { name: 'an honest node reorganized', e: { kind: 'reorg', nodes: ['v2'] }, lines: [...at5, reorg(4000, 'v2', 0)], ok: true },
  { name: 'another node reorganized', e: { kind: 'reorg', nodes: ['v1'] }, lines: [...at5, reorg(4000, 'v2', 0)], ok: false },
  { name: 'only the faulty node reorganized', e: { kind: 'reorg' }, lines: [...at5, reorg(4000, 'v3', 0)], ok: false },
  { name: 'enough balance', e: { kind: 'balance-at-least', account: 'v1', wei: '10' }, input: { chain: chainOf({ balanceOf: async (a) => (a === address('v1') ? 10n : 0n) }) }, ok: true },
  { name: 'too little balance', e: { kind: 'balance-at-least', account: 'v1', wei: '11' }, input: { chain: chainOf({ balanceOf: async () => 10n }) }, ok: false },
  { name: 'the exact balance', e: { kind: 'balance-equals', account: 'v1', wei: '10' }, input: { chain: chainOf({ balanceOf: async () => 10n }) }, ok: true },
  { name: 'another balance', e: { kind: 'balance-equals', account: 'v1', wei: '10' }, input: { chain: chainOf({ balanceOf: async () => 11n }) }, ok: false },
  { name: 'enough transactions', e: { kind: 'transactions-included', min: 3 }, input: { chain: chainOf({ transactionsIncluded: () => 3 }) }, ok: true },
  { name: 'too few transactions', e: { kind: 'transactions-included', min: 4 }, input: { chain: chainOf({ transactionsIncluded: () => 3 }) }, ok: false },
  { name: 'heads unchanged (the faulty node may move)', e: { kind: 'no-progress-between', fromMs: 1000, toMs: 4000 }, lines: at5, samples: { 1000: { v0: 2, v1: 2, v2: 2, v3: 1 }, 4000: { v0: 2, v1: 2, v2: 2, v3: 3 } }, ok: true },
  { name: 'an honest head moved', e: { kind: 'no-progress-between', fromMs: 1000, toMs: 4000 }, lines: at5, samples: { 1000: { v0: 2, v1: 2, v2: 2 }, 4000: { v0: 2, v1: 3, v2: 2 } }, ok: false },
  { name: 'enough lines of the kind from honest nodes', e: { kind: 'trace-event', event: 'early-round-change', min: 2 }, lines: [...at5, ...['v0', 'v1'].map((n) => line(3000, n, { kind: 'early-round-change', height: 6, from: 0, to: 1 }))], ok: true },
  { name: 'lines from the faulty node do not count', e: { kind: 'trace-event', event: 'early-round-change', min: 2 }, lines: [...at5, ...['v0', 'v3'].map((n) => line(3000, n, { kind: 'early-round-change', height: 6, from: 0, to: 1 }))], ok: false },
  { name: 'a line with the field set', e: { kind: 'trace-event', event: 'round-change-sent', min: 1, nonNullField: 'preparedRound' }, lines: [...at5, line(3000, 'v0', { kind: 'round-change-sent', height: 6, round: 1, preparedRound: 0 })], ok: true },
  { name: 'only lines with the field null', e: { kind: 'trace-event', event: 'round-change-sent', min: 1, nonNullField: 'preparedRound' }, lines: [...at5, line(3000, 'v0', { kind: 'round-change-sent', height: 6, round: 1, preparedRound: null })], ok: false },
  { name: 'a reorganization removed logs', e: { kind: 'removed-logs', nodes: ['v1'] }, lines: [...at5, reorg(4000, 'v1', 2)], ok: true },
  { name: 'a reorganization removed no log', e: { kind: 'removed-logs' }, lines: [...at5, reorg(4000, 'v1', 0)], ok: false },
  { name: 'private logs received', e: { kind: 'private-logs', nodes: ['v1'], min: 2, removed: 1 }, input: { privacy: { logsOf: () => ({ added: 2, removed: 1 }), untouched: () => false } }, ok: true },
  { name: 'no removed private log', e: { kind: 'private-logs', nodes: ['v1'], min: 2, removed: 1 }, input: { privacy: { logsOf: () => ({ added: 2, removed: 0 }), untouched: () => false } }, ok: false },
  { name: 'no privacy in the run', e: { kind: 'private-logs', nodes: ['v1'] }, input: { privacy: undefined }, ok: false },
  { name: 'a non-member untouched', e: { kind: 'no-private-state', nodes: ['v2'] }, input: { privacy: { logsOf: () => ({ added: 0, removed: 0 }), untouched: (n) => n === 'v2' } }, ok: true },
  { name: 'a non-member holding private state', e: { kind: 'no-private-state', nodes: ['v1'] }, input: { privacy: { logsOf: () => ({ added: 0, removed: 0 }), untouched: (n) => n === 'v2' } }, ok: false },
  { name: 'API streams as Besu reports them', e: { kind: 'api-streams', nodes: ['v1'] }, input: { api: { judge: async () => ({}) } }, ok: true },
  { name: 'API streams with a problem', e: { kind: 'api-streams', nodes: ['v1'] }, input: { api: { judge: async (n) => ({ problem: `${n} missed a removed log` }) } }, ok: false },
];

function inputOf(c: Case): JudgeInput {
  const model = new TraceModel({ maxMessages: 0, keepKinds: keptKindsOf([c.e]) }).addAll(c.lines ?? runStart());
  const samples = new Map(Object.entries(c.samples ?? {}).map(([t, m]) => [Number(t), new Map(Object.entries(m))]));
  return {
    model,
    heightsAt: (atMs) => samples.get(atMs),
    agreementHeld: true,
    chain: chainOf({}),
    addressOf: address,
    privacy: undefined,
    api: undefined,
    ...c.input,
  };
}

type Judge = (e: Expectation, run: JudgeInput) => Promise<boolean>;
const realJudge: Judge = async (e, run) => (await judgeExpectation(e, run)).ok;

/** The cases a judge gets wrong. */
async function misjudged(judge: Judge, cases: readonly Case[]): Promise<string[]> {
  const wrong: string[] = [];
  for (const c of cases) if ((await judge(c.e, inputOf(c))) !== c.ok) wrong.push(`${c.e.kind}: ${c.name}`);
  return wrong;
}

test('every expectation kind has a case where it must pass and one where it must fail', (t) => {
  for (const kind of EXPECT_KINDS) {
    t.true(CASES.some((c) => c.e.kind === kind && c.ok), `${kind} passes somewhere`);
    t.true(CASES.some((c) => c.e.kind === kind && !c.ok), `${kind} fails somewhere`);
  }
  t.deepEqual(Object.keys(EXPECTATIONS).sort(), [...EXPECT_KINDS].sort());
});

test('each judge gives every case its verdict', async (t) => {
  t.deepEqual(await misjudged(realJudge, CASES), []);
});

test('a judge planted to ignore its input (always pass, always fail) is caught, for every kind', async (t) => {
  for (const kind of EXPECT_KINDS) {
    const cases = CASES.filter((c) => c.e.kind === kind);
    for (const constant of [true, false]) {
      const planted: Judge = async (e, run) => (e.kind === kind ? constant : realJudge(e, run));
      t.true((await misjudged(planted, cases)).length > 0, `${kind} judged always ${constant ? 'passing' : 'failing'} is caught`);
    }
  }
});

test("a failed judge's reason follows its sentence; a passing one keeps the sentence alone", async (t) => {
  const bad = CASES.find((c) => c.name === 'API streams with a problem')!;
  t.deepEqual(await judgeExpectation(bad.e, inputOf(bad)), { ok: false, text: 'API clients on v1 see every head change as Besu reports it (removed logs again with removed: true, new logs, new heads): v1 missed a removed log' });
  const good = CASES.find((c) => c.name === 'API streams as Besu reports them')!;
  t.deepEqual(await judgeExpectation(good.e, inputOf(good)), { ok: true, text: 'API clients on v1 see every head change as Besu reports it (removed logs again with removed: true, new logs, new heads)' });
});

test('the expectations name the times their heights are sampled at and the trace kinds the model keeps', (t) => {
  const expect: Expectation[] = [
    { kind: 'no-progress-between', fromMs: 4000, toMs: 9000 },
    { kind: 'height-by', atMs: 4000, height: 2 },
    { kind: 'trace-event', event: 'rpc-call', min: 1 },
    { kind: 'trace-event', event: 'rpc-call', min: 2 },
    { kind: 'no-fork' },
  ];
  t.deepEqual(sampleTimesOf(expect), [4000, 9000]);
  t.deepEqual(keptKindsOf(expect), ['rpc-call']);
});

test("the run's round-change counts: distinct honest (height, round > 0), and the highest such round", (t) => {
  const model = new TraceModel().addAll([...at5, roundStarted(3000, 'v0', 6, 1), roundStarted(3000, 'v1', 6, 1), roundStarted(5000, 'v1', 6, 2), roundStarted(5000, 'v3', 6, 5), roundStarted(6000, 'v0', 7, 0)]);
  t.deepEqual(roundChangeSummary(model), { roundChanges: 2, maxRound: 2 });
});
