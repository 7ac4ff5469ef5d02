/**
 * Besu's flat traces from hand-built call trees: the depth-first order, traceAddress and subtraces,
 * skipped precompile calls, the suicide child, gas figures, errors, and the quirks of Besu's
 * FlatTraceGenerator kept on purpose.
 */
import test from 'ava';
import { hexToBytes, type Hex } from '../../../crypto/bytes.ts';
import { flatTraceJson, flatTraces, rewardTraceJson } from './flat-trace.ts';
import type { CallFrame, FrameDetail, TxTraceDetail } from '../../../execution/tracers/call-tracer.ts';

const A = '0x00000000000000000000000000000000000000aa' as Hex;
const B = '0x00000000000000000000000000000000000000bb' as Hex;
const C = '0x00000000000000000000000000000000000000cc' as Hex;
const D = '0x00000000000000000000000000000000000000dd' as Hex;
const E = '0x00000000000000000000000000000000000000ee' as Hex;
const F = '0x00000000000000000000000000000000000000ff' as Hex;
const G = '0x0000000000000000000000000000000000000011' as Hex;
const ECRECOVER = '0x0000000000000000000000000000000000000001' as Hex;

function detail(d: Partial<FrameDetail>): FrameDetail {
  return { apparentValue: 0n, precompile: false, gasLeftAtEnd: 0n, readCallData: false, returnData: new Uint8Array(0), ...d };
}

function frame(type: string, from: Hex, to: Hex | undefined, gas: bigint, d: Partial<FrameDetail>, calls: CallFrame[] = [], input = '0x'): CallFrame {
  return { type, from, to, gas, gasUsed: 0n, input: hexToBytes(input), calls, detail: detail(d), value: d.apparentValue ?? 0n };
}

function txDetail(t: Partial<TxTraceDetail>): TxTraceDetail {
  return { executionGas: 79_000n, refundCounter: 0n, refundApplied: 0n, firstReturnOrRevert: new Map(), usedCreate2: false, ...t };
}

/** B creates E, calls C (which asks a precompile and delegates to D), and calls F which self-destructs. */
function nestedTree(tx: Partial<TxTraceDetail> = {}): CallFrame {
  const c1a = frame('STATICCALL', C, ECRECOVER, 3_000n, { precompile: true, codeAddress: ECRECOVER, gasLeftAtEnd: 0n });
  const c1b = frame('DELEGATECALL', C, C, 2_000n, { codeAddress: D, lastOp: 'RETURN', lastOpGasLeft: 1_500n, gasLeftAtEnd: 1_497n, returnData: hexToBytes('0x2a') });
  const c1 = frame('CALL', B, C, 10_000n, { codeAddress: C, lastOp: 'STOP', lastOpGasLeft: 4_000n, gasLeftAtEnd: 4_000n }, [c1a, c1b], '0x1234');
  const c2 = frame('CREATE', B, E, 3_000n, { apparentValue: 1n, lastOp: 'RETURN', lastOpGasLeft: 2_000n, gasLeftAtEnd: 1_600n, returnData: hexToBytes('0x6001'), createAddress: E }, [], '0x60016000f3');
  const c3 = frame('CALL', B, F, 6_000n, { codeAddress: F, lastOp: 'SELFDESTRUCT', lastOpGasLeft: 5_100n, gasLeftAtEnd: 100n, selfDestruct: { beneficiary: G, balance: 7n } });
  const root = frame('CALL', A, B, 100_000n, { apparentValue: 10n, codeAddress: B, lastOp: 'RETURN', lastOpGasLeft: 70_000n, gasLeftAtEnd: 69_990n, returnData: hexToBytes('0x01') }, [c2, c1, c3]);
  root.txDetail = txDetail({ firstReturnOrRevert: new Map([[0, 'RETURN'], [1, 'RETURN'], [2, 'RETURN']]), ...tx });
  return root;
}

test('depth first with traceAddress paths and subtraces; a precompile call is not listed; a self-destruct adds a suicide child', (t) => {
  const traces = flatTraces(nestedTree(), { creationMethod: true });
  t.deepEqual(
    traces.map((x) => [x.type, x.traceAddress, x.subtraces]),
    [
      ['call', [], 3],
      ['create', [0], 0],
      ['call', [1], 1],
      ['call', [1, 0], 0],
      ['call', [2], 1],
      ['suicide', [2, 0], 0],
    ],
  );
  const [top, c2, c1, c1b, c3, suicide] = traces;
  t.deepEqual(top!.action, { callType: 'call', from: A, gas: '0x13498', input: '0x', to: B, value: '0xa' });
  // gas before the final RETURN used, plus its memory cost (no refund): 79000 - 70000 + 10
  t.deepEqual(top!.result, { gasUsed: '0x2332', output: '0x01' });
  t.deepEqual(c1!.action, { callType: 'call', from: B, gas: '0x2710', input: '0x1234', to: C, value: '0x0' });
  t.deepEqual(c1!.result, { gasUsed: '0x1770', output: '0x' });
  // a delegate call runs in its caller's account: from is C, to the code's address
  t.deepEqual(c1b!.action, { callType: 'delegatecall', from: C, gas: '0x7d0', input: '0x', to: D, value: '0x0' });
  t.deepEqual(c1b!.result, { gasUsed: '0x1f4', output: '0x2a' });
  // 3000 - 2000 before RETURN, plus 200 per deposited byte
  t.deepEqual(c2!.action, { creationMethod: 'create', from: B, gas: '0xbb8', init: '0x60016000f3', value: '0x1' });
  t.deepEqual(c2!.result, { address: E, code: '0x6001', gasUsed: '0x578' });
  t.deepEqual(c3!.result, { gasUsed: '0x170c', output: '0x' });
  t.deepEqual(suicide!.action, { address: F, balance: '0x7', refundAddress: G });
  t.is(suicide!.result, null);
});

test('the top gas used is the gas before its last opcode when the refund outweighs that opcode', (t) => {
  const [top] = flatTraces(nestedTree({ refundCounter: 4_800n, refundApplied: 4_800n }), { creationMethod: true });
  t.deepEqual(top!.result, { gasUsed: '0x2328', output: '0x01' });
  // a capped refund: the counter minus what was given is added back
  const [capped] = flatTraces(nestedTree({ refundCounter: 20n, refundApplied: 5n }), { creationMethod: true });
  t.deepEqual(capped!.result, { gasUsed: `0x${(9_010 + 15).toString(16)}`, output: '0x01' });
});

test('errors: a revert is "Reverted" with the revert data on the top frame; a halt is Besu\'s description; failed frames have no result', (t) => {
  const reverted = frame('CALL', A, B, 100_000n, { codeAddress: B, lastOp: 'REVERT', evmError: 'revert', returnData: hexToBytes('0xdeadbeef') });
  reverted.txDetail = txDetail({ firstReturnOrRevert: new Map([[0, 'REVERT']]) });
  const [top] = flatTraces(reverted, { creationMethod: true });
  t.is(top!.error, 'Reverted');
  t.is(top!.revertReason, '0xdeadbeef');
  t.is(top!.result, undefined);
  t.deepEqual(Object.keys(flatTraceJson(top!)), ['action', 'error', 'revertReason', 'subtraces', 'traceAddress', 'type']);

  const halted = frame('CALL', A, B, 100_000n, { codeAddress: B, lastOp: 'INVALID', evmError: 'invalid opcode' });
  halted.txDetail = txDetail({});
  t.is(flatTraces(halted, { creationMethod: true })[0]!.error, 'Bad instruction');
  const oog = frame('CALL', A, B, 100_000n, { codeAddress: B, evmError: 'out of gas' });
  oog.txDetail = txDetail({});
  t.is(flatTraces(oog, { creationMethod: true })[0]!.error, 'Out of gas');
});

test('Besu quirks: a call whose depth first met a REVERT is "Reverted"; a reverted call shows its caller\'s value', (t) => {
  const reverts = frame('CALL', B, C, 5_000n, { codeAddress: C, lastOp: 'REVERT', evmError: 'revert' });
  const returns = frame('CALL', B, D, 5_000n, { codeAddress: D, lastOp: 'RETURN', lastOpGasLeft: 4_000n, gasLeftAtEnd: 4_000n, apparentValue: 3n });
  const root = frame('CALL', A, B, 100_000n, { apparentValue: 9n, codeAddress: B, lastOp: 'STOP', lastOpGasLeft: 50_000n, gasLeftAtEnd: 50_000n }, [reverts, returns]);
  root.txDetail = txDetail({ firstReturnOrRevert: new Map([[1, 'REVERT']]) });
  const [top, first, second] = flatTraces(root, { creationMethod: true });
  t.is(top!.error, undefined);
  t.is(first!.error, 'Reverted');
  t.is(first!.action.value, '0x9'); // the CALL opcode's frame value, never corrected by a RETURN
  t.is(second!.error, 'Reverted'); // returned, but the first RETURN/REVERT at depth 1 was a REVERT
  t.is(second!.result, undefined);
  t.is(second!.action.value, '0x3');
  // having read its call data, the reverted frame shows its own value
  reverts.detail!.readCallData = true;
  t.is(flatTraces(root, { creationMethod: true })[1]!.action.value, '0x0');
});

test('contract creation: creationMethod (create2 once any CREATE2 ran), the created address, and every inner create from it', (t) => {
  const inner = frame('CREATE2', E, F, 50_000n, { lastOp: 'STOP', lastOpGasLeft: 49_000n, gasLeftAtEnd: 49_000n, createAddress: F });
  const deeper = frame('CREATE', F, G, 10_000n, { lastOp: 'STOP', lastOpGasLeft: 9_000n, gasLeftAtEnd: 9_000n, createAddress: G });
  inner.calls.push(deeper);
  const root = frame('CREATE', A, E, 200_000n, { lastOp: 'RETURN', lastOpGasLeft: 80_000n, gasLeftAtEnd: 79_600n, returnData: hexToBytes('0x6001'), createAddress: E }, [inner], '0x6002');
  root.txDetail = txDetail({ executionGas: 100_000n, usedCreate2: true });
  const [top, sub, subsub] = flatTraces(root, { creationMethod: true });
  t.deepEqual(top!.action, { creationMethod: 'create2', from: A, gas: '0x186a0', init: '0x6002', value: '0x0' });
  // 100000 - 80000 before RETURN, plus the deposit the engine charged after it (2 bytes)
  t.deepEqual(top!.result, { address: E, code: '0x6001', gasUsed: '0x4fb0' });
  t.is(sub!.action.creationMethod, 'create2');
  t.is(sub!.action.from, E);
  t.is(subsub!.action.from, E); // Besu: the transaction's contract, not F
  t.deepEqual(subsub!.traceAddress, [0, 0]);
  // trace_call writes no creationMethod
  t.false('creationMethod' in flatTraces(root, { creationMethod: false })[0]!.action);
});

test('a top-level call a precompile answers: its gas as gasUsed, output "0x"', (t) => {
  const root = frame('CALL', A, ECRECOVER, 30_000n, { precompile: true, codeAddress: ECRECOVER, gasLeftAtEnd: 5_000n, returnData: hexToBytes('0x01') });
  root.txDetail = txDetail({ executionGas: 8_000n });
  const traces = flatTraces(root, { creationMethod: true });
  t.is(traces.length, 1);
  t.deepEqual(traces[0]!.result, { gasUsed: '0xbb8', output: '0x' });
});

test('JSON in Besu\'s property order, with the block fields where the transaction is known; reward traces', (t) => {
  const location = { blockHash: `0x${'12'.repeat(32)}` as Hex, blockNumber: 5, transactionHash: `0x${'34'.repeat(32)}` as Hex, transactionPosition: 2 };
  const traces = flatTraces(nestedTree(), { location, creationMethod: true });
  const json = flatTraceJson(traces[0]!, location);
  t.deepEqual(Object.keys(json), ['action', 'blockHash', 'blockNumber', 'result', 'subtraces', 'traceAddress', 'transactionHash', 'transactionPosition', 'type']);
  t.is(json.blockNumber, 5);
  t.is(json.transactionPosition, 2);
  t.deepEqual(flatTraceJson(traces[5]!).result, null);
  t.deepEqual(Object.keys(flatTraceJson(traces[0]!)), ['action', 'result', 'subtraces', 'traceAddress', 'type']);
  t.deepEqual(rewardTraceJson({ author: G, rewardType: 'block', valueWei: 0n }, location.blockHash, 5), {
    action: { author: G, rewardType: 'block', value: '0x0' },
    blockHash: location.blockHash,
    blockNumber: 5,
    result: null,
    subtraces: 0,
    traceAddress: [],
    transactionHash: null,
    transactionPosition: null,
    type: 'reward',
  });
});
