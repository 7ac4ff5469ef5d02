import type { Scenario } from '../sim/scenario.ts';

// Besu #8307: a validator restarted with an empty data directory must sync the chain from its
// peers before it can take part again, and must not fork.
export default {
  name: 'wiped-restart',
  description: 'v1 restarts with a wiped data directory, syncs from genesis and rejoins consensus.',
  validators: 4,
  durationMs: 40_000,
  steps: [{ atMs: 15_000, do: 'restart', node: 'v1', wipe: true }],
  expect: [
    { kind: 'min-height', height: 35, nodes: ['v0', 'v1', 'v2', 'v3'] },
    { kind: 'no-fork' },
  ],
} satisfies Scenario;
