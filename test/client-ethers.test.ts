/** ethers 6 against a live qbft-lab network: transfers, a contract deployment, logs, WebSocket blocks. */
import test from 'ava';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonRpcProvider, WebSocketProvider, Wallet, parseEther } from 'ethers';
import { startNetwork } from '../cli/network-command.ts';
import { BESU_TEST_ACCOUNTS } from '../sim/keys.ts';

// Init code that deploys runtime code emitting one LOG1 (topic 0x01) per call:
// PUSH1 8, DUP1, PUSH1 11, PUSH1 0, CODECOPY, PUSH1 0, RETURN || PUSH1 1, PUSH1 0, PUSH1 0, LOG1, STOP
const LOGGER_INIT_CODE = '0x600880600b6000396000f3' + '600160006000a100';

test.serial('ethers 6 sends transfers, deploys and calls a contract, reads logs and follows blocks over WebSocket', async (t) => {
  const net = await startNetwork({ validators: '4', 'data-path': mkdtempSync(join(tmpdir(), 'qbft-lab-ethers-')), 'base-port': '0' }, Date.now());
  const provider = new JsonRpcProvider(`http://127.0.0.1:${net.httpPorts[0]}`, 1337, { staticNetwork: true, pollingInterval: 100 });
  const ws = new WebSocketProvider(`ws://127.0.0.1:${net.wsPorts[1]}`, 1337);
  try {
    const wallet = new Wallet('0x' + Buffer.from(BESU_TEST_ACCOUNTS[0].privateKey).toString('hex'), provider);
    const to = BESU_TEST_ACCOUNTS[1].address;
    const before = await provider.getBalance(to);
    const transfer = await wallet.sendTransaction({ to, value: parseEther('1.5') });
    const transferReceipt = await transfer.wait(1, 20_000);
    t.is(transferReceipt?.status, 1);
    t.is(await provider.getBalance(to), before + parseEther('1.5'));

    const deploy = await wallet.sendTransaction({ data: LOGGER_INIT_CODE });
    const deployReceipt = await deploy.wait(1, 20_000);
    const address = deployReceipt?.contractAddress;
    t.truthy(address);
    t.is(await provider.getCode(address!), '0x600160006000a100');

    const call = await wallet.sendTransaction({ to: address!, gasLimit: 50_000n });
    const callReceipt = await call.wait(1, 20_000);
    t.is(callReceipt?.logs.length, 1);
    const logs = await provider.getLogs({ address: address!, fromBlock: 0 });
    t.is(logs.length, 1);
    t.is(logs[0].topics[0], '0x' + '00'.repeat(31) + '01');
    t.is(logs[0].transactionHash, call.hash);

    const block = await new Promise<number>((resolve) => void ws.once('block', (n: number) => resolve(n)));
    t.true(block > 0);
  } finally {
    provider.destroy();
    await ws.destroy();
    await net.close();
  }
});
