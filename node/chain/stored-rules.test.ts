/** A new genesis configuration may change the rules of future blocks only. */
import test from 'ava';
import { buildSimGenesis } from '../../sim/genesis-builder.ts';
import { validatorKeys } from '../../sim/keys.ts';
import { parseGenesis, withConfig, type Genesis } from './genesis.ts';
import { firstRulesChange, type StoredBlockRef } from './stored-rules.ts';

const T0 = 1_700_000_000;
const validators = validatorKeys(4).map((k) => k.address);

function genesis(extra: Record<string, unknown> = {}): Genesis {
  const json = buildSimGenesis({ validators, startTimeSeconds: T0 }) as { config: Record<string, unknown> };
  return parseGenesis({ ...json, config: { ...json.config, ...extra } });
}

const withTransitions = (g: Genesis, qbft: unknown[]) => withConfig(g, { ...g.config, transitions: { qbft } });
const stored = (n: number): StoredBlockRef => ({ number: n, timestamp: T0 + n });

test('the same configuration, or transitions above the head, change nothing stored', (t) => {
  const g = genesis();
  t.is(firstRulesChange(g, g, 666, stored), undefined);
  t.is(firstRulesChange(g, withTransitions(g, [{ block: 667, blockreward: '1000' }]), 666, stored), undefined);
  t.is(firstRulesChange(g, withTransitions(g, [{ block: 5, blockreward: '1000' }]), 4, stored), undefined);
});

test('planted: a reward transition at a stored block is found at that block', (t) => {
  const g = genesis();
  t.deepEqual(firstRulesChange(g, withTransitions(g, [{ block: 5, blockreward: '1000' }]), 666, stored), { block: 5, what: 'blockReward 0 -> 1000' });
});

test('planted: a past switch to contract mode, a validator list, a removed transition', (t) => {
  const g = genesis();
  const contract = withTransitions(g, [{ block: 10, validatorselectionmode: 'contract', validatorcontractaddress: '0x0000000000000000000000000000000000008888' }]);
  t.deepEqual(firstRulesChange(g, contract, 20, stored)?.block, 10);
  t.regex(firstRulesChange(g, contract, 20, stored)!.what, /validatorSelectionMode blockheader -> contract/);
  const list = withTransitions(g, [{ block: 3, validators: validators.slice(0, 3) }]);
  t.deepEqual(firstRulesChange(g, list, 20, stored)?.block, 3);
  const period = withTransitions(g, [{ block: 8, blockperiodseconds: 2 }]);
  t.deepEqual(firstRulesChange(period, g, 20, stored), { block: 8, what: 'blockPeriodSeconds 2 -> 1' });
});

test('planted: a hardfork moved below the head, by block and by time', (t) => {
  const g = genesis();
  t.deepEqual(firstRulesChange(g, withConfig(g, { ...g.config, shanghaitime: T0 + 7 }), 20, stored), { block: 7, what: 'shanghaiTime unset -> 1700000007' });
  t.is(firstRulesChange(g, withConfig(g, { ...g.config, shanghaitime: T0 + 70 }), 20, stored), undefined);
  t.is(firstRulesChange(g, withConfig(g, { ...g.config, chainid: 99 }), 20, stored)?.what, 'chainId 1337 -> 99');
});

test('a time-typed transition is judged by the stored blocks\' timestamps', (t) => {
  const g = genesis({ shanghaitime: 0 });
  // With shanghaiTime 0 every transition's `block` is a timestamp (Besu's quirk): block 12 is the first stamped T0 + 12.
  t.deepEqual(firstRulesChange(g, withTransitions(g, [{ block: T0 + 12, blockreward: '5' }]), 20, stored)?.block, 12);
  t.is(firstRulesChange(g, withTransitions(g, [{ block: T0 + 30, blockreward: '5' }]), 20, stored), undefined);
});
