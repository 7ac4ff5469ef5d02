/**
 * net, web3, qbft, txpool, admin, miner and debug methods, and the node's transaction index,
 * on simulated clusters.
 */
import test from 'ava';
import { bytesToHex } from '../../crypto/bytes.ts';
import { BESU_TEST_ACCOUNTS, validatorKeys } from '../../../sim/keys.ts';
import { LOGGER_CONTRACT } from '../../../sim/genesis-builder.ts';
import { NodeApi } from '../node-api.ts';
import { allMethods } from './index.ts';
import { readFileSync } from 'node:fs';
import { methodTableMarkdown, withMethodTable } from '../method-table.ts';
import { instantString } from './txpool.ts';
import { call, ok, sign1559, startCluster, type Cluster } from './test-kit.ts';

let c: Cluster;
let contractMode: Cluster;
test.before(async () => {
  c = await startCluster();
  contractMode = await startCluster({ contractMode: true, seed: 5 });
});

const A0 = BESU_TEST_ACCOUNTS[0].address;
const A1 = BESU_TEST_ACCOUNTS[1].address;
const VALIDATORS = validatorKeys(4).map((k) => k.address).sort();

test.serial('method names are unique and in their Besu group', (t) => {
  const specs = allMethods(c.api);
  t.is(new Set(specs.map((s) => s.name)).size, specs.length);
  // rpc_modules is in no group (enabled whenever any is).
  for (const s of specs) if (!s.alwaysEnabled) t.is(s.group as string, s.name.split('_')[0].toUpperCase(), s.name);
});

test.serial('docs/rpc.md lists every method of every group with the status the registry gives it', (t) => {
  const registered = new Map(allMethods(c.api).map((s) => [s.name, s.alwaysEnabled ? undefined : s.group] as const));
  const doc = readFileSync(new URL('../../../docs/rpc.md', import.meta.url), 'utf8');
  const expected = withMethodTable(doc, methodTableMarkdown(registered));
  t.is(doc, expected, 'docs/rpc.md method table is stale: run npm run method-table');
  // The table catches a method that stops being served.
  const fewer = new Map(registered);
  fewer.delete('eth_call');
  t.not(withMethodTable(doc, methodTableMarkdown(fewer)), doc);
});

test.serial('net_ and web3_', async (t) => {
  t.is(await ok(c.api, 'net_version'), '1337');
  t.is(await ok(new NodeApi(c.node, { networkId: 123n }), 'net_version'), '123');
  t.is(await ok(c.api, 'net_listening'), true);
  t.is(await ok(c.api, 'net_peerCount'), '0x3');
  t.regex(await ok(c.api, 'net_enode'), /^enode:\/\/[0-9a-f]{128}@127\.0\.0\.1:30303$/);
  t.deepEqual(await ok(c.api, 'net_services'), {});
  t.is(await ok(c.api, 'web3_clientVersion'), 'qbft-lab/v0.1.0/test');
  t.regex(await ok(new NodeApi(c.node), 'web3_clientVersion'), /^qbft-lab\/v0\.1\.0\/[a-z0-9]+-[a-z0-9_]+\/node-\d+$/);
  t.is(await ok(c.api, 'web3_sha3', ['0x68656c6c6f20776f726c64']), '0x47173285a8d7341e5e972fc677286384f802f8ef42a5ec5f03bbfa254cb01fad');
  t.is(await ok(c.api, 'web3_sha3', ['0x']), '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
  t.deepEqual(await call(c.api, 'web3_sha3', ['68656c6c6f']), { error: { code: -32602, message: 'Invalid data params' } });
  t.deepEqual(await call(c.api, 'web3_sha3', ['0x123']), { error: { code: -32602, message: 'Invalid data params' } });
  t.deepEqual(await call(c.api, 'web3_sha3', []), { error: { code: -32602, message: 'Invalid number of params' } });
});

test.serial('qbft_getValidatorsBy*, qbft_getRequestTimeoutSeconds', async (t) => {
  const head = c.node.head();
  t.deepEqual(await ok(c.api, 'qbft_getValidatorsByBlockNumber', ['latest']), VALIDATORS);
  t.deepEqual(await ok(c.api, 'qbft_getValidatorsByBlockNumber', ['pending']), VALIDATORS);
  t.deepEqual(await ok(c.api, 'qbft_getValidatorsByBlockNumber', ['0x0']), VALIDATORS);
  t.deepEqual(await ok(c.api, 'qbft_getValidatorsByBlockHash', [head.hash]), VALIDATORS);
  t.is(await ok(c.api, 'qbft_getValidatorsByBlockNumber', ['0xfffff']), null);
  t.is(await ok(c.api, 'qbft_getValidatorsByBlockHash', [`0x${'00'.repeat(32)}`]), null);
  t.deepEqual(await call(c.api, 'qbft_getValidatorsByBlockNumber', ['nope']), { error: { code: -32602, message: 'Invalid block param (block not found)' } });
  t.deepEqual(await call(c.api, 'qbft_getValidatorsByBlockHash', ['0x1234']), { error: { code: -32602, message: 'Invalid block hash params' } });
  t.is(await ok(c.api, 'qbft_getRequestTimeoutSeconds'), 2);
});

test.serial('qbft votes: propose, list, discard; parameter errors', async (t) => {
  const subject = `0x${'12'.repeat(20)}`;
  t.deepEqual(await ok(c.api, 'qbft_getPendingVotes'), {});
  t.is(await ok(c.api, 'qbft_proposeValidatorVote', [subject.toUpperCase().replace('0X', '0x'), true]), true);
  t.is(await ok(c.api, 'qbft_proposeValidatorVote', [VALIDATORS[1], false]), true);
  t.deepEqual(await ok(c.api, 'qbft_getPendingVotes'), { [subject]: true, [VALIDATORS[1]]: false });
  t.is(await ok(c.api, 'qbft_discardValidatorVote', [subject]), true);
  t.is(await ok(c.api, 'qbft_discardValidatorVote', [VALIDATORS[1]]), true);
  t.deepEqual(await ok(c.api, 'qbft_getPendingVotes'), {});
  t.deepEqual(await call(c.api, 'qbft_proposeValidatorVote', ['0xnope', true]), { error: { code: -32602, message: 'Invalid address params' } });
  t.deepEqual(await call(c.api, 'qbft_proposeValidatorVote', [subject, 'maybe']), { error: { code: -32602, message: 'Invalid vote type params' } });
  t.deepEqual(await call(c.api, 'qbft_discardValidatorVote', []), { error: { code: -32602, message: 'Invalid address params' } });
});

test.serial('qbft_getSignerMetrics: [from, to) with every validator after to-1', async (t) => {
  const head = c.node.head().number;
  const metrics = await ok(c.api, 'qbft_getSignerMetrics');
  t.deepEqual(Object.keys(metrics[0]), ['address', 'proposedBlockCount', 'lastProposedBlockNumber']);
  t.is(metrics.reduce((n: number, m: { proposedBlockCount: string }) => n + Number(m.proposedBlockCount), 0), head, 'blocks 0..head-1');
  const byAddress = new Map(metrics.map((m: { address: string }) => [m.address, m]));
  t.true(byAddress.has('0x0000000000000000000000000000000000000000'), 'genesis proposer');
  for (const v of VALIDATORS) t.true(byAddress.has(v), v);
  const one = await ok(c.api, 'qbft_getSignerMetrics', ['0x1', '0x2']);
  const block1 = c.node.blockAt(1)!;
  t.deepEqual(one[0], { address: block1.coinbase, proposedBlockCount: '0x1', lastProposedBlockNumber: '0x1' });
  t.is(one.length, 4, 'block 1 proposer, then the other validators with zero counts');
  for (const m of one.slice(1)) t.deepEqual([m.proposedBlockCount, m.lastProposedBlockNumber], ['0x0', '0x0']);
  t.deepEqual(await call(c.api, 'qbft_getSignerMetrics', ['0x3', '0x3']), { error: { code: -32602, message: 'Invalid block number params' } });
  t.deepEqual(await call(c.api, 'qbft_getSignerMetrics', ['latest']), { error: { code: -32602, message: 'Invalid block number params' } });
  t.deepEqual(await call(c.api, 'qbft_getSignerMetrics', ['x']), { error: { code: -32602, message: 'Invalid block number params' } });
  // a `to` past the head is clamped to the head
  t.deepEqual(await ok(c.api, 'qbft_getSignerMetrics', ['0x0', '0xffff']), metrics);
});

test.serial('contract validator mode: vote methods are not enabled, validators come from the contract', async (t) => {
  const api = contractMode.api;
  for (const [m, p] of [
    ['qbft_proposeValidatorVote', [A0, true]],
    ['qbft_discardValidatorVote', [A0]],
    ['qbft_getPendingVotes', []],
  ] as const)
    t.deepEqual(await call(api, m, [...p]), { error: { code: -32604, message: 'Method not enabled' } }, m);
  t.deepEqual(await ok(api, 'qbft_getValidatorsByBlockNumber', ['latest']), VALIDATORS);
  t.deepEqual(await ok(api, 'qbft_getValidatorsByBlockNumber', ['pending']), VALIDATORS);
  t.deepEqual(await ok(api, 'qbft_getValidatorsByBlockHash', [contractMode.node.head().hash]), VALIDATORS);
  t.true((await ok(api, 'qbft_getSignerMetrics')).length >= 4);
});

test.serial('txpool_besu*: local transactions, arrival time on the node clock, statistics, filters', async (t) => {
  const tx = sign1559(c.node, 0, { nonce: 9n, to: A1, value: 5n });
  const now = c.node.clock.nowMs();
  const hash = await ok(c.api, 'eth_sendRawTransaction', [bytesToHex(tx.serialize())]);
  const contract = sign1559(c.node, 1, { nonce: 7n, data: new Uint8Array([0x00]), gasLimit: 60_000n });
  await c.node.addRemoteTransaction(contract.serialize()); // as if from a peer: remote
  const list = await ok(c.api, 'txpool_besuTransactions');
  t.deepEqual(list.find((e: { hash: string }) => e.hash === hash), { hash, isReceivedFromLocalSource: true, addedToPoolAt: instantString(now) });
  t.is(list.find((e: { hash: string }) => e.hash === bytesToHex(contract.hash())).isReceivedFromLocalSource, false);
  t.is(instantString(1_700_000_000_000), '2023-11-14T22:13:20Z');
  const stats = await ok(c.api, 'txpool_besuStatistics');
  t.deepEqual(Object.keys(stats), ['maxSize', 'localCount', 'remoteCount']);
  t.is(stats.maxSize, 4096);
  t.is(stats.localCount + stats.remoteCount, c.node.poolSize());
  t.true(stats.remoteCount >= 1);
  const fromA0 = await ok(c.api, 'txpool_besuPendingTransactions', [100, { from: { eq: A0 } }]);
  t.true(fromA0.some((p: { hash: string }) => p.hash === hash));
  t.true(fromA0.every((p: { from: string }) => p.from === A0));
  const creations = await ok(c.api, 'txpool_besuPendingTransactions', [100, { to: { action: 'contract_creation' } }]);
  t.deepEqual(creations.map((p: { hash: string }) => p.hash), [bytesToHex(contract.hash())]);
  t.is((await ok(c.api, 'txpool_besuPendingTransactions', [1])).length, 1);
  const status = await ok(c.api, 'txpool_status');
  t.is(BigInt(status.pending) + BigInt(status.queued), BigInt(c.node.poolSize()));
  t.true(BigInt(status.queued) >= 2n, 'the two future-nonce transactions wait');
  t.is(await ok(c.api, 'eth_blobBaseFee'), '0x0', 'no Cancun in this genesis');
  t.deepEqual(await call(c.api, 'txpool_besuPendingTransactions', [100, { from: { gt: A0 } }]), { error: { code: -32602, message: 'Invalid filter params' } });
  t.deepEqual(await call(c.api, 'txpool_besuPendingTransactions', [100, { nonce: { eq: '0x1', gt: '0x2' } }]), { error: { code: -32602, message: 'Invalid filter params' } });
});

test.serial('admin_: nodeInfo, peers, addPeer/removePeer errors; miner_start/stop as Besu\'s BFT coordinator', async (t) => {
  const info = await ok(c.api, 'admin_nodeInfo');
  t.regex(info.id, /^[0-9a-f]{128}$/);
  t.is(info.enode, `enode://${info.id}@127.0.0.1:30303`);
  t.is(info.protocols.eth.genesis, c.node.genesisBlock().hash);
  t.is(info.protocols.eth.head, c.node.head().hash);
  t.is(info.protocols.eth.network, 1337);
  t.is(info.activeFork, 'London');
  const peers = await ok(c.api, 'admin_peers');
  t.deepEqual(peers.map((p: { id: string }) => p.id), c.node.peers());
  const enode = `enode://${'ab'.repeat(64)}@10.0.0.1:30303`;
  t.deepEqual(await call(c.api, 'admin_addPeer', [enode]), { error: { code: -32000, message: 'P2P has been disabled. This functionality is not available' } });
  t.deepEqual(await call(c.api, 'admin_addPeer', [`enode://1234@10.0.0.1:30303`]), {
    error: { code: -32000, message: "Invalid node ID: node ID must have exactly 128 hexadecimal characters and should not include any '0x' hex prefix." },
  });
  t.deepEqual(await call(c.api, 'admin_addPeer', ['not an enode']), { error: { code: -32700, message: 'Parse error' } });
  t.deepEqual(await call(c.api, 'admin_removePeer', []), { error: { code: -32602, message: 'Invalid number of params' } });
  t.deepEqual(await call(c.api, 'admin_removePeer', [5]), { error: { code: -32602, message: 'Invalid enode params' } });

  const height = c.node.head().number;
  t.is(await ok(c.api, 'eth_mining'), true);
  t.is(await ok(c.api, 'miner_stop'), true);
  t.is(await ok(c.api, 'eth_mining'), false);
  t.is(await ok(c.api, 'miner_stop'), true);
  t.is(await ok(c.api, 'miner_start'), true);
  t.is(await ok(c.api, 'eth_mining'), false, 'Besu: enable() only moves PAUSED to IDLE');
  await c.world.runFor(c.world.elapsedMs() + 3_000);
  t.true(c.node.head().number > height, 'consensus goes on, as in Besu');
});

test.serial('debug_trace* with the call tracer', async (t) => {
  const logger = await ok(c.api, 'debug_traceTransaction', [c.txs.logger, { tracer: 'callTracer' }]);
  const receipt = await ok(c.api, 'eth_getTransactionReceipt', [c.txs.logger]);
  t.deepEqual(logger, { from: A1, gas: '0x9c40', gasUsed: receipt.gasUsed, to: LOGGER_CONTRACT, input: '0x', value: '0x0', type: 'CALL' });
  const deploy = await ok(c.api, 'debug_traceTransaction', [c.txs.deploy, { tracer: 'callTracer' }]);
  t.is(deploy.type, 'CREATE');
  t.is(deploy.to, c.contract);
  t.is(deploy.gasUsed, (await ok(c.api, 'eth_getTransactionReceipt', [c.txs.deploy])).gasUsed);
  const loc = c.node.transactionLocation(c.txs.logger)!;
  const block = await ok(c.api, 'debug_traceBlockByNumber', [`0x${loc.blockNumber.toString(16)}`, { tracer: 'callTracer' }]);
  t.is(block.length, c.node.blockByHash(loc.blockHash)!.block.transactions.length);
  t.deepEqual(block[loc.index], { txHash: c.txs.logger, result: logger });
  t.deepEqual(await ok(c.api, 'debug_traceBlockByHash', [loc.blockHash, { tracer: 'callTracer' }]), block);
  t.is(await ok(c.api, 'debug_traceTransaction', [`0x${'00'.repeat(32)}`, { tracer: 'callTracer' }]), null);
  t.deepEqual(await call(c.api, 'debug_traceTransaction', [c.txs.logger, { tracer: 'nope' }]), { error: { code: -32602, message: 'Invalid transaction trace params' } });
  t.like(await call(c.api, 'debug_traceTransaction', [c.txs.logger, { tracer: 'prestateTracer' }]), { error: { code: -32602 } });
});

test.serial('debug_trace* with the default opcode tracer: Besu struct logs whose gas adds up, with its field switches', async (t) => {
  const receipt = await ok(c.api, 'eth_getTransactionReceipt', [c.txs.logger]);
  const traced = await ok(c.api, 'debug_traceTransaction', [c.txs.logger]);
  t.is(traced.gas, Number(BigInt(receipt.gasUsed)));
  t.false(traced.failed);
  t.is(typeof traced.returnValue, 'string');
  const logs = traced.structLogs as Array<{ pc: number; op: string; gas: number; gasCost: number; depth: number; stack?: string[]; memory?: string[]; storage?: unknown }>;
  t.true(logs.length > 3);
  t.deepEqual([logs[0]!.pc, logs[0]!.depth], [0, 1]);
  t.true(logs.some((l) => l.op.startsWith('LOG')), 'the logger contract logs');
  t.true(logs.every((l) => Array.isArray(l.stack) && l.memory === undefined), 'stack on, memory off by default (Besu)');
  t.true(logs.every((l) => l.stack!.every((w) => /^0x(0|[1-9a-f][0-9a-f]*)$/.test(w))), 'stack words are compact hex');
  t.deepEqual(logs[0]!.stack, [], 'the stack before the first step is empty');
  // Each step's gas is the previous one's less its cost (one frame: no calls in between).
  for (let i = 1; i < logs.length; i++) t.is(logs[i]!.gas, logs[i - 1]!.gas - logs[i - 1]!.gasCost, `step ${i} ${logs[i - 1]!.op}`);
  const withMemory = await ok(c.api, 'debug_traceTransaction', [c.txs.deploy, { disableMemory: false, disableStack: true }]);
  t.true(withMemory.structLogs.some((l: { memory?: string[] }) => Array.isArray(l.memory) && l.memory.length > 0));
  t.true(withMemory.structLogs.every((l: { stack?: unknown }) => l.stack === undefined));
  const deployed = await ok(c.api, 'debug_traceTransaction', [c.txs.deploy]);
  const stored = deployed.structLogs.find((l: { op: string }) => l.op === 'SSTORE');
  t.truthy(stored?.storage, 'storage after an SSTORE, keyed by 32-byte slots');
  t.true(Object.keys(stored.storage).every((k) => /^0x[0-9a-f]{64}$/.test(k)));
  const block = await ok(c.api, 'debug_traceBlockByHash', [c.node.transactionLocation(c.txs.logger)!.blockHash]);
  t.deepEqual(block.find((r: { txHash: string }) => r.txHash === c.txs.logger).result, traced);
  t.deepEqual(await call(c.api, 'debug_traceTransaction', [c.txs.logger, { disableStack: 'yes' }]), { error: { code: -32602, message: 'Invalid transaction trace params' } });
});

test.serial('nested calls appear in the call tree', async (t) => {
  // a contract that CALLs the logger, deployed by eth_call's state override
  // PUSH1 0 PUSH1 0 PUSH1 0 PUSH1 0 PUSH1 0 PUSH2 4c06 GAS CALL STOP
  const code = '0x60006000600060006000614c065af100';
  const target = `0x${'99'.repeat(20)}` as const;
  const out = await call(c.api, 'eth_call', [{ to: target }, 'latest', { [target]: { code } }]);
  t.deepEqual(out, { result: '0x' });
  const callBlock = c.api.callBlockOf(c.node.head());
  const sim = await c.api.simulator.simulate(callBlock, { to: target as `0x${string}` }, 100_000n, {
    params: { allowFutureNonce: true, allowExceedingBalance: true, allowUnderpriced: false },
    chainId: 1337n,
    callTracer: true,
    overrides: [{ address: target as `0x${string}`, code: Uint8Array.from(Buffer.from(code.slice(2), 'hex')) }],
  });
  t.is(sim.kind, 'executed');
  if (sim.kind === 'executed') {
    t.is(sim.trace?.calls.length, 1);
    t.is(sim.trace?.calls[0].type, 'CALL');
    t.is(sim.trace?.calls[0].to, LOGGER_CONTRACT);
    t.is(sim.trace?.calls[0].from, target);
  }
});

test.serial('the node indexes canonical transactions: rebuilt on a restart', async (t) => {
  const node = c.node;
  const loc = node.transactionLocation(c.txs.logger)!;

  await c.world.restart('v0');
  const restarted = c.world.get('v0').node!;
  t.not(restarted, node);
  t.deepEqual(restarted.transactionLocation(c.txs.logger), loc, 'rebuilt from the stored chain');
  const api = new NodeApi(restarted);
  t.is((await ok(api, 'eth_getTransactionByHash', [c.txs.logger])).blockHash, loc.blockHash);
  t.is((await ok(api, 'eth_getTransactionReceipt', [c.txs.logger])).logs.length, 1);
  api.close();
});

test.serial('log filters report logs of blocks a reorganization removed, with removed: true', async (t) => {
  const api = new NodeApi(c.world.get('v0').node!);
  const node = api.node;
  const loc = node.transactionLocation(c.txs.logger)!;
  const entry = node.blockByHash(loc.blockHash)!;
  const id = await ok(api, 'eth_newFilter', [{ address: LOGGER_CONTRACT }]);
  api.filters.onNewHead([entry], []); // what the node's listener passes on a reorganization
  const changes = await ok(api, 'eth_getFilterChanges', [id]);
  t.is(changes.length, 1);
  t.is(changes[0].removed, true);
  t.is(changes[0].transactionHash, c.txs.logger);
  // a numeric toBlock below the block leaves it out
  const bounded = await ok(api, 'eth_newFilter', [{ address: LOGGER_CONTRACT, toBlock: '0x1' }]);
  api.filters.onNewHead([entry], []);
  t.deepEqual(await ok(api, 'eth_getFilterChanges', [bounded]), []);
  api.close();
});

test.serial('eth_sendRawTransaction: a transaction for another chain answers "Wrong chainId"', async (t) => {
  const api = new NodeApi(c.world.get('v0').node!);
  const { createFeeMarket1559Tx } = await import('@ethereumjs/tx');
  const { createCustomCommon, Mainnet } = await import('@ethereumjs/common');
  const common = createCustomCommon({ chainId: 999 }, Mainnet, { hardfork: 'london' });
  const signed = createFeeMarket1559Tx(
    { nonce: 50n, to: A1, gasLimit: 21_000n, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 1n, chainId: 999n },
    { common },
  ).sign(BESU_TEST_ACCOUNTS[0].privateKey);
  t.deepEqual(await call(api, 'eth_sendRawTransaction', [bytesToHex(signed.serialize())]), { error: { code: -32000, message: 'Wrong chainId' } });
  // Besu's spec case eth_sendRawTransaction_unsignedTransaction: v = 0x1c, r = s = 0
  t.deepEqual(await call(api, 'eth_sendRawTransaction', ['0xed0a85174876e800830222e0945aae326516b4f8fe08074b7e972e40a713048d62880de0b6b3a7640000801c8080']), {
    error: { code: -32602, message: 'Invalid params' },
  });
  api.close();
});
