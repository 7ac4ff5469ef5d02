import test from 'ava';
import fc from 'fast-check';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { maxFaulty } from '../node/consensus/qbft/quorum.ts';
import { DEFAULT_HEAL_MARGIN_MS, MIN_VALIDATOR_SET, scenarioArbitrary } from '../sim/fuzz-arbitraries.ts';
import { HOSTILE_BEHAVIOURS } from '../sim/byzantine.ts';
import { caseIndices, caseSeedFor, generateCase, judgeScenario, runFuzz } from '../sim/fuzz.ts';
import { runScenario } from '../sim/scenario-runner.ts';
import { validateScenario, type Scenario } from '../sim/scenario.ts';
import { main } from '../cli/main.ts';
import { captureIo } from '../cli/capture-io.ts';

const CAMPAIGN_SEED = 20_240_611;

test('generated scenarios are valid and stay within the fault model', (t) => {
  const scenarios = fc.sample(scenarioArbitrary(), { seed: 99, numRuns: 400 });
  let withFaults = 0;
  const coverage = new Map<string, number>();
  const cover = (what: string) => coverage.set(what, (coverage.get(what) ?? 0) + 1);
  for (const s of scenarios) {
    const copy = validateScenario(JSON.parse(JSON.stringify(s)));
    t.deepEqual(copy, s);
    t.true(s.validators >= 4 && s.validators <= 10);
    t.true(s.durationMs >= 20_000 && s.durationMs <= 60_000);
    t.is(s.genesis?.blockPeriodSeconds, 1);
    t.true(s.genesis?.requestTimeoutSeconds === 1 || s.genesis?.requestTimeoutSeconds === 2);
    const loss = s.network?.loss ?? 0;
    t.true(loss >= 0 && loss <= 0.05);
    const lat = s.network!.latency!;
    if (lat.kind === 'fixed') t.true(lat.ms >= 1 && lat.ms <= 200);
    else if (lat.kind === 'uniform') t.true(lat.minMs >= 1 && lat.minMs <= lat.maxMs && lat.maxMs <= 200);
    else t.fail('unexpected latency model');
    t.deepEqual(s.expect, [{ kind: 'no-fork' }]);
    t.true(Number.isSafeInteger(s.seed));
    const net = s.network!;
    if (net.duplicate !== undefined) t.true(net.duplicate > 0 && net.duplicate <= 0.3), cover('duplicated messages');
    if (net.reorder !== undefined) {
      t.true(net.reorder > 0 && net.reorder <= 0.5 && net.reorderWindowMs! >= 100 && net.reorderWindowMs! <= 1_500);
      cover('reordered messages');
    }
    const limit = s.genesis?.duplicateMessageLimit;
    if (limit !== undefined) t.true(limit >= 2 && limit <= 32), cover('small duplicate filter');
    if (net.gossip === false) cover('no re-gossip');
    if (s.genesis?.epochLength !== undefined) {
      t.true(s.genesis.epochLength >= 2 && s.genesis.epochLength <= 12);
      cover('epoch');
    }

    const f = maxFaulty(s.validators);
    const horizon = s.durationMs - DEFAULT_HEAL_MARGIN_MS;
    const validators = Array.from({ length: s.validators }, (_, i) => `v${i}`);
    const touched = new Set<string>();
    const byzantine = new Set<string>();
    const down = new Set<string>();
    const callers = new Set<string>();
    const sets: string[][] = [validators];
    let partitioned = false;
    let lastAt = -1;
    for (const st of s.steps) {
      t.true(st.atMs >= lastAt, 'steps are in time order');
      lastAt = st.atMs;
      if (st.do === 'transfer') continue;
      if (st.do === 'rpc') {
        callers.add(st.node);
        cover(`rpc ${st.method}`);
      if (st.method === 'qbft_getPendingVotes') t.false((s.genesis?.transitions ?? []).some((tr) => tr.contractValidators), 'no vote query in contract mode');
        if (st.method === 'qbft_proposeValidatorVote') cover('vote via rpc');
        continue;
      }
      if (st.do === 'vote') {
        for (const n of st.nodes) callers.add(n);
        cover(st.add ? 'vote add' : 'vote remove');
        continue;
      }
      withFaults++;
      t.true(st.atMs <= horizon || ('node' in st && st.node.endsWith('-twin') && st.atMs === 0), `${st.do} at ${st.atMs} is after the fault horizon ${horizon}`);
      const node = 'node' in st ? st.node.replace(/-twin$/, '') : '';
      if ('node' in st && st.node.endsWith('-twin')) {
        t.deepEqual(s.twins, [...new Set([...(s.twins ?? []), node])], 'a twin runs only for a twinned validator');
        t.true(st.do === 'crash' || st.do === 'restart');
        touched.add(node);
        cover('twin');
        continue;
      }
      if (st.do === 'crash') {
        t.false(byzantine.has(st.node));
        touched.add(st.node);
        down.add(st.node);
      } else if (st.do === 'restart') {
        if (!down.delete(st.node)) cover('restart while running');
        if (st.wipe) cover('wiped restart');
        touched.add(st.node);
      } else if (st.do === 'byzantine') {
        touched.add(st.node);
        byzantine.add(st.node);
        cover(`byzantine ${st.behaviour}`);
      } else if (st.do === 'skew') {
        touched.add(st.node);
      } else if (st.do === 'partition') {
        t.false(partitioned, 'partitions never overlap');
        partitioned = true;
        const listed = st.groups.flat();
        t.is(new Set(listed).size, listed.length);
        t.is(st.groups.length, 2);
      } else if (st.do === 'heal') {
        t.true(partitioned);
        partitioned = false;
      } else {
        t.fail(`unexpected step ${st.do}`);
      }
    }
    t.false(partitioned, 'every partition heals');
    t.true(touched.size <= f, `${touched.size} faulty validators > f = ${f}`);
    t.true(byzantine.size + down.size <= f);
    for (const node of byzantine) t.false(down.has(node));
    for (const node of callers) t.false(touched.has(node), `${node} is faulty but called or voted`);

    // Every validator set that can come into force tolerates the faulty validators in it.
    const votes = s.steps.flatMap((st) => (st.do === 'vote' ? [{ subject: st.subject, add: st.add, voters: st.nodes }] : []));
    const rpcVotes = s.steps.flatMap((st) => (st.do === 'rpc' && st.method === 'qbft_proposeValidatorVote' ? [st] : []));
    if (rpcVotes.length > 0) {
      const [subject, add] = rpcVotes[0].params as [string, boolean];
      votes.push({ subject, add, voters: rpcVotes.map((st) => st.node) });
    }
    for (const v of votes) {
      t.true(v.voters.length > s.validators / 2, 'votes come from a majority of validators');
      sets.push(v.add ? [...validators, v.subject] : validators.filter((x) => x !== v.subject));
    }
    let period = s.genesis?.blockPeriodSeconds ?? 1;
    for (const tr of s.genesis?.transitions ?? []) {
      if (tr.validators) sets.push(tr.validators), cover('transition validators');
      if (tr.contractValidators) sets.push(tr.contractValidators), cover('transition contract');
      if (tr.blockPeriodSeconds !== undefined) cover('transition block period');
      if (tr.blockPeriodSeconds !== undefined && tr.blockPeriodSeconds !== period) cover(tr.blockPeriodSeconds > period ? 'period lengthened' : 'period shortened');
      period = tr.blockPeriodSeconds ?? period;
      if (tr.blockReward !== undefined) cover('transition reward');
      if (tr.miningBeneficiary !== undefined) cover('transition beneficiary');
    }
    for (const set of sets) {
      t.true(set.length >= MIN_VALIDATOR_SET, `the validator set ${set.join(',')} has fewer than ${MIN_VALIDATOR_SET} members`);
      const faultyIn = set.filter((v) => touched.has(v)).length;
      t.true(faultyIn <= maxFaulty(set.length), `${faultyIn} faulty in the set ${set.join(',')}`);
    }
  }
  t.true(withFaults > 200, 'most scenarios have faults');
  const wanted = [
    ...HOSTILE_BEHAVIOURS.map((b) => `byzantine ${b}`),
    'duplicated messages', 'reordered messages', 'small duplicate filter', 'no re-gossip',
    'twin', 'restart while running', 'wiped restart', 'epoch', 'vote add', 'vote remove', 'vote via rpc',
    'transition validators', 'transition contract', 'transition block period', 'transition reward', 'transition beneficiary',
    'rpc eth_blockNumber', 'rpc eth_getBlockByNumber', 'rpc qbft_getValidatorsByBlockNumber',
  ];
  for (const what of wanted) t.true((coverage.get(what) ?? 0) > 0, `the fuzz covers: ${what}`);
  // A transition read at the wrong height shows when the period lengthens (a block too early) or shortens.
  t.true((coverage.get('period lengthened') ?? 0) >= 40, 'at least 10% of cases lengthen the block period');
  t.true((coverage.get('period shortened') ?? 0) >= 20, 'at least 5% of cases shorten it');
});

test('cases are independent of one another, so shards split a campaign exactly', (t) => {
  const all = caseIndices(23);
  const shards = [0, 1, 2].map((index) => caseIndices(23, { index, count: 3 }));
  t.deepEqual(shards.flat().sort((a, b) => a - b), all);
  t.deepEqual(shards[1], [1, 4, 7, 10, 13, 16, 19, 22]);
  t.throws(() => caseIndices(5, { index: 3, count: 3 }));
  const seeds = all.map((j) => caseSeedFor(CAMPAIGN_SEED, j));
  t.is(new Set(seeds).size, seeds.length);
  t.not(caseSeedFor(CAMPAIGN_SEED + 1, 0), seeds[0]);
  // Case j is the same scenario whichever process generates it, and it is what fc.check starts from.
  t.deepEqual(generateCase(CAMPAIGN_SEED, 4), generateCase(CAMPAIGN_SEED, 4));
  t.notDeepEqual(generateCase(CAMPAIGN_SEED, 4), generateCase(CAMPAIGN_SEED, 5));
  let first: Scenario | undefined;
  fc.check(fc.property(scenarioArbitrary(), (s) => { first ??= s; return true; }), { seed: caseSeedFor(CAMPAIGN_SEED, 4), numRuns: 1 });
  t.deepEqual(first, generateCase(CAMPAIGN_SEED, 4));
});

test('a bounded campaign finds no failure and checks liveness', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), `qbft-lab-fuzz-${CAMPAIGN_SEED}-`));
  try {
    const seen: number[] = [];
    const report = await runFuzz({ runs: 12, seed: CAMPAIGN_SEED, failureDir: dir, onCase: (info) => seen.push(info.caseIndex) });
    t.log(`runs ${report.runs}, liveness checked ${report.livenessChecked}, skipped ${report.livenessSkipped}, sim runs ${report.simRuns}`);
    for (const f of report.failures) t.log(`case ${f.caseIndex}: ${f.reason}\n${JSON.stringify(f.scenario)}`);
    t.deepEqual(report.failures, []);
    t.is(report.runs, 12);
    t.deepEqual(seen, caseIndices(12));
    t.true(report.livenessChecked > 0);
    t.is(report.livenessChecked + report.livenessSkipped, 12);
    t.is(report.determinismChecked, 2, 'cases 0 and 10 run twice');
    t.is(report.simRuns, 14);
    t.is(report.wallMs, undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** f + 1 = 2 twins of a 4-validator network: each side of the partition has a quorum and commits. */
function twinsForkArbitrary(): fc.Arbitrary<Scenario> {
  return fc
    .record({
      seed: fc.integer({ min: 1, max: 1_000_000 }),
      splitAtMs: fc.integer({ min: 1_500, max: 4_000 }),
      healAtMs: fc.integer({ min: 9_000, max: 14_000 }),
    })
    .map(({ seed, splitAtMs, healAtMs }): Scenario => ({
      name: `broken-twins-${seed}`,
      description: 'f + 1 twins: beyond what QBFT tolerates, so the fuzz property must fail',
      seed,
      validators: 4,
      twins: ['v0', 'v1'],
      genesis: { blockPeriodSeconds: 1, requestTimeoutSeconds: 1 },
      durationMs: 20_000,
      steps: [
        { atMs: 0, do: 'crash', node: 'v0-twin' },
        { atMs: 0, do: 'crash', node: 'v1-twin' },
        { atMs: splitAtMs, do: 'partition', groups: [['v0', 'v1', 'v2'], ['v0-twin', 'v1-twin', 'v3']] },
        { atMs: splitAtMs, do: 'restart', node: 'v0-twin' },
        { atMs: splitAtMs, do: 'restart', node: 'v1-twin' },
        { atMs: healAtMs, do: 'crash', node: 'v0-twin' },
        { atMs: healAtMs, do: 'crash', node: 'v1-twin' },
        { atMs: healAtMs, do: 'heal' },
      ],
      expect: [{ kind: 'no-fork' }],
    }));
}

test('the harness detects a fork, shrinks it and writes a scenario file that replays the failure', async (t) => {
  const seed = 7;
  const dir = mkdtempSync(join(tmpdir(), `qbft-lab-fuzz-broken-${seed}-`));
  try {
    const report = await runFuzz({ runs: 1, seed, failureDir: dir, arbitrary: twinsForkArbitrary(), maxShrinkRuns: 6 });
    t.is(report.runs, 1);
    t.is(report.failures.length, 1);
    const failure = report.failures[0];
    t.is(failure.caseIndex, 0);
    t.regex(failure.reason, /agreement/);
    t.false(failure.result!.invariants.agreement);
    t.true(failure.reproduced);
    t.true(failure.shrinks >= 1, 'fast-check shrank the counterexample');
    t.true(failure.scenario.steps[2].atMs <= failure.original.steps[2].atMs);

    t.is(failure.file, join(dir, `fuzz-failure-${seed}-0.json`));
    t.true(existsSync(failure.file!));
    t.is(basename(failure.file!), 'fuzz-failure-7-0.json');
    const fromFile = validateScenario(JSON.parse(readFileSync(failure.file!, 'utf8')), failure.file);
    t.is(fromFile.seed, failure.scenario.seed);
    t.deepEqual(fromFile.steps, failure.scenario.steps);
    const replay = await runScenario(fromFile);
    t.is(replay.traceHash, failure.result!.traceHash);
    t.false(replay.ok);
    t.false(replay.invariants.agreement);
    t.false((await judgeScenario(fromFile)).ok);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('fuzz --jobs takes an integer from 1 to 256', async (t) => {
  for (const jobs of ['0', '1.5', 'x', '257']) {
    const io = captureIo();
    t.is(await main(['fuzz', '--runs', '1', '--jobs', jobs], io), 2, jobs);
    t.regex(io.stderr, /--jobs: .* must be an integer from 1 to 256/);
  }
});
