import type { Scenario } from '../sim/scenario.ts';

export default {
  name: 'remove-validator',
  description: 'Three validators vote v3 out; from the block after the third vote the set is v0, v1, v2.',
  validators: 4,
  durationMs: 30_000,
  steps: [{ atMs: 500, do: 'vote', nodes: ['v0', 'v1', 'v2'], subject: 'v3', add: false }],
  expect: [
    { kind: 'validators-at', block: 3, validators: ['v0', 'v1', 'v2', 'v3'] },
    { kind: 'validators-at', block: 4, validators: ['v0', 'v1', 'v2'] },
    { kind: 'min-height', height: 25 },
    { kind: 'no-fork' },
  ],
} satisfies Scenario;
