/** `qbft-lab check`'s battery: sized to the operator's genesis, and its verdicts decided by the runs. */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { encodeExtraDataFromAddresses } from '../../node/chain/extra-data.ts';
import { bytesToHex } from '../../node/crypto/bytes.ts';
import { deterministicKey } from '../keys.ts';
import { runCheckBattery } from './check-battery.ts';
import { BLOCKS_PAST_TRANSITION, planCheckBattery } from './check-cases.ts';
import { BlockSchedule } from './block-schedule.ts';
import { OperatorInputError, readOperatorGenesis } from './operator-genesis.ts';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/operator/', import.meta.url));
const fixtureText = (name: string) => readFileSync(FIXTURES + name, 'utf8');
const fixture = (name: string) => readOperatorGenesis(fixtureText(name), name);

/** old.json with `n` validators of its own in extraData and `edit` applied. */
async function withValidators(n: number, edit: (g: Record<string, any>) => void = () => {}) {
  const raw = JSON.parse(fixtureText('old.json'));
  raw.extraData = bytesToHex(encodeExtraDataFromAddresses(Array.from({ length: n }, (_, i) => deterministicKey('check-test', i).address)));
  edit(raw);
  return readOperatorGenesis(JSON.stringify(raw), `${n}-validators.json`);
}

test('the operator validators are stood in for in address order, also where transitions name them', async (t) => {
  const g = await fixture('check-transitions.json');
  t.deepEqual(
    g.standIns.map((s) => [s.name, s.operatorAddress]),
    [
      ['v0', '0xb9b10ec36f2d4f9f435982c71d1d48ac22eb4d45'],
      ['v1', '0xcd0d3867cd79ab90cdf24976f934521f87b6229a'],
      ['v2', '0xf3e79481e12cd83ae7c454981dd2e1d1c4aed3a5'],
      ['v3', '0xfee1d2bb6cd6d7205f95af816de142d4df091ab5'],
    ],
  );
  const byName = new Map(g.standIns.map((s) => [s.name, s.simAddress]));
  t.deepEqual(g.simRules.transitions.find((x) => x.block === 20)?.validators, [byName.get('v2'), byName.get('v3'), byName.get('v1')]);
  t.deepEqual(g.simRules.transitions.find((x) => x.block === 12)?.blockPeriodSeconds, 2);
  // The file's own parts stay: chain id, alloc.
  t.is(g.simRules.chainId, 1337n);
  t.true(g.simRules.alloc.has('0xfe3b557e8fb62b89f4916b721be55ceb828dbd73'));
});

test('the battery is sized to the genesis: f crashed, a quorum side, each transition crossed', async (t) => {
  const g = await fixture('check-transitions.json');
  const plan = planCheckBattery(g);
  t.is(plan.validators, 4);
  t.is(plan.f, 1);
  t.deepEqual(plan.cases.map((c) => c.id), ['crash-f', 'proposer-crash', 'partition', 'wiped-restart', 'votes', 'transition-12', 'transition-20']);
  const byId = new Map(plan.cases.map((c) => [c.id, c]));
  t.deepEqual(byId.get('crash-f')!.scenario!.steps.map((s) => s.do), ['crash']);
  const partition = byId.get('partition')!.scenario!.steps[0] as { groups: string[][] };
  t.deepEqual(partition.groups.map((g) => g.length), [3, 1]);
  // 1 s blocks to block 11, 2 s blocks from block 12 (the transition's own block): the default duration reaches block 25.
  const sched = new BlockSchedule(g.simRules);
  t.is(sched.timeOfBlockMs(11), 11_000);
  t.is(sched.timeOfBlockMs(12), 13_000);
  t.is(sched.timeOfBlockMs(25), 11_000 + 14 * 2_000);
  t.true(plan.durationMs >= sched.timeOfBlockMs(20 + BLOCKS_PAST_TRANSITION));
  t.true(byId.get('transition-20')!.scenario!.expect.some((e) => e.kind === 'validators-at' && e.validators.join() === 'v2,v3,v1'));

  const seven = planCheckBattery(await withValidators(7));
  t.is(seven.f, 2);
  t.is(seven.quorum, 5);
  t.deepEqual(seven.cases.find((c) => c.id === 'crash-f')!.scenario!.steps.map((s) => (s as { node: string }).node), ['v1', 'v4']);
});

test('--duration shorter than a transition leaves it not reached, and short fault cases skipped', async (t) => {
  const g = await fixture('check-transitions.json');
  const plan = planCheckBattery(g, { durationMs: 31_000 });
  const byId = new Map(plan.cases.map((c) => [c.id, c]));
  t.truthy(byId.get('transition-12')!.scenario);
  t.regex(byId.get('transition-20')!.skipped ?? '', /^not reached: block 25 is due at/);
  const tiny = planCheckBattery(g, { durationMs: 5_000 });
  t.true(tiny.cases.every((c) => c.scenario === undefined));
});

test('a genesis with transitions passes every case', async (t) => {
  const report = await runCheckBattery(await fixture('check-transitions.json'));
  t.true(report.ok, JSON.stringify(report.cases.filter((c) => c.verdict !== 'pass')));
  t.is(report.passed, 7);
  const crossed = report.cases.find((c) => c.case === 'transition-20')!;
  t.true(crossed.height! >= 25);
  t.true(crossed.expectations!.every((e) => e.ok));
});

test('a transition to validators of which fewer than a quorum run fails its case, with why', async (t) => {
  const report = await runCheckBattery(await fixture('check-no-quorum-transition.json'));
  t.false(report.ok);
  const c = report.cases.find((x) => x.case === 'transition-10')!;
  t.is(c.verdict, 'fail');
  t.is(c.height, 9);
  t.regex(c.detail, /expected: honest nodes reach height 15/);
  t.regex(c.notes.join(), /3 of the 4 validators from block 10 .* are not genesis validators.*offline \(quorum 3, online 1\)/);
  // The fault cases that needed the chain past block 10 fail too, pointing at the transition.
  t.regex(report.cases.find((x) => x.case === 'wiped-restart')!.detail, /the chain stopped at block 9, just before the transition at block 10/);
});

test('few validators: the cases that need a crash to be tolerated are skipped, the votes still run', async (t) => {
  const report = await runCheckBattery(await withValidators(1));
  t.deepEqual(
    report.cases.map((c) => [c.case, c.verdict]),
    [
      ['crash-f', 'skipped'],
      ['proposer-crash', 'skipped'],
      ['partition', 'skipped'],
      ['wiped-restart', 'skipped'],
      ['votes', 'pass'],
    ],
  );
  t.true(report.ok);
  t.regex(report.cases[0].detail, /^f = 0: 1 validator tolerates no crashed validator/);
});

test('contract selection: the validators come from the contract, the votes case says so', async (t) => {
  const g = await fixture('check-contract.json');
  t.is(g.selectionModeAtGenesis, 'contract');
  t.is(g.standIns.length, 4);
  const report = await runCheckBattery(g);
  const votes = report.cases.find((c) => c.case === 'votes')!;
  t.is(votes.verdict, 'skipped');
  t.is(votes.detail, 'skipped: contract selection (validators come from a contract, not from votes)');
  t.true(report.ok, JSON.stringify(report.cases));
  t.is(report.passed, 4);
});

test("a transition compared with timestamps (Besu's reading under a time-based hardfork) is said to be in force from the genesis", async (t) => {
  const g = await withValidators(4, (raw) => {
    raw.config.shanghaiTime = 0;
    raw.config.transitions = { qbft: [{ block: 100, blockperiodseconds: 2 }] };
  });
  const plan = planCheckBattery(g);
  const c = plan.cases.find((x) => x.id === 'transition-time-100')!;
  t.regex(c.notes.join(), /compared with block timestamps .* in force from the genesis/);
  // 2 s blocks from block 1.
  t.is(new BlockSchedule(g.simRules).timeOfBlockMs(3), 6_000);
});

test('files that cannot be simulated are refused with one line', async (t) => {
  const refuse = (text: string) => t.throwsAsync(readOperatorGenesis(text, 'g.json'), { instanceOf: OperatorInputError });
  t.regex((await refuse('{not json'))!.message, /^g\.json: is not valid JSON/);
  t.regex((await refuse('{"config":{"ibft2":{}},"gasLimit":"0x1","difficulty":"0x1"}'))!.message, /^g\.json: not a QBFT genesis/);
  t.regex((await refuse('{"config":{"qbft":{"blockperiodseconds":0}},"gasLimit":"0x1","difficulty":"0x1"}'))!.message, /^g\.json: genesis: config\.qbft\.blockperiodseconds must be a positive integer/);
  t.regex((await refuse('{"config":{"qbft":{}},"gasLimit":"0x1","difficulty":"0x1","extraData":"0x1234"}'))!.message, /^g\.json: extraData is not QBFT extraData/);
  const noValidators = JSON.parse(fixtureText('old.json'));
  noValidators.extraData = bytesToHex(encodeExtraDataFromAddresses([]));
  t.regex((await refuse(JSON.stringify(noValidators)))!.message, /^g\.json: extraData lists no validators$/);
  for (const e of [await refuse('[]'), await refuse('{"config":{"qbft":{"validatorcontractaddress":"0x0000000000000000000000000000000000001234"}},"gasLimit":"0x1","difficulty":"0x1"}')]) t.false(e!.message.includes('\n'));
});
