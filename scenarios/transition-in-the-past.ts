import type { Scenario } from '../sim/scenario.ts';

// The operator of v3 adds a reward transition at block 5 and restarts v3 at block ~10: v3's stored
// blocks 5+ no longer execute to their state roots under its rules, and neither do its peers'.
export default {
  name: 'transition-in-the-past',
  description: 'One node restarted with a transition block in the past forks off; the other three go on.',
  validators: 4,
  durationMs: 40_000,
  steps: [{ atMs: 10_500, do: 'restart', node: 'v3', transitions: [{ block: 5, blockReward: '1000' }] }],
  expect: [
    { kind: 'forked-off', node: 'v3' },
    { kind: 'min-height', height: 25, nodes: ['v0', 'v1', 'v2'] },
  ],
} satisfies Scenario;
