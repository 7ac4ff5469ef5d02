import type { Scenario } from '../sim/scenario.ts';

// v0 and v1 vote in blocks 1 and 2, then drop the vote from their queues. Block 4 is an epoch
// block and clears the tally, so the votes of v2 (block 7) and v3 (block 8) are only two of three.
export default {
  name: 'epoch-reset',
  description: 'An epoch block discards outstanding votes: two votes before it and two after never add o0.',
  validators: 4,
  observers: 1,
  genesis: { epochLength: 4 },
  durationMs: 20_000,
  steps: [
    { atMs: 500, do: 'vote', nodes: ['v0', 'v1'], subject: 'o0', add: true },
    { atMs: 2_500, do: 'discard-vote', nodes: ['v0', 'v1'], subject: 'o0' },
    { atMs: 4_500, do: 'vote', nodes: ['v2', 'v3'], subject: 'o0', add: true },
  ],
  expect: [
    { kind: 'validators-at', block: 12, validators: ['v0', 'v1', 'v2', 'v3'] },
    { kind: 'min-height', height: 15 },
    { kind: 'no-fork' },
  ],
} satisfies Scenario;
