import test from 'ava';
import { readFileSync } from 'node:fs';
import type { Hex } from './crypto/bytes.ts';
import type { ChainEntry } from './chain/chain.ts';
import { QbftForkSchedule } from './chain/fork-schedule.ts';
import { parseGenesis } from './chain/genesis.ts';
import { ValidatorSets } from './validator-sets.ts';

const DOCS_FILE = new URL('./chain/testdata/besu-docs-qbft-genesis.json', import.meta.url).pathname;
const addr = (n: number): Hex => `0x${n.toString(16).padStart(40, '0')}`;
const hash = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`;
const CONTRACT = addr(0x7777);
const HEADER_VALIDATORS = [addr(1), addr(2), addr(3), addr(4)];
const CONTRACT_VALIDATORS = [addr(0xc1), addr(0xc2), addr(0xc3)];
const T = 1_700_000_100;

function abiAddressArray(list: Hex[]): Uint8Array {
  const words = [32n, BigInt(list.length), ...list.map((a) => BigInt(a))];
  return Uint8Array.from(words.flatMap((w) => [...Buffer.from(w.toString(16).padStart(64, '0'), 'hex')]));
}

function scheduleWith(configPatch: Record<string, unknown>, transitions: unknown[]): QbftForkSchedule {
  const json = JSON.parse(readFileSync(DOCS_FILE, 'utf8'));
  Object.assign(json.config, configPatch);
  json.config.transitions = { qbft: transitions };
  return new QbftForkSchedule(parseGenesis(json));
}

/** A straight chain of `length` header-mode blocks (no votes), block n at timestamp `timestampOf(n)`. */
function chainOf(length: number, timestampOf: (n: number) => number): ChainEntry[] {
  const entries: ChainEntry[] = [];
  for (let n = 0; n < length; n++)
    entries.push({
      hash: hash(0x1000 + n), number: n, parentHash: n === 0 ? hash(0) : hash(0x1000 + n - 1), td: BigInt(n + 1),
      timestamp: timestampOf(n), coinbase: addr(1), block: undefined as never,
      extra: { vanity: new Uint8Array(32), validators: HEADER_VALIDATORS, round: 0, seals: [] },
    });
  return entries;
}

function setsFor(schedule: QbftForkSchedule, entries: ChainEntry[], calls: Array<{ block: number; to: Hex }> = []): ValidatorSets {
  const byHash = new Map(entries.map((e) => [e.hash, e]));
  return new ValidatorSets(schedule, HEADER_VALIDATORS, 30000, (h) => byHash.get(h), {
    callAt: async (entry, to) => {
      calls.push({ block: entry.number, to });
      return abiAddressArray(CONTRACT_VALIDATORS);
    },
  });
}

test('contract mode ignores a transition\'s validators list: the contract alone decides (TransactionValidatorProvider)', async (t) => {
  const schedule = scheduleWith({}, [{ block: 3, validatorselectionmode: 'contract', validatorcontractaddress: CONTRACT, validators: [addr(0xee)] }]);
  const chain = chainOf(6, (n) => T + n);
  const calls: Array<{ block: number; to: Hex }> = [];
  const sets = setsFor(schedule, chain, calls);
  t.deepEqual(await sets.forChildOf(chain[1]), HEADER_VALIDATORS, 'block 2: header mode still');
  t.deepEqual(await sets.forChildOf(chain[2]), CONTRACT_VALIDATORS, 'block 3 (the transition block itself) reads the contract');
  t.deepEqual(await sets.forChildOf(chain[4]), CONTRACT_VALIDATORS);
  t.deepEqual(calls, [{ block: 2, to: CONTRACT }, { block: 4, to: CONTRACT }], 'read on the parent state');
});

test('time-typed transition: the validators after a block follow the fork at the PARENT\'s timestamp, a block\'s own list its own timestamp', async (t) => {
  // shanghaiTime 0 makes every transition's `block` a timestamp (Besu PR #9785).
  const schedule = scheduleWith({ londonblock: 0, shanghaitime: 0 }, [{ block: T, validatorselectionmode: 'contract', validatorcontractaddress: CONTRACT }]);
  const chain = chainOf(6, (n) => T - 4 + 2 * n); // timestamps T-4, T-2, T, T+2, ...
  const calls: Array<{ block: number; to: Hex }> = [];
  const sets = setsFor(schedule, chain, calls);
  t.deepEqual(await sets.forChildOf(chain[1]), HEADER_VALIDATORS, 'parent at T-2: header mode for block 2 even though block 2 itself is at T');
  t.deepEqual(await sets.forChildOf(chain[2]), CONTRACT_VALIDATORS, 'parent at T: contract mode for block 3');
  t.false(sets.isContractModeAt(1, chain[1].timestamp));
  t.true(sets.isContractModeAt(2, chain[2].timestamp));
  t.false(sets.isContractModeAt(2), 'without a timestamp the block number decides, and T is far above 2');
  t.deepEqual(await sets.ofBlock(chain[1]), HEADER_VALIDATORS, 'own timestamp T-2: the extraData list');
  t.deepEqual(await sets.ofBlock(chain[2]), CONTRACT_VALIDATORS, 'own timestamp T: the contract on its own state');
  t.deepEqual(calls, [{ block: 2, to: CONTRACT }, { block: 2, to: CONTRACT }]);
});

test('Besu quirk kept: a validators override on a time-typed transition never applies (overrides are keyed by block number)', async (t) => {
  const schedule = scheduleWith({ londonblock: 0, shanghaitime: 0 }, [{ block: T, validators: [addr(0xee)] }]);
  const chain = chainOf(6, (n) => T - 4 + 2 * n);
  const sets = setsFor(schedule, chain);
  for (const parent of chain) t.deepEqual(await sets.forChildOf(parent), HEADER_VALIDATORS, `after block ${parent.number}`);
  const byNumber = scheduleWith({}, [{ block: 3, validators: [addr(0xee)] }]);
  t.deepEqual(await setsFor(byNumber, chain).forChildOf(chain[2]), [addr(0xee)], 'the same override by block number applies');
});
