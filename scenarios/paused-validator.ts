import type { Scenario } from '../sim/scenario.ts';

// A stop-the-world pause (a long GC, a suspended VM): v2's timers freeze and its messages are held
// both ways. The other three keep a quorum; on resume v2 gets the held messages, fires its late
// timers, and follows the chain again.
export default {
  name: 'paused-validator',
  description: 'A validator freezes for 8 s; the rest go on, and it catches up when it resumes.',
  validators: 4,
  durationMs: 30_000,
  steps: [
    { atMs: 3_500, do: 'pause', node: 'v2' },
    { atMs: 11_500, do: 'resume', node: 'v2' },
  ],
  expect: [
    { kind: 'height-by', atMs: 11_000, height: 8, nodes: ['v0', 'v1', 'v3'] },
    { kind: 'min-height', height: 25, nodes: ['v0', 'v1', 'v2', 'v3'] },
    { kind: 'no-fork' },
  ],
} satisfies Scenario;
