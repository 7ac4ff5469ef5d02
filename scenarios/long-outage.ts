import type { Scenario } from '../sim/scenario.ts';

// Besu #7642: two of four validators are down for 17 minutes; the survivors climb to round 10
// (1 + 2 + ... + 512 s). After the restart the restarted pair climbs too, until a round-change
// quorum forms and the chain recovers.
export default {
  name: 'long-outage',
  description: 'A long outage drives the survivors to round 10; after restarts the network converges on a round and recovers.',
  validators: 4,
  genesis: { requestTimeoutSeconds: 1 },
  durationMs: 3_600_000,
  steps: [
    { atMs: 1_500, do: 'crash', node: 'v1' },
    { atMs: 1_500, do: 'crash', node: 'v2' },
    { atMs: 1_030_000, do: 'restart', node: 'v1' },
    { atMs: 1_030_000, do: 'restart', node: 'v2' },
  ],
  expect: [
    { kind: 'max-round', min: 10 },
    { kind: 'no-progress-between', fromMs: 2_000, toMs: 1_030_000 },
    { kind: 'min-height', height: 100 },
    { kind: 'no-fork' },
  ],
} satisfies Scenario;
