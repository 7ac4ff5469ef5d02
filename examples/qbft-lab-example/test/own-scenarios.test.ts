import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defineScenario, runScenario, ScenarioError, World } from 'qbft-lab';
import { heightCap, muteCommits, pullPlug } from './extensions.ts';

const extensions = { checkers: [heightCap(1000)], behaviours: { 'mute-commits': muteCommits }, steps: { 'pull-plug': pullPlug } };
const names = { behaviours: Object.keys(extensions.behaviours), steps: Object.keys(extensions.steps) };

const scenario = defineScenario(
  {
    name: 'one-mute-validator-then-a-crash',
    description: 'v3 never sends commit messages and v2 loses power at 8 s: v3 still seals blocks with its own commit and those of v0 and v1, and announces them, so the chain goes on',
    validators: 4,
    durationMs: 20_000,
    steps: [
      { atMs: 0, do: 'byzantine', node: 'v3', behaviour: 'mute-commits' },
      { atMs: 8_000, do: 'custom', name: 'pull-plug', args: { node: 'v2' } },
    ],
    expect: [{ kind: 'min-height', height: 15 }, { kind: 'no-fork' }],
  },
  names,
);

test('a scenario with our own behaviour, step and checker runs and passes', async () => {
  let world: World | undefined;
  const result = await runScenario(scenario, { ...extensions, onWorld: (w) => (world = w) });
  assert.equal(result.ok, true, JSON.stringify(result.expectations));
  assert.ok((world!.get('v3').byzantine.counts?.['mute-commits:dropped'] ?? 0) > 0, 'the behaviour ran');
  assert.equal(world!.get('v2').status, 'crashed', 'the custom step ran');
});

test('our checker fails a run that breaks its property', async () => {
  const result = await runScenario(scenario, { ...extensions, checkers: [heightCap(2)] });
  assert.equal(result.ok, false);
  assert.equal(result.violations.at(-1)?.checker, 'height-cap');
});

test('the same run replays byte for byte', async () => {
  const a = await runScenario(scenario, { ...extensions, seed: 5 });
  const b = await runScenario(scenario, { ...extensions, seed: 5 });
  assert.equal(a.traceHash, b.traceHash);
});

test('a scenario naming a step the project did not register is refused', () => {
  assert.throws(() => defineScenario({ ...scenario, steps: [{ atMs: 0, do: 'custom', name: 'nope' }] }, names), ScenarioError);
});
