import type { Scenario } from '../sim/scenario.ts';

// With two of four down, height 2 cannot finish: rounds 0..4 expire after 2, 4, 8, 16 and 32 s.
export default {
  name: 'timeout-doubling',
  description: 'Four failed rounds in a row: each round timer is requesttimeoutseconds * 2^round; the chain recovers after restarts.',
  validators: 4,
  durationMs: 150_000,
  steps: [
    { atMs: 1_500, do: 'crash', node: 'v1' },
    { atMs: 1_500, do: 'crash', node: 'v2' },
    { atMs: 33_000, do: 'restart', node: 'v1' },
    { atMs: 33_000, do: 'restart', node: 'v2' },
  ],
  expect: [
    { kind: 'max-round', min: 4 },
    { kind: 'round-timeouts', rounds: 4 },
    { kind: 'no-progress-between', fromMs: 2_000, toMs: 33_000 },
    { kind: 'min-height', height: 5 },
    { kind: 'no-fork' },
  ],
} satisfies Scenario;
