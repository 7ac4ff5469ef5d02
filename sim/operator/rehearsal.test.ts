/**
 * `qbft-lab rehearse`: Besu's stop / replace genesis / restart procedure on the operator's files,
 * with the verdict read from the run. Each verdict is shown next to the same change made safely, so
 * a verdict that did not come from the run would fail one of the two.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OperatorInputError, readOperatorGenesis, type OperatorGenesis } from './operator-genesis.ts';
import { runRehearsal, type RehearsalOptions } from './rehearsal.ts';
import type { CheckerFactory } from '../checkers/suite.ts';
import type { Observation } from '../checkers/observation.ts';
import { ModelChecker } from '../checkers/violation.ts';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/operator/', import.meta.url));
const fixtureText = (name: string) => readFileSync(FIXTURES + name, 'utf8');
const fixture = (name: string) => readOperatorGenesis(fixtureText(name), name);

async function edited(edit: (g: Record<string, any>) => void, name = 'edited.json'): Promise<OperatorGenesis> {
  const raw = JSON.parse(fixtureText('old.json'));
  edit(raw);
  return readOperatorGenesis(JSON.stringify(raw), name);
}

/** Short windows keep the runs short; the verdicts do not depend on them. */
const rehearse = async (newFile: string | OperatorGenesis, opts: RehearsalOptions = {}) =>
  runRehearsal(await fixture('old.json'), typeof newFile === 'string' ? await fixture(newFile) : newFile, { restartWindowMs: 6_000, ...opts });

test('a transition above the head is ok: every node restarts with it and the chain crosses it', async (t) => {
  const r = await rehearse('new-reward-at-20.json');
  t.is(r.verdict, 'ok', r.detail);
  t.is(r.block, null);
  // The run's own verdict (what its trace and reports say) agrees.
  t.true(r.run.ok, JSON.stringify(r.run));
  t.deepEqual(r.changes, [{ text: 'transition at 20 added: blockreward 1000000000000000000', fromBlock: 20 }]);
  t.deepEqual(r.nodeTable.map((n) => [n.name, n.genesis, n.headAtStop, n.status]), [
    ['v0', 'new', 10, 'up'],
    ['v1', 'new', 10, 'up'],
    ['v2', 'new', 10, 'up'],
    ['v3', 'new', 10, 'up'],
    ['o0', 'new', 10, 'up'],
  ]);
  t.true(r.nodeTable.every((n) => n.head >= r.requiredHeight), JSON.stringify(r.nodeTable));
  t.true(r.timeline.some((e) => e.text.startsWith('block 20, the first under: transition at 20 added')));
});

test('a transition at a block already passed: the history forks from the new genesis there (Besu nodes start and go on; a node syncing from genesis rejects the block)', async (t) => {
  const besu = await rehearse('new-reward-at-5.json');
  t.is(besu.verdict, 'fork', besu.detail);
  t.is(besu.block, 5);
  t.deepEqual(besu.nodes, ['o0']);
  t.regex(besu.detail, /history forks from the new genesis at block 5: o0 \(syncing from genesis with the new genesis\) rejects it \(execution: INVALID_STATE_ROOT/);
  t.deepEqual(besu.nodeTable.map((n) => n.status), ['up', 'up', 'up', 'up', 'up']);
  // The same reward stopped earlier (at block 3, the transition still ahead) is ok.
  t.is((await rehearse('new-reward-at-5.json', { atBlock: 3 })).verdict, 'ok');
});

test("with qbft-lab's own start-up check, a transition at a block already passed: every node refuses to start, the chain stalls", async (t) => {
  const passed = await rehearse('new-reward-at-5.json', { nodeChecks: 'qbft-lab' });
  t.is(passed.verdict, 'stall', passed.detail);
  t.is(passed.block, 11);
  t.deepEqual(passed.nodes, ['v0', 'v1', 'v2', 'v3']);
  t.deepEqual(passed.nodeTable.map((n) => n.status), ['refused', 'refused', 'refused', 'refused', 'up']);
  t.regex(passed.detail, /v0, v1, v2, v3 refused to start: the new genesis changes the rules of stored block 5 \(blockReward 0 -> 1000000000000000000\), at or below the head 10/);
});

test('editing config.qbft in place instead of adding a transition rewrites the rules of the history: a fork (a stall with qbft-lab nodes)', async (t) => {
  const inPlace = await edited((g) => (g.config.qbft.blockperiodseconds = 2));
  const r = await rehearse(inPlace);
  t.deepEqual(r.changes, [{ text: 'config.qbft.blockperiodseconds 1 -> 2', fromBlock: 1 }]);
  t.is(r.verdict, 'fork', r.detail);
  t.true(r.block! <= 10, r.detail);
  t.deepEqual(r.nodes, ['o0']);
  const own = await rehearse(inPlace, { nodeChecks: 'qbft-lab' });
  t.is(own.verdict, 'stall');
  t.regex(own.detail, /changes the rules of stored block 1 \(blockPeriodSeconds 1 -> 2\)/);
  // requesttimeoutseconds is a node's own timer: changing it in place is fine.
  const timer = await rehearse(await edited((g) => (g.config.qbft.requesttimeoutseconds = 2)));
  t.is(timer.verdict, 'ok', timer.detail);
  t.is(timer.changes[0].fromBlock, undefined);
});

test('one node left on the old genesis is forked off at the transition', async (t) => {
  const r = await rehearse('new-reward-at-20.json', { leftBehind: ['v3'] });
  t.is(r.verdict, 'forked-off', r.detail);
  t.is(r.block, 20);
  t.deepEqual(r.nodes, ['v3']);
  t.false(r.run.ok);
  t.regex(r.detail, /v3 \(old genesis\) is stuck at block 19: it rejected block 20 \(execution: INVALID_STATE_ROOT/);
  t.deepEqual(r.nodeTable.find((n) => n.name === 'v3')!.genesis, 'old');
  // Named by its operator address, or as a count (the last node), it is the same node.
  const byAddress = await rehearse('new-reward-at-20.json', { leftBehind: ['0xFEE1D2BB6CD6D7205F95AF816DE142D4DF091AB5'] });
  t.deepEqual([byAddress.verdict, byAddress.nodes], ['forked-off', ['v3']]);
});

test('a validator set with fewer than a quorum online stalls at the transition; a set that keeps one is ok', async (t) => {
  const r = await rehearse('new-validators-no-quorum.json');
  t.is(r.verdict, 'stall', r.detail);
  t.is(r.block, 20);
  t.regex(r.notes.join(), /3 validators that are not in the genesis .* offline \(quorum 3 of 4, 1 online\)/);
  t.true(r.nodeTable.every((n) => n.status === 'up' && n.head === 19));
  const three = await rehearse('new-validators-three.json');
  t.is(three.verdict, 'ok', three.detail);
});

test('a new validator set running on some nodes while a quorum of the old one stays behind: a fork', async (t) => {
  // Only v2's operator applies the change (v2 alone validates under it); v0, v1, v3 keep the old genesis.
  const r = await rehearse('new-single-validator.json', { leftBehind: ['v0', 'v1', 'v3'] });
  t.is(r.verdict, 'fork', r.detail);
  t.is(r.block, 20);
  t.false(r.run.ok);
  t.true(r.run.violations.some((v) => v.checker === 'agreement' && v.height === 20));
  // o0, syncing with the new genesis, follows v2.
  t.deepEqual(r.sides!.map((s) => s.nodes), [['v0', 'v1', 'v3'], ['o0', 'v2']]);
  t.not(r.sides![0].hash, r.sides![1].hash);
  // Left behind with v2 among them, the old quorum goes on and v0 alone (not a validator under the new set) is forked off.
  const v0Alone = await rehearse('new-single-validator.json', { leftBehind: 3 });
  // (and so is o0, which syncs with the new genesis).
  t.deepEqual([v0Alone.verdict, v0Alone.nodes], ['forked-off', ['v0', 'o0']]);
  // Everyone on the new genesis: no fork.
  t.is((await rehearse('new-single-validator.json')).verdict, 'ok');
});

test('stragglers: more than f restarted after the window hold the chain until they come', async (t) => {
  const r = await rehearse('new-reward-at-20.json', { stragglers: 2 });
  t.is(r.verdict, 'ok', r.detail);
  t.deepEqual(r.stragglers, ['v2', 'v3']);
  const lastStraggler = Math.max(...r.nodeTable.filter((n) => n.role === 'straggler').map((n) => n.restartMs));
  const firstStraggler = Math.min(...r.nodeTable.filter((n) => n.role === 'straggler').map((n) => n.restartMs));
  const onTime = Math.max(...r.nodeTable.filter((n) => n.role === 'on time').map((n) => n.restartMs));
  t.true(firstStraggler > onTime + 6_000);
  const resumed = r.timeline.find((e) => e.text === 'block 11: the chain resumes')!;
  t.true(resumed.atMs > firstStraggler, `${resumed.atMs} ${lastStraggler}`);
});

test('a new chain or no change is not something to rehearse', async (t) => {
  const old = await fixture('old.json');
  const refuse = async (next: OperatorGenesis) => (await t.throwsAsync(runRehearsal(old, next), { instanceOf: OperatorInputError }))!.message;
  t.is(await refuse(await fixture('new-chain-id.json')), 'new-chain-id.json: not a transitions change: a new genesis means a new chain (it differs from old.json in config.chainId 1337 -> 2018)');
  t.regex(await refuse(await edited((g) => (g.alloc['0000000000000000000000000000000000000abc'] = { balance: '0x1' }))), /a new chain \(it differs from old\.json in alloc\)$/);
  t.regex(await refuse(await edited((g) => (g.gasLimit = '0x1000000'))), /a new chain \(it differs from old\.json in gasLimit\)$/);
  t.regex(await refuse(await edited((g) => (g.config.londonBlock = 0))), /in config\.londonBlock unset -> 0 \(at the genesis\)\)$/);
  t.regex(await refuse(await edited((g) => (g.config.zeroBaseFee = true))), /in config\.zerobasefee\)$/);
  t.is(await refuse(await edited(() => {}, 'same.json')), 'same.json: the same configuration as old.json: nothing to rehearse');
  // Key case and key order do not make a change.
  t.is(await refuse(await edited((g) => (g.config.QBFT = g.config.qbft) && delete g.config.qbft, 'cased.json')), 'cased.json: the same configuration as old.json: nothing to rehearse');
  await t.throwsAsync(runRehearsal(old, await fixture('new-reward-at-20.json'), { leftBehind: ['v9'] }), { message: /--left-behind: 'v9' is neither a node/ });
  await t.throwsAsync(runRehearsal(old, await fixture('new-reward-at-20.json'), { stragglers: 4, leftBehind: 1 }), { message: /--stragglers: 4 must be from 0 to 3/ });
});

test('a checker violation makes an otherwise ok rehearsal fail with verdict violation (never ok)', async (t) => {
  // A planted checker: it reports the first block 20 any node imports.
  const planted: CheckerFactory = (model, onViolation) => {
    class Planted extends ModelChecker {
      readonly name = 'planted';
      observe(o: Observation): void {
        if (o.type === 'block-imported' && o.number === 20 && !this.stopped) this.report({ atMs: o.atMs, node: o.node, height: 20, round: null, reason: 'planted violation', line: '' });
      }
    }
    return new Planted(model, onViolation);
  };
  const r = await rehearse('new-reward-at-20.json', { checkers: [planted] });
  t.is(r.verdict, 'violation', r.detail);
  t.is(r.block, 20);
  t.is(r.nodes.length, 1);
  t.regex(r.detail, /past block 22, but an invariant checker reports a violation: planted \(block 20, v\d\): planted violation$/);
  t.true(r.run.violations.some((v) => v.checker === 'planted'));
  t.true(r.timeline.some((e) => e.text === 'an invariant checker reports a violation at block 20 (violation)'));
  // The same run without the planted checker is ok.
  t.is((await rehearse('new-reward-at-20.json')).verdict, 'ok');
});

test('at a real height (block 2,000) the run starts from a history, and a transition in it is still caught: the fresh node rejects block 5; qbft-lab nodes refuse to start', async (t) => {
  const r = await rehearse('new-reward-at-5.json', { atBlock: 2_000 });
  t.is(r.verdict, 'fork', r.detail);
  t.is(r.block, 5);
  t.deepEqual(r.nodes, ['o0']);
  t.regex(r.detail, /o0 \(syncing from genesis with the new genesis\) rejects it \(execution: INVALID_STATE_ROOT/);
  t.deepEqual(r.history && [r.history.height, r.history.newValidHeight], [1_995, 4]);
  t.deepEqual(r.nodeTable.map((n) => [n.name, n.headAtStop]), [['v0', 2_000], ['v1', 2_000], ['v2', 2_000], ['v3', 2_000], ['o0', 2_000]]);
  t.is(r.nodeTable.find((n) => n.name === 'o0')!.head, 4);
  // The network is stopped seconds after the run's start, not 2,000 block periods.
  t.true(r.stopMs < 10_000, String(r.stopMs));
  const own = await rehearse('new-reward-at-5.json', { atBlock: 2_000, nodeChecks: 'qbft-lab' });
  t.is(own.verdict, 'stall', own.detail);
  t.regex(own.detail, /v0, v1, v2, v3 refused to start: the new genesis changes the rules of stored block 5 \(blockReward 0 -> 1000000000000000000\), at or below the head 2000/);
});
