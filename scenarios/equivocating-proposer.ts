import type { Scenario } from '../sim/scenario.ts';

// f = 1: v1 sends one block to some peers and another to the rest whenever it proposes. At most
// one of the two can gather a quorum of prepares, so honest nodes never disagree.
export default {
  name: 'equivocating-proposer',
  description: 'A Byzantine proposer (f = 1) equivocates; honest validators never commit different blocks.',
  validators: 4,
  durationMs: 40_000,
  steps: [{ atMs: 0, do: 'byzantine', node: 'v1', behaviour: 'equivocate' }],
  expect: [
    { kind: 'min-height', height: 20 },
    { kind: 'no-fork' },
  ],
} satisfies Scenario;
