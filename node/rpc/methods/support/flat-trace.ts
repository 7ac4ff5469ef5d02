/**
 * Besu's parity-style flat traces (trace_block, trace_transaction, trace_filter, trace_get, the
 * "trace" type of trace_replayBlockTransactions and trace_call), derived from the simulator's call
 * tree (besu: ethereum/api/.../results/tracing/flat/FlatTraceGenerator.java, FlatTrace.java,
 * Action.java, Result.java, RewardTraceGenerator.java, RewardTrace.java; snapshot 3fd224e2).
 *
 * The frames are listed depth first; a frame's traceAddress is the path of child indexes from the
 * transaction's top frame ([] for the top frame) and subtraces counts its children. Besu builds
 * them from its opcode frames, and what that gives is reproduced here:
 * - A call a precompile answers has no frame of its own in Besu: it is not listed (its gas stays
 *   in its caller's). A call to an account without code is listed (Besu runs a STOP there).
 * - A frame that ends with SELFDESTRUCT gets a last child of type "suicide" (action address,
 *   balance sent, refundAddress; result null), counted in its subtraces.
 * - action.gas: the gas the frame started with (the top frame: the gas limit minus intrinsic gas).
 * - result.gasUsed of a frame that ends with RETURN or STOP: its gas minus the gas left before
 *   that RETURN/STOP (so without the RETURN's memory cost); a CREATE/CREATE2 adds 200 per byte of
 *   code deposited. For the top frame, Besu's computeGasUsed compares the gas left after the refund
 *   with the gas left before the last opcode: when the refund is the larger it reports the gas
 *   used before the last opcode, otherwise the execution gas used plus the refund counter minus the
 *   refund given. A frame that ends with SELFDESTRUCT reports all the gas it used.
 *   A top-level call to a precompile reports the precompile's gas and output "0x".
 * - error: "Reverted" for a REVERT, otherwise Besu's halt description ("Out of gas", "Bad
 *   instruction", "Stack underflow", ...); a failed frame has no result. The top frame of a
 *   reverted transaction carries revertReason (the revert data, "0x" when empty).
 * - Besu quirks kept on purpose: a CALL-family frame is marked "Reverted" when the first RETURN or
 *   REVERT executed at its depth anywhere in the transaction is a REVERT (hasRevertInSubCall scans
 *   the whole transaction), even if this frame returned; such a frame shows no result. A frame
 *   that ends with REVERT or SELFDESTRUCT without having run CALLDATALOAD shows its caller's value
 *   (the value of the CALL opcode's frame). Every create trace of a contract-creation transaction
 *   has the created contract as `from`. creationMethod is "create2" on every create trace of a
 *   transaction that ran CREATE2 anywhere, else "create".
 */
import { bytesToHex, type Hex } from '../../../crypto/bytes.ts';
import { quantity } from '../../params.ts';
import { haltDescription } from '../../../execution/calls/halt-reasons.ts';
import type { CallFrame, FrameDetail, TxTraceDetail } from '../../../execution/tracers/call-tracer.ts';

/** Where a traced transaction is (trace_block, trace_transaction, trace_filter, trace_get). */
export interface TraceLocation {
  blockHash: Hex;
  blockNumber: number;
  transactionHash: Hex;
  transactionPosition: number;
}

export interface FlatTraceOptions {
  location?: TraceLocation;
  /** Besu adds creationMethod to create traces everywhere but in trace_call. */
  creationMethod: boolean;
}

/** A flat trace before JSON: the fields Besu writes, in its order. */
export interface FlatTrace {
  action: Record<string, string>;
  result?: Record<string, string> | null;
  error?: string;
  revertReason?: string;
  subtraces: number;
  traceAddress: number[];
  type: 'call' | 'create' | 'suicide';
  /** The address whose code the frame runs as (the `from` of the frames it starts). */
  executing: Hex;
}

const CODE_DEPOSIT_GAS_PER_BYTE = 200n;
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000' as Hex;


/** Besu's ExceptionalHaltReason description of an EVM error, or "Reverted". */
function errorText(evmError: string): string {
  return evmError === 'revert' ? 'Reverted' : haltDescription(evmError);
}

/** Gas left before the frame's closing RETURN or STOP (Besu runs a STOP where code ends). */
function gasLeftBeforeEnd(d: FrameDetail): bigint {
  return (d.lastOp === 'RETURN' || d.lastOp === 'STOP') && d.lastOpGasLeft !== undefined ? d.lastOpGasLeft : d.gasLeftAtEnd;
}

function selfDestructed(d: FrameDetail): boolean {
  return d.evmError === undefined && d.lastOp === 'SELFDESTRUCT' && d.selfDestruct !== undefined;
}

function isCreateType(type: string): boolean {
  return type === 'CREATE' || type === 'CREATE2';
}

/** FlatTraceGenerator.computeGasUsed for the top frame. */
function topGasUsed(d: FrameDetail, tx: TxTraceDetail): bigint {
  if (d.precompile || selfDestructed(d)) return tx.executionGas - d.gasLeftAtEnd;
  const beforeEnd = gasLeftBeforeEnd(d);
  const spentAtEnd = beforeEnd - d.gasLeftAtEnd;
  if (tx.refundApplied > spentAtEnd) return tx.executionGas - beforeEnd;
  return tx.executionGas - beforeEnd + spentAtEnd - tx.refundApplied + tx.refundCounter;
}

/** The flat traces of one transaction's call tree (`root` from the simulator's tracer). */
export function flatTraces(root: CallFrame, opts: FlatTraceOptions): FlatTrace[] {
  const d = root.detail;
  const tx = root.txDetail;
  if (!d || !tx) throw new Error('flatTraces needs a call tree recorded with its details');
  const creationMethod = opts.creationMethod ? (tx.usedCreate2 ? 'create2' : 'create') : undefined;
  const out: FlatTrace[] = [];
  const isCreate = isCreateType(root.type);
  const txContract = isCreate ? (root.to ?? d.createAddress ?? ZERO_ADDRESS) : undefined;

  const top: FlatTrace = isCreate
    ? {
        action: { ...(creationMethod ? { creationMethod } : {}), from: root.from, gas: quantity(tx.executionGas), init: bytesToHex(root.input), value: quantity(root.value ?? 0n) },
        subtraces: 0,
        traceAddress: [],
        type: 'create',
        executing: txContract!,
      }
    : {
        action: { callType: 'call', from: root.from, gas: quantity(tx.executionGas), input: bytesToHex(root.input), to: root.to!, value: quantity(root.value ?? 0n) },
        subtraces: 0,
        traceAddress: [],
        type: 'call',
        executing: root.to!,
      };
  if (d.evmError !== undefined) {
    top.error = errorText(d.evmError);
    if (d.evmError === 'revert') top.revertReason = bytesToHex(d.returnData);
  } else {
    const gasUsed = quantity(topGasUsed(d, tx));
    const output = d.precompile || selfDestructed(d) ? '0x' : bytesToHex(d.returnData);
    top.result = isCreate ? { address: txContract!, code: bytesToHex(d.returnData), gasUsed } : { gasUsed, output };
  }
  out.push(top);
  visit(root, top, 0);
  return out;

  function visit(frame: CallFrame, trace: FlatTrace, depth: number): void {
    const parentValue = frame.detail!.apparentValue;
    for (const child of frame.calls) {
      const cd = child.detail!;
      if (cd.precompile) continue;
      const sub = isCreateType(child.type) ? createTrace(child, cd, trace) : callTrace(child, cd, trace, depth + 1, parentValue);
      sub.traceAddress = [...trace.traceAddress, trace.subtraces];
      out.push(sub);
      visit(child, sub, depth + 1);
      trace.subtraces++;
    }
    const sd = frame.detail!.selfDestruct;
    if (selfDestructed(frame.detail!) && sd) {
      out.push({
        action: { address: trace.executing, balance: quantity(sd.balance), refundAddress: sd.beneficiary },
        result: null,
        subtraces: 0,
        traceAddress: [...trace.traceAddress, trace.subtraces],
        type: 'suicide',
        executing: trace.executing,
      });
      trace.subtraces++;
    }
  }

  function callTrace(child: CallFrame, cd: FrameDetail, parent: FlatTrace, depth: number, parentValue: bigint): FlatTrace {
    const callType = child.type.toLowerCase();
    const to = cd.codeAddress ?? child.to ?? ZERO_ADDRESS;
    const endedWithoutRereadingValue = (cd.evmError === 'revert' || selfDestructed(cd)) && !cd.readCallData;
    const trace: FlatTrace = {
      action: {
        callType,
        from: parent.executing,
        gas: quantity(child.gas),
        input: bytesToHex(child.input),
        to,
        value: quantity(endedWithoutRereadingValue ? parentValue : cd.apparentValue),
      },
      subtraces: 0,
      traceAddress: [],
      type: 'call',
      executing: callType === 'delegatecall' || callType === 'callcode' ? parent.executing : to,
    };
    if (cd.evmError !== undefined) trace.error = errorText(cd.evmError);
    else if (tx!.firstReturnOrRevert.get(depth) === 'REVERT') trace.error = 'Reverted';
    else if (selfDestructed(cd)) trace.result = { gasUsed: quantity(child.gas - cd.gasLeftAtEnd), output: '0x' };
    else trace.result = { gasUsed: quantity(child.gas - gasLeftBeforeEnd(cd)), output: bytesToHex(cd.returnData) };
    return trace;
  }

  function createTrace(child: CallFrame, cd: FrameDetail, parent: FlatTrace): FlatTrace {
    const address = cd.createAddress ?? child.to ?? ZERO_ADDRESS;
    const trace: FlatTrace = {
      action: {
        ...(creationMethod ? { creationMethod } : {}),
        from: txContract ?? parent.executing,
        gas: quantity(child.gas),
        init: bytesToHex(child.input),
        value: quantity(cd.apparentValue),
      },
      subtraces: 0,
      traceAddress: [],
      type: 'create',
      executing: address,
    };
    if (cd.evmError !== undefined) trace.error = errorText(cd.evmError);
    else if (selfDestructed(cd)) trace.result = { address, gasUsed: quantity(child.gas - cd.gasLeftAtEnd), output: '0x' };
    else {
      const deposit = CODE_DEPOSIT_GAS_PER_BYTE * BigInt(cd.returnData.length);
      trace.result = { address, code: bytesToHex(cd.returnData), gasUsed: quantity(child.gas - gasLeftBeforeEnd(cd) + deposit) };
    }
    return trace;
  }
}

/** Besu's FlatTrace JSON (@JsonPropertyOrder; result left out when there is an error). */
export function flatTraceJson(t: FlatTrace, location?: TraceLocation): Record<string, unknown> {
  const out: Record<string, unknown> = { action: t.action };
  if (location) {
    out.blockHash = location.blockHash;
    out.blockNumber = location.blockNumber;
  }
  if (t.error === undefined) out.result = t.result ?? null;
  if (t.error !== undefined) out.error = t.error;
  if (t.revertReason !== undefined) out.revertReason = t.revertReason;
  out.subtraces = t.subtraces;
  out.traceAddress = t.traceAddress;
  if (location) {
    out.transactionHash = location.transactionHash;
    out.transactionPosition = location.transactionPosition;
  }
  out.type = t.type;
  return out;
}

/** A block or uncle reward (RewardTraceGenerator): author, value, and the block. */
export interface Reward {
  author: Hex;
  rewardType: 'block' | 'uncle';
  valueWei: bigint;
}

/** Besu's RewardTrace JSON: result, transactionHash and transactionPosition are written as null. */
export function rewardTraceJson(r: Reward, blockHash: Hex, blockNumber: number): Record<string, unknown> {
  return {
    action: { author: r.author, rewardType: r.rewardType, value: quantity(r.valueWei) },
    blockHash,
    blockNumber,
    result: null,
    subtraces: 0,
    traceAddress: [],
    transactionHash: null,
    transactionPosition: null,
    type: 'reward',
  };
}
