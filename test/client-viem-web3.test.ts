/**
 * viem 2 and web3.js 4 against one live 4-validator qbft-lab network, side by side (each with its
 * own development account and its own pair of nodes), with a contract compiled by solc
 * (test/contracts/Store.sol): deploy, read functions (eth_call), transactions, receipts with
 * decoded events, eth_getLogs by indexed topic, reverts (eth_call, eth_estimateGas and a mined
 * failed transaction), and eth_subscribe newHeads and logs over WebSocket. ethers over HTTP,
 * WebSocket and IPC is in client-ethers.test.ts.
 */
import anyTest, { type TestFn } from 'ava';
import {
  BaseError, ContractFunctionRevertedError, createPublicClient, createWalletClient, defineChain, http, parseEther, parseEventLogs, webSocket,
  type Block, type Log,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { Web3, type EventLog as Web3EventLog } from 'web3';
import type { RunningNetwork } from '../cli/network-command.ts';
import { compileContract } from './contracts/compile.ts';
import { BLOCK_WAIT_MS, CHAIN_ID, Inbox, type Notification, assertLogShape, assertNewHeadShape, keyHex, startTestNetwork, within } from './client-kit.ts';

const test = anyTest as TestFn<{ net: RunningNetwork }>;
const STORE = compileContract('Store');
/** A web3 read call, its result untyped (web3 types results from `as const` ABI literals only). */
const read = (method: { call(): Promise<unknown> }) => method.call();
const REASON = 'Store: value too large';

test.before(async (t) => {
  t.context.net = await startTestNetwork('viem-web3');
});

test.after.always(async (t) => {
  await t.context.net?.close();
});

test('viem 2: deploys a solc contract, calls it, sends transactions, reads receipts, logs and subscriptions', async (t) => {
  const { net } = t.context;
  const url = `http://127.0.0.1:${net.httpPorts[0]}`;
  const chain = defineChain({ id: CHAIN_ID, name: 'qbft-lab', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } });
  const account = privateKeyToAccount(keyHex(0));
  const wallet = createWalletClient({ account, chain, transport: http(url) });
  const client = createPublicClient({ chain, transport: http(url), pollingInterval: 100 });
  const ws = createPublicClient({ chain, transport: webSocket(`ws://127.0.0.1:${net.wsPorts[1]}`, { reconnect: false }) });
  const { abi } = STORE;
  const stops: Array<() => unknown> = [];
  try {
    // Deploy with a constructor argument, check the receipt and the runtime code.
    const deployHash = await wallet.deployContract({ abi, bytecode: STORE.bytecode, args: [42n] });
    const deployment = await client.waitForTransactionReceipt({ hash: deployHash, timeout: BLOCK_WAIT_MS, pollingInterval: 100 });
    t.is(deployment.status, 'success');
    const address = deployment.contractAddress!;
    t.regex(address, /^0x[0-9a-fA-F]{40}$/);
    t.is(await client.getCode({ address }), STORE.deployedBytecode);

    // Read functions (eth_call).
    t.is(await client.readContract({ address, abi, functionName: 'get' }), 42n);
    t.is(await client.readContract({ address, abi, functionName: 'owner' }), account.address);
    t.is(await client.readContract({ address, abi, functionName: 'LIMIT' }), 1_000_000n);

    // Reverts before sending: eth_call (simulate) and eth_estimateGas carry the reason string.
    const request = { address, abi, functionName: 'set', args: [2_000_000n, 'too big'], account } as const;
    for (const attempt of [client.simulateContract(request), client.estimateContractGas(request)]) {
      const error = await t.throwsAsync(attempt);
      const reverted = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null;
      t.true(reverted instanceof ContractFunctionRevertedError, String(error));
      if (reverted instanceof ContractFunctionRevertedError) t.is(reverted.reason, REASON);
    }

    // Subscribe over WebSocket: viem's watchers (newHeads and logs subscriptions), and the raw
    // subscriptions, filtered by the contract address, whose notifications are checked as Besu
    // sends them. The raw ones are awaited (eth_subscribe answered); the node answers a
    // connection's requests in order, so the watchers' subscriptions are in place too.
    const blocks = new Inbox<Block>();
    const events = new Inbox<Log>();
    const onError = (e: Error) => t.fail(`subscription error: ${e.message}`);
    stops.push(ws.watchBlocks({ onBlock: blocks.push, onError }));
    stops.push(ws.watchContractEvent({ address, abi, eventName: 'ValueChanged', onLogs: (logs) => logs.forEach(events.push), onError }));
    const rawHeads = new Inbox<Notification>();
    const rawLogs = new Inbox<Notification>();
    const heads = await ws.transport.subscribe({ params: ['newHeads'], onData: (d) => rawHeads.push(d as unknown as Notification), onError });
    stops.push(heads.unsubscribe);
    const logs = await ws.transport.subscribe({ params: ['logs', { address }], onData: (d) => rawLogs.push(d as unknown as Notification), onError });
    stops.push(logs.unsubscribe);

    // A good transaction and one that reverts on chain (its gas is given, so nothing estimates
    // it); viem takes the second nonce from eth_getTransactionCount 'pending'.
    const good = await wallet.writeContract({ address, abi, functionName: 'set', args: [7n, 'first'] });
    const bad = await wallet.writeContract({ address, abi, functionName: 'set', args: [2_000_000n, 'too big'], gas: 100_000n });
    // And a plain transfer to an address that holds nothing yet.
    const payee = `0x${'7e'.repeat(20)}` as const;
    const transfer = await wallet.sendTransaction({ to: payee, value: parseEther('0.25') });
    const receipt = await client.waitForTransactionReceipt({ hash: good, timeout: BLOCK_WAIT_MS, pollingInterval: 100 });
    t.is(receipt.status, 'success');
    const decoded = parseEventLogs({ abi, logs: receipt.logs });
    t.is(decoded.length, 1);
    t.is(decoded[0].eventName, 'ValueChanged');
    t.deepEqual(decoded[0].args, { author: account.address, oldValue: 42n, newValue: 7n, note: 'first' });
    const badReceipt = await client.waitForTransactionReceipt({ hash: bad, timeout: BLOCK_WAIT_MS, pollingInterval: 100 });
    t.is(badReceipt.status, 'reverted');
    t.is(badReceipt.logs.length, 0);
    t.is((await client.waitForTransactionReceipt({ hash: transfer, timeout: BLOCK_WAIT_MS, pollingInterval: 100 })).status, 'success');
    t.is(await client.getBalance({ address: payee }), parseEther('0.25'));
    t.is((await client.getTransaction({ hash: transfer })).nonce, (await client.getTransaction({ hash: bad })).nonce + 1);
    t.is((await client.getTransaction({ hash: bad })).nonce, (await client.getTransaction({ hash: good })).nonce + 1);
    t.is(await client.readContract({ address, abi, functionName: 'get' }), 7n);
    t.is(await client.readContract({ address, abi, functionName: 'changes' }), 1n);

    // eth_getLogs on the indexed arguments.
    const byAuthor = await client.getContractEvents({ address, abi, eventName: 'ValueChanged', args: { author: account.address }, fromBlock: deployment.blockNumber });
    t.is(byAuthor.length, 1);
    t.is(byAuthor[0].transactionHash, good);
    t.deepEqual(byAuthor[0].args, { author: account.address, oldValue: 42n, newValue: 7n, note: 'first' });
    t.is((await client.getContractEvents({ address, abi, eventName: 'ValueChanged', args: { oldValue: 41n }, fromBlock: 0n })).length, 0);

    // The event arrived over the subscriptions.
    const event = (await events.next('ValueChanged from watchContractEvent', (l) => l.transactionHash === good)) as Log & { args: unknown };
    t.deepEqual(event.args, { author: account.address, oldValue: 42n, newValue: 7n, note: 'first' });
    t.is(event.blockHash, receipt.blockHash);
    const rawLog = await rawLogs.next('raw logs notification', (n) => n.result.transactionHash === good);
    t.is(rawLog.subscription, logs.subscriptionId);
    assertLogShape(t, rawLog.result, { address, transactionHash: good, topics: 3 });
    t.is(rawLogs.items.length, 1);

    const block = await blocks.next('a block from watchBlocks');
    t.is((await client.getBlock({ blockNumber: block.number! })).hash as string | null, block.hash);
    const rawHead = await rawHeads.next('raw newHeads notification');
    t.is(rawHead.subscription, heads.subscriptionId);
    assertNewHeadShape(t, rawHead.result);
    t.is((await client.getBlock({ blockNumber: BigInt(rawHead.result.number) })).hash, rawHead.result.hash);
  } finally {
    for (const stop of stops) await stop();
    (await ws.transport.getRpcClient()).close();
  }
});

test('web3.js 4: deploys a solc contract, calls it, sends transactions, reads receipts, logs and subscriptions', async (t) => {
  const { net } = t.context;
  const web3 = new Web3(`http://127.0.0.1:${net.httpPorts[2]}`);
  web3.setConfig({ transactionPollingInterval: 100, transactionReceiptPollingInterval: 100, transactionPollingTimeout: BLOCK_WAIT_MS });
  const web3ws = new Web3(`ws://127.0.0.1:${net.wsPorts[3]}`);
  const [account] = web3.eth.accounts.wallet.add(keyHex(1));
  const from = account.address;
  // Typed as any: web3's method and event types come from an `as const` ABI literal only.
  const abi = STORE.abi as any;
  try {
    t.is(await web3.eth.getChainId(), BigInt(CHAIN_ID));
    t.is(await web3.eth.net.getId(), BigInt(CHAIN_ID));

    // Deploy with a constructor argument (signed locally, sent raw).
    let deployHash = '';
    const store = await new web3.eth.Contract(abi).deploy({ data: STORE.bytecode, arguments: [42] }).send({ from }).on('transactionHash', (h) => {
      deployHash = String(h);
    });
    const address = store.options.address!;
    const deployment = await web3.eth.getTransactionReceipt(deployHash);
    t.is(deployment.status, 1n);
    t.is(deployment.contractAddress?.toLowerCase(), address.toLowerCase());
    t.is(await web3.eth.getCode(address), STORE.deployedBytecode);

    // Read functions (eth_call).
    t.is(await read(store.methods.get()), 42n);
    t.is(await read(store.methods.owner()), from);
    t.is(await read(store.methods.LIMIT()), 1_000_000n);

    // Reverts before sending: eth_call and eth_estimateGas carry the reason string.
    for (const attempt of [store.methods.set(2_000_000, 'too big').call({ from }), store.methods.set(2_000_000, 'too big').estimateGas({ from })]) {
      const error = (await t.throwsAsync(attempt)) as Error & { cause?: { code?: number; message?: string; data?: string } };
      t.is(error?.name, 'ContractExecutionError', String(error));
      t.is(error?.cause?.code, 3); // Besu's REVERT_ERROR, with the revert data
      t.is(error?.cause?.message, `Execution reverted (${REASON})`);
      t.true(error?.cause?.data?.startsWith('0x08c379a0'), 'Error(string) revert data');
    }

    // Subscribe over WebSocket: newBlockHeaders, the contract's event, and logs of the contract's
    // address; eth.subscribe resolves once the node has answered. Raw notifications are taken
    // from the provider to check their shape.
    const raw = new Inbox<Notification>();
    web3ws.provider!.on('message', (m: any) => {
      if (m?.method === 'eth_subscription') raw.push(m.params);
    });
    const headers = new Inbox<{ number: bigint; hash?: string }>();
    const headsSub = await web3ws.eth.subscribe('newBlockHeaders');
    headsSub.on('data', (h) => headers.push(h as { number: bigint; hash?: string }));
    const logsSub = await web3ws.eth.subscribe('logs', { address });
    const logs = new Inbox<{ transactionHash?: string; address?: string; removed?: boolean }>();
    logsSub.on('data', logs.push);
    const wsStore = new web3ws.eth.Contract(abi, address);
    const eventSub = wsStore.events.ValueChanged();
    const events = new Inbox<Web3EventLog>();
    eventSub.on('data', events.push);
    await within(5_000, 'contract event subscription', new Promise((resolve) => eventSub.once('connected', resolve)));

    // A good transaction, then one that reverts on chain with the next nonce (web3 takes nonces
    // from 'latest', so the second is given the 'pending' count once the node has the first; its
    // rejection is caught at once, since it comes while the first receipt is awaited).
    const goodSent = store.methods.set(7, 'first').send({ from });
    const good = String(await within(BLOCK_WAIT_MS, 'the first transaction hash', new Promise((resolve) => goodSent.once('transactionHash', resolve))));
    const nonce = await web3.eth.getTransactionCount(from, 'pending');
    const badSent = store.methods.set(2_000_000, 'too big').send({ from, gas: '100000', nonce: web3.utils.toHex(nonce) }).then(
      () => undefined,
      (e: unknown) => e as Error & { receipt?: { status: bigint; transactionHash: string } },
    );
    // And a plain transfer (signed locally, sent raw) to an address that holds nothing yet.
    const payee = '0x' + 'a5'.repeat(20);
    const signed = await account.signTransaction({ to: payee, value: web3.utils.toWei('0.5', 'ether'), gas: 21000, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n, chainId: CHAIN_ID, nonce: nonce + 1n });
    const transferSent = web3.eth.sendSignedTransaction(signed.rawTransaction).then((r) => r, (e: unknown) => e as Error);
    const receipt = await goodSent;
    t.is(receipt.status, 1n);
    t.is(receipt.transactionHash, good);
    const changed = receipt.events?.ValueChanged;
    t.truthy(changed);
    t.is(changed?.returnValues.author, from);
    t.is(changed?.returnValues.oldValue, 42n);
    t.is(changed?.returnValues.newValue, 7n);
    t.is(changed?.returnValues.note, 'first');
    const failure = await badSent;
    t.truthy(failure, 'the reverting transaction was not refused');
    t.is(failure?.name, 'TransactionRevertedWithoutReasonError');
    t.is(failure?.receipt?.status, 0n, String(failure));
    const badReceipt = await web3.eth.getTransactionReceipt(failure!.receipt!.transactionHash);
    t.is(badReceipt.status, 0n);
    t.is(badReceipt.logs.length, 0);
    t.is(BigInt((await web3.eth.getTransaction(failure!.receipt!.transactionHash)).nonce), nonce);
    const transferred = await transferSent;
    t.false(transferred instanceof Error, String(transferred));
    if (!(transferred instanceof Error)) t.is(transferred.status, 1n);
    t.is(await web3.eth.getBalance(payee), 5n * 10n ** 17n);
    t.is(await read(store.methods.get()), 7n);
    t.is(await read(store.methods.changes()), 1n);

    // eth_getLogs on the indexed arguments.
    const byAuthor = (await store.getPastEvents('ValueChanged', { filter: { author: from }, fromBlock: web3.utils.toHex(deployment.blockNumber) })) as Web3EventLog[];
    t.is(byAuthor.length, 1);
    t.is(byAuthor[0].transactionHash, good);
    t.is(byAuthor[0].returnValues.newValue, 7n);
    t.is(byAuthor[0].returnValues.note, 'first');

    // The event arrived over the subscriptions.
    const event = await events.next('ValueChanged over the contract subscription', (e) => e.transactionHash === good);
    t.is(event.returnValues.author, from);
    t.is(event.returnValues.oldValue, 42n);
    t.is(event.returnValues.newValue, 7n);
    t.is(event.returnValues.note, 'first');
    const log = await logs.next('a log over the logs subscription', (l) => l.transactionHash === good);
    t.is(log.address?.toLowerCase(), address.toLowerCase());
    t.is(log.removed, false);
    const rawLog = await raw.next('raw logs notification', (n) => n.subscription === logsSub.id && n.result.transactionHash === good);
    assertLogShape(t, rawLog.result, { address, transactionHash: good, topics: 3 });

    const header = await headers.next('a block header');
    t.is((await web3.eth.getBlock(header.number)).hash, header.hash);
    const rawHead = await raw.next('raw newHeads notification', (n) => n.subscription === headsSub.id);
    assertNewHeadShape(t, rawHead.result);
    t.is((await web3.eth.getBlock(BigInt(rawHead.result.number))).hash, rawHead.result.hash);
  } finally {
    await web3ws.eth.clearSubscriptions()?.catch(() => undefined);
    web3ws.provider?.disconnect?.();
  }
});
