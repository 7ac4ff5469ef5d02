import type { Scenario } from '../sim/scenario.ts';

// v0 and v1 cast their votes in blocks 1 and 2; v2 discards its vote before proposing block 3, so
// the proposal never reaches the threshold of 3.
export default {
  name: 'discard-vote',
  description: 'A queued vote discarded before its proposer builds a block is never cast; o0 is not added.',
  validators: 4,
  observers: 1,
  durationMs: 20_000,
  steps: [
    { atMs: 500, do: 'vote', nodes: ['v0', 'v1', 'v2'], subject: 'o0', add: true },
    { atMs: 2_500, do: 'discard-vote', nodes: ['v2'], subject: 'o0' },
  ],
  expect: [
    { kind: 'validators-at', block: 15, validators: ['v0', 'v1', 'v2', 'v3'] },
    { kind: 'min-height', height: 15 },
    { kind: 'no-fork' },
  ],
} satisfies Scenario;
