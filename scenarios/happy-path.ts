import type { Scenario } from '../sim/scenario.ts';

export default {
  name: 'happy-path',
  description: 'Four validators, no faults: one block per block period, every block in round 0.',
  validators: 4,
  durationMs: 30_000,
  steps: [],
  expect: [
    { kind: 'min-height', height: 28 },
    { kind: 'round-changes', max: 0 },
    { kind: 'no-fork' },
  ],
} satisfies Scenario;
