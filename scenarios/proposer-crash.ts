import type { Scenario } from '../sim/scenario.ts';

// v2 proposes block 3 in round 0; it crashes just before, so the others time out and move to round 1.
export default {
  name: 'proposer-crash',
  description: 'The proposer of block 3 crashes; the round timer expires and the round-1 proposer takes over.',
  validators: 4,
  durationMs: 30_000,
  steps: [{ atMs: 2_500, do: 'crash', node: 'v2' }],
  expect: [
    { kind: 'round-changes', min: 1 },
    { kind: 'max-round', min: 1, max: 1 },
    { kind: 'height-by', atMs: 6_000, height: 3 },
    { kind: 'min-height', height: 15 },
    { kind: 'no-fork' },
  ],
} satisfies Scenario;
