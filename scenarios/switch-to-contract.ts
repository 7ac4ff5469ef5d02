import type { Scenario } from '../sim/scenario.ts';

export default {
  name: 'switch-to-contract',
  description: 'A transition at block 6 moves validator selection from block-header votes to a contract listing v0, v1, v2.',
  validators: 4,
  genesis: { transitions: [{ block: 6, contractValidators: ['v0', 'v1', 'v2'] }] },
  durationMs: 20_000,
  steps: [],
  expect: [
    { kind: 'validators-at', block: 5, validators: ['v0', 'v1', 'v2', 'v3'] },
    { kind: 'validators-at', block: 6, validators: ['v0', 'v1', 'v2'] },
    { kind: 'validators-at', block: 15, validators: ['v0', 'v1', 'v2'] },
    { kind: 'min-height', height: 15 },
    { kind: 'no-fork' },
  ],
} satisfies Scenario;
