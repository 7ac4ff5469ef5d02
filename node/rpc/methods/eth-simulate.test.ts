/**
 * eth_simulateV1 on a simulated 4-validator QBFT cluster, called through its handler: Besu's
 * parameter errors and BlockStateCallError codes, block numbering and gap filling, state carried
 * from block to block (and never kept), receipts, logs, transfer logs, BLOCKHASH of simulated
 * blocks, precompile moves. The execution-apis cases (test/execution-apis-conformance.test.ts)
 * check the results field by field against a mainnet-style chain.
 */
import test from 'ava';
import { createBlockHeader } from '@ethereumjs/block';
import { LOGGER_CONTRACT } from '../../../sim/genesis-builder.ts';
import { BESU_TEST_ACCOUNTS } from '../../../sim/keys.ts';
import { bytesToHex, hexToBytes } from '../../crypto/bytes.ts';
import { fillBlockStateCalls } from './eth-simulate.ts';
import { call, ok, REVERTER_RUNTIME, startCluster, type Cluster } from './test-kit.ts';

let c: Cluster;
test.before(async () => {
  c = await startCluster();
});

const A0 = BESU_TEST_ACCOUNTS[0].address;
const A1 = BESU_TEST_ACCOUNTS[1].address;
const EMPTY = '0x00000000000000000000000000000000000000e1';
const ONE_TOPIC = '0x0000000000000000000000000000000000000000000000000000000000000001';
const hex = (n: bigint | number) => `0x${n.toString(16)}`;

function simulate(params: unknown[]) {
  return call(c.api, 'eth_simulateV1', params);
}

function blocks(calls: unknown[], extra: Record<string, unknown> = {}) {
  return ok(c.api, 'eth_simulateV1', [{ blockStateCalls: calls, ...extra }, 'latest']);
}

test.serial('bad parameters answer Besu\'s errors', async (t) => {
  const invalid = { error: { code: -32602, message: 'Invalid params' } };
  t.deepEqual(await simulate([{ blockStateCalls: [] }]), { error: { code: -32602, message: 'Invalid block param (block not found)' } });
  t.deepEqual(await simulate([{ blockStateCalls: [] }, '0xffffff']), { error: { code: -32000, message: 'Block not found' } });
  t.deepEqual(await simulate([{}, 'latest']), invalid);
  t.deepEqual(await simulate(['0x1', 'latest']), invalid);
  t.deepEqual(await simulate([{ blockStateCalls: [], unknown: true }, 'latest']), invalid);
  t.deepEqual(await simulate([{ blockStateCalls: [{ blockOverrides: { coinbase: A0 } }] }, 'latest']), invalid);
  t.deepEqual(await simulate([{ blockStateCalls: [{ calls: [{ to: A0, value: 'lots' }] }] }, 'latest']), invalid);
  t.deepEqual(await simulate([{ blockStateCalls: [{ stateOverrides: { [A0]: { balance: 'x' } } }] }, 'latest']), invalid);
  t.deepEqual(await simulate([{ blockStateCalls: [], validation: {} }, 'latest']), invalid);
});

test.serial('BlockSimulationParameter.validate and fillBlockStateCalls errors', async (t) => {
  const head = BigInt(c.node.head().number);
  t.deepEqual(await simulate([{ blockStateCalls: new Array(257).fill({}) }, 'latest']), { error: { code: -38026, message: 'Too many block calls' } });
  t.deepEqual(await simulate([{ blockStateCalls: [{ blockOverrides: { number: hex(head + 5n) } }, { blockOverrides: { number: hex(head + 3n) } }] }, 'latest']), {
    error: { code: -38020, message: 'Block numbers are not ascending' },
  });
  t.deepEqual(await simulate([{ blockStateCalls: [{ blockOverrides: { time: '0xffffffff' } }, { blockOverrides: { time: '0xfffffff0' } }] }, 'latest']), {
    error: { code: -38021, message: 'Timestamps are not ascending' },
  });
  t.deepEqual(await simulate([{ blockStateCalls: [{ stateOverrides: { [A0]: { movePrecompileToAddress: A1 } } }] }, 'latest']), {
    error: { code: -32000, message: 'Invalid precompile address' },
  });
  t.deepEqual(await simulate([{ blockStateCalls: [{ blockOverrides: { number: hex(head + 300n) } }] }, 'latest']), {
    error: { code: -38026, message: `Block number ${head + 300n} exceeds the limit of ${head + 256n} (header: ${head} + MAX_BLOCK_CALL_SIZE: 256)` },
  });
  t.deepEqual(await simulate([{ blockStateCalls: [{ blockOverrides: { number: hex(head) } }] }, 'latest']), {
    error: { code: -38020, message: `Block number is invalid. Trying to add a call at block number ${head}, while current block number is ${head}.` },
  });
});

test('fillBlockStateCalls numbers and times blocks 12 s apart, filling gaps', (t) => {
  const filled = fillBlockStateCalls([{ overrides: {}, calls: [] }, { overrides: { number: 14n }, calls: [] }, { overrides: { timestamp: 500n }, calls: [] }], 10n, 100n);
  t.deepEqual(
    filled.map((b) => [b.overrides.number, b.overrides.timestamp]),
    [
      [11n, 112n],
      [12n, 124n],
      [13n, 136n],
      [14n, 148n],
      [15n, 500n],
    ],
  );
});

test.serial('a transfer: the block on the head, its receipt, and no state kept', async (t) => {
  const head = c.node.head();
  const before = await ok(c.api, 'eth_getBalance', [EMPTY, 'latest']);
  const [block] = await blocks([{ calls: [{ from: A0, to: EMPTY, value: '0x3e8' }] }]);
  t.is(block.number, hex(head.number + 1));
  t.is(block.parentHash, head.hash);
  t.is(block.timestamp, hex(head.timestamp + 12));
  t.is(block.miner, head.coinbase, 'the parent\'s coinbase');
  t.is(block.baseFeePerGas, '0x0', 'no validation: base fee zero');
  t.is(block.gasUsed, '0x5208');
  t.false('totalDifficulty' in block);
  t.deepEqual(block.calls, [{ status: '0x1', returnData: '0x', gasUsed: '0x5208', maxUsedGas: '0x5208', logs: [] }]);
  t.is(block.transactions.length, 1);
  t.regex(block.transactions[0], /^0x[0-9a-f]{64}$/);
  // the hash is the keccak of the header's RLP (Besu's MainnetBlockHeaderFunctions), not a QBFT hash
  const header = createBlockHeader(
    {
      parentHash: block.parentHash,
      uncleHash: block.sha3Uncles,
      coinbase: block.miner,
      stateRoot: block.stateRoot,
      transactionsTrie: block.transactionsRoot,
      receiptTrie: block.receiptsRoot,
      logsBloom: block.logsBloom,
      difficulty: BigInt(block.difficulty),
      number: BigInt(block.number),
      gasLimit: BigInt(block.gasLimit),
      gasUsed: BigInt(block.gasUsed),
      timestamp: BigInt(block.timestamp),
      extraData: block.extraData,
      mixHash: block.mixHash,
      nonce: block.nonce,
      baseFeePerGas: BigInt(block.baseFeePerGas),
      withdrawalsRoot: block.withdrawalsRoot,
      blobGasUsed: block.blobGasUsed === undefined ? undefined : BigInt(block.blobGasUsed),
      excessBlobGas: block.excessBlobGas === undefined ? undefined : BigInt(block.excessBlobGas),
      parentBeaconBlockRoot: block.parentBeaconBlockRoot,
      requestsHash: block.requestsHash,
    } as never,
    { common: c.node.common, skipConsensusFormatValidation: true },
  );
  t.is(bytesToHex(header.hash()), block.hash);
  t.is(await ok(c.api, 'eth_getBalance', [EMPTY, 'latest']), before, 'the simulation changes nothing');
});

test.serial('state carries from block to block; gaps become empty blocks', async (t) => {
  const head = c.node.head().number;
  const result = await blocks([
    { stateOverrides: { [EMPTY]: { balance: '0x0' } }, calls: [{ from: A0, to: EMPTY, value: '0x64' }] },
    { blockOverrides: { number: hex(head + 4) }, calls: [{ from: EMPTY, to: A1, value: '0x64' }] },
  ]);
  t.deepEqual(
    result.map((b: { number: string; calls: unknown[] }) => [b.number, b.calls.length]),
    [
      [hex(head + 1), 1],
      [hex(head + 2), 0],
      [hex(head + 3), 0],
      [hex(head + 4), 1],
    ],
  );
  t.is(result[3].calls[0].status, '0x1', 'the value received in the first block pays the second');
  t.is(result[1].parentHash, result[0].hash);
  const again = await simulate([{ blockStateCalls: [{ calls: [{ from: EMPTY, to: A1, value: '0x64' }] }] }, 'latest']);
  t.like(again, { error: { code: -38014 } }, 'the next request starts from the chain\'s state again');
});

test.serial('validation failures end the request with their BlockStateCallError codes', async (t) => {
  const nonce = BigInt(await ok(c.api, 'eth_getTransactionCount', [A0, 'latest']));
  const code = async (calls: unknown[], validation = false) => {
    const r = await simulate([{ blockStateCalls: [{ calls }], validation }, 'latest']);
    return 'error' in r ? r.error.code : undefined;
  };
  t.is(await code([{ from: A0, to: A1 }], true), -38012, 'no price under the base fee');
  t.is(await code([{ from: A0, to: A1, nonce: hex(nonce - 1n) }]), -38010);
  t.is(await code([{ from: A0, to: A1, nonce: hex(nonce + 5n) }]), undefined, 'a future nonce passes without validation');
  t.is(await code([{ from: A0, to: A1, nonce: hex(nonce + 5n), maxFeePerGas: '0xe8d4a51000' }], true), -38011);
  t.is(await code([{ from: EMPTY, to: A1, value: '0x1' }]), -38014);
  t.is(await code([{ from: A0, to: A1, gas: '0x100' }]), -38013);
  t.is(await code([{ from: A0, to: A1, gas: hex(10n ** 12n) }]), -38015);
  const upfront = await simulate([{ blockStateCalls: [{ calls: [{ from: EMPTY, to: A1, value: '0x1' }] }] }, 'latest']);
  t.deepEqual(upfront, { error: { code: -38014, message: `transaction up-front cost 0x1 exceeds transaction sender account balance 0x0 for sender ${EMPTY}` } });
});

test.serial('a revert and a halt are call results, not request errors', async (t) => {
  const [block] = await blocks([{ stateOverrides: { [EMPTY]: { code: REVERTER_RUNTIME } }, calls: [{ from: A0, to: EMPTY }, { from: A0, to: EMPTY, gas: '0x520c' }] }]);
  const [reverted, second] = block.calls;
  t.is(reverted.status, '0x0');
  t.is(reverted.returnData, '0x');
  t.like(reverted.error, { code: 3, message: 'Execution reverted (nope)' });
  t.true(reverted.error.data.startsWith('0x08c379a0'));
  t.is(second.status, '0x0');
  t.deepEqual(second.error, { code: -32015, message: 'Out of gas' });
});

test.serial('logs are placed in the block; traceTransfers reports ETH transfers instead', async (t) => {
  const [block] = await blocks([{ calls: [{ from: A0, to: A1 }, { from: A0, to: LOGGER_CONTRACT }] }]);
  const log = block.calls[1].logs[0];
  t.like(log, { address: LOGGER_CONTRACT, topics: [ONE_TOPIC], logIndex: '0x1', transactionIndex: '0x1', blockHash: block.hash, blockNumber: block.number, removed: false });
  t.is(log.transactionHash, block.transactions[1]);
  const [traced] = await blocks([{ calls: [{ from: A0, to: A1, value: '0x3e8' }, { from: A0, to: LOGGER_CONTRACT }] }], { traceTransfers: true });
  const transfer = traced.calls[0].logs[0];
  t.is(transfer.address, '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee');
  t.deepEqual(transfer.topics.slice(1), [A0, A1].map((a) => `0x${a.slice(2).padStart(64, '0')}`));
  t.is(transfer.data, `0x${'3e8'.padStart(64, '0')}`);
  t.deepEqual(traced.calls[1].logs, [], 'with traceTransfers, a call\'s own logs are not reported (BlockStateCallSimulationResult)');
});

test.serial('full transactions; BLOCKHASH sees earlier simulated blocks; a moved precompile', async (t) => {
  // PUSH1 n BLOCKHASH PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN, n = the first simulated block
  const first = c.node.head().number + 1;
  const blockhash = `0x60${first.toString(16).padStart(2, '0')}4060005260206000f3`;
  const result = await blocks(
    [
      { calls: [{ from: A0, to: A1, maxFeePerGas: '0x0' }] },
      { stateOverrides: { [EMPTY]: { code: blockhash } }, calls: [{ from: A0, to: EMPTY }] },
    ],
    { returnFullTransactions: true },
  );
  const tx = result[0].transactions[0];
  t.like(tx, { type: '0x2', from: A0, to: A1, blockHash: result[0].hash, transactionIndex: '0x0', v: '0x0', r: '0x0', s: '0x0', yParity: '0x0', chainId: '0x539', accessList: [] });
  t.is(result[1].calls[0].returnData, result[0].hash);
  const moved = '0x0000000000000000000000000000000000001234';
  const [identity] = await blocks([{ stateOverrides: { '0x0000000000000000000000000000000000000004': { movePrecompileToAddress: moved } }, calls: [{ from: A0, to: moved, input: '0xc0ffee' }] }]);
  t.is(identity.calls[0].returnData, '0xc0ffee');
  t.deepEqual(hexToBytes(identity.calls[0].returnData), Uint8Array.of(0xc0, 0xff, 0xee));
});
