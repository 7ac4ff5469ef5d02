/**
 * The default (opcode) tracer of debug_trace*, as Besu's OpCodeLoggerTracerResult and StructLog
 * write it (DebugOperationTracer; snapshot 3fd224e2): `{gas, failed, returnValue, structLogs}`, each
 * step `{pc, op, gas, gasCost, depth, stack, memory, storage, reason}`:
 * - `gas` is the gas left before the step, `depth` counts from 1, `stack` is the stack before the
 *   step (bottom first), `memory` the memory after it (32-byte words; left out while empty), and
 *   `storage` every slot of the executing account written so far in the transaction, after the
 *   step (left out while none), keys and values as 32-byte hex; stack and memory words are compact
 *   hex ("0x0" for zero). A REVERT step carries the revert data as `reason`.
 * - `gasCost` is the step's static and dynamic cost as the EVM charges it; for the CALL family it
 *   includes the gas handed to the called frame (as geth reports it).
 * - The step where a frame halted exceptionally carries `error`, Besu's ExceptionalHaltReason name.
 * - disableStack, disableMemory and disableStorage leave the field out.
 * Bounded: past MAX_TRACE_CELLS stack items and memory words in one transaction recording stops
 * and the trace is refused with an error instead of growing without end.
 */
import type { InterpreterStep } from '@ethereumjs/evm';
import { bytesToHex } from '../../crypto/bytes.ts';

export interface StructLogOptions {
  stack: boolean;
  memory: boolean;
  storage: boolean;
}

export interface StructLog {
  pc: number;
  op: string;
  gas: number;
  gasCost: number;
  depth: number;
  stack?: string[];
  memory?: string[];
  storage?: Record<string, string>;
  reason?: string;
  /** On the step where a frame halted exceptionally: Besu's ExceptionalHaltReason name. */
  error?: string;
}

export interface StructLogResult {
  gas: number;
  failed: boolean;
  returnValue: string;
  structLogs: StructLog[];
}

export const MAX_TRACE_CELLS = 20_000_000;

export class TraceTooLargeError extends Error {}

const compact = (v: bigint): string => `0x${v.toString(16)}`;
const word32 = (v: bigint): string => `0x${v.toString(16).padStart(64, '0')}`;

function wordsOf(memory: Uint8Array): string[] {
  const out: string[] = [];
  for (let i = 0; i < memory.length; i += 32) {
    const hex = bytesToHex(memory.subarray(i, i + 32)).slice(2).replace(/^0+/, '');
    out.push(`0x${hex === '' ? '0' : hex}`);
  }
  return out;
}

export class StructLogger {
  private readonly logs: StructLog[] = [];
  /** Slots written in the transaction, per account. */
  private readonly written = new Map<string, Map<bigint, bigint>>();
  private pending?: { log: StructLog; depth: number; address: string; preMemory: Uint8Array };
  private cells = 0;
  /** Set once the trace passed the bound: recording stops (the EVM is not disturbed) and result() refuses. */
  private tooLarge = false;
  /** Index of the last step logged in each open frame (innermost last). */
  private readonly lastStepOfFrame: number[] = [];

  constructor(
    private readonly opts: StructLogOptions,
    private readonly maxCells = MAX_TRACE_CELLS,
  ) {}

  step(s: InterpreterStep): void {
    if (this.tooLarge) return;
    this.finishPending(s.depth, s.memory);
    const log: StructLog = {
      pc: s.pc,
      op: s.opcode.name,
      gas: Number(s.gasLeft),
      // The EVM's step event carries the whole charge (static and dynamic) as `dynamicFee`.
      gasCost: Number(s.opcode.dynamicFee ?? BigInt(s.opcode.fee)),
      depth: s.depth + 1,
    };
    if (this.opts.stack) {
      log.stack = s.stack.map(compact);
      this.count(log.stack.length);
    }
    const address = s.address.toString();
    const top = s.stack.length - 1;
    if (s.opcode.name === 'SSTORE' && top >= 1) {
      let slots = this.written.get(address);
      if (!slots) this.written.set(address, (slots = new Map()));
      slots.set(s.stack[top]!, s.stack[top - 1]!);
    }
    if (s.opcode.name === 'REVERT' && top >= 1) {
      const offset = Number(s.stack[top]!);
      const size = Number(s.stack[top - 1]!);
      const data = new Uint8Array(size);
      data.set(s.memory.subarray(offset, offset + size));
      log.reason = bytesToHex(data);
    }
    this.logs.push(log);
    if (this.lastStepOfFrame.length > 0) this.lastStepOfFrame[this.lastStepOfFrame.length - 1] = this.logs.length - 1;
    this.pending = { log, depth: s.depth, address, preMemory: s.memory };
  }

  /** A frame starts (the EVM's beforeMessage). */
  enter(): void {
    this.lastStepOfFrame.push(-1);
  }

  /** A frame ends; `haltReason` marks its last step as where it halted (StructLogWithError). */
  exit(haltReason: string | undefined): void {
    const last = this.lastStepOfFrame.pop();
    if (haltReason !== undefined && last !== undefined && last >= 0 && !this.tooLarge) this.logs[last]!.error = haltReason;
  }

  /** The transaction's result, once it has run. */
  result(gasUsed: bigint, failed: boolean, returnValue: Uint8Array): StructLogResult {
    this.finishPending(-1, undefined);
    if (this.tooLarge) throw new TraceTooLargeError(`the trace is larger than ${this.maxCells} stack items and memory words`);
    return { gas: Number(gasUsed), failed, returnValue: bytesToHex(returnValue).slice(2), structLogs: this.logs };
  }

  /** Memory and storage are what the step left: read at the next step of the same frame. */
  private finishPending(nextDepth: number, nextMemory: Uint8Array | undefined): void {
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    if (this.opts.memory) {
      const memory = nextDepth === p.depth && nextMemory ? nextMemory : p.preMemory;
      if (memory.length > 0) {
        p.log.memory = wordsOf(memory);
        this.count(p.log.memory.length);
      }
    }
    if (this.opts.storage) {
      const slots = this.written.get(p.address);
      if (slots && slots.size > 0) {
        const sorted = [...slots.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        p.log.storage = Object.fromEntries(sorted.map(([k, v]) => [word32(k), word32(v)]));
        this.count(sorted.length);
      }
    }
  }

  private count(cells: number): void {
    this.cells += cells;
    if (this.cells > this.maxCells) {
      this.tooLarge = true;
      this.logs.length = 0;
    }
  }
}

