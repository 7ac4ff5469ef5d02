import type { Scenario } from '../sim/scenario.ts';

// Twins of v0 and v1 (f + 1 = 2 Byzantine keys) start once the network is partitioned, so that
// each side forms a quorum of 3:
// both sides commit, the chain forks (the scenario expects it). The side with v3 then loses its
// quorum, the other side grows longer, and after healing v3 reorganizes onto the longer chain,
// dropping the logs of its own side's blocks.
export default {
  name: 'twins-fork',
  description: 'f+1 twins split the network into two committing halves; after healing the shorter side reorganizes with removed logs.',
  validators: 4,
  twins: ['v0', 'v1'],
  durationMs: 60_000,
  steps: [
    { atMs: 0, do: 'crash', node: 'v0-twin' },
    { atMs: 0, do: 'crash', node: 'v1-twin' },
    { atMs: 2_500, do: 'partition', groups: [['v0', 'v1', 'v2'], ['v0-twin', 'v1-twin', 'v3']] },
    { atMs: 2_500, do: 'restart', node: 'v0-twin' },
    { atMs: 2_500, do: 'restart', node: 'v1-twin' },
    { atMs: 4_000, do: 'transfer', node: 'v3', to: 'logger', count: 5 },
    { atMs: 12_000, do: 'crash', node: 'v1-twin' },
    { atMs: 25_000, do: 'crash', node: 'v0-twin' },
    { atMs: 25_000, do: 'heal' },
  ],
  expect: [
    { kind: 'fork' },
    { kind: 'reorg', nodes: ['v3'] },
    { kind: 'removed-logs', nodes: ['v3'] },
    { kind: 'min-height', height: 40, nodes: ['v2', 'v3'] },
  ],
} satisfies Scenario;
