/**
 * Besu's callTracer (CallTracerResult before formatting) built from the EVM's message and step
 * events, with the per-frame and per-transaction facts Besu's flat traces (trace_*) read besides
 * the tree. The JSON forms are the RPC's (rpc/formatters/call-frame.ts, rpc/methods/support/flat-trace.ts).
 */
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { Address } from '@ethereumjs/util';
import type { Hex } from '../../crypto/bytes.ts';
import { haltDescription } from '../calls/halt-reasons.ts';

/** One frame of the call tracer (Besu CallTracerResult, before formatting). */
export interface CallFrame {
  type: string;
  from: Hex;
  to?: Hex;
  value?: bigint;
  gas: bigint;
  gasUsed: bigint;
  input: Uint8Array;
  output?: Uint8Array;
  error?: string;
  revertReason?: Uint8Array;
  calls: CallFrame[];
  /** What Besu's flat (trace_*) traces read besides the tree; recorded for every traced frame. */
  detail?: FrameDetail;
  /** Top frame only: facts of the whole transaction. */
  txDetail?: TxTraceDetail;
}

/** Per-frame facts Besu's FlatTraceGenerator reads from its opcode frames. */
export interface FrameDetail {
  /** The value the frame's code sees (CALLVALUE): a DELEGATECALL carries its caller's. */
  apparentValue: bigint;
  /** The account whose code runs (a DELEGATECALL's or CALLCODE's target). */
  codeAddress?: Hex;
  /** A precompile answered: no opcode ran, so Besu records no frame (and no trace) for the call. */
  precompile: boolean;
  /** The last opcode the frame executed itself, and the gas left before it ran. */
  lastOp?: string;
  lastOpGasLeft?: bigint;
  /** Gas left when the frame finished (its gas minus what it used). */
  gasLeftAtEnd: bigint;
  /** Whether the frame ran CALLDATALOAD (Besu re-reads the frame's value there). */
  readCallData: boolean;
  /** SELFDESTRUCT: the beneficiary and the balance it was sent. */
  selfDestruct?: { beneficiary: Hex; balance: bigint };
  /** Return data (the deployed code of a creation, the revert data of a REVERT). */
  returnData: Uint8Array;
  /** The EVM's error when the frame failed ('revert' or a halt). */
  evmError?: string;
  /** CREATE/CREATE2: the address of the new contract. */
  createAddress?: Hex;
}

/** Transaction-wide facts for Besu's flat traces. */
export interface TxTraceDetail {
  /** Gas the top frame started with (gas limit minus intrinsic gas). */
  executionGas: bigint;
  /** The refund counter at the end, and the refund the transaction was given (capped). */
  refundCounter: bigint;
  refundApplied: bigint;
  /** The first RETURN or REVERT executed at each call depth, in execution order. */
  firstReturnOrRevert: Map<number, 'RETURN' | 'REVERT'>;
  /** Whether any CREATE2 ran. */
  usedCreate2: boolean;
}

const EMPTY = new Uint8Array(0);

function lowerAddress(a: { toString(): string }): Hex {
  return a.toString().toLowerCase() as Hex;
}

/** The low 20 bytes of a stack word, as an address. */
function wordToAddress(word: bigint): Hex {
  return `0x${(word & ((1n << 160n) - 1n)).toString(16).padStart(40, '0')}`;
}

/** Builds Besu's callTracer tree from EVM message events, with the facts flat traces need. */
export class CallTreeTracer {
  private readonly stack: CallFrame[] = [];
  private readonly children: CallFrame[] = [];
  private readonly ops = new Map<number, { name: string; code: number }>();
  /** Executing address per depth (the `from` of the calls it makes). */
  private readonly executing: Hex[] = [];
  private readonly rootDetail: FrameDetail = { apparentValue: 0n, precompile: false, gasLeftAtEnd: 0n, readCallData: false, returnData: EMPTY };
  private rootGas = 0n;
  private readonly firstReturnOrRevert = new Map<number, 'RETURN' | 'REVERT'>();
  private usedCreate2 = false;

  constructor(private readonly isPrecompile: (address: Address) => boolean) {}

  private detailAt(depth: number): FrameDetail | undefined {
    return depth === 0 ? this.rootDetail : this.stack[depth - 1]?.detail;
  }

  step(s: InterpreterStep): void {
    const name = s.opcode.name;
    this.ops.set(s.depth, { name, code: s.opcode.code });
    this.executing[s.depth] = lowerAddress(s.address);
    const d = this.detailAt(s.depth);
    if (d) {
      d.lastOp = name;
      d.lastOpGasLeft = s.gasLeft;
      if (name === 'CALLDATALOAD') d.readCallData = true;
      if (name === 'SELFDESTRUCT') d.selfDestruct = { beneficiary: wordToAddress(s.stack[s.stack.length - 1] ?? 0n), balance: s.account.balance };
    }
    if ((name === 'RETURN' || name === 'REVERT') && !this.firstReturnOrRevert.has(s.depth)) this.firstReturnOrRevert.set(s.depth, name);
    if (name === 'CREATE2') this.usedCreate2 = true;
  }

  lastOpcodeAt(depth: number): number | undefined {
    return this.ops.get(depth)?.code;
  }

  /** Gas the top frame had left when it finished. */
  rootGasLeft(): bigint {
    return this.rootDetail.gasLeftAtEnd;
  }

  before(m: Message): void {
    const codeAddress = m.to ? m.codeAddress : undefined;
    const detail: FrameDetail = {
      apparentValue: m.value,
      codeAddress: codeAddress ? lowerAddress(codeAddress) : undefined,
      precompile: codeAddress !== undefined && this.isPrecompile(codeAddress),
      gasLeftAtEnd: 0n,
      readCallData: false,
      returnData: EMPTY,
    };
    if (m.depth === 0) {
      this.rootGas = m.gasLimit;
      Object.assign(this.rootDetail, detail);
      return;
    }
    const op = this.ops.get(m.depth - 1)?.name ?? (m.to ? 'CALL' : 'CREATE');
    const type = op === 'CREATE2' || op === 'CREATE' || op === 'CALL' || op === 'CALLCODE' || op === 'DELEGATECALL' || op === 'STATICCALL' ? op : m.to ? 'CALL' : 'CREATE';
    const frame: CallFrame = {
      type,
      from: this.executing[m.depth - 1] ?? lowerAddress(m.caller),
      to: m.to ? lowerAddress(m.to) : undefined,
      value: type === 'STATICCALL' ? undefined : type === 'DELEGATECALL' ? 0n : m.value,
      gas: m.gasLimit,
      gasUsed: 0n,
      // a copy: the message's data is a view of the caller's memory, which may change later
      input: m.data.slice(),
      calls: [],
      detail,
    };
    this.stack.push(frame);
  }

  after(r: EVMResult): void {
    const ex = r.execResult;
    const error = ex.exceptionError?.error;
    const frame = this.stack.pop();
    const detail = frame ? frame.detail! : this.rootDetail;
    detail.gasLeftAtEnd = (frame ? frame.gas : this.rootGas) - ex.executionGasUsed;
    detail.returnData = ex.returnValue;
    detail.evmError = error;
    if (r.createdAddress) detail.createAddress = lowerAddress(r.createdAddress);
    if (!frame) return; // the top-level message: root() builds its frame
    frame.gasUsed = ex.executionGasUsed;
    if (ex.returnValue.length > 0) frame.output = ex.returnValue;
    if (frame.type === 'CREATE' || frame.type === 'CREATE2') {
      frame.to = error === undefined && r.createdAddress ? lowerAddress(r.createdAddress) : undefined;
      if (error === undefined) frame.output = undefined;
    }
    if (error === 'revert') {
      frame.error = 'execution reverted';
    } else if (error !== undefined) {
      frame.error = haltDescription(error, this.ops.get(this.stack.length + 1)?.code);
      frame.output = undefined;
    }
    const parent = this.stack[this.stack.length - 1];
    (parent ? parent.calls : this.children).push(frame);
  }

  root(r: {
    isCreate: boolean;
    from: Hex;
    to?: Hex;
    value: bigint;
    gas: bigint;
    gasUsed: bigint;
    input: Uint8Array;
    output: Uint8Array;
    error?: string;
    revertData?: Uint8Array;
    /** The EVM's refund counter at the end, and the refund the transaction got. */
    refundCounter: bigint;
    refundApplied: bigint;
  }): CallFrame {
    const frame: CallFrame = {
      type: r.isCreate ? 'CREATE' : 'CALL',
      from: r.from,
      to: r.to,
      value: r.value,
      gas: r.gas,
      gasUsed: r.gasUsed,
      input: r.input,
      calls: this.children,
      detail: this.rootDetail,
      txDetail: {
        executionGas: this.rootGas,
        refundCounter: r.refundCounter,
        refundApplied: r.refundApplied,
        firstReturnOrRevert: this.firstReturnOrRevert,
        usedCreate2: this.usedCreate2,
      },
    };
    if (r.output.length > 0 && r.error === undefined) frame.output = r.output;
    if (r.error !== undefined) {
      frame.error = r.error;
      if (r.revertData && r.revertData.length > 0) {
        if (r.isCreate) frame.revertReason = r.revertData;
        else frame.output = r.revertData;
      }
    }
    return frame;
  }
}
