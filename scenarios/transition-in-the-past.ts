import type { Scenario } from '../sim/scenario.ts';

// The operator of v3 adds a reward transition at block 5 and restarts v3 at block ~10: its stored
// blocks 5+ were sealed under the old rules, so v3 refuses to start (as a live node does, exit 2)
// instead of rewriting them; the other three go on.
export default {
  name: 'transition-in-the-past',
  description: 'One node restarted with a transition block in the past refuses to start; the other three go on.',
  validators: 4,
  durationMs: 40_000,
  steps: [{ atMs: 10_500, do: 'restart', node: 'v3', transitions: [{ block: 5, blockReward: '1000' }] }],
  expect: [
    { kind: 'trace-event', event: 'node-start-refused', min: 1 },
    { kind: 'min-height', height: 25, nodes: ['v0', 'v1', 'v2'] },
  ],
} satisfies Scenario;
