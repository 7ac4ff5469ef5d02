/**
 * ethers 6 against live qbft-lab nodes, with a contract compiled by solc (test/contracts/Store.sol):
 * deploy, read functions (eth_call), transactions, receipts with decoded events, eth_getLogs by
 * indexed topic, reverts (eth_call, eth_estimateGas and a mined failed transaction), and
 * eth_subscribe newHeads and logs. Once over HTTP + WebSocket on a 4-validator network (the
 * transactions go to node 0, the subscriptions to node 1), once over the IPC socket of a
 * single-validator node (everything on the one socket).
 */
import test, { type ExecutionContext } from 'ava';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Contract, ContractFactory, EventLog, IpcSocketProvider, JsonRpcProvider, Network, WebSocketProvider, Wallet,
  isCallException, parseEther, type ContractEventPayload, type InterfaceAbi, type JsonRpcApiProvider, type SocketProvider,
} from 'ethers';
import { BESU_TEST_ACCOUNTS, validatorKeys } from '../sim/keys.ts';
import { buildSimGenesis } from '../sim/genesis-builder.ts';
import { parseGenesis } from '../node/chain/genesis.ts';
import { parseNodeOptions } from '../node/cli/node-options.ts';
import { startLiveNode } from '../node/cli/live-node.ts';
import { compileContract } from './contracts/compile.ts';
import { BLOCK_WAIT_MS, CHAIN_ID, Inbox, type Notification, assertLogShape, assertNewHeadShape, keyHex, startTestNetwork, within } from './client-kit.ts';

const STORE = compileContract('Store');
const ABI = STORE.abi as unknown as InterfaceAbi;
const REASON = 'Store: value too large';

/**
 * Watches a socket provider from the inside: every raw eth_subscription notification, and the
 * eth_subscribe / eth_unsubscribe calls ethers makes (to know when a subscription is in place and
 * to let ethers' own unsubscribes finish before the socket closes).
 */
function tapSocket(provider: SocketProvider) {
  const raw = new Inbox<Notification>();
  const subscribes: Array<{ kind: string; id: Promise<string> }> = [];
  const unsubscribes: Promise<unknown>[] = [];
  const process = provider._processMessage.bind(provider);
  provider._processMessage = async (message: string) => {
    const m = JSON.parse(message);
    if (m.method === 'eth_subscription') raw.push(m.params);
    return process(message);
  };
  const send = provider.send.bind(provider);
  provider.send = (method: string, params: any[] | Record<string, any>) => {
    const p = send(method, params);
    if (method === 'eth_subscribe') subscribes.push({ kind: (params as unknown[])[0] as string, id: p });
    if (method === 'eth_unsubscribe') unsubscribes.push(p);
    return p;
  };
  return {
    raw,
    /** The id of the newest subscription of this kind, once the node has answered. */
    subscriptionId: (kind: string) => within(5_000, `eth_subscribe ${kind}`, subscribes.filter((s) => s.kind === kind).at(-1)!.id),
    /** Removes every listener and waits for ethers' eth_unsubscribe calls to be answered. */
    async quiesce() {
      await provider.removeAllListeners();
      await within(5_000, 'eth_unsubscribe answers', (async () => {
        while (unsubscribes.length < subscribes.length) await new Promise((r) => setTimeout(r, 10));
        for (const r of await Promise.all(unsubscribes)) if (r !== true) throw new Error(`eth_unsubscribe answered ${String(r)}`);
      })());
    },
  };
}

async function storeRoundTrip(t: ExecutionContext, rpc: JsonRpcApiProvider, socket: SocketProvider, tap: ReturnType<typeof tapSocket>): Promise<void> {
  const wallet = new Wallet(keyHex(0), rpc);

  // Deploy with a constructor argument, check the receipt and the runtime code.
  const deployed = await new ContractFactory(ABI, STORE.bytecode, wallet).deploy(42n);
  const deployment = await deployed.deploymentTransaction()!.wait(1, BLOCK_WAIT_MS);
  t.is(deployment?.status, 1);
  const address = await deployed.getAddress();
  t.is(deployment?.contractAddress, address);
  t.is(await rpc.getCode(address), STORE.deployedBytecode);

  // Read functions (eth_call).
  const store = new Contract(address, ABI, wallet);
  t.is(await store.get(), 42n);
  t.is(await store.owner(), wallet.address);
  t.is(await store.LIMIT(), 1_000_000n);
  t.is(await store.changes(), 0n);

  // Reverts before sending: eth_call and eth_estimateGas carry the reason string.
  for (const attempt of [() => store.set.staticCall(2_000_000n, 'too big'), () => store.set.estimateGas(2_000_000n, 'too big')]) {
    const error = await t.throwsAsync(attempt());
    t.true(isCallException(error), String(error));
    if (isCallException(error)) t.is(error.reason, REASON);
  }

  // Subscribe (newHeads through the 'block' event, logs through a contract event listener), and
  // wait for the node's answers so the transaction below is sent after the subscriptions exist.
  const blocks = new Inbox<number>();
  await socket.on('block', blocks.push);
  const events = new Inbox<ContractEventPayload>();
  const watched = new Contract(address, ABI, socket);
  await watched.on('ValueChanged', (_author, _oldValue, _newValue, _note, payload: ContractEventPayload) => events.push(payload));
  const headsId = await tap.subscriptionId('newHeads');
  const logsId = await tap.subscriptionId('logs');

  // Two transactions in a row, a good one and one that reverts on chain (its gas limit is given,
  // so nothing estimates it first). The second takes its nonce from eth_getTransactionCount
  // 'pending' (the providers run with cacheTimeout -1: by default ethers answers a repeated
  // request within 250 ms from its cache, and would reuse the first nonce).
  const good = await store.set(7n, 'first');
  const bad = await store.set(2_000_000n, 'too big', { gasLimit: 100_000n });
  t.is(bad.nonce, good.nonce + 1);
  // And a plain transfer to an address that holds nothing yet.
  const payee = '0x' + 'e7'.repeat(20);
  const transfer = await wallet.sendTransaction({ to: payee, value: parseEther('1.5') });
  t.is(transfer.nonce, bad.nonce + 1);
  const receipt = await good.wait(1, BLOCK_WAIT_MS);
  t.is(receipt?.status, 1);
  t.is(receipt?.logs.length, 1);
  const log = receipt!.logs[0];
  t.true(log instanceof EventLog);
  if (log instanceof EventLog) {
    t.is(log.eventName, 'ValueChanged');
    t.deepEqual(log.args.toArray(), [wallet.address, 42n, 7n, 'first']);
    t.is(log.args.note, 'first');
  }
  const failure = await t.throwsAsync(bad.wait(1, BLOCK_WAIT_MS));
  t.true(isCallException(failure), String(failure));
  if (isCallException(failure)) t.is(failure.receipt?.status, 0);
  const badReceipt = await rpc.getTransactionReceipt(bad.hash);
  t.is(badReceipt?.status, 0);
  t.is(badReceipt?.logs.length, 0);
  t.true(badReceipt!.gasUsed > 21_000n && badReceipt!.gasUsed < 100_000n);

  t.is((await transfer.wait(1, BLOCK_WAIT_MS))?.status, 1);
  t.is(await rpc.getBalance(payee), parseEther('1.5'));
  t.is(await store.get(), 7n);
  t.is(await store.changes(), 1n);

  // eth_getLogs through contract filters on the indexed arguments.
  const byAuthor = await store.queryFilter(store.filters.ValueChanged(wallet.address), deployment!.blockNumber);
  t.is(byAuthor.length, 1);
  t.is(byAuthor[0].transactionHash, good.hash);
  t.deepEqual((byAuthor[0] as EventLog).args.toArray(), [wallet.address, 42n, 7n, 'first']);
  t.is((await store.queryFilter(store.filters.ValueChanged(null, 42n), 0)).length, 1);
  t.is((await store.queryFilter(store.filters.ValueChanged(BESU_TEST_ACCOUNTS[1].address), 0)).length, 0);

  // The event arrived over the subscription, decoded, and the raw notification has Besu's shape.
  const event = await events.next('ValueChanged over the socket', (e) => e.log.transactionHash === good.hash);
  t.deepEqual(event.args.toArray(), [wallet.address, 42n, 7n, 'first']);
  t.is(event.log.blockHash, receipt!.blockHash);
  const rawLog = await tap.raw.next('raw logs notification', (n) => n.subscription === logsId && n.result.transactionHash === good.hash);
  assertLogShape(t, rawLog.result, { address, transactionHash: good.hash, topics: 3 });
  t.is(rawLog.result.topics[0], store.interface.getEvent('ValueChanged')!.topicHash);
  t.is(tap.raw.items.filter((n) => n.subscription === logsId).length, 1);

  const number = await blocks.next('a block event');
  t.true(number > 0);
  const rawHead = await tap.raw.next('raw newHeads notification', (n) => n.subscription === headsId);
  assertNewHeadShape(t, rawHead.result);
  t.is((await rpc.getBlock(Number(rawHead.result.number)))?.hash, rawHead.result.hash);
}

test('ethers 6 over HTTP and WebSocket: deploys a solc contract, calls it, sends transactions, reads receipts, logs and subscriptions', async (t) => {
  const net = await startTestNetwork('ethers');
  const network = Network.from(CHAIN_ID);
  const rpc = new JsonRpcProvider(`http://127.0.0.1:${net.httpPorts[0]}`, network, { staticNetwork: network, pollingInterval: 100, cacheTimeout: -1 });
  const ws = new WebSocketProvider(`ws://127.0.0.1:${net.wsPorts[1]}`, network, { staticNetwork: network, cacheTimeout: -1 });
  const tap = tapSocket(ws);
  try {
    await storeRoundTrip(t, rpc, ws, tap);
  } finally {
    await tap.quiesce().catch((e) => t.log(String(e)));
    rpc.destroy();
    await ws.destroy();
    await net.close();
  }
});

test('ethers 6 over the IPC socket of a single-validator node: the same contract round trip', async (t) => {
  const dataPath = mkdtempSync(join(tmpdir(), 'qbft-lab-ipc-'));
  const [key] = validatorKeys(1);
  const genesis = parseGenesis(buildSimGenesis({ validators: [key.address], startTimeSeconds: Math.floor(Date.now() / 1000) }));
  const opts = parseNodeOptions(['--data-path', dataPath, '--Xrpc-ipc-enabled', '--min-gas-price', '0']);
  const live = await startLiveNode(opts, { genesis, privateKey: key.privateKey, p2pEnabled: false });
  const network = Network.from(CHAIN_ID);
  const ipc = new IpcSocketProvider(join(dataPath, 'besu.ipc'), network, { staticNetwork: network, pollingInterval: 100, cacheTimeout: -1 });
  const tap = tapSocket(ipc);
  try {
    await storeRoundTrip(t, ipc, ipc, tap);
  } finally {
    await tap.quiesce().catch((e) => t.log(String(e)));
    ipc.destroy();
    await live.close();
  }
});
