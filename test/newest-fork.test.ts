/**
 * `qbft-lab network` (what `npm start` runs) enables the newest fork this node runs (Osaka) from
 * genesis, as Hardhat and anvil do, so contracts compiled for solc's current targets deploy: with
 * ethers, one compiled for `cancun` (transient storage, PUSH0), one for `osaka` (CLZ), and an
 * EIP-7702 set-code transaction delegating an account to a contract. `--fork london` keeps the old
 * genesis, where the cancun bytecode fails as it would on a London Besu chain.
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
const LEADING_ZEROS = compileFor('LeadingZeros.sol', 'LeadingZeros', 'osaka');
const GREETER = compileFor('Osaka.sol', 'Greeter7702', 'osaka');

async function deploy(wallet: Wallet, c: { abi: unknown; bytecode: string }): Promise<Contract> {
  const factory = new ContractFactory(c.abi as InterfaceAbi, c.bytecode, wallet);
  return (await within(30_000, 'deployment', (async () => (await factory.deploy()).waitForDeployment())())) as Contract;
}

type GenesisConfig = Record<string, unknown>;

async function withNetwork(flags: Record<string, string>, body: (config: GenesisConfig, wallet: Wallet, net: RunningNetwork) => Promise<void>): Promise<void> {
  const dataPath = mkdtempSync(join(tmpdir(), 'qbft-lab-fork-'));
  const net: RunningNetwork = await startNetwork({ validators: '1', 'data-path': dataPath, 'base-port': '0', ...flags }, Date.now());
  const config = (JSON.parse(readFileSync(join(dataPath, 'genesis.json'), 'utf8')) as { config: GenesisConfig }).config;
  const provider = new JsonRpcProvider(`http://127.0.0.1:${net.httpPorts[0]}`, Network.from(CHAIN_ID), { staticNetwork: true, pollingInterval: 100 });
  try {
    await body(config, new Wallet(keyHex(0), provider), net);
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

test('the generated genesis runs Osaka: a contract compiled for osaka (CLZ) answers, and an EIP-7702 transaction delegates an account', async (t) => {
  await withNetwork({}, async (config, wallet, net) => {
    t.deepEqual([config.pragueTime, config.osakaTime], [0, 0]);
    const zeros = await deploy(wallet, LEADING_ZEROS);
    t.is(await zeros.leadingZeros!(1n), 255n);
    t.is(await zeros.leadingZeros!(2n ** 255n), 0n);

    const greeter = await deploy(wallet, GREETER);
    const provider = wallet.provider as JsonRpcProvider;
    const account = new Wallet(keyHex(1), provider);
    // The account authorizes the delegation; the sponsor (wallet) sends and pays for the type-4 transaction.
    const authorization = await account.authorize({ address: await greeter.getAddress(), nonce: await provider.getTransactionCount(account.address), chainId: CHAIN_ID });
    const data = greeter.interface.encodeFunctionData('greet');
    // eth_estimateGas applies the authorization before running the call (without it the call
    // would hit an empty account and the estimate would be too low for the delegated code).
    const estimate = await provider.estimateGas({ type: 4, from: wallet.address, to: account.address, data, authorizationList: [authorization] });
    t.true(estimate > 21_000n + 25_000n + 20_000n, `estimate ${estimate} covers the authorization and the SSTORE`);
    const sent = await wallet.sendTransaction({ type: 4, to: account.address, data, authorizationList: [authorization] });
    const receipt = await within(30_000, 'set-code transaction', sent.wait());
    t.is(receipt?.status, 1);
    t.is(await provider.getCode(account.address), `0xef0100${(await greeter.getAddress()).slice(2).toLowerCase()}`);
    const asGreeter = new Contract(account.address, GREETER.abi as unknown as InterfaceAbi, provider);
    t.is(await asGreeter.greetings!(), 1n, "the delegated code ran with the account's storage");
    const event = greeter.interface.parseLog(receipt!.logs[0]!);
    t.deepEqual([event?.name, event?.args[0], event?.args[1]], ['Greeted', account.address, wallet.address]);
    // eth_config (EIP-7910) as Besu answers on a PoA chain: Osaka's precompiles, Prague's blob
    // figures (no blobSchedule entry for Osaka), and no system contracts (Besu's PoA specs call none).
    const config7910 = await provider.send('eth_config', []);
    t.is(config7910.current.precompiles.P256VERIFY, '0x0000000000000000000000000000000000000100');
    t.is(config7910.current.precompiles.BLS12_PAIRING_CHECK, '0x000000000000000000000000000000000000000f');
    t.deepEqual(config7910.current.blobSchedule, { baseFeeUpdateFraction: 5007716, max: 9, target: 6 });
    t.is(config7910.current.systemContracts, undefined);
    const tx = await provider.send('eth_getTransactionByHash', [sent.hash]);
    t.is(tx.type, '0x4');
    t.is(tx.authorizationList.length, 1);
    t.is(tx.authorizationList[0].address.toLowerCase(), (await greeter.getAddress()).toLowerCase());
    // GraphQL (EIP-1767, Besu's schema: no authorization list field) answers its type and status.
    const graphql = await fetch(`http://127.0.0.1:${net.graphqlPorts[0]}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ transaction(hash: "${sent.hash}") { type status gasUsed } }` }),
    });
    const answer = (await graphql.json()) as { data?: { transaction: { type: string | number; status: string | number } } };
    t.deepEqual([Number(answer.data?.transaction.type), Number(answer.data?.transaction.status)], [4, 1], JSON.stringify(answer));
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
    message: /--fork: 'frontier2' must be one of london, shanghai, cancun, prague, osaka/,
  });
});
