/** validateScenario (and defineScenario) check every node name a scenario uses against its network. */
import test from 'ava';
import { SCENARIOS } from '../scenarios/index.ts';
import { defineScenario } from '../index.ts';
import { ScenarioError, validateScenario, type Scenario } from './scenario.ts';

const base: Scenario = { name: 'names', description: '', validators: 4, durationMs: 10_000, steps: [], expect: [] };

const bad: Array<[string, Partial<Scenario>, string]> = [
  ['partition v7', { steps: [{ atMs: 0, do: 'heal' }, { atMs: 0, do: 'heal' }, { atMs: 1000, do: 'partition', groups: [['v0', 'v1'], ['v7', 'v3']] }] },
    "file.json: steps[2].groups[1][0]: unknown node 'v7' (this network has v0..v3)"],
  ['crash v9', { steps: [{ atMs: 1000, do: 'crash', node: 'v9' }] }, "file.json: steps[0].node: unknown node 'v9' (this network has v0..v3)"],
  ['expectation naming a missing node', { expect: [{ kind: 'min-height', height: 3, nodes: ['v0', 'o0'] }] },
    "file.json: expect[0].nodes[1]: unknown node 'o0' (this network has v0..v3)"],
  ['forked-off node', { expect: [{ kind: 'forked-off', node: 'v4' }] }, "expect[0].node: unknown node 'v4'"],
  ['clog to', { steps: [{ atMs: 0, do: 'clog', from: 'v0', to: 'v4' }] }, "steps[0].to: unknown node 'v4'"],
  ['vote subject', { steps: [{ atMs: 0, do: 'vote', nodes: ['v0'], subject: 'o1', add: true }] }, "steps[0].subject: unknown node 'o1'"],
  ['transfer node', { steps: [{ atMs: 0, do: 'transfer', count: 1, node: 'v5' }] }, "steps[0].node: unknown node 'v5'"],
  ['validators-at', { expect: [{ kind: 'validators-at', block: 2, validators: ['v0', 'x'] }] }, "expect[0].validators[1]: unknown node 'x'"],
  ['twin of a missing node', { twins: ['v4'] }, "twins[0]: unknown node 'v4'"],
  ['observers and twins are named', { observers: 2, twins: ['v1'], steps: [{ atMs: 0, do: 'pause', node: 'o2' }] },
    "steps[0].node: unknown node 'o2' (this network has v0..v3, o0..o1, v1-twin)"],
];

for (const [what, change, message] of bad) {
  test(`a scenario naming a node its network lacks is refused: ${what}`, (t) => {
    const s = { ...base, ...change };
    const err = t.throws(() => validateScenario(JSON.parse(JSON.stringify(s)), 'file.json'), { instanceOf: ScenarioError });
    t.true(err!.message.includes(message), err!.message);
    t.throws(() => defineScenario(s), { instanceOf: ScenarioError, message: new RegExp(message.replace(/^file\.json: /, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) });
  });
}

test('node names the network has, addresses and test accounts are accepted', (t) => {
  const s: Scenario = {
    ...base,
    observers: 1,
    twins: ['v2'],
    steps: [
      { atMs: 0, do: 'partition', groups: [['v0', 'v1'], ['v2', 'v3', 'o0', 'v2-twin']] },
      { atMs: 0, do: 'vote', nodes: ['v0'], subject: 'o0', add: true },
      { atMs: 0, do: 'transfer', count: 1, to: 'account1' },
      { atMs: 0, do: 'transfer', count: 1, node: 'o0', to: 'logger' },
    ],
    expect: [
      { kind: 'balance-equals', account: '0x' + '11'.repeat(20), wei: '0' },
      { kind: 'validators-at', block: 1, validators: ['v0', 'v1', 'v2', 'v3'] },
      { kind: 'min-height', height: 1, nodes: ['v2-twin'] },
    ],
  };
  t.notThrows(() => validateScenario(JSON.parse(JSON.stringify(s))));
});

test('every built-in scenario validates', (t) => {
  for (const s of SCENARIOS) t.notThrows(() => validateScenario(JSON.parse(JSON.stringify(s)), s.name), s.name);
});
