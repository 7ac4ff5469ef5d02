import type { Scenario } from '../sim/scenario.ts';

export default {
  name: 'partition-3-1',
  description: 'v3 is cut off; the other three keep a quorum and go on; after healing v3 catches up by sync.',
  validators: 4,
  durationMs: 40_000,
  steps: [
    { atMs: 2_500, do: 'partition', groups: [['v0', 'v1', 'v2'], ['v3']] },
    { atMs: 20_000, do: 'heal' },
  ],
  expect: [
    { kind: 'height-by', atMs: 20_000, height: 12, nodes: ['v0', 'v1', 'v2'] },
    { kind: 'min-height', height: 30, nodes: ['v0', 'v1', 'v2', 'v3'] },
    { kind: 'no-fork' },
  ],
} satisfies Scenario;
