import type { Scenario } from '../sim/scenario.ts';

export default {
  name: 'partition-2-2',
  description: 'A 2|2 partition leaves neither side a quorum: no block is made until it heals.',
  validators: 4,
  durationMs: 60_000,
  steps: [
    { atMs: 2_500, do: 'partition', groups: [['v0', 'v1'], ['v2', 'v3']] },
    { atMs: 12_000, do: 'heal' },
  ],
  expect: [
    { kind: 'height-by', atMs: 2_500, height: 2 },
    { kind: 'no-progress-between', fromMs: 4_000, toMs: 12_000 },
    { kind: 'min-height', height: 10 },
    { kind: 'no-fork' },
  ],
} satisfies Scenario;
