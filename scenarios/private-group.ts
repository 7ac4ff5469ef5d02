import type { Scenario } from '../sim/scenario.ts';

// Privacy on v1, v2 and v3; a group of v2 and v3 (v1 is a non-member). v2 deploys the group's
// storage contract; just before the network splits v3 stores 7 (its manager can still reach v2's,
// as Tessera needed every recipient up). Twins of v0 and v1 then let both halves commit, each with
// the marker in its next block. v3's half later loses: after healing v3 reorganizes onto v2's
// chain, its private log comes again with removed: true, then once more from the winning block,
// where v2 ran it too. v1 sees the markers only.
export default {
  name: 'private-group',
  description: 'A privacy group of two among three privacy nodes: a private contract deployed and called, logs to members only, removed: true after a reorganization.',
  validators: 4,
  twins: ['v0', 'v1'],
  privacy: { nodes: ['v1', 'v2', 'v3'], groups: [['v2', 'v3']] },
  durationMs: 60_000,
  steps: [
    { atMs: 0, do: 'crash', node: 'v0-twin' },
    { atMs: 0, do: 'crash', node: 'v1-twin' },
    { atMs: 1_000, do: 'private-tx', node: 'v2', group: 0, action: 'deploy' },
    { atMs: 3_450, do: 'private-tx', node: 'v3', group: 0, action: 'store', value: 7 },
    { atMs: 3_500, do: 'partition', groups: [['v0', 'v1', 'v2'], ['v0-twin', 'v1-twin', 'v3']] },
    { atMs: 3_500, do: 'restart', node: 'v0-twin' },
    { atMs: 3_500, do: 'restart', node: 'v1-twin' },
    { atMs: 12_000, do: 'crash', node: 'v1-twin' },
    { atMs: 25_000, do: 'crash', node: 'v0-twin' },
    { atMs: 25_000, do: 'heal' },
  ],
  expect: [
    { kind: 'fork' },
    { kind: 'reorg', nodes: ['v3'] },
    { kind: 'private-logs', nodes: ['v2'], min: 1 },
    { kind: 'private-logs', nodes: ['v3'], min: 2, removed: 1 },
    { kind: 'no-private-state', nodes: ['v1'] },
    { kind: 'min-height', height: 40, nodes: ['v2', 'v3'] },
  ],
} satisfies Scenario;
