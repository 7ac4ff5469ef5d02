/**
 * eth_ methods on a simulated 4-validator QBFT cluster, called through their handlers.
 */
import test from 'ava';
import { bytesToHex, hexToBytes } from '../../crypto/bytes.ts';
import { keccak256 } from '../../crypto/keccak.ts';
import { LOGGER_CONTRACT } from '../../../sim/genesis-builder.ts';
import { BESU_TEST_ACCOUNTS } from '../../../sim/keys.ts';
import { NodeApi } from '../node-api.ts';
import { call, ok, REVERTER_RUNTIME, sign1559, signLegacy, startCluster, STORE_RUNTIME, type Cluster, GWEI } from './test-kit.ts';

let c: Cluster;
test.before(async () => {
  c = await startCluster();
});

const A0 = BESU_TEST_ACCOUNTS[0].address;
const A1 = BESU_TEST_ACCOUNTS[1].address;
const A2 = BESU_TEST_ACCOUNTS[2].address;
const ONE_TOPIC = '0x0000000000000000000000000000000000000000000000000000000000000001';

// ---- blocks --------------------------------------------------------------------------------------

test.serial('eth_blockNumber and eth_getBlockByNumber follow node.chain (QBFT hashes)', async (t) => {
  const head = c.node.head();
  t.is(await ok(c.api, 'eth_blockNumber'), `0x${head.number.toString(16)}`);
  const latest = await ok(c.api, 'eth_getBlockByNumber', ['latest', false]);
  t.is(latest.hash, head.hash);
  t.not(latest.hash, bytesToHex(head.block.hash()), 'never ethereumjs block.hash()');
  for (const tag of ['pending', 'finalized', 'safe']) t.is((await ok(c.api, 'eth_getBlockByNumber', [tag, false])).hash, head.hash, tag);
  t.is((await ok(c.api, 'eth_getBlockByNumber', ['earliest', false])).hash, c.node.genesisBlock().hash);
  for (let n = 1; n <= head.number; n++) {
    const b = await ok(c.api, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
    const entry = c.node.blockAt(n)!;
    t.is(b.hash, entry.hash);
    t.is(b.parentHash, c.node.blockAt(n - 1)!.hash);
    t.is(b.size, `0x${entry.block.serialize().length.toString(16)}`);
    t.is(b.totalDifficulty, `0x${entry.td.toString(16)}`);
    t.is(b.miner, entry.coinbase);
    t.deepEqual(await ok(c.api, 'eth_getBlockByHash', [entry.hash, false]), b);
  }
  t.deepEqual(Object.keys(latest).slice(0, 6), ['number', 'hash', 'mixHash', 'parentHash', 'nonce', 'sha3Uncles']);
  t.is(latest.mixHash, '0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365');
  t.is(latest.difficulty, '0x1');
  t.deepEqual(latest.uncles, []);
  t.is(await ok(c.api, 'eth_getBlockByNumber', ['0x100000', false]), null);
  t.is(await ok(c.api, 'eth_getBlockByHash', [`0x${'ab'.repeat(32)}`, true]), null);
});

test.serial('full blocks carry Besu transaction objects', async (t) => {
  const loc = c.node.transactionLocation(c.txs.dynamic)!;
  const b = await ok(c.api, 'eth_getBlockByHash', [loc.blockHash, true]);
  const tx = b.transactions[loc.index];
  t.is(tx.hash, c.txs.dynamic);
  t.is(tx.blockHash, loc.blockHash);
  t.is(tx.type, '0x2');
  t.is(tx.from, A0);
  t.deepEqual(tx.accessList, []);
  t.is(tx.yParity, tx.v);
  t.deepEqual(Object.keys(tx), ['accessList', 'blockHash', 'blockNumber', 'blockTimestamp', 'chainId', 'from', 'gas', 'gasPrice', 'maxPriorityFeePerGas', 'maxFeePerGas', 'hash', 'input', 'nonce', 'to', 'transactionIndex', 'type', 'value', 'yParity', 'v', 'r', 's']);
  const baseFee = BigInt(b.baseFeePerGas);
  t.is(tx.gasPrice, `0x${(baseFee + 2n).toString(16)}`, 'effective gas price at the block base fee');
  t.is(await ok(c.api, 'eth_getBlockTransactionCountByHash', [loc.blockHash]), `0x${b.transactions.length.toString(16)}`);
  t.is(await ok(c.api, 'eth_getBlockTransactionCountByNumber', [b.number]), `0x${b.transactions.length.toString(16)}`);
  t.is(await ok(c.api, 'eth_getUncleCountByBlockNumber', [b.number]), '0x0');
  t.is(await ok(c.api, 'eth_getUncleCountByBlockHash', [loc.blockHash]), '0x0');
  t.is(await ok(c.api, 'eth_getUncleByBlockNumberAndIndex', [b.number, '0x0']), null);
  t.is(await ok(c.api, 'eth_getUncleByBlockHashAndIndex', [loc.blockHash, '0x0']), null);
  t.is(await ok(c.api, 'eth_getUncleCountByBlockNumber', ['0xffffff']), null);
});

test.serial('block parameter errors are Besu\'s', async (t) => {
  t.deepEqual(await call(c.api, 'eth_getBlockByNumber', ['foo', false]), { error: { code: -32602, message: 'Invalid block number params' } });
  t.deepEqual(await call(c.api, 'eth_getBlockByNumber', ['latest']), { error: { code: -32602, message: 'Invalid return complete transaction params' } });
  t.deepEqual(await call(c.api, 'eth_getBlockByHash', ['0x12', false]), { error: { code: -32602, message: 'Invalid block hash params' } });
  t.deepEqual(await call(c.api, 'eth_getBlockTransactionCountByNumber', []), { error: { code: -32602, message: 'Invalid block param (block not found)' } });
  t.deepEqual(await call(c.api, 'eth_getBalance', [A0, 'nope']), { error: { code: -32602, message: 'Invalid block param (block not found)' } });
  t.deepEqual(await call(c.api, 'eth_getBalance', ['0xzz', 'latest']), { error: { code: -32602, message: 'Invalid address params' } });
  t.deepEqual(await call(c.api, 'eth_getBalance', [A0, '-0x1']), { error: { code: -32602, message: 'Invalid block number params' } });
  t.deepEqual(await call(c.api, 'eth_getBalance', [A0, '0x1000']), { result: null }, 'a future block is null');
  t.deepEqual(await call(c.api, 'eth_getStorageAt', [A0, 'x', 'latest']), { error: { code: -32602, message: 'Invalid position params' } });
  t.deepEqual(await call(c.api, 'eth_getTransactionByHash', []), { error: { code: -32602, message: 'Invalid number of params' } });
  t.deepEqual(await call(c.api, 'eth_getTransactionByHash', ['0x0']), { error: { code: -32602, message: 'Invalid transaction hash params' } });
  t.deepEqual(await call(c.api, 'eth_getTransactionByBlockHashAndIndex', [c.node.head().hash, '0x0L']), { error: { code: -32602, message: 'Invalid transaction id params' } });
  t.deepEqual(await call(c.api, 'eth_getTransactionByBlockNumberAndIndex', ['latest', 'x']), { error: { code: -32602, message: 'Invalid transaction index params' } });
  t.deepEqual(await call(c.api, 'eth_getLogs', [{ address: ['foo'] }]), { error: { code: -32602, message: 'Invalid filter params' } });
  t.deepEqual(await call(c.api, 'eth_call', [{ to: A0, input: '0x01', data: '0x02' }, 'latest']), { error: { code: -32602, message: 'Invalid call params' } });
  t.deepEqual(await call(c.api, 'eth_call', ['0x8']), { error: { code: -32602, message: 'Invalid block param (block not found)' } });
});

// ---- transactions and receipts -------------------------------------------------------------------

test.serial('transactions by hash and position, receipts with Besu fields', async (t) => {
  const legacy = await ok(c.api, 'eth_getTransactionByHash', [c.txs.legacy]);
  t.is(legacy.type, '0x0');
  t.false('yParity' in legacy);
  t.false('accessList' in legacy);
  t.is(legacy.gasPrice, `0x${(3n * GWEI).toString(16)}`);
  t.is(legacy.chainId, '0x539');
  const loc = c.node.transactionLocation(c.txs.legacy)!;
  t.is(legacy.blockHash, loc.blockHash);
  t.deepEqual(await ok(c.api, 'eth_getTransactionByBlockHashAndIndex', [loc.blockHash, `0x${loc.index.toString(16)}`]), legacy);
  t.deepEqual(await ok(c.api, 'eth_getTransactionByBlockNumberAndIndex', [`0x${loc.blockNumber.toString(16)}`, `0x${loc.index.toString(16)}`]), legacy);
  t.is(await ok(c.api, 'eth_getTransactionByBlockNumberAndIndex', [`0x${loc.blockNumber.toString(16)}`, '0x63']), null);
  t.is(await ok(c.api, 'eth_getTransactionByHash', [`0x${'11'.repeat(32)}`]), null);

  const r = await ok(c.api, 'eth_getTransactionReceipt', [c.txs.legacy]);
  t.deepEqual(Object.keys(r), ['blockHash', 'blockNumber', 'contractAddress', 'cumulativeGasUsed', 'from', 'gasUsed', 'effectiveGasPrice', 'logs', 'logsBloom', 'status', 'to', 'transactionHash', 'transactionIndex', 'type']);
  t.is(r.gasUsed, '0x5208');
  t.is(r.status, '0x1');
  t.is(r.contractAddress, null);
  t.is(r.effectiveGasPrice, `0x${(3n * GWEI).toString(16)}`);
  t.is(r.blockHash, loc.blockHash);
  t.is(r.to, A1);

  const dyn = await ok(c.api, 'eth_getTransactionReceipt', [c.txs.dynamic]);
  const block = c.node.blockByHash(dyn.blockHash)!;
  t.is(dyn.effectiveGasPrice, `0x${(block.block.header.baseFeePerGas! + 2n).toString(16)}`);

  const deploy = await ok(c.api, 'eth_getTransactionReceipt', [c.txs.deploy]);
  t.is(deploy.contractAddress, c.contract);
  t.is(deploy.to, null);
  t.is((await ok(c.api, 'eth_getTransactionByHash', [c.txs.deploy])).to, null);
});

test.serial('logIndex counts across the block; cumulative gas adds up; eth_getBlockReceipts', async (t) => {
  const loc = c.node.transactionLocation(c.txs.logger)!;
  const receipts = await ok(c.api, 'eth_getBlockReceipts', [`0x${loc.blockNumber.toString(16)}`]);
  t.is(receipts.length, c.node.blockByHash(loc.blockHash)!.block.transactions.length);
  let cumulative = 0n;
  let logIndex = 0;
  for (const [i, r] of receipts.entries()) {
    cumulative += BigInt(r.gasUsed);
    t.is(BigInt(r.cumulativeGasUsed), cumulative);
    t.is(r.transactionIndex, `0x${i.toString(16)}`);
    for (const log of r.logs) t.is(log.logIndex, `0x${(logIndex++).toString(16)}`);
    t.deepEqual(await ok(c.api, 'eth_getTransactionReceipt', [r.transactionHash]), r);
  }
  t.is(BigInt(receipts[receipts.length - 1].cumulativeGasUsed), c.node.blockByHash(loc.blockHash)!.block.header.gasUsed);
  const logger = receipts[loc.index];
  t.is(logger.logs.length, 1);
  t.deepEqual(Object.keys(logger.logs[0]), ['address', 'topics', 'data', 'blockNumber', 'transactionHash', 'transactionIndex', 'blockHash', 'blockTimestamp', 'logIndex', 'removed']);
  t.is(logger.logs[0].address, LOGGER_CONTRACT);
  t.deepEqual(logger.logs[0].topics, [ONE_TOPIC]);
  t.deepEqual(await ok(c.api, 'eth_getBlockReceipts', [loc.blockHash]), receipts);
  t.deepEqual(await ok(c.api, 'eth_getBlockReceipts', [{ blockHash: loc.blockHash, requireCanonical: true }]), receipts);
  t.is(await ok(c.api, 'eth_getBlockReceipts', [`0x${'00'.repeat(32)}`]), null);
  t.deepEqual(await call(c.api, 'eth_getBlockReceipts', ['invalidtag']), { error: { code: -32602, message: 'Invalid block param (block not found)' } });
});

// ---- state ---------------------------------------------------------------------------------------

test.serial('balances, code, storage and proofs', async (t) => {
  const genesisBalance = 10n ** 24n;
  t.is(await ok(c.api, 'eth_getBalance', [A1, 'latest']), `0x${(genesisBalance + 1000n - BigInt((await ok(c.api, 'eth_getTransactionReceipt', [c.txs.logger])).gasUsed) * BigInt((await ok(c.api, 'eth_getTransactionReceipt', [c.txs.logger])).effectiveGasPrice)).toString(16)}`);
  t.is(await ok(c.api, 'eth_getBalance', [A1, 'earliest']), `0x${genesisBalance.toString(16)}`);
  t.is(await ok(c.api, 'eth_getBalance', [A1, { blockHash: c.node.genesisBlock().hash }]), `0x${genesisBalance.toString(16)}`);
  t.is(await ok(c.api, 'eth_getBalance', [`0x${'77'.repeat(20)}`, 'latest']), '0x0');
  t.is(await ok(c.api, 'eth_getCode', [c.contract, 'latest']), STORE_RUNTIME);
  t.is(await ok(c.api, 'eth_getCode', [A0, 'latest']), '0x');
  t.is(await ok(c.api, 'eth_getStorageAt', [c.contract, '0x0', 'latest']), `0x${'00'.repeat(31)}2a`);
  t.is(await ok(c.api, 'eth_getTransactionCount', [A0, 'latest']), '0x2');
  t.is(await ok(c.api, 'eth_getTransactionCount', [A0, 'earliest']), '0x0');
  const proof = await ok(c.api, 'eth_getProof', [c.contract, ['0x0', '0x1'], 'latest']);
  t.deepEqual(Object.keys(proof), ['accountProof', 'address', 'balance', 'codeHash', 'nonce', 'storageHash', 'storageProof']);
  t.is(proof.codeHash, bytesToHex(keccak256(hexToBytes(STORE_RUNTIME))));
  t.is(proof.nonce, '0x1');
  t.is(proof.balance, '0x0');
  t.true(proof.accountProof.length > 0);
  t.is(proof.storageProof[0].key, '0x0');
  t.is(proof.storageProof[0].value, '0x2a');
  t.is(proof.storageProof[1].value, '0x0');
  // the last account-proof node holds the account: keccak of the root node is the state root
  const head = c.node.head().block.header;
  t.is(bytesToHex(keccak256(hexToBytes(proof.accountProof[0]))), bytesToHex(head.stateRoot));
  t.is(bytesToHex(keccak256(hexToBytes(proof.storageProof[0].proof[0]))), proof.storageHash);
  const missing = await ok(c.api, 'eth_getProof', [`0x${'77'.repeat(20)}`, ['0x1'], 'latest']);
  t.deepEqual(missing.storageProof, []);
  t.is(missing.storageHash, '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421');
  t.deepEqual(await call(c.api, 'eth_getProof', [A0, 'x', 'latest']), { error: { code: -32602, message: 'Invalid storage keys params' } });
});

// ---- calls and estimates -------------------------------------------------------------------------

test.serial('eth_call, eth_estimateGas, eth_createAccessList', async (t) => {
  const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
  t.is(await ok(c.api, 'eth_call', [{ to: c.contract, data: word(7) }, 'latest']), word(42));
  t.is(await ok(c.api, 'eth_call', [{ to: c.contract, data: word(7) }, 'pending']), word(42));
  t.is(await ok(c.api, 'eth_estimateGas', [{ from: A0, to: A1, value: '0x1' }]), '0x5208');
  t.is(await ok(c.api, 'eth_estimateGas', [{}]), '0xd221', 'Besu\'s estimate for an empty creation (eth_estimateGas_noParams)');
  const est = BigInt(await ok(c.api, 'eth_estimateGas', [{ from: A0, to: c.contract, data: word(7) }]));
  t.true(est > 21_000n + 5_000n && est < 40_000n, `estimate ${est}`);
  t.is(await ok(c.api, 'eth_call', [{ from: A0, to: c.contract, data: word(7), gas: `0x${est.toString(16)}` }, 'latest']), word(42));
  t.deepEqual(await call(c.api, 'eth_call', [{ from: A0, to: c.contract, data: word(7), gas: '0x5300' }, 'latest']), {
    error: { code: -32000, message: 'Transaction processing could not be completed due to an exception (Out of gas)' },
  });
  t.deepEqual(await call(c.api, 'eth_call', [{ to: A0, gas: '0x0' }, 'latest']), {
    error: { code: -32003, message: 'Intrinsic gas exceeds gas limit (intrinsic gas cost 21000 exceeds gas limit 0)' },
  });
  t.deepEqual(await call(c.api, 'eth_estimateGas', [{ from: A0, to: A1, value: '0x1', nonce: '0x0' }]), {
    error: { code: -32001, message: `Nonce too low (transaction nonce 0 below sender account nonce 2 for sender ${A0})` },
  });
  t.deepEqual(await call(c.api, 'eth_estimateGas', [{ from: A0, data: '0x600160005560016000fe6011600155' }]), {
    error: { code: -32000, message: 'Transaction processing could not be completed due to an exception (Invalid opcode: 0xfe)' },
  });
  // strict: the gas is charged at the base fee (no price given), so the up-front cost is gas * base fee + value
  const upfront = await call(c.api, 'eth_call', [{ to: A0, from: A1, value: `0x${(10n ** 30n).toString(16)}`, strict: true }, 'latest']);
  t.like(upfront, { error: { code: -32004 } });
  t.regex((upfront as { error: { message: string } }).error.message, new RegExp(`^Upfront cost exceeds account balance \\(transaction up-front cost 0x[0-9a-f]+ exceeds transaction sender account balance ${await ok(c.api, 'eth_getBalance', [A1, 'latest'])} for sender ${A1}\\)$`));
  // a revert, through a state override that puts reverting code at an address
  const reverted = await call(c.api, 'eth_call', [{ to: A2 }, 'latest', { [A2]: { code: REVERTER_RUNTIME } }]);
  t.like(reverted, { error: { code: 3, message: 'Execution reverted (nope)' } });
  t.true(String((reverted as { error: { data: string } }).error.data).startsWith('0x08c379a0'));
  // overrides: balance and storage
  t.is(await ok(c.api, 'eth_call', [{ to: c.contract, data: word(1) }, 'latest', { [c.contract]: { stateDiff: { '0x0': word(9) } } }]), word(9));
  // from a contract address (Besu's simulator allows it)
  t.is(await ok(c.api, 'eth_call', [{ from: c.contract, to: A0, data: '0x123456' }, 'latest']), '0x');

  const al = await ok(c.api, 'eth_createAccessList', [{ from: A0, to: c.contract, data: word(7) }, 'latest']);
  t.deepEqual(al.accessList, [{ address: c.contract, storageKeys: [word(0)] }]);
  t.true(BigInt(al.gasUsed) > 21_000n);
  t.deepEqual(await ok(c.api, 'eth_createAccessList', [{ from: A0, to: A1, value: '0xa' }, 'latest']), { accessList: [], gasUsed: '0x5208' });
});

// ---- fees ----------------------------------------------------------------------------------------

test.serial('gas price, priority fee, fee history', async (t) => {
  const next = c.api.nextBaseFee()!;
  const lower = next > c.api.minGasPrice() ? next : c.api.minGasPrice();
  // one legacy transaction at 3 gwei in the last 100 blocks: its price, at least the lower bound
  const expected = 3n * GWEI > lower ? 3n * GWEI : lower;
  t.is(await ok(c.api, 'eth_gasPrice'), `0x${expected.toString(16)}`);
  t.is(await ok(c.api, 'eth_maxPriorityFeePerGas'), '0x2');
  const head = c.node.head().number;
  const fh = await ok(c.api, 'eth_feeHistory', ['0x3', 'latest', [75, 25]]);
  t.deepEqual(Object.keys(fh), ['oldestBlock', 'baseFeePerGas', 'baseFeePerBlobGas', 'gasUsedRatio', 'blobGasUsedRatio', 'reward']);
  t.is(fh.oldestBlock, `0x${(head - 2).toString(16)}`);
  t.is(fh.baseFeePerGas.length, 4);
  t.is(fh.baseFeePerGas[3], `0x${next.toString(16)}`);
  t.deepEqual(fh.baseFeePerBlobGas, ['0x0', '0x0', '0x0', '0x0']);
  t.is(fh.reward.length, 3);
  for (const r of fh.reward) t.is(r.length, 2);
  const loc = c.node.transactionLocation(c.txs.logger)!;
  const withTxs = await ok(c.api, 'eth_feeHistory', ['0x1', `0x${loc.blockNumber.toString(16)}`, [0, 100]]);
  const entry = c.node.blockByHash(loc.blockHash)!;
  t.is(withTxs.gasUsedRatio[0], Number(entry.block.header.gasUsed) / Number(entry.block.header.gasLimit));
  t.true(withTxs.reward[0].every((x: string) => BigInt(x) >= 0n));
  t.deepEqual(await call(c.api, 'eth_feeHistory', ['0x0', 'latest']), { error: { code: -32602, message: 'Invalid block count params' } });
  t.deepEqual(await call(c.api, 'eth_feeHistory', ['0x1', '0x100000']), { error: { code: -32602, message: 'Invalid block number params' } });
  t.false('reward' in (await ok(c.api, 'eth_feeHistory', ['0x1', 'latest'])));
});

// ---- logs ----------------------------------------------------------------------------------------

test.serial('eth_getLogs by range, by block hash, with topics', async (t) => {
  const head = c.node.head().number;
  const all = await ok(c.api, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: LOGGER_CONTRACT }]);
  t.is(all.length, 1);
  t.deepEqual(Object.keys(all[0]), ['logIndex', 'removed', 'blockNumber', 'blockHash', 'blockTimestamp', 'transactionHash', 'transactionIndex', 'address', 'data', 'topics']);
  t.is(all[0].transactionHash, c.txs.logger);
  t.deepEqual(await ok(c.api, 'eth_getLogs', [{ fromBlock: '0x0', topics: [ONE_TOPIC] }]), all);
  t.deepEqual(await ok(c.api, 'eth_getLogs', [{ fromBlock: '0x0', topics: [[ONE_TOPIC, null]] }]), all);
  t.deepEqual(await ok(c.api, 'eth_getLogs', [{ fromBlock: '0x0', topics: [null, [ONE_TOPIC]] }]), [], 'the log has one topic');
  t.deepEqual(await ok(c.api, 'eth_getLogs', [{ fromBlock: '0x0', address: A0 }]), []);
  t.deepEqual(await ok(c.api, 'eth_getLogs', [{ blockHash: all[0].blockHash }]), all);
  t.deepEqual(await ok(c.api, 'eth_getLogs', [{ blockhash: all[0].blockHash }]), all);
  t.deepEqual(await call(c.api, 'eth_getLogs', [{ blockHash: `0x${'aa'.repeat(32)}` }]), { error: { code: -32000, message: 'Block not found' } });
  t.deepEqual(await call(c.api, 'eth_getLogs', [{ blockHash: all[0].blockHash, fromBlock: '0x1' }]), { error: { code: -32602, message: 'Invalid filter params' } });
  t.deepEqual(await call(c.api, 'eth_getLogs', [{ fromBlock: '0x3', toBlock: '0x2' }]), { error: { code: -32602, message: 'Invalid params' } });
  t.deepEqual(await call(c.api, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: `0x${(head + 5).toString(16)}` }]), { error: { code: -32602, message: 'Invalid params' } });
  const narrow = new NodeApi(c.node, { maxLogsRange: 1 });
  t.deepEqual(await call(narrow, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x2' }]), { error: { code: -32005, message: 'Requested range exceeds maximum RPC range limit' } });
  narrow.close();
});

// ---- misc ----------------------------------------------------------------------------------------

test.serial('chain id, syncing, accounts, mining, protocol version, eth_sendTransaction', async (t) => {
  t.is(await ok(c.api, 'eth_chainId'), '0x539');
  t.is(await ok(c.api, 'eth_syncing'), false);
  t.deepEqual(await ok(c.api, 'eth_accounts'), []);
  t.is(await ok(c.api, 'eth_mining'), true);
  t.is(await ok(c.api, 'eth_protocolVersion'), '0x44');
  t.deepEqual(await call(c.api, 'eth_sendTransaction', [{}]), {
    error: { code: -32604, message: 'The method eth_sendTransaction is not supported. Use eth_sendRawTransaction to send a signed transaction to Besu.' },
  });
});

// ---- sending, pending nonce, filters (these change the chain: serial) -----------------------------

test.serial('eth_sendRawTransaction: pool errors mapped to Besu codes; pending nonce; pending result', async (t) => {
  const node = c.node;
  const future = sign1559(node, 0, { nonce: 5n, to: A1, value: 1n });
  const hash = await ok(c.api, 'eth_sendRawTransaction', [bytesToHex(future.serialize())]);
  t.is(hash, bytesToHex(future.hash()));
  t.deepEqual(await call(c.api, 'eth_sendRawTransaction', [bytesToHex(future.serialize())]), { error: { code: -32000, message: 'Known transaction' } });
  t.deepEqual(await call(c.api, 'eth_sendRawTransaction', [bytesToHex(signLegacy(node, 0, { nonce: 0n, to: A1 }).serialize())]), { error: { code: -32001, message: 'Nonce too low' } });
  t.deepEqual(await call(c.api, 'eth_sendRawTransaction', ['0x00']), { error: { code: -32602, message: 'Invalid params' } });
  t.deepEqual(await call(c.api, 'eth_sendRawTransaction', ['0x0123']), { error: { code: -32602, message: 'Invalid params' } });
  t.deepEqual(await call(c.api, 'eth_sendRawTransaction', []), { error: { code: -32602, message: 'Invalid number of params' } });
  const pending = await ok(c.api, 'eth_getTransactionByHash', [hash]);
  t.is(pending.blockHash, null);
  t.is(pending.blockNumber, null);
  t.is(pending.transactionIndex, null);
  t.is(pending.gasPrice, pending.maxFeePerGas);
  t.is(pending.raw, bytesToHex(future.serialize()));
  t.is(await ok(c.api, 'eth_getTransactionCount', [A0, 'latest']), '0x2');
  t.is(await ok(c.api, 'eth_getTransactionCount', [A0, 'pending']), '0x2', 'the gap (nonces 2..4) keeps the pending nonce at 2');
  const n2 = sign1559(node, 0, { nonce: 2n, to: A1, value: 1n });
  await ok(c.api, 'eth_sendRawTransaction', [bytesToHex(n2.serialize())]);
  t.is(await ok(c.api, 'eth_getTransactionCount', [A0, 'pending']), '0x3');
  await c.world.runFor(c.world.elapsedMs() + 3_000);
  t.is(await ok(c.api, 'eth_getTransactionCount', [A0, 'latest']), '0x3');
  t.truthy((await ok(c.api, 'eth_getTransactionByHash', [bytesToHex(n2.hash())])).blockHash);
});

test.serial('filters: block, pending-transaction and log filters; uninstall; expiry on the node clock', async (t) => {
  const node = c.node;
  const blocks = await ok(c.api, 'eth_newBlockFilter');
  const pending = await ok(c.api, 'eth_newPendingTransactionFilter');
  const logs = await ok(c.api, 'eth_newFilter', [{ address: LOGGER_CONTRACT }]);
  t.regex(blocks, /^0x[0-9a-f]+$/);
  t.deepEqual(await ok(c.api, 'eth_getFilterChanges', [blocks]), []);
  const before = node.head().number;
  const tx = sign1559(node, 1, { nonce: 1n, to: LOGGER_CONTRACT, gasLimit: 40_000n });
  await ok(c.api, 'eth_sendRawTransaction', [bytesToHex(tx.serialize())]);
  t.deepEqual(await ok(c.api, 'eth_getFilterChanges', [pending]), [bytesToHex(tx.hash())]);
  await c.world.runFor(c.world.elapsedMs() + 3_000);
  const after = node.head().number;
  const hashes = await ok(c.api, 'eth_getFilterChanges', [blocks]);
  t.deepEqual(hashes, Array.from({ length: after - before }, (_, i) => node.blockAt(before + 1 + i)!.hash));
  const changes = await ok(c.api, 'eth_getFilterChanges', [logs]);
  t.is(changes.length, 1);
  t.is(changes[0].transactionHash, bytesToHex(tx.hash()));
  t.is(changes[0].removed, false);
  t.deepEqual(await ok(c.api, 'eth_getFilterChanges', [logs]), []);
  t.is((await ok(c.api, 'eth_getFilterLogs', [logs])).length, 0, 'fromBlock latest: only the head block');
  const all = await ok(c.api, 'eth_newFilter', [{ fromBlock: 'earliest', address: LOGGER_CONTRACT }]);
  t.is((await ok(c.api, 'eth_getFilterLogs', [all])).length, 2);
  t.deepEqual(await call(c.api, 'eth_getFilterLogs', [blocks]), { error: { code: -32000, message: 'Logs filter not found' } });
  t.is(await ok(c.api, 'eth_uninstallFilter', [blocks]), true);
  t.is(await ok(c.api, 'eth_uninstallFilter', [blocks]), false);
  t.deepEqual(await call(c.api, 'eth_getFilterChanges', [blocks]), { error: { code: -32000, message: 'Filter not found' } });
  t.deepEqual(await call(c.api, 'eth_getFilterChanges', ['0x8000000000000000']), { error: { code: -32000, message: 'Filter not found' } });
  t.is(await ok(c.api, 'eth_uninstallFilter', ['0x00FFFFFFFFFFFFFFFF']), false);

  // expiry: 10 minutes after the last poll, on the node's (virtual) clock
  const short = new NodeApi(node, { filterExpiryMs: 2_000 });
  const f = await ok(short, 'eth_newBlockFilter');
  await c.world.runFor(c.world.elapsedMs() + 1_500);
  t.true(Array.isArray(await ok(short, 'eth_getFilterChanges', [f])), 'polled in time: kept, timer reset');
  await c.world.runFor(c.world.elapsedMs() + 1_500);
  t.true(Array.isArray(await ok(short, 'eth_getFilterChanges', [f])));
  await c.world.runFor(c.world.elapsedMs() + 2_500);
  t.deepEqual(await call(short, 'eth_getFilterChanges', [f]), { error: { code: -32000, message: 'Filter not found' } });
  short.close();
});
