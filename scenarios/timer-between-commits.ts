import type { Scenario } from '../sim/scenario.ts';

// Besu #1734: with slow links the round timer can fire after a validator has prepared (and sent
// its commit) but before it sees a quorum of commits. Its round change then carries the prepared
// certificate, and the next proposer must re-propose that same block: no fork.
export default {
  name: 'timer-between-commits',
  description: 'Round timers fire between prepare and commit on slow links; prepared blocks are re-proposed, never forked.',
  validators: 4,
  genesis: { requestTimeoutSeconds: 1 },
  network: { latency: { kind: 'uniform', minMs: 100, maxMs: 700 } },
  durationMs: 120_000,
  steps: [],
  expect: [
    { kind: 'trace-event', event: 'round-change-sent', min: 1, nonNullField: 'preparedRound' },
    { kind: 'min-height', height: 20 },
    { kind: 'no-fork' },
  ],
} satisfies Scenario;
