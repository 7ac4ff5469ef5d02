import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fuzz } from 'qbft-lab';
import { heightCap } from './extensions.ts';

test('random fault schedules keep our property and the built-in invariants', async () => {
  const report = await fuzz({ runs: 3, seed: 11, extensions: { checkers: [heightCap(10_000)] } });
  assert.equal(report.failures.length, 0, report.failures.map((f) => f.reason).join('\n'));
  assert.equal(report.runs, 3);
});

test('a property that cannot hold is found and shrunk to a replayable scenario', async () => {
  const report = await fuzz({ runs: 2, seed: 11, maxShrinkRuns: 5, determinismEvery: 0, extensions: { checkers: [heightCap(0)] } });
  assert.ok(report.failures.length > 0);
  const failure = report.failures[0]!;
  assert.match(failure.reason, /height-cap/);
  assert.equal(failure.reproduced, true);
});
