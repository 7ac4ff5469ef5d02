/**
 * break-rules among honest validators: every hostile message is tied (by its content key, which
 * the node traces with its verdict) to the rule it targets, and honest nodes must reject each one
 * under exactly that rule while the cluster keeps agreement and keeps making blocks. With a rule
 * switched off (a planted switch), the same messages are accepted or rejected under a later rule.
 */
import test, { type ExecutionContext } from 'ava';
import { bytesToHex, type Hex } from '../../node/crypto/bytes.ts';
import { keccak256 } from '../../node/crypto/keccak.ts';
import { VALIDATION_RULES, type ValidationRule } from '../../node/consensus/qbft/rules.ts';
import { runScenario, type RunResult } from '../scenario-runner.ts';
import type { Scenario } from '../scenario.ts';
import type { World } from '../world.ts';
import { breakRules, OPPORTUNISTIC, planBreakRules } from './break-rules.ts';
import type { Behaviour } from './kit.ts';

/** Rules this node can break only as the proposer of a round above 0, over genuine round changes. */
const AFTER_ROUND_CHANGES: readonly ValidationRule[] = OPPORTUNISTIC.filter((r) => r !== 'proposal-coinbase');
const ALWAYS = VALIDATION_RULES.filter((r) => !AFTER_ROUND_CHANGES.includes(r));

interface Verdict {
  node: string;
  target: ValidationRule;
  /** The rule an honest node rejected it under, or 'accepted'. */
  outcome: string;
}

interface TracedRun {
  result: RunResult;
  world: World;
  verdicts: Verdict[];
}

const TRACED = 'break-rules-traced';

function scenario(name: string, opts: { seed?: number; validators?: number; durationMs: number; loss?: number; byzantine?: string[]; behaviour?: string }): Scenario {
  const byzantine = opts.byzantine ?? ['v1'];
  return {
    name,
    description: `${byzantine.join(', ')} break every validation rule`,
    seed: opts.seed ?? 1,
    validators: opts.validators ?? 4,
    genesis: { requestTimeoutSeconds: 1 },
    ...(opts.loss ? { network: { loss: opts.loss, gossip: false } } : {}),
    durationMs: opts.durationMs,
    steps: byzantine.map((node) => ({ atMs: 0, do: 'byzantine' as const, node, behaviour: opts.behaviour ?? TRACED })),
    expect: [{ kind: 'no-fork' }],
  };
}

/** Runs break-rules (v1) noting the rule each hostile message targets, and collects honest verdicts on them. */
async function runTraced(s: Scenario, bugs: string[] = []): Promise<TracedRun> {
  const targets = new Map<Hex, ValidationRule>();
  const traced: Behaviour = { ...breakRules, plan: (kit, out) => planBreakRules(kit, out, (h) => targets.set(bytesToHex(keccak256(h.message.data)), h.rule)) };
  const verdicts: Verdict[] = [];
  let world: World | undefined;
  const result = await runScenario(s, {
    bugs,
    behaviours: { [TRACED]: traced },
    onWorld: (w) => {
      world = w;
      w.trace.subscribe((line) => {
        if (line.node === null || line.node === 'v1' || (line.kind !== 'message-rejected' && line.kind !== 'message-accepted')) return;
        const target = line.key && targets.get(line.key);
        if (target) verdicts.push({ node: line.node, target, outcome: line.kind === 'message-accepted' ? 'accepted' : line.rule });
      });
    },
  });
  return { result, world: world!, verdicts };
}

function assertSafeAndLive(t: ExecutionContext, result: RunResult, minHeight: number, label = ''): void {
  t.deepEqual(result.errors, [], `${label}errors`);
  t.deepEqual(result.violations.map((v) => `${v.checker}: ${v.reason}`), [], `${label}invariant checkers`);
  t.true(result.invariants.agreement && result.invariants.validity, `${label}agreement and validity`);
  t.not(result.invariants.liveness, false, `${label}liveness`);
  t.true(result.height >= minHeight, `${label}height ${result.height} >= ${minHeight}`);
}

const offTarget = (verdicts: Verdict[]) => verdicts.filter((v) => v.outcome !== v.target).map((v) => `${v.node}: ${v.target} -> ${v.outcome}`);

test('four validators: every rule but those needing round changes is broken, and honest nodes reject each message under the rule it targets', async (t) => {
  const { result, world, verdicts } = await runTraced(scenario('break-rules-4', { durationMs: 20_000 }));
  assertSafeAndLive(t, result, 15);
  t.deepEqual(offTarget(verdicts), [], 'every verdict is a rejection under the targeted rule');
  const rejected = new Set(verdicts.map((v) => v.outcome));
  t.deepEqual(ALWAYS.filter((r) => !rejected.has(r)), [], 'rules no honest node rejected a hostile message under');
  t.deepEqual(ALWAYS.filter((r) => !(result.ruleMarks[r] > 0)), [], 'the acceptance checker marks every rule too');
  const counts = world.get('v1').byzantine.counts ?? {};
  t.deepEqual(ALWAYS.filter((r) => !(counts[`break-rules:${r}`] > 0)), [], 'every rule counted as an act');
  t.log(`height ${result.height}; ${verdicts.length} rejections; acts ${JSON.stringify(counts)}`);
});

test('seven validators, two of them breaking rules: the cluster stays safe and live and every rule is exercised', async (t) => {
  const result = await runScenario(scenario('break-rules-7', { validators: 7, durationMs: 15_000, byzantine: ['v1', 'v4'], behaviour: 'break-rules' }));
  assertSafeAndLive(t, result, 11);
  t.deepEqual(ALWAYS.filter((r) => !(result.ruleMarks[r] > 0)), [], 'rules no honest verdict was about');
});

test('after round changes, as the proposer over genuine round changes, it breaks the three justification rules that need them', async (t) => {
  const seen = new Set<string>();
  // Lossy runs without re-gossip, so rounds fail; seeds 6 and 7 are known to show all three.
  for (const seed of [6, 7, ...Array.from({ length: 20 }, (_, i) => i + 1)]) {
    const { result, verdicts } = await runTraced(scenario(`break-rules-lossy-${seed}`, { seed, durationMs: 30_000, loss: 0.08 }));
    assertSafeAndLive(t, result, 10, `seed ${seed}: `);
    t.deepEqual(offTarget(verdicts), [], `seed ${seed}: every verdict is a rejection under the targeted rule`);
    for (const v of verdicts) seen.add(v.outcome);
    if (AFTER_ROUND_CHANGES.every((r) => seen.has(r))) break;
  }
  t.deepEqual(AFTER_ROUND_CHANGES.filter((r) => !seen.has(r)), []);
});

test('plant-skip-prepare-quorum: honest nodes accept the round change whose certificate is short of a quorum, and the acceptance checker reports it', async (t) => {
  const { result, verdicts } = await runTraced(scenario('break-rules-skip-prepare-quorum', { durationMs: 20_000 }), ['plant-skip-prepare-quorum']);
  const short = verdicts.filter((v) => v.target === 'prepare-quorum');
  t.true(short.length > 0 && short.every((v) => v.outcome === 'accepted'), JSON.stringify(short));
  t.true(result.violations.some((v) => v.checker === 'acceptance'));
});

test('plant-skip-proposal-not-proposer: the proposal from a non-proposer is then rejected under a later rule', async (t) => {
  const { verdicts } = await runTraced(scenario('break-rules-skip-not-proposer', { durationMs: 10_000 }), ['plant-skip-proposal-not-proposer']);
  const outcomes = new Set(verdicts.filter((v) => v.target === 'proposal-not-proposer').map((v) => v.outcome));
  t.deepEqual([...outcomes], ['justification-round-change-quorum']);
});
