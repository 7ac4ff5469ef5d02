import type { Scenario } from '../sim/scenario.ts';

export default {
  name: 'two-of-four-crashed',
  description: 'Two of four validators crash: no quorum, the chain halts; both restart and the chain resumes.',
  validators: 4,
  durationMs: 90_000,
  steps: [
    { atMs: 2_500, do: 'crash', node: 'v1' },
    { atMs: 2_500, do: 'crash', node: 'v2' },
    { atMs: 20_000, do: 'restart', node: 'v1' },
    { atMs: 20_000, do: 'restart', node: 'v2' },
  ],
  expect: [
    { kind: 'height-by', atMs: 2_500, height: 2 },
    { kind: 'max-round', min: 2 },
    { kind: 'min-height', height: 10 },
    { kind: 'no-fork' },
  ],
} satisfies Scenario;
