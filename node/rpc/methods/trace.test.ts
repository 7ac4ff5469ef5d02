/**
 * The TRACE group on a simulated London QBFT chain. A hand-assembled contract M, on call data
 * word 0, CALLs the store contract T (which writes slot 0 and returns its old value), CREATEs a
 * child (which writes slot 0 and deploys 0x6001), stores the child's address in its slot 1, CALLs
 * a contract R that reverts, and returns the child's address; on word 1 it reverts with 0xdeadbeef;
 * on word 2 it self-destructs. Gas figures are checked against hand-counted opcode costs and
 * against the receipts the engine wrote.
 */
import test from 'ava';
import { NodeApi } from '../node-api.ts';
import { bigIntToUnpaddedBytes, generateAddress } from '@ethereumjs/util';
import { bytesToHex, hexToBytes, type Hex } from '../../crypto/bytes.ts';
import { BESU_TEST_ACCOUNTS } from '../../../sim/keys.ts';
import { DEFAULT_MAX_TRACE_FILTER_RANGE, traceMethods } from './trace.ts';
import { REVERTER_RUNTIME, call, ok, sign1559, startCluster, type Cluster } from './test-kit.ts';
import type { TypedTransaction } from '@ethereumjs/tx';

// ---- a small assembler: numbers are opcodes, {p} a PUSH, {to} a PUSH2 of a label, {at} a label.
type Item = number | { p: bigint | number | Hex; n?: number } | { to: string } | { at: string } | { raw: Uint8Array };

function assemble(items: Item[]): Uint8Array {
  const bytes: number[] = [];
  const labels = new Map<string, number>();
  const refs: Array<[number, string]> = [];
  for (const it of items) {
    if (typeof it === 'number') bytes.push(it);
    else if ('p' in it) {
      const v = typeof it.p === 'string' ? BigInt(it.p) : BigInt(it.p);
      let h = v.toString(16);
      const n = it.n ?? Math.max(1, Math.ceil(h.length / 2));
      h = h.padStart(n * 2, '0');
      bytes.push(0x5f + n, ...hexToBytes(`0x${h}`));
    } else if ('to' in it) {
      refs.push([bytes.length + 1, it.to]);
      bytes.push(0x61, 0, 0);
    } else if ('at' in it) labels.set(it.at, bytes.length);
    else bytes.push(...it.raw);
  }
  for (const [pos, label] of refs) {
    const target = labels.get(label)!;
    bytes[pos] = target >> 8;
    bytes[pos + 1] = target & 0xff;
  }
  return Uint8Array.from(bytes);
}

const op = { CALLDATALOAD: 0x35, CODECOPY: 0x39, POP: 0x50, MSTORE: 0x52, SLOAD: 0x54, SSTORE: 0x55, JUMPI: 0x57, GAS: 0x5a, JUMPDEST: 0x5b, DUP1: 0x80, EQ: 0x14, CREATE: 0xf0, CALL: 0xf1, RETURN: 0xf3, REVERT: 0xfd, SELFDESTRUCT: 0xff };

/** Init code that deploys `runtime`: PUSH2 len PUSH1 14 PUSH1 0 CODECOPY PUSH2 len PUSH1 0 RETURN. */
function deployCode(runtime: Uint8Array): Uint8Array {
  const len = { p: runtime.length, n: 2 };
  return Uint8Array.from([...assemble([len, { p: 14 }, { p: 0 }, op.CODECOPY, len, { p: 0 }, op.RETURN]), ...runtime]);
}

/** The child's init code: SSTORE(0, 5), then deploy the two bytes 0x6001. */
const CHILD_INIT = assemble([{ p: 5 }, { p: 0 }, op.SSTORE, { p: 0x6001, n: 2 }, { p: 0 }, op.MSTORE, { p: 2 }, { p: 30 }, op.RETURN]);
/** What the child's init code costs: 3+3, SSTORE of a cold new slot (2100 + 20000), 3+3, MSTORE with one word of memory (6), 3+3; RETURN 0. */
const CHILD_INIT_GAS = 3n + 3n + 22_100n + 3n + 3n + 6n + 3n + 3n;
/** T (test-kit's store contract) on slot 0 = 42 -> 7: 3, SLOAD cold 2100, 3, 3, 3, SSTORE warm reset 2900, 3, MSTORE 6, 3, 3. */
const STORE_CALL_GAS = 3n + 2_100n + 3n + 3n + 3n + 2_900n + 3n + 6n + 3n + 3n;

const BENEFICIARY = '0x00000000000000000000000000000000000be4e1' as Hex;

function mainRuntime(store: Hex, reverter: Hex): Uint8Array {
  return assemble([
    { p: 0 }, op.CALLDATALOAD,
    op.DUP1, { p: 1 }, op.EQ, { to: 'revert' }, op.JUMPI,
    op.DUP1, { p: 2 }, op.EQ, { to: 'destruct' }, op.JUMPI,
    op.POP,
    // CALL T(7), 32 bytes back at 0
    { p: 7 }, { p: 0 }, op.MSTORE,
    { p: 32 }, { p: 0 }, { p: 32 }, { p: 0 }, { p: 0 }, { p: store, n: 20 }, op.GAS, op.CALL, op.POP,
    // CREATE the child from the init code kept at the end of this code; slot 1 = its address
    { p: CHILD_INIT.length }, { to: 'child' }, { p: 0 }, op.CODECOPY,
    { p: CHILD_INIT.length }, { p: 0 }, { p: 0 }, op.CREATE,
    { p: 1 }, op.SSTORE,
    // CALL R, which reverts
    { p: 0 }, { p: 0 }, { p: 0 }, { p: 0 }, { p: 0 }, { p: reverter, n: 20 }, op.GAS, op.CALL, op.POP,
    // return slot 1
    { p: 1 }, op.SLOAD, { p: 0 }, op.MSTORE, { p: 32 }, { p: 0 }, op.RETURN,
    { at: 'revert' }, op.JUMPDEST, { p: 0xdeadbeef }, { p: 0 }, op.MSTORE, { p: 4 }, { p: 28 }, op.REVERT,
    { at: 'destruct' }, op.JUMPDEST, { p: BENEFICIARY, n: 20 }, op.SELFDESTRUCT,
    { at: 'child' }, { raw: CHILD_INIT },
  ]);
}

const A0 = BESU_TEST_ACCOUNTS[0]!.address.toLowerCase() as Hex;
const word = (n: number | bigint) => `0x${BigInt(n).toString(16).padStart(64, '0')}`;
const addressWord = (a: Hex) => `0x${a.slice(2).padStart(64, '0')}`;
const qty = (n: bigint | number) => `0x${BigInt(n).toString(16)}`;
const createAddress = (from: Hex, nonce: bigint) => bytesToHex(generateAddress(hexToBytes(from), bigIntToUnpaddedBytes(nonce)));
/** Intrinsic gas (London): 21000, 32000 for a creation, 4 per zero byte and 16 per other byte. */
const intrinsic = (data: Uint8Array, create: boolean) => 21_000n + (create ? 32_000n : 0n) + data.reduce((s, b) => s + (b === 0 ? 4n : 16n), 0n);
const stripLocation = ({ blockHash: _h, blockNumber: _n, transactionHash: _t, transactionPosition: _p, ...rest }: Record<string, unknown>) => rest;

let c: Cluster;
let T: Hex;
let R: Hex;
let M: Hex;
let mDeploy: { hash: Hex; receipt: Awaited<ReturnType<Cluster['api']['receiptByTxHash']>> & {}; init: Uint8Array };
let main: { hash: Hex; block: number; blockHash: Hex; gasUsed: bigint; price: bigint; index: number };
let reverted: Hex;
let nonce = 0n;

async function mine(tx: TypedTransaction) {
  const r = await c.node.submitTransaction(tx.serialize());
  if (!r.ok) throw new Error(r.error);
  for (let i = 0; i < 10; i++) {
    await c.world.advanceBy(1_000);
    const receipt = await c.api.receiptByTxHash(r.hash);
    if (receipt) return { hash: r.hash, receipt };
  }
  throw new Error(`not mined: ${r.hash}`);
}

const send = (fields: { to?: Hex; data: Uint8Array; value?: bigint; gasLimit?: bigint }) => mine(sign1559(c.node, 0, { nonce: nonce++, gasLimit: 300_000n, ...fields }));

test.before(async () => {
  c = await startCluster({ fork: 'london' });
  T = c.contract.toLowerCase() as Hex;
  nonce = BigInt(await ok(c.api, 'eth_getTransactionCount', [A0, 'latest']));
  R = (await send({ data: deployCode(hexToBytes(REVERTER_RUNTIME)) })).receipt.contractAddress!.toLowerCase() as Hex;
  const init = deployCode(mainRuntime(T, R));
  const deployed = await send({ data: init });
  M = deployed.receipt.contractAddress!.toLowerCase() as Hex;
  mDeploy = { hash: deployed.hash, receipt: deployed.receipt, init };
  const m = await send({ to: M, data: hexToBytes(word(0)), value: 5n });
  main = { hash: m.hash, block: m.receipt.blockNumber, blockHash: m.receipt.blockHash, gasUsed: m.receipt.gasUsed, price: m.receipt.effectiveGasPrice, index: m.receipt.transactionIndex };
  reverted = (await send({ to: M, data: hexToBytes(word(1)) })).hash;
});

test.serial('trace_transaction: call, create and a reverted call below the top frame, in order, with Besu\'s figures', async (t) => {
  const traces = await ok(c.api, 'trace_transaction', [main.hash]);
  const child = createAddress(M, 1n);
  const location = { blockHash: main.blockHash, blockNumber: main.block, transactionHash: main.hash, transactionPosition: main.index };
  t.is(traces.length, 4);
  t.deepEqual(traces.map((x: any) => [x.type, x.traceAddress, x.subtraces]), [
    ['call', [], 3],
    ['call', [0], 0],
    ['create', [1], 0],
    ['call', [2], 0],
  ]);
  for (const x of traces) t.like(x, location);
  const [top, store, create, revert] = traces;
  const data = hexToBytes(word(0));
  t.deepEqual(top.action, { callType: 'call', from: A0, gas: qty(300_000n - intrinsic(data, false)), input: word(0), to: M, value: '0x5' });
  // no refund and no memory growth at the RETURN: the top frame's gas used is the execution gas of the receipt
  t.deepEqual(top.result, { gasUsed: qty(main.gasUsed - intrinsic(data, false)), output: addressWord(child) });
  t.is(store.action.from, M);
  t.is(store.action.to, T);
  t.is(store.action.input, word(7));
  t.is(store.action.value, '0x0');
  t.deepEqual(store.result, { gasUsed: qty(STORE_CALL_GAS), output: word(42) });
  t.true(BigInt(store.action.gas) > STORE_CALL_GAS);
  t.deepEqual(create.action, { creationMethod: 'create', from: M, gas: create.action.gas, init: bytesToHex(CHILD_INIT), value: '0x0' });
  t.deepEqual(create.result, { address: child, code: '0x6001', gasUsed: qty(CHILD_INIT_GAS + 2n * 200n) });
  t.is(await ok(c.api, 'eth_getStorageAt', [M, '0x1', 'latest']), addressWord(child));
  t.is(revert.action.to, R);
  t.is(revert.error, 'Reverted');
  t.false('result' in revert);
  // Besu's FlatTraceGenerator keeps the CALL opcode frame's value (M's 5 wei) for a call that
  // ends with REVERT without reading its call data
  t.is(revert.action.value, '0x5');
  t.deepEqual(Object.keys(top), ['action', 'blockHash', 'blockNumber', 'result', 'subtraces', 'traceAddress', 'transactionHash', 'transactionPosition', 'type']);
});

test.serial('trace_transaction: a contract creation, a reverted transaction, an unknown hash', async (t) => {
  const [deploy] = await ok(c.api, 'trace_transaction', [mDeploy.hash]);
  const runtime = mainRuntime(T, R);
  const gas = 300_000n - intrinsic(mDeploy.init, true);
  t.deepEqual(deploy.action, { creationMethod: 'create', from: A0, gas: qty(gas), init: bytesToHex(mDeploy.init), value: '0x0' });
  // execution gas (code deposit included) = receipt minus intrinsic gas
  t.deepEqual(deploy.result, { address: M, code: bytesToHex(runtime), gasUsed: qty(mDeploy.receipt.gasUsed - intrinsic(mDeploy.init, true)) });
  t.is(deploy.type, 'create');

  const r = await ok(c.api, 'trace_transaction', [reverted]);
  t.is(r.length, 1);
  t.is(r[0].error, 'Reverted');
  t.is(r[0].revertReason, '0xdeadbeef');
  t.false('result' in r[0]);
  t.deepEqual(await ok(c.api, 'trace_transaction', [`0x${'ab'.repeat(32)}`]), []);
  t.deepEqual(await call(c.api, 'trace_transaction', ['0x12']), { error: { code: -32602, message: 'Invalid transaction hash params' } });
});

test.serial('trace_get picks a trace by its address', async (t) => {
  const traces = await ok(c.api, 'trace_transaction', [main.hash]);
  t.deepEqual(await ok(c.api, 'trace_get', [main.hash, ['0x1']]), traces[2]);
  t.deepEqual(await ok(c.api, 'trace_get', [main.hash, []]), traces[0]);
  t.is(await ok(c.api, 'trace_get', [main.hash, ['0x5']]), null);
  t.deepEqual(await call(c.api, 'trace_get', [main.hash]), { error: { code: -32602, message: 'Invalid number of params' } });
  t.deepEqual(await call(c.api, 'trace_get', [main.hash, '0x1']), { error: { code: -32602, message: 'Invalid trace numbers params' } });
});

test.serial('trace_block: the transactions\' traces, then the block reward of the QBFT beneficiary (0 wei)', async (t) => {
  const traces = await ok(c.api, 'trace_block', [qty(main.block)]);
  const block = await ok(c.api, 'eth_getBlockByNumber', [qty(main.block), false]);
  const ofMain = traces.filter((x: any) => x.transactionHash === main.hash);
  t.deepEqual(ofMain, await ok(c.api, 'trace_transaction', [main.hash]));
  let perTransaction = 0;
  for (const h of block.transactions) perTransaction += (await ok(c.api, 'trace_transaction', [h])).length;
  t.is(traces.length, perTransaction + 1);
  t.deepEqual(traces[traces.length - 1], {
    action: { author: block.miner, rewardType: 'block', value: '0x0' },
    blockHash: main.blockHash,
    blockNumber: main.block,
    result: null,
    subtraces: 0,
    traceAddress: [],
    transactionHash: null,
    transactionPosition: null,
    type: 'reward',
  });
  t.deepEqual(await ok(c.api, 'trace_block', ['0x0']), []);
  t.deepEqual(await ok(c.api, 'trace_block', ['earliest']), []);
  t.is(await ok(c.api, 'trace_block', [qty(c.api.headNumber() + 10)]), null);
  t.deepEqual(await call(c.api, 'trace_block', [`0x${'aa'.repeat(32)}`]), { error: { code: -32602, message: 'Invalid block param (block not found)' } });
  t.deepEqual(await call(c.api, 'trace_block', []), { error: { code: -32602, message: 'Invalid block param (block not found)' } });
});

test.serial('trace_replayBlockTransactions: trace and stateDiff; the sender pays exactly gas used x price + value', async (t) => {
  const [only] = (await ok(c.api, 'trace_replayBlockTransactions', [qty(main.block), ['trace']])).filter((x: any) => x.transactionHash === main.hash);
  const traces = await ok(c.api, 'trace_transaction', [main.hash]);
  const child = createAddress(M, 1n);
  t.deepEqual(only, { output: addressWord(child), stateDiff: null, trace: traces.map(stripLocation), transactionHash: main.hash, vmTrace: null });

  const replays = await ok(c.api, 'trace_replayBlockTransactions', [qty(main.block), ['stateDiff', 'TRACE']]);
  const r = replays.find((x: any) => x.transactionHash === main.hash);
  t.deepEqual(Object.keys(r), ['output', 'stateDiff', 'trace', 'transactionHash', 'vmTrace']);
  t.is(r.trace.length, 4);
  const block = await ok(c.api, 'eth_getBlockByNumber', [qty(main.block), false]);
  const miner = block.miner as Hex;
  const diff = r.stateDiff;
  t.deepEqual(Object.keys(diff), [A0, M, T, child, miner].sort());
  const sender = diff[A0];
  t.is(BigInt(sender.balance['*'].from) - BigInt(sender.balance['*'].to), main.gasUsed * main.price + 5n);
  t.is(BigInt(sender.nonce['*'].to) - BigInt(sender.nonce['*'].from), 1n);
  t.deepEqual(sender.storage, {});
  const fee = diff[miner].balance['*'];
  t.is(BigInt(fee.to) - BigInt(fee.from), main.gasUsed * (main.price - BigInt(block.baseFeePerGas)));
  t.deepEqual(diff[T], { balance: '=', code: '=', nonce: '=', storage: { [word(0)]: { '*': { from: word(42), to: word(7) } } } });
  t.deepEqual(diff[M], {
    balance: { '*': { from: '0x0', to: '0x5' } },
    code: '=',
    nonce: { '*': { from: '0x1', to: '0x2' } },
    storage: { [word(1)]: { '*': { from: word(0), to: addressWord(child) } } },
  });
  t.deepEqual(diff[child], { balance: { '+': '0x0' }, code: { '+': '0x6001' }, nonce: { '+': '0x1' }, storage: { [word(0)]: { '+': word(5) } } });

  const [rev] = (await ok(c.api, 'trace_replayBlockTransactions', [qty((await c.api.receiptByTxHash(reverted))!.blockNumber), ['trace']])).filter((x: any) => x.transactionHash === reverted);
  t.is(rev.output, '0x');
  t.is(rev.revertReason, '0xdeadbeef');
  t.deepEqual(Object.keys(rev), ['output', 'revertReason', 'stateDiff', 'trace', 'transactionHash', 'vmTrace']);
});

test.serial('trace_replayBlockTransactions: trace types are checked; vmTrace is refused by name', async (t) => {
  t.deepEqual(await call(c.api, 'trace_replayBlockTransactions', [qty(main.block), ['bla']]), { error: { code: -32602, message: 'Invalid trace type params' } });
  t.deepEqual(await call(c.api, 'trace_replayBlockTransactions', [qty(main.block), 'trace']), { error: { code: -32602, message: 'Invalid trace type params' } });
  t.deepEqual(await call(c.api, 'trace_replayBlockTransactions', [qty(main.block), ['trace', 'vmTrace']]), {
    error: { code: -32602, message: 'Invalid trace type params (qbft-lab does not support the vmTrace trace type)' },
  });
  t.deepEqual(await ok(c.api, 'trace_replayBlockTransactions', ['earliest', ['trace']]), []);
  t.is(await ok(c.api, 'trace_replayBlockTransactions', [qty(c.api.headNumber() + 10), ['trace']]), null);
  const none = await ok(c.api, 'trace_replayBlockTransactions', [qty(main.block), []]);
  t.true(none.every((x: any) => x.stateDiff === null && x.trace.length === 0));
});

test.serial('trace_filter: by from/to address, after and count; the range is bounded', async (t) => {
  const range = { fromBlock: qty(main.block), toBlock: qty(main.block) };
  const traces = await ok(c.api, 'trace_transaction', [main.hash]);
  const fromM = await ok(c.api, 'trace_filter', [{ ...range, fromAddress: [M] }]);
  t.deepEqual(fromM, traces.slice(1));
  t.deepEqual(await ok(c.api, 'trace_filter', [{ ...range, toAddress: T }]), [traces[1]]);
  t.deepEqual(await ok(c.api, 'trace_filter', [{ ...range, fromAddress: [M], after: 1, count: 1 }]), [traces[2]]);
  t.deepEqual(await ok(c.api, 'trace_filter', [{ ...range, fromAddress: [M], count: 0 }]), []);
  t.deepEqual(await ok(c.api, 'trace_filter', [{ ...range, fromAddress: [M], after: 3 }]), []);
  // no address filter: every trace of the block, reward included
  t.deepEqual(await ok(c.api, 'trace_filter', [range]), await ok(c.api, 'trace_block', [qty(main.block)]));
  // a range from genesis starts at block 1; the reverted transaction's block is included too
  const wide = await ok(c.api, 'trace_filter', [{ fromBlock: '0x0', toBlock: 'latest', fromAddress: [A0], toAddress: [M] }]);
  t.deepEqual(wide.map((x: any) => x.transactionHash), [main.hash, reverted]);
  const invalid = { error: { code: -32602, message: 'Invalid params' } };
  t.deepEqual(await call(c.api, 'trace_filter', [{ fromBlock: qty(main.block), toBlock: qty(main.block - 1) }]), invalid);
  t.deepEqual(await call(c.api, 'trace_filter', [{ fromBlock: '0x1', toBlock: qty(c.api.headNumber() + 1) }]), invalid);
  t.deepEqual(await call(c.api, 'trace_filter', [{ fromBlock: 'pending' }]), { error: { code: -32603, message: 'Internal error' } });
  t.deepEqual(await call(c.api, 'trace_filter', [{ ...range, count: 1.5 }]), { error: { code: -32602, message: 'Invalid filter params' } });
  t.deepEqual(await call(c.api, 'trace_filter', []), { error: { code: -32602, message: 'Invalid filter params' } });
  t.is(DEFAULT_MAX_TRACE_FILTER_RANGE, 1000);
  const narrow = traceMethods(c.api, { maxTraceFilterRange: 2 });
  t.deepEqual(await call(narrow, 'trace_filter', [{ fromBlock: '0x1', toBlock: '0x4' }]), { error: { code: -32005, message: 'Requested range exceeds maximum RPC range limit' } });
  // --rpc-max-trace-filter-range reaches the methods through the node's API options.
  const fromOption = traceMethods(new NodeApi(c.node, { maxTraceFilterRange: 2 }));
  t.deepEqual(await call(fromOption, 'trace_filter', [{ fromBlock: '0x1', toBlock: '0x4' }]), { error: { code: -32005, message: 'Requested range exceeds maximum RPC range limit' } });
  t.true(Array.isArray(await ok(narrow, 'trace_filter', [{ fromBlock: '0x1', toBlock: '0x3' }])));
});

test.serial('trace_call: the same tree without creationMethod; stateDiff settles fee and refund; a revert gives its data as output', async (t) => {
  const block = await ok(c.api, 'eth_getBlockByNumber', ['latest', false]);
  const baseFee = BigInt(block.baseFeePerGas);
  const tip = 1000n;
  const mNonce = BigInt(await ok(c.api, 'eth_getTransactionCount', [M, 'latest']));
  const child = createAddress(M, mNonce);
  const res = await ok(c.api, 'trace_call', [{ from: A0, to: M, data: word(0), value: '0x5', gas: qty(300_000n), gasPrice: qty(baseFee + tip) }, ['trace', 'stateDiff'], 'latest']);
  t.deepEqual(Object.keys(res), ['output', 'stateDiff', 'trace', 'vmTrace']);
  t.is(res.output, addressWord(child));
  t.deepEqual(res.trace.map((x: any) => [x.type, x.traceAddress, x.subtraces]), [
    ['call', [], 3],
    ['call', [0], 0],
    ['create', [1], 0],
    ['call', [2], 0],
  ]);
  t.false('creationMethod' in res.trace[2].action);
  t.false('blockHash' in res.trace[0]);
  t.is(res.trace[2].result.address, child);
  const diff = res.stateDiff;
  const gasUsed = (BigInt(diff[block.miner].balance['*'].to) - BigInt(diff[block.miner].balance['*'].from)) / tip;
  // no refund in this call: gas used = intrinsic gas + the top frame's execution gas
  t.is(gasUsed, intrinsic(hexToBytes(word(0)), false) + BigInt(res.trace[0].result.gasUsed));
  t.is(BigInt(diff[A0].balance['*'].from) - BigInt(diff[A0].balance['*'].to), gasUsed * (baseFee + tip) + 5n);
  t.false(T in diff); // T's slot 0 is already 7: written, unchanged
  t.deepEqual(diff[child].storage, { [word(0)]: { '+': word(5) } });

  const rev = await ok(c.api, 'trace_call', [{ from: A0, to: M, data: word(1) }, ['trace']]);
  t.is(rev.output, '0xdeadbeef');
  t.is(rev.stateDiff, null);
  t.is(rev.trace[0].error, 'Reverted');
  t.is(rev.trace[0].revertReason, '0xdeadbeef');
});

test.serial('trace_call: parameter errors as Besu answers them', async (t) => {
  const callObject = { from: A0, to: M, data: word(0) };
  t.deepEqual(await call(c.api, 'trace_call', [callObject, ['trace'], qty(c.api.headNumber() + 5)]), { error: { code: -32000, message: 'Block not found' } });
  t.deepEqual(await call(c.api, 'trace_call', [callObject, ['vmTrace']]), { error: { code: -32602, message: 'Invalid trace type params (qbft-lab does not support the vmTrace trace type)' } });
  t.deepEqual(await call(c.api, 'trace_call', [callObject]), { error: { code: -32602, message: 'Invalid trace type params' } });
  t.deepEqual(await call(c.api, 'trace_call', [{ to: 'xyz' }, ['trace']]), { error: { code: -32602, message: 'Invalid call params' } });
  t.deepEqual(await call(c.api, 'trace_call', [callObject, ['trace'], `0x${'aa'.repeat(32)}`]), { error: { code: -32602, message: 'Invalid block param (block not found)' } });
  // the sender cannot pay: Besu's simulator result is invalid, an internal error
  const poor = '0x00000000000000000000000000000000000000a1';
  t.deepEqual(await call(c.api, 'trace_call', [{ from: poor, to: M, gasPrice: '0x3b9aca00' }, ['trace']]), { error: { code: -32603, message: 'Internal error' } });
});

test.serial('a self-destruct: a suicide trace under its frame, and the account removed in stateDiff (London)', async (t) => {
  const balance = BigInt(await ok(c.api, 'eth_getBalance', [M, 'latest']));
  t.true(balance > 0n);
  const { hash, receipt } = await send({ to: M, data: hexToBytes(word(2)) });
  const traces = await ok(c.api, 'trace_transaction', [hash]);
  t.deepEqual(traces.map((x: any) => [x.type, x.traceAddress, x.subtraces]), [
    ['call', [], 1],
    ['suicide', [0], 0],
  ]);
  t.deepEqual(traces[1].action, { address: M, balance: qty(balance), refundAddress: BENEFICIARY });
  t.is(traces[1].result, null);
  t.deepEqual(traces[0].result, { gasUsed: qty(receipt.gasUsed - intrinsic(hexToBytes(word(2)), false)), output: '0x' });
  const [r] = (await ok(c.api, 'trace_replayBlockTransactions', [qty(receipt.blockNumber), ['stateDiff']])).filter((x: any) => x.transactionHash === hash);
  t.deepEqual(r.stateDiff[M], { balance: { '-': qty(balance) }, code: { '-': bytesToHex(mainRuntime(T, R)) }, nonce: { '-': '0x2' }, storage: {} });
  t.deepEqual(r.stateDiff[BENEFICIARY], { balance: { '+': qty(balance) }, code: { '+': '0x' }, nonce: { '+': '0x0' }, storage: {} });
});
