import type { Scenario } from '../sim/scenario.ts';

// v3's clock runs 0.9 s late, so its round timer would expire well after the others'. With
// --Xqbft-enable-early-round-change it jumps to round 1 as soon as f+1 = 2 validators ask for it.
export default {
  name: 'early-round-change',
  description: 'With early round change on, a lagging validator joins a higher round once f+1 validators move to it.',
  validators: 4,
  earlyRoundChange: true,
  durationMs: 30_000,
  steps: [
    { atMs: 0, do: 'skew', node: 'v3', ms: -900 },
    { atMs: 2_500, do: 'crash', node: 'v2' },
  ],
  expect: [
    { kind: 'trace-event', event: 'early-round-change', min: 1 },
    { kind: 'round-changes', min: 1 },
    { kind: 'min-height', height: 10 },
    { kind: 'no-fork' },
  ],
} satisfies Scenario;
