/**
 * Every validation rule's planted switch (plant-skip-RULE) is caught by the acceptance checker in a
 * short run with a break-rules validator; the checker's rule names are the node's.
 */
import test from 'ava';
import { VALIDATION_RULES, type ValidationRule } from '../../node/consensus/qbft/rules.ts';
import { PLANTED_BUG_IDS } from '../../node/bugs/bug-switches.ts';
import { runScenario } from '../scenario-runner.ts';
import type { Scenario } from '../scenario.ts';
import { RULE_NAMES } from './toolkit/qbft-rules.ts';
import { OPPORTUNISTIC } from '../byzantine/break-rules.ts';

/** Rules a break-rules node can break only as the proposer of a round above 0 (lossy runs make those). */
const AFTER_ROUND_CHANGES: readonly ValidationRule[] = OPPORTUNISTIC.filter((r) => r !== 'proposal-coinbase');

function scenario(rule: string, opts: { seed: number; durationMs: number; loss?: number }): Scenario {
  return {
    name: `skip-${rule}`,
    description: `v1 breaks every rule; the nodes skip ${rule}`,
    seed: opts.seed,
    validators: 4,
    genesis: { requestTimeoutSeconds: 1 },
    ...(opts.loss ? { network: { loss: opts.loss, gossip: false } } : {}),
    durationMs: opts.durationMs,
    steps: [{ atMs: 0, do: 'byzantine', node: 'v1', behaviour: 'break-rules' }],
    expect: [],
  };
}

test('the checker and the node name the same rules, in the same order, and each has a planted switch', (t) => {
  t.deepEqual([...RULE_NAMES], [...VALIDATION_RULES]);
  for (const rule of VALIDATION_RULES) t.true(PLANTED_BUG_IDS.includes(`plant-skip-${rule}`), rule);
});

for (const rule of VALIDATION_RULES) {
  test(`plant-skip-${rule} is caught by the acceptance checker`, async (t) => {
    // Loss without re-gossip makes round changes in which v1 proposes above round 0 (seeds 6 and 7 first, as in break-rules.test.ts).
    const lossySeeds = [6, 7, ...Array.from({ length: 20 }, (_, i) => i + 1)];
    const runs = AFTER_ROUND_CHANGES.includes(rule) ? lossySeeds.map((seed) => scenario(rule, { seed, durationMs: 30_000, loss: 0.08 })) : [scenario(rule, { seed: 1, durationMs: 20_000 })];
    const reasons: string[] = [];
    for (const s of runs) {
      const r = await runScenario(s, { bugs: [`plant-skip-${rule}`] });
      const v = r.violations.find((x) => x.checker === 'acceptance');
      if (v) reasons.push(v.reason);
      if (v) break;
    }
    t.is(reasons.length, 1, `no acceptance violation with plant-skip-${rule}`);
    t.regex(reasons[0] ?? '', new RegExp(`${rule}`), 'the violation names the skipped rule');
  });
}
