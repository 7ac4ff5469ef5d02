/**
 * `qbft-lab network` (what `npm start` runs) enables the newest fork this node runs from genesis,
 * as Hardhat and anvil do, so a contract compiled for solc's current targets deploys: here one
 * compiled for `cancun` (transient storage, PUSH0) with ethers. `--fork london` keeps the old
 * genesis, where the same bytecode fails as it would on a London Besu chain.
 */
import test from 'ava';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Contract, ContractFactory, JsonRpcProvider, Network, Wallet, type InterfaceAbi } from 'ethers';
import { startNetwork, type RunningNetwork } from '../cli/network-command.ts';
import { compileFor } from './contracts/compile.ts';
import { CHAIN_ID, keyHex, within } from './client-kit.ts';

const COUNTER = compileFor('TransientCounter.sol', 'TransientCounter', 'cancun');

type GenesisConfig = Record<string, unknown>;

async function withNetwork(flags: Record<string, string>, body: (config: GenesisConfig, wallet: Wallet) => Promise<void>): Promise<void> {
  const dataPath = mkdtempSync(join(tmpdir(), 'qbft-lab-fork-'));
  const net: RunningNetwork = await startNetwork({ validators: '1', 'data-path': dataPath, 'base-port': '0', ...flags }, Date.now());
  const config = (JSON.parse(readFileSync(join(dataPath, 'genesis.json'), 'utf8')) as { config: GenesisConfig }).config;
  const provider = new JsonRpcProvider(`http://127.0.0.1:${net.httpPorts[0]}`, Network.from(CHAIN_ID), { staticNetwork: true, pollingInterval: 100 });
  try {
    await body(config, new Wallet(keyHex(0), provider));
  } finally {
    provider.destroy();
    await net.close();
  }
}

test('the generated genesis runs Cancun from block 0: a contract compiled for cancun deploys and runs', async (t) => {
  t.true(COUNTER.bytecode.includes('5f'), 'the bytecode uses PUSH0 somewhere');
  await withNetwork({}, async (config, wallet) => {
    t.deepEqual({ shanghai: config.shanghaiTime, cancun: config.cancunTime }, { shanghai: 0, cancun: 0 });
    const factory = new ContractFactory(COUNTER.abi as unknown as InterfaceAbi, COUNTER.bytecode, wallet);
    const counter = (await within(30_000, 'deployment', (async () => (await factory.deploy()).waitForDeployment())())) as Contract;
    const receipt = await within(30_000, 'bump', (async () => (await counter.bump!()).wait())());
    t.is(receipt?.status, 1);
    t.is(await counter.count!(), 1n);
  });
});

test('--fork london: the cancun bytecode is refused as on a London chain', async (t) => {
  await withNetwork({ fork: 'london' }, async (config, wallet) => {
    t.is(config.shanghaiTime, undefined);
    const factory = new ContractFactory(COUNTER.abi as unknown as InterfaceAbi, COUNTER.bytecode, wallet);
    const error = await t.throwsAsync(within(30_000, 'deployment', (async () => (await factory.deploy({ gasLimit: 1_000_000n })).waitForDeployment())()));
    // Mined and failed (status 0): PUSH0 is an invalid opcode before Shanghai.
    t.is((error as { code?: string }).code, 'CALL_EXCEPTION', String(error));
  });
});

test('--fork names a fork this node runs, or the network does not start', async (t) => {
  await t.throwsAsync(startNetwork({ validators: '1', 'data-path': mkdtempSync(join(tmpdir(), 'qbft-lab-fork-')), 'base-port': '0', fork: 'frontier2' }, Date.now()), {
    message: /--fork: 'frontier2' must be one of london, shanghai, cancun/,
  });
});
