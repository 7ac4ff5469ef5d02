import type { Scenario } from '../sim/scenario.ts';

// Threshold floor(4/2)+1 = 3: the votes ride in blocks 1 (v0), 2 (v1) and 3 (v2).
export default {
  name: 'add-validator',
  description: 'Three of four validators vote to add o0; it joins after the third vote and then proposes and seals.',
  validators: 4,
  observers: 1,
  durationMs: 30_000,
  // Votes are queued the way an operator does it: qbft_proposeValidatorVote over JSON-RPC.
  steps: ['v0', 'v1', 'v2', 'v3'].map((node) => ({ atMs: 500, do: 'rpc' as const, node, method: 'qbft_proposeValidatorVote', params: ['o0', true] })),
  expect: [
    { kind: 'validators-at', block: 3, validators: ['v0', 'v1', 'v2', 'v3'] },
    { kind: 'validators-at', block: 4, validators: ['v0', 'v1', 'v2', 'v3', 'o0'] },
    { kind: 'trace-event', event: 'rpc-call', min: 4 },
    { kind: 'min-height', height: 25 },
    { kind: 'no-fork' },
  ],
} satisfies Scenario;
