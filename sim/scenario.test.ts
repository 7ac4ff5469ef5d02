/**
 * validateScenario (and defineScenario) check a scenario against its network before a run: node
 * names, times, windows, heights, step arguments, genesis and transitions, naming the field's path.
 */
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

const ABSOLUTE = "steps[0].atMs 1700000001000 looks like an absolute virtual timestamp: times are milliseconds from the start of the run (1700000000000 on the simulator's clock), so write 1000 for 1 s in";

/** Times: milliseconds from the start, within the run; windows in order. */
const badTimes: Array<[string, Partial<Scenario>, string]> = [
  ['an absolute virtual timestamp', { steps: [{ atMs: 1_700_000_001_000, do: 'crash', node: 'v1' }] }, ABSOLUTE],
  ['an absolute timestamp past the end', { steps: [{ atMs: 1_700_000_060_000, do: 'heal' }] }, 'so write 60000 for 60 s in, after the run ends at 10 s'],
  ['a step after the end', { steps: [{ atMs: 12_500, do: 'crash', node: 'v1' }] }, 'steps[0].atMs 12500 (12.5 s) is after the run ends at durationMs 10000 (10 s); times are milliseconds from the start of the run'],
  ['a negative time', { steps: [{ atMs: -1, do: 'heal' }] }, 'steps[0].atMs must be a non-negative integer (milliseconds from the start of the run), got -1'],
  ['a fractional time', { steps: [{ atMs: 1.5, do: 'heal' }] }, 'steps[0].atMs must be a non-negative integer'],
  ['a time as text', { steps: [{ atMs: '5s' as never, do: 'heal' }] }, 'steps[0].atMs must be a non-negative integer (milliseconds from the start of the run), got "5s"'],
  ['a heal before its partition', { steps: [{ atMs: 5000, do: 'partition', groups: [['v0'], ['v1', 'v2', 'v3']] }, { atMs: 2000, do: 'heal' }] },
    'steps[1] (heal at 2 s) has no partition to heal; steps[0] (partition at 5 s) comes later: a heal must come after its partition'],
  ['a restart before its crash', { steps: [{ atMs: 5000, do: 'crash', node: 'v2' }, { atMs: 3000, do: 'restart', node: 'v2' }] },
    'steps[1] (restart at 3 s) restarts v2, which is running then; steps[0] (crash at 5 s) comes later: a restart must come after its crash'],
  ['a resume with no pause', { steps: [{ atMs: 3000, do: 'resume', node: 'v2' }] }, 'steps[0] (resume at 3 s) resumes v2, which is not paused then'],
  ['an unclog before its clog', { steps: [{ atMs: 1000, do: 'unclog', from: 'v0', to: 'v1' }, { atMs: 4000, do: 'clog', from: 'v0', to: 'v1' }] },
    'steps[0] (unclog at 1 s) unclogs v0 -> v1, which is not clogged then; steps[1] (clog at 4 s) comes later: an unclog must come after its clog'],
  ['an expectation time after the end', { expect: [{ kind: 'height-by', atMs: 20_000, height: 3 }] }, 'expect[0].atMs 20000 (20 s) is after the run ends'],
  ['a no-progress window backwards', { expect: [{ kind: 'no-progress-between', fromMs: 6000, toMs: 2000 }] }, 'expect[0].toMs must not be before fromMs (6000 > 2000)'],
];

/** Heights, step arguments, genesis and transitions. */
const badArguments: Array<[string, Partial<Scenario>, string]> = [
  ['a negative height', { expect: [{ kind: 'min-height', height: -1 }] }, 'expect[0].height must be a non-negative integer, got -1'],
  ['a height as text', { expect: [{ kind: 'max-height', height: '5' as never }] }, 'expect[0].height must be a non-negative integer, got "5"'],
  ['validators of block 0', { expect: [{ kind: 'validators-at', block: 0, validators: ['v0'] }] }, 'expect[0].block must be a positive integer, got 0'],
  ['round changes with no bound', { expect: [{ kind: 'round-changes' }] }, 'expect[0] must give min, max or both'],
  ['a wei amount that is not a number', { expect: [{ kind: 'balance-equals', account: 'account1', wei: '1e18' }] }, 'expect[0].wei must be a decimal or 0x-hex string of a non-negative integer, got "1e18"'],
  ['a test account that does not exist', { expect: [{ kind: 'balance-at-least', account: 'account3', wei: '1' }] }, "expect[0].account: unknown test account 'account3'"],
  ['overlapping partition groups', { steps: [{ atMs: 0, do: 'partition', groups: [['v0', 'v1'], ['v1', 'v2']] }] }, "steps[0].groups[1][0]: 'v1' is in groups 0 and 1 too (groups must not overlap)"],
  ['an empty partition group', { steps: [{ atMs: 0, do: 'partition', groups: [['v0'], []] }] }, 'steps[0].groups[1] must be a non-empty array of node names'],
  ['an unknown Byzantine behaviour', { steps: [{ atMs: 0, do: 'byzantine', node: 'v3', behaviour: 'lie' }] }, 'steps[0].behaviour must be one of equivocate, silent,'],
  ['a loss above 1', { network: { loss: 1.5 } }, 'network.loss must be a probability from 0 to 1, got 1.5'],
  ['no peers at all', { network: { maxPeers: 0 } }, 'network.maxPeers'],
  ['a latency range backwards', { network: { latency: { kind: 'uniform', minMs: 50, maxMs: 10 } } }, 'network.latency.minMs must not be above maxMs (50 > 10)'],
  ['no transfers', { steps: [{ atMs: 0, do: 'transfer', count: 0 }] }, 'steps[0].count must be an integer from 1 to 10000, got 0'],
  ['a sender that is not a test account', { steps: [{ atMs: 0, do: 'transfer', count: 1, fromAccount: 3 }] }, 'steps[0].fromAccount must be an integer from 0 to 2, got 3'],
  ['a vote that says neither in nor out', { steps: [{ atMs: 0, do: 'vote', nodes: ['v0'], subject: 'v3' } as never] }, 'steps[0].add must be true (vote the subject in) or false (vote it out)'],
  ['a clogged link to itself', { steps: [{ atMs: 0, do: 'clog', from: 'v1', to: 'v1' }] }, 'steps[0].to must differ from steps[0].from'],
  ['a skew that is not a number of ms', { steps: [{ atMs: 0, do: 'skew', node: 'v1', ms: 'fast' as never }] }, 'steps[0].ms must be an integer'],
  ['an rpc step without a method', { steps: [{ atMs: 0, do: 'rpc', node: 'v1' } as never] }, 'steps[0].method must be a non-empty string'],
  ['a step kind that does not exist', { steps: [{ atMs: 0, do: 'explode' } as never] }, 'steps[0].do must be one of crash, restart,'],
  ['a transition naming a missing validator', { genesis: { transitions: [{ block: 5, validators: ['v0', 'v9'] }] } }, "genesis.transitions[0].validators[1]: unknown node 'v9' (this network has v0..v3)"],
  ['a transition at a negative block', { genesis: { transitions: [{ block: -1, blockPeriodSeconds: 2 }] } }, 'genesis.transitions[0].block must be a non-negative integer, got -1'],
  ['a block reward that is not a number', { genesis: { blockReward: 'one ether' } }, 'genesis.blockReward must be a decimal or 0x-hex string of a non-negative integer, got "one ether"'],
  ['a restart with a transition naming a missing node', { steps: [{ atMs: 0, do: 'restart', node: 'v1', transitions: [{ block: 2, miningBeneficiary: 'o3' }] }] },
    "steps[0].transitions[0].miningBeneficiary: unknown node 'o3'"],
  ['a misconfigured node with a bad transition', { misconfigured: [{ node: 'v1', transitions: [{ block: 1.5 }] }] }, 'misconfigured[0].transitions[0].block must be a non-negative integer, got 1.5'],
  ['two validator contracts', { genesis: { transitions: [{ block: 2, contractValidators: ['v0'] }, { block: 4, contractValidators: ['v1'] }] } },
    'genesis.transitions[1].contractValidators is a second validator contract; the run deploys one (genesis.transitions[0].contractValidators)'],
  ['genesis transitions beside a base genesis file', { baseGenesis: { config: {} }, genesis: { transitions: [{ block: 2, blockPeriodSeconds: 2 }] } },
    "genesis.transitions is not applied with baseGenesis (only blockPeriodSeconds, requestTimeoutSeconds, duplicateMessageLimit are): put it in the baseGenesis file's config.qbft"],
];

for (const [what, change, message] of [...badTimes, ...badArguments]) {
  test(`a scenario with a mistake is refused, naming its path: ${what}`, (t) => {
    const s = { ...base, ...change } as Scenario;
    const err = t.throws(() => validateScenario(JSON.parse(JSON.stringify(s)), 'file.json'), { instanceOf: ScenarioError });
    t.true(err!.message.startsWith('file.json: '), err!.message);
    t.true(err!.message.includes(message), err!.message);
    t.false(err!.message.includes('\n'));
    t.throws(() => defineScenario(s), { instanceOf: ScenarioError, message: new RegExp(message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) });
  });
}

test('windows in order, heals with nothing to heal, restarts of running nodes and every kind of step with its arguments are accepted', (t) => {
  const s: Scenario = {
    ...base,
    observers: 1,
    network: { latency: { kind: 'normal', meanMs: 20, sdMs: 5.5 }, loss: 0, duplicate: 0.1, reorder: 0.2, reorderWindowMs: 100, maxPeers: 'all' },
    genesis: { blockReward: '0x10', transitions: [{ block: 3, validators: ['v0', 'v1', 'o0'] }, { block: 5, contractValidators: ['v0', 'v1', 'v2'], miningBeneficiary: '' }] },
    steps: [
      { atMs: 0, do: 'heal' },
      { atMs: 500, do: 'restart', node: 'v1', wipe: false },
      { atMs: 1000, do: 'partition', groups: [['v0']] },
      { atMs: 2000, do: 'heal' },
      { atMs: 2000, do: 'crash', node: 'v3' },
      { atMs: 3000, do: 'restart', node: 'v3', transitions: [{ block: 4, blockPeriodSeconds: 2 }] },
      { atMs: 3000, do: 'pause', node: 'v2' },
      { atMs: 4000, do: 'resume', node: 'v2' },
      { atMs: 4000, do: 'clog', from: 'v0', to: 'v1' },
      { atMs: 5000, do: 'unclog', from: 'v0', to: 'v1' },
      { atMs: 5000, do: 'skew', node: 'v1', ms: -20 },
      { atMs: 6000, do: 'byzantine', node: 'v3', behaviour: 'silent' },
      { atMs: 6000, do: 'discard-vote', nodes: ['v0'], subject: 'o0' },
      { atMs: 7000, do: 'rpc', node: 'v0', method: 'eth_blockNumber' },
      { atMs: 7000, do: 'transfer', count: 2, fromAccount: 2, valueWei: '1000', to: 'account0' },
      { atMs: 10_000, do: 'api-clients', node: 'o0', pollEveryMs: 500 },
    ],
    expect: [
      { kind: 'height-by', atMs: 10_000, height: 0 },
      { kind: 'no-progress-between', fromMs: 2000, toMs: 2000 },
      { kind: 'round-changes', max: 3 },
      { kind: 'max-round', min: 0, max: 0 },
      { kind: 'trace-event', event: 'reorg', min: 0 },
      { kind: 'balance-at-least', account: 'account2', wei: '0' },
    ],
  };
  t.notThrows(() => validateScenario(JSON.parse(JSON.stringify(s))));
  t.notThrows(() => defineScenario(s));
});

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

test("a step that throws is reported at its time in seconds from the start, not on the simulator's absolute clock", async (t) => {
  const { runScenario } = await import('./scenario-runner.ts');
  const s: Scenario = { name: 'throws', description: '', validators: 1, durationMs: 2000, steps: [{ atMs: 1500, do: 'custom', name: 'boom' }], expect: [] };
  const result = await runScenario(defineScenario(s, { steps: ['boom'] }), { steps: { boom: () => { throw new Error('boom'); } } });
  t.false(result.ok);
  t.true(result.errors[0]!.startsWith('event step:custom at 1.5 s: Error: boom'), result.errors[0]);
});
