import type { Scenario } from '../sim/scenario.ts';

// twins-fork's schedule with API clients on v3, the node that reorganizes: logs land in blocks of
// the losing side at two moments (so several removed blocks carry logs), and after healing v3's
// eth_subscribe logs and eth_newFilter clients must get each of them again with removed: true,
// then the winning branch's logs, and its newHeads client the winning branch's blocks.
export default {
  name: 'reorg-api-clients',
  description: 'A twins fork seen through the API: v3\'s logs and filter clients get the losing branch\'s logs again with removed: true, checked against its trace and plain reads.',
  validators: 4,
  twins: ['v0', 'v1'],
  durationMs: 40_000,
  steps: [
    { atMs: 0, do: 'crash', node: 'v0-twin' },
    { atMs: 0, do: 'crash', node: 'v1-twin' },
    { atMs: 1_000, do: 'api-clients', node: 'v3', pollEveryMs: 1_500 },
    { atMs: 2_500, do: 'partition', groups: [['v0', 'v1', 'v2'], ['v0-twin', 'v1-twin', 'v3']] },
    { atMs: 2_500, do: 'restart', node: 'v0-twin' },
    { atMs: 2_500, do: 'restart', node: 'v1-twin' },
    { atMs: 4_000, do: 'transfer', node: 'v3', to: 'logger', count: 3 },
    { atMs: 7_000, do: 'transfer', node: 'v3', to: 'logger', count: 2 },
    { atMs: 12_000, do: 'crash', node: 'v1-twin' },
    { atMs: 25_000, do: 'crash', node: 'v0-twin' },
    { atMs: 25_000, do: 'heal' },
  ],
  expect: [
    { kind: 'fork' },
    { kind: 'reorg', nodes: ['v3'] },
    { kind: 'api-streams', nodes: ['v3'], minRemovedLogs: 5 },
    { kind: 'min-height', height: 30, nodes: ['v2', 'v3'] },
  ],
} satisfies Scenario;
