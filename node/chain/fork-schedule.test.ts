import test from 'ava';
import { readFileSync } from 'node:fs';
import { QbftForkSchedule, milestoneTypeAt } from './fork-schedule.ts';
import { parseGenesis } from './genesis.ts';

const DOCS_FILE = new URL('./testdata/besu-docs-qbft-genesis.json', import.meta.url).pathname;

function genesisWith(configPatch: Record<string, unknown>, transitions: unknown[]) {
  const json = JSON.parse(readFileSync(DOCS_FILE, 'utf8'));
  Object.assign(json.config, configPatch);
  json.config.qbft.blockperiodseconds = 2;
  json.config.qbft.blockreward = '5000000000000000';
  json.config.transitions = { qbft: transitions };
  return parseGenesis(json);
}

const A2 = '0x0000000000000000000000000000000000000002';
const CONTRACT = '0x0000000000000000000000000000000000007777';

test('without transitions every block gets the genesis options', (t) => {
  const schedule = new QbftForkSchedule(parseGenesis(readFileSync(DOCS_FILE, 'utf8')));
  for (const n of [0, 1, 1000, 10_000_000]) {
    t.deepEqual(schedule.paramsAt(n), {
      fromBlock: 0,
      scheduleType: 'block',
      blockPeriodSeconds: 5,
      emptyBlockPeriodSeconds: 0,
      blockReward: 0n,
      validatorSelectionMode: 'blockheader',
    });
  }
  t.is(schedule.forks().length, 1);
  t.false(schedule.hasTimeTypedTransitions());
});

test('docs examples: block time, block rewards, beneficiary set then cleared (each inherits the previous)', (t) => {
  const schedule = new QbftForkSchedule(
    genesisWith({}, [
      { block: 1240, blockperiodseconds: 4 },
      { block: 10, blockreward: '6000000000000000' },
      { block: 15, blockreward: '75000000000000000' },
      { block: 20, blockreward: '0' },
      { block: 10000, miningbeneficiary: A2 },
      { block: 20000, miningbeneficiary: '' },
    ]),
  );
  t.deepEqual(schedule.forks().map((f) => f.fromBlock), [0, 10, 15, 20, 1240, 10000, 20000]);
  t.is(schedule.paramsAt(9).blockReward, 5000000000000000n);
  t.is(schedule.paramsAt(10).blockReward, 6000000000000000n);
  t.is(schedule.paramsAt(14).blockReward, 6000000000000000n);
  t.is(schedule.paramsAt(15).blockReward, 75000000000000000n);
  t.is(schedule.paramsAt(20).blockReward, 0n);
  t.is(schedule.paramsAt(1239).blockPeriodSeconds, 2);
  t.is(schedule.paramsAt(1240).blockPeriodSeconds, 4);
  t.is(schedule.paramsAt(1240).blockReward, 0n, 'a transition inherits what it does not name');
  t.is(schedule.paramsAt(9999).miningBeneficiary, undefined);
  t.is(schedule.paramsAt(10000).miningBeneficiary, A2);
  t.is(schedule.paramsAt(19999).miningBeneficiary, A2);
  t.is(schedule.paramsAt(20000).miningBeneficiary, undefined, '"" clears the beneficiary');
  t.is(schedule.paramsAt(20000).blockPeriodSeconds, 4);
  t.is(schedule.transitionAt(15)?.blockReward, 75000000000000000n);
  t.is(schedule.transitionAt(16), undefined);
});

test('validator selection mode switches, and validators apply only on their own block', (t) => {
  const schedule = new QbftForkSchedule(
    genesisWith({}, [
      { block: 102885, validatorselectionmode: 'contract', validatorcontractaddress: CONTRACT },
      { block: 200000, validatorselectionmode: 'blockheader', validators: ['0x00000000000000000000000000000000000000b1', '0x00000000000000000000000000000000000000a1'] },
      { block: 300000, validators: ['0x00000000000000000000000000000000000000c1'] },
      { block: 400000, validatorcontractaddress: CONTRACT },
    ]),
  );
  t.is(schedule.paramsAt(102884).validatorSelectionMode, 'blockheader');
  t.like(schedule.paramsAt(102885), { validatorSelectionMode: 'contract', validatorContractAddress: CONTRACT });
  t.like(schedule.paramsAt(150000), { validatorSelectionMode: 'contract', validatorContractAddress: CONTRACT });
  const switchBack = schedule.paramsAt(200000);
  t.is(switchBack.validatorSelectionMode, 'blockheader');
  t.is(switchBack.validatorContractAddress, undefined);
  t.deepEqual(switchBack.validators, ['0x00000000000000000000000000000000000000b1', '0x00000000000000000000000000000000000000a1']);
  t.is(schedule.paramsAt(200001).validators, undefined);
  t.deepEqual(schedule.paramsAt(300000).validators, ['0x00000000000000000000000000000000000000c1']);
  t.is(schedule.paramsAt(300000).validatorSelectionMode, 'blockheader');
  // As in Besu, an address without validatorselectionmode changes nothing.
  t.is(schedule.paramsAt(400000).validatorSelectionMode, 'blockheader');
  t.is(schedule.paramsAt(400000).validatorContractAddress, undefined);
});

test('genesis contract mode; empty period and millisecond period overrides', (t) => {
  const json = JSON.parse(readFileSync(DOCS_FILE, 'utf8'));
  json.config.qbft.validatorcontractaddress = CONTRACT;
  json.config.qbft.xblockperiodmilliseconds = 500;
  json.config.transitions = { qbft: [{ block: 3, xemptyblockperiodseconds: 30 }, { block: 6, xblockperiodmilliseconds: 0 }] };
  const schedule = new QbftForkSchedule(parseGenesis(json));
  t.like(schedule.paramsAt(0), { validatorSelectionMode: 'contract', validatorContractAddress: CONTRACT, blockPeriodMilliseconds: 500, emptyBlockPeriodSeconds: 0 });
  t.like(schedule.paramsAt(3), { emptyBlockPeriodSeconds: 30, blockPeriodMilliseconds: 500 });
  t.is(schedule.paramsAt(6).blockPeriodMilliseconds, undefined, '0 switches the millisecond period off');
  t.is(schedule.paramsAt(6).emptyBlockPeriodSeconds, 30);
});

test('Besu quirk: with shanghaiTime 0 transitions are time-typed (besu issue #10878)', (t) => {
  const genesis = genesisWith({ londonblock: 0, shanghaitime: 0 }, [
    { block: 5, blockreward: '2000000000000000000' },
    { block: 10, blockreward: '5000000000000000000' },
    { block: 15, blockreward: '9000000000000000000' },
  ]);
  const schedule = new QbftForkSchedule(genesis);
  t.true(schedule.hasTimeTypedTransitions());
  t.deepEqual(schedule.forks().map((f) => f.scheduleType), ['block', 'time', 'time', 'time']);
  // Compared with the block timestamp: from block 1 the highest transition applies.
  t.is(schedule.paramsAt(1, 1_700_000_000).blockReward, 9000000000000000000n);
  // Without a timestamp the block number is used.
  t.is(schedule.paramsAt(7).blockReward, 2000000000000000000n);
});

test('mixed block and time transitions (besu PR #10540 example)', (t) => {
  const genesis = genesisWith({ londonblock: 0, shanghaitime: 1781535693 }, [
    { block: 10, blockperiodseconds: 3 },
    { block: 1781535793, blockperiodseconds: 4 },
  ]);
  const schedule = new QbftForkSchedule(genesis);
  t.deepEqual(schedule.forks().map((f) => f.scheduleType), ['block', 'block', 'time']);
  t.is(schedule.paramsAt(5, 1781535000).blockPeriodSeconds, 2, 'genesis value');
  t.is(schedule.paramsAt(20, 1781535000).blockPeriodSeconds, 3);
  t.is(schedule.paramsAt(21, 1781535800).blockPeriodSeconds, 4);
});

test('milestoneTypeAt follows the latest hardfork at or below the value; ties go to the time fork', (t) => {
  const g = genesisWith({ londonblock: 100, shanghaitime: 1000 }, []);
  t.is(milestoneTypeAt(g, 0), 'block');
  t.is(milestoneTypeAt(g, 999), 'block');
  t.is(milestoneTypeAt(g, 1000), 'time');
  const tie = genesisWith({ londonblock: 0, shanghaitime: 0 }, []);
  t.is(milestoneTypeAt(tie, 0), 'time');
});
