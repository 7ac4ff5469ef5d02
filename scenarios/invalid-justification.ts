import type { Scenario } from '../sim/scenario.ts';

// v2 (round-0 proposer of block 3) crashes; v3 proposes round 1 but, being Byzantine, strips the
// round-change certificate down to one message. Honest validators reject that proposal, move to
// round 2, and v0 proposes a properly justified block.
export default {
  name: 'invalid-justification',
  description: 'A Byzantine round-change proposal without a quorum of round changes is rejected; the next round succeeds.',
  validators: 4,
  durationMs: 30_000,
  steps: [
    { atMs: 0, do: 'byzantine', node: 'v3', behaviour: 'invalid-justification' },
    { atMs: 2_500, do: 'crash', node: 'v2' },
  ],
  expect: [
    { kind: 'trace-event', event: 'message-rejected', min: 2 },
    { kind: 'max-round', min: 2 },
    { kind: 'min-height', height: 8, nodes: ['v0', 'v1'] },
    { kind: 'no-fork' },
  ],
} satisfies Scenario;
