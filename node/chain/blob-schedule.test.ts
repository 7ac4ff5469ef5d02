import test from 'ava';
import { paramsBlock } from '@ethereumjs/block';
import { parseGenesis } from './genesis.ts';
import { createCommonFromGenesis } from './common.ts';

const BLOB_GAS = 131_072n;

function commonFor(config: Record<string, unknown>) {
  const genesis = parseGenesis(JSON.stringify({ config: { chainId: 7, londonBlock: 0, shanghaiTime: 0, cancunTime: 0, qbft: { blockperiodseconds: 1 }, ...config }, gasLimit: '0x1000000', difficulty: '0x1', extraData: '0x', alloc: {} }));
  const common = createCommonFromGenesis(genesis);
  common.updateParams(paramsBlock);
  return (timestamp: number) => {
    common.setHardforkBy({ blockNumber: 1n, timestamp: BigInt(timestamp) });
    const figures = { fork: common.hardfork(), maxBlobGas: common.param('maxBlobGasPerBlock'), targetBlobGas: common.param('targetBlobGasPerBlock'), fraction: common.param('blobGasPriceUpdateFraction') };
    // What the block library reads (excess blob gas, blob limits): bpo forks answer from other params.
    const schedule = common.getBlobGasSchedule();
    if (schedule.maxBlobGasPerBlock !== figures.maxBlobGas || schedule.targetBlobGasPerBlock !== figures.targetBlobGas || schedule.blobGasPriceUpdateFraction !== figures.fraction)
      throw new Error(`${figures.fork}: getBlobGasSchedule ${JSON.stringify(schedule, (_, v) => (typeof v === 'bigint' ? String(v) : v))} differs from the params`);
    return figures;
  };
}

test('blobSchedule (geth and Besu spelling) sets each fork blob figures; bpo forks follow their times', (t) => {
  const at = commonFor({
    pragueTime: 100,
    osakaTime: 200,
    bpo1Time: 300,
    bpo3Time: 400,
    blobSchedule: {
      cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
      prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
      bpo1: { target: 10, max: 15, baseFeeUpdateFraction: 8346193 },
      bpo3: { target: 20, max: 30, baseFeeUpdateFraction: 9000000 },
    },
  });
  t.deepEqual(at(0), { fork: 'cancun', maxBlobGas: 6n * BLOB_GAS, targetBlobGas: 3n * BLOB_GAS, fraction: 3338477n });
  t.deepEqual(at(150), { fork: 'prague', maxBlobGas: 9n * BLOB_GAS, targetBlobGas: 6n * BLOB_GAS, fraction: 5007716n });
  t.is(at(250).fork, 'osaka');
  t.is(at(250).maxBlobGas, 9n * BLOB_GAS, 'osaka without an entry keeps the schedule in force');
  t.deepEqual(at(350), { fork: 'bpo1', maxBlobGas: 15n * BLOB_GAS, targetBlobGas: 10n * BLOB_GAS, fraction: 8346193n });
  t.deepEqual(at(450), { fork: 'bpo3', maxBlobGas: 30n * BLOB_GAS, targetBlobGas: 20n * BLOB_GAS, fraction: 9000000n });
});

test('a bpo fork without a blobSchedule entry keeps the previous figures (not the library mainnet ones)', (t) => {
  const at = commonFor({ pragueTime: 0, osakaTime: 0, bpo2Time: 100, blobSchedule: { prague: { target: 4, max: 8, baseFeeUpdateFraction: 4000000 } } });
  t.is(at(150).fork, 'bpo2');
  t.is(at(150).maxBlobGas, 8n * BLOB_GAS);
  t.is(at(150).fraction, 4000000n);
});
