/** The bug hook points: Besu's current behaviour with no switch on; each switch moves exactly its hooks. */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { createBlock } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { encodeExtraData } from '../chain/extra-data.ts';
import { QbftForkSchedule } from '../chain/fork-schedule.ts';
import { parseGenesis } from '../chain/genesis.ts';
import type { Hex } from '../crypto/bytes.ts';
import { VALIDATION_RULES } from '../runtime/validation-rules.ts';
import { BUG_IDS, NO_BUGS, PLANTED_BUG_IDS, type BugId } from './bug-switches.ts';
import { besuHooks, CURRENT_BESU, HOOK_SWITCHES, hooksOf, type BesuHooks } from './hooks.ts';

const DOCS_FILE = new URL('../chain/testdata/besu-docs-qbft-genesis.json', import.meta.url).pathname;
const A2: Hex = '0x0000000000000000000000000000000000000002';
const CONTRACT: Hex = '0x0000000000000000000000000000000000007777';
const hooksWith = (...ids: BugId[]) => besuHooks(new Set(ids));

function scheduleWith(configPatch: Record<string, unknown>, qbftPatch: Record<string, unknown>, transitions: unknown[]): QbftForkSchedule {
  const json = JSON.parse(readFileSync(DOCS_FILE, 'utf8'));
  Object.assign(json.config, configPatch);
  Object.assign(json.config.qbft, qbftPatch);
  json.config.transitions = { qbft: transitions };
  return new QbftForkSchedule(parseGenesis(json));
}

test('with no switch on every hook is Besu\'s current behaviour: booleans false, every rule applied, timestamps rounded', (t) => {
  t.is(hooksOf(undefined), CURRENT_BESU);
  t.is(hooksOf(NO_BUGS), CURRENT_BESU);
  const flags = Object.entries(CURRENT_BESU).filter(([, v]) => typeof v === 'boolean');
  t.true(flags.length >= 10);
  t.deepEqual(flags.filter(([, v]) => v !== false).map(([k]) => k), []);
  t.true(VALIDATION_RULES.every((rule) => CURRENT_BESU.ruleEnforced(rule)));
  t.is(CURRENT_BESU.blockTimestampSeconds(2_997), 3, 'a timer a few ms early still gives the second (Besu PR #2265)');
  t.is(hooksWith('besu-2241').blockTimestampSeconds(2_997), 2);
});

test('each switch moves exactly the hooks HOOK_SWITCHES lists beside it, and every switch moves one', (t) => {
  const keys = Object.keys(CURRENT_BESU) as Array<keyof BesuHooks>;
  t.deepEqual(keys.slice().sort(), Object.keys(HOOK_SWITCHES).sort());
  for (const id of [...BUG_IDS, ...PLANTED_BUG_IDS]) {
    const hooks = hooksWith(id);
    const moved = keys.filter((k) => hooks[k] !== CURRENT_BESU[k]);
    t.deepEqual(moved, keys.filter((k) => HOOK_SWITCHES[k].includes(id)), id);
    t.true(moved.length > 0, `${id} changes some hook`);
  }
});

test('the rule hook: ghsa-23rh and besu-1671 drop the rule Besu lacked, a planted switch its own', (t) => {
  const skipped = (hooks: BesuHooks) => VALIDATION_RULES.filter((r) => !hooks.ruleEnforced(r));
  t.deepEqual(skipped(hooksWith('ghsa-23rh')), ['round-change-round-above-max']);
  t.deepEqual(skipped(hooksWith('besu-1671')), ['prepare-duplicate-author']);
  t.deepEqual(skipped(hooksWith('plant-skip-prepare-quorum', 'besu-2095')), ['prepare-quorum']);
});

test('besu-8384: the block creator reads the beneficiary of a time-typed transition at the block number alone', (t) => {
  const schedule = scheduleWith({ londonblock: 0, shanghaitime: 0 }, {}, [{ block: 1_000, miningbeneficiary: A2 }]);
  t.is(CURRENT_BESU.blockCreatorBeneficiary(schedule, 5, 2_000), A2);
  t.is(hooksWith('besu-8384').blockCreatorBeneficiary(schedule, 5, 2_000), undefined);
});

test('besu-2894: a transition that names no selection mode puts a contract-mode chain under block-header rules', (t) => {
  const schedule = scheduleWith({}, { validatorcontractaddress: CONTRACT }, [{ block: 10, blockreward: '5' }]);
  const params = schedule.paramsAt(10);
  t.is(params.validatorSelectionMode, 'contract');
  t.true(CURRENT_BESU.headerRulesContractMode(params, schedule, CONTRACT));
  t.false(hooksWith('besu-2894').headerRulesContractMode(params, schedule, CONTRACT));
  t.true(hooksWith('besu-2894').headerRulesContractMode(schedule.paramsAt(3), schedule, CONTRACT), 'the genesis fork has the contract');
});

test('besu-7642: after one proposal of a height is validated another block of it fails, a re-proposal passes; each node its own state', (t) => {
  const common = new Common({ chain: Mainnet, hardfork: Hardfork.London });
  const blockOf = (number: bigint, round: number, vanity: number) =>
    createBlock({ header: { number, extraData: encodeExtraData({ vanity: new Uint8Array(32).fill(vanity), validators: [A2], round, seals: [] }) } }, { common, skipConsensusFormatValidation: true });
  t.is(CURRENT_BESU.proposalStateConflict(blockOf(5n, 0, 1), 5), undefined);
  t.is(CURRENT_BESU.proposalStateConflict(blockOf(5n, 0, 2), 5), undefined);
  const node = hooksWith('besu-7642');
  const other = hooksWith('besu-7642');
  t.is(node.proposalStateConflict(blockOf(5n, 0, 1), 5), undefined);
  t.is(node.proposalStateConflict(blockOf(5n, 1, 1), 5), undefined, 'the same block in another round');
  t.regex(node.proposalStateConflict(blockOf(5n, 0, 2), 5) ?? '', /world state already moved/);
  t.is(other.proposalStateConflict(blockOf(5n, 0, 2), 5), undefined, 'another node validated nothing yet');
  t.is(node.proposalStateConflict(blockOf(6n, 0, 2), 6), undefined, 'a new height starts afresh');
});
