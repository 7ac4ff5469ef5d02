import test from 'ava';
import proposerCrash from '../../scenarios/proposer-crash.ts';
import type { TraceLine } from '../../sim/trace.ts';
import { runScenarioTrace } from '../trace-source.ts';
import { moments, nextMoment } from './moments.ts';
import { stateAt } from './state-at.ts';
import { buildTimeline } from '../../sim/run-model/timeline.ts';
import { TraceModel } from '../../sim/run-model/trace-model.ts';

// proposer-crash: v2, the proposer of block 3, crashes at 2.5 s; blocks come every 1 s and round 0
// lasts 2 s, so height 3's round 0 (started at 3 s) times out at 5 s and v3 proposes in round 1.
const run = runScenarioTrace(proposerCrash);

test('one lane per validator, named and addressed as in the run', async (t) => {
  const { lines, result } = await run;
  const tl = buildTimeline(lines);
  t.deepEqual(tl.lanes.map((l) => l.node.name), ['v0', 'v1', 'v2', 'v3']);
  t.true(tl.lanes.every((l) => l.node.role === 'validator' && !l.node.faulty));
  t.deepEqual(tl.lanes.map((l) => l.node.address), result.nodes.map((n) => n.address));
  t.is(tl.run.scenario, 'proposer-crash');
  t.is(tl.run.seed, 1);
  t.is(tl.run.originMs, lines[0]!.t);
  t.is(tl.run.endMs, 30_000);
  t.is(tl.run.blockPeriodSeconds, 1);
  t.is(tl.run.requestTimeoutSeconds, 2);
});

test('the round change of height 3 happens at 5 s on every running validator, when its round timer expires', async (t) => {
  const tl = buildTimeline((await run).lines);
  const h3 = tl.roundChanges.filter((c) => c.height === 3);
  t.deepEqual(h3.map((c) => c.node).sort(), ['v0', 'v1', 'v3']);
  for (const c of h3) {
    t.is(c.atMs, 5000);
    t.is(c.fromRound, 0);
    t.is(c.toRound, 1);
    t.is(c.reason, 'timeout');
    t.true(c.sent);
    t.is(c.preparedRound, null);
  }
  t.is(tl.lanes[2]!.roundChanges.length, 0);
  const v0 = tl.lanes[0]!;
  const r0 = v0.rounds.find((r) => r.height === 3 && r.round === 0)!;
  t.like(r0, { startMs: 3000, endMs: 5000, outcome: 'round-change', proposer: 'v2', timeoutMs: 2000 });
  const r1 = v0.rounds.find((r) => r.height === 3 && r.round === 1)!;
  t.like(r1, { startMs: 5000, outcome: 'committed', proposer: 'v3', timeoutMs: 4000 });
  const timer = v0.timers.find((x) => x.kind === 'round' && x.height === 3 && x.round === 0)!;
  t.like(timer, { startMs: 3000, dueMs: 5000, endMs: 5000, outcome: 'expired' });
  const block = v0.timers.find((x) => x.kind === 'block' && x.height === 3)!;
  t.like(block, { dueMs: 3000, endMs: 3000, outcome: 'expired' });
});

test('faults, commits, heights and the round summary', async (t) => {
  const { lines, result } = await run;
  const tl = buildTimeline(lines);
  t.deepEqual(tl.faults.map((f) => [f.node, f.kind, f.startMs, f.ongoing]), [['v2', 'crash', 2500, true]]);
  t.deepEqual(tl.lanes[2]!.faults.length, 1);
  const h3 = tl.heights.find((h) => h.height === 3)!;
  t.like(h3, { startMs: 3000, maxRound: 1, committedRound: 1, proposer: 'v3' });
  t.true(h3.firstCommitMs! > 5000 && h3.firstCommitMs! < 5200);
  t.deepEqual([...h3.committedBy].sort(), ['v0', 'v1', 'v3']);
  t.is(h3.hashes.length, 1);
  // The run's own figures: distinct (height, round > 0) pairs and the highest round.
  t.is(new Set(tl.roundChanges.map((c) => `${c.height}/${c.toRound}`)).size, result.roundChanges);
  t.is(Math.max(...tl.heights.map((h) => h.maxRound)), result.maxRound);
  t.is(Math.max(...tl.lanes[0]!.commits.map((c) => c.height)), result.height);
  const summary = tl.roundSummaries.find((s) => s.height === 3)!;
  t.is(summary.quorum, 3);
  t.deepEqual(summary.rows.map((r) => [r.node, r.round, r.highestRound, r.down]), [
    ['v0', 1, 1, false],
    ['v1', 1, 1, false],
    ['v2', null, null, true],
    ['v3', 1, 1, false],
  ]);
  t.deepEqual(tl.run.verdict?.invariants, result.invariants);
  t.is(tl.run.verdict?.ok, true);
});

test('phases, and the state at a moment', async (t) => {
  const tl = buildTimeline((await run).lines);
  const v0 = tl.lanes[0]!;
  const at = (ms: number) => v0.phases.find((p) => p.startMs <= ms && ms < p.endMs)?.phase;
  t.is(at(500), 'block-timer');
  t.is(at(4000), 'proposing');
  t.is(at(5001), 'round-change');
  t.is(tl.lanes[2]!.phases.at(-1)!.phase, 'down');
  const s = stateAt(tl, 4000);
  const v0s = s.lanes[0]!;
  t.like(v0s, { up: true, phase: 'proposing', height: 3, round: 0, proposer: 'v2', head: 2 });
  t.deepEqual(v0s.timers.map((x) => [x.kind, x.remainingMs]), [['round', 1000]]);
  t.false(s.lanes[2]!.up);
  t.is(s.lanes[2]!.faults[0]!.kind, 'crash');
  t.is(s.partition, null);
});

test('key moments step from the crash to the round change to the commit', async (t) => {
  const tl = buildTimeline((await run).lines);
  const list = moments(tl);
  const crash = nextMoment(list, 0, ['fault'])!;
  t.is(crash.atMs, 2500);
  const rc = nextMoment(list, crash.atMs, ['round-change'])!;
  t.is(rc.atMs, 5000);
  t.deepEqual([...rc.nodes].sort(), ['v0', 'v1', 'v3']);
  t.regex(rc.text, /round 0 timer expired, height 3 moves to round 1/);
  const commit = nextMoment(list, rc.atMs, ['commit'])!;
  t.is(commit.height, 3);
  t.is(commit.round, 1);
});

test('messages are paired with their deliveries', async (t) => {
  const { lines, result } = await run;
  const tl = buildTimeline(lines);
  t.is(tl.messages.length, result.messages.sent);
  t.is(tl.messages.filter((m) => m.fate === 'delivered').length, result.messages.delivered);
  t.true(tl.messages.every((m) => m.fate !== 'delivered' || (m.endMs! >= m.sentMs && m.endMs! - m.sentMs <= 30)));
  const types = new Set(tl.messages.map((m) => m.type));
  for (const type of ['PROPOSAL', 'PREPARE', 'COMMIT', 'ROUND_CHANGE', 'Status']) t.true(types.has(type), type);
});

test('the builder gives the same model when fed line by line, and a partial model while the run goes on', async (t) => {
  const { lines } = await run;
  const b = new TraceModel();
  const half = lines.findIndex((l) => l.t - lines[0]!.t >= 4000);
  for (const l of lines.slice(0, half)) b.add(l);
  t.is(b.timeline().run.endMs, lines[half - 1]!.t - lines[0]!.t);
  const partial = b.timeline(4000);
  t.is(partial.run.endMs, 4000);
  const open = partial.lanes[0]!.rounds.at(-1)!;
  t.like(open, { height: 3, round: 0, outcome: 'running', endMs: 4000 });
  t.is(partial.run.verdict, null);
  for (const l of lines.slice(half)) b.add(l);
  t.deepEqual(JSON.parse(JSON.stringify(b.timeline())), JSON.parse(JSON.stringify(buildTimeline(lines))));
});

test('traces from before run-started, timer lines and message ids still give lanes and round changes', async (t) => {
  const { lines } = await run;
  const legacy = lines
    .filter((l) => !['run-started', 'run-finished', 'block-timer-set', 'block-timer-expired', 'round-timer-expired'].includes(l.kind))
    .map((l) => {
      const { id: _id, ...rest } = l as TraceLine & { id?: number };
      return rest as TraceLine;
    });
  const tl = buildTimeline(legacy);
  t.deepEqual(tl.lanes.map((l) => l.node.name), ['v0', 'v1', 'v2', 'v3']);
  const h3 = tl.roundChanges.filter((c) => c.height === 3);
  t.deepEqual(h3.map((c) => [c.atMs, c.reason]), [[5000, 'timeout'], [5000, 'timeout'], [5000, 'timeout']]);
  // Proposers are addresses when no run-started line names them.
  t.regex(tl.heights.find((h) => h.height === 3)!.proposer!, /^0x[0-9a-f]{40}$/);
  t.is(tl.messages.filter((m) => m.fate === 'delivered').length, tl.messages.length - 6);
  t.is(tl.lanes[0]!.phases.find((p) => p.startMs <= 500 && 500 < p.endMs)?.phase, 'idle');
  t.is(tl.lanes[0]!.phases.find((p) => p.startMs <= 1500 && 1500 < p.endMs)?.phase, 'block-timer');
});

/** A line as a trace file gives it (any kind, any fields): the timeline must read what it knows and skip the rest. */
const line = (t: number, node: string | null, kind: string, fields: Record<string, unknown> = {}): TraceLine => ({ t, node, kind, ...fields }) as unknown as TraceLine;

test('fault intervals: partition and heal, pause and resume, Byzantine behaviour, wiped restart, clogged link, clock skew', (t) => {
  const tl = buildTimeline([
    line(0, null, 'run-started', { nodes: ['v0', 'v1', 'v2', 'v3'].map((name) => ({ name, address: null, role: 'validator', faulty: name === 'v3' })), validators: 4 }),
    line(100, null, 'fault', { fault: 'partition', groups: [['v0', 'v1'], ['v2', 'v3']] }),
    line(200, 'v1', 'fault', { fault: 'pause' }),
    line(300, 'v3', 'fault', { fault: 'byzantine', behaviour: 'equivocate' }),
    line(400, 'v2', 'fault', { fault: 'crash' }),
    line(500, null, 'fault', { fault: 'heal' }),
    line(600, 'v1', 'fault', { fault: 'resume' }),
    line(700, 'v2', 'fault', { fault: 'restart-wiped' }),
    line(700, 'v2', 'node-started', { wiped: true }),
    line(800, null, 'fault', { fault: 'clog', from: 'v0', to: 'v1' }),
    line(900, null, 'fault', { fault: 'unclog', from: 'v0', to: 'v1' }),
    line(950, 'v0', 'fault', { fault: 'clock-skew', skewMs: 300 }),
    line(1000, null, 'run-finished', { ok: false, height: 0, roundChanges: 0, maxRound: 0, invariants: { agreement: true, validity: true, liveness: null }, expectations: [{ text: 'x', ok: false }], errors: [] }),
  ]);
  const f = (node: string | null, kind: string) => tl.faults.filter((x) => x.node === node && x.kind === kind).map((x) => [x.startMs, x.endMs, x.ongoing]);
  t.deepEqual(f(null, 'partition'), [[100, 500, false]]);
  for (const n of ['v0', 'v1', 'v2', 'v3']) t.deepEqual(f(n, 'partition'), [[100, 500, false]]);
  t.regex(tl.faults.find((x) => x.node === 'v0' && x.kind === 'partition')!.detail, /with v0,v1; cut off from v2,v3/);
  t.deepEqual(f('v1', 'pause'), [[200, 600, false]]);
  t.deepEqual(f('v3', 'byzantine'), [[300, 1000, true]]);
  t.deepEqual(f('v2', 'crash'), [[400, 700, false]]);
  t.is(tl.faults.find((x) => x.kind === 'crash')!.endedBy, 'restart-wiped');
  t.deepEqual(f('v0', 'clog'), [[800, 900, false]]);
  t.deepEqual(f('v0', 'clock-skew'), [[950, 1000, true]]);
  t.true(tl.lanes[3]!.node.faulty);
  t.deepEqual(stateAt(tl, 150).partition, [['v0', 'v1'], ['v2', 'v3']]);
  t.deepEqual(stateAt(tl, 450).lanes.map((l) => l.up), [true, true, false, true]);
  t.like(tl.run.verdict, { ok: false, invariants: { agreement: true, validity: true, liveness: null } });
  const texts = moments(tl).map((m) => m.text);
  t.true(texts.includes('network: healed'));
  t.true(texts.includes('v2: restarted with a wiped data directory'));
});

test('a round change at the very last trace line shows as the phase the nodes end in', async (t) => {
  const tl = buildTimeline((await run).lines);
  const end = tl.run.endMs;
  const last = tl.roundChanges[tl.roundChanges.length - 1];
  t.is(last.atMs, end, 'proposer-crash ends on a round change (height 18 moves to round 1 at 30 s)');
  const v0 = stateAt(tl, end).lanes.find((l) => l.node === 'v0')!;
  t.is(v0.phase, 'round-change');
  t.is(v0.round, 1);
});
