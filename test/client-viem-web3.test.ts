/** viem 2 and web3.js 4 against a live qbft-lab network, and ethers over the IPC socket of a single node. */
import test from 'ava';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, createWalletClient, defineChain, http, parseEther, webSocket } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { Web3 } from 'web3';
import { IpcSocketProvider, Wallet, parseEther as ethersParseEther } from 'ethers';
import { startNetwork } from '../cli/network-command.ts';
import { BESU_TEST_ACCOUNTS, validatorKeys } from '../sim/keys.ts';
import { buildSimGenesis } from '../sim/genesis-builder.ts';
import { parseGenesis } from '../node/chain/genesis.ts';
import { parseNodeOptions } from '../node/cli/node-options.ts';
import { startLiveNode } from '../node/cli/live-node.ts';

const keyHex = (i: number) => ('0x' + Buffer.from(BESU_TEST_ACCOUNTS[i].privateKey).toString('hex')) as `0x${string}`;

test.serial('viem 2 and web3.js 4 send transfers, read receipts and follow new heads', async (t) => {
  const net = await startNetwork({ validators: '4', 'data-path': mkdtempSync(join(tmpdir(), 'qbft-lab-viem-')), 'base-port': '0' }, Date.now());
  try {
    const chain = defineChain({ id: 1337, name: 'qbft-lab', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [`http://127.0.0.1:${net.httpPorts[0]}`] } } });
    const account = privateKeyToAccount(keyHex(0));
    const wallet = createWalletClient({ account, chain, transport: http() });
    const client = createPublicClient({ chain, transport: http(), pollingInterval: 100 });
    const to = BESU_TEST_ACCOUNTS[2].address;
    const before = await client.getBalance({ address: to });
    const hash = await wallet.sendTransaction({ to, value: parseEther('0.25') });
    const receipt = await client.waitForTransactionReceipt({ hash, timeout: 20_000 });
    t.is(receipt.status, 'success');
    t.is(await client.getBalance({ address: to }), before + parseEther('0.25'));

    const wsClient = createPublicClient({ chain, transport: webSocket(`ws://127.0.0.1:${net.wsPorts[1]}`, { reconnect: false }) });
    const head = await new Promise<bigint>((resolve, reject) => {
      const unwatch = wsClient.watchBlockNumber({ onBlockNumber: (n) => (unwatch(), resolve(n)), onError: reject });
    });
    t.true(head > 0n);
    (await wsClient.transport.getRpcClient()).close();

    const web3 = new Web3(`http://127.0.0.1:${net.httpPorts[2]}`);
    const sender = web3.eth.accounts.privateKeyToAccount(keyHex(1));
    t.is(await web3.eth.getChainId(), 1337n);
    const signed = await sender.signTransaction({ to, value: web3.utils.toWei('0.5', 'ether'), gas: 21000, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n, chainId: 1337, nonce: await web3.eth.getTransactionCount(sender.address, 'pending') });
    const sent = await web3.eth.sendSignedTransaction(signed.rawTransaction);
    t.is(sent.status, 1n);
    t.is(await web3.eth.net.getId(), 1337n);
  } finally {
    await net.close();
  }
});

test.serial('a single-validator node serves ethers over its IPC socket', async (t) => {
  const dataPath = mkdtempSync(join(tmpdir(), 'qbft-lab-ipc-'));
  const [key] = validatorKeys(1);
  const genesis = parseGenesis(buildSimGenesis({ validators: [key.address], startTimeSeconds: Math.floor(Date.now() / 1000) }));
  const opts = parseNodeOptions(['--data-path', dataPath, '--Xrpc-ipc-enabled', '--min-gas-price', '0']);
  const live = await startLiveNode(opts, { genesis, privateKey: key.privateKey, p2pEnabled: false });
  const provider = new IpcSocketProvider(join(dataPath, 'besu.ipc'), 1337, { staticNetwork: true, pollingInterval: 100 });
  try {
    const wallet = new Wallet(keyHex(0), provider);
    const tx = await wallet.sendTransaction({ to: BESU_TEST_ACCOUNTS[1].address, value: ethersParseEther('2') });
    const receipt = await tx.wait(1, 20_000);
    t.is(receipt?.status, 1);
    t.true((await provider.getBlockNumber()) >= 1);
  } finally {
    // Let ethers finish its own eth_unsubscribe before the socket goes away.
    await provider.removeAllListeners();
    await new Promise((resolve) => setTimeout(resolve, 200));
    provider.destroy();
    await live.close();
  }
});
