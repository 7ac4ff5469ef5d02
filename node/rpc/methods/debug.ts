/**
 * debug_traceTransaction, debug_traceBlockByNumber, debug_traceBlockByHash with the opcode tracer
 * (the default: struct logs, execution/tracers/struct-logger.ts) or the call tracer
 * (besu: ethereum/api/.../internal/methods/DebugTraceTransaction.java, DebugTraceBlockByNumber.java,
 * DebugTraceBlockByHash.java, results/CallTracerResult.java, CallTracerResultConverter.java,
 * CallTracerErrorHandler.java, results/DebugTraceTransactionResult.java; snapshot 3fd224e2).
 *
 * The block is re-executed on its parent's state (the parent's state must still be retained) and
 * the wanted transactions are traced from the EVM's events. The default tracer (no `tracer`) gives
 * Besu's struct logs, with `disableStack`, `disableMemory` and `disableStorage` as Besu reads them
 * (stack and storage on, memory off unless `disableMemory: false`); `{"tracer":"callTracer"}` the
 * call tree. Besu's other tracers (flatCallTracer, prestateTracer, 4byteTracer) and the `opcodes`
 * filter answer -32602 "Invalid transaction trace params (<why>)"; an unknown tracer name answers
 * -32602 "Invalid transaction trace params", as Besu.
 * Result shapes: a CallTracerResult or {gas, failed, returnValue, structLogs} for a transaction;
 * [{txHash, result}] for a block.
 */
import type { ChainEntry } from '../../chain/chain.ts';
import { bytesToHex, hexToBytes } from '../../crypto/bytes.ts';
import { RpcError, decodeRevertReason, rpcError, rpcErrorWithReason } from '../errors.ts';
import type { NodeApi } from '../node-api.ts';
import { parseBlockParam, parseHash32 } from '../params.ts';
import type { RpcMethodSpec } from '../registry.ts';
import { replayOneBlock } from '../../execution/calls/replay.ts';
import { TraceTooLargeError, type StructLogOptions } from '../../execution/tracers/struct-logger.ts';
import { formatCallFrame } from '../formatters/call-frame.ts';

const KNOWN_TRACERS = new Set(['', 'callTracer', 'flatCallTracer', 'prestateTracer', '4byteTracer']);

type Tracer = { kind: 'call' } | { kind: 'opcode'; options: StructLogOptions };

/** TransactionTraceParams: the opcode tracer (default) or the call tracer. */
function parseTraceOptions(x: unknown): Tracer {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) throw rpcError('INVALID_TRANSACTION_TRACE_PARAMS');
  const o = x as Record<string, unknown>;
  const tracer = o.tracer;
  if (tracer !== undefined && tracer !== null && typeof tracer !== 'string') throw rpcError('INVALID_TRANSACTION_TRACE_PARAMS');
  const name = typeof tracer === 'string' ? tracer : '';
  if (!KNOWN_TRACERS.has(name)) throw rpcError('INVALID_TRANSACTION_TRACE_PARAMS');
  if (name === 'callTracer') return { kind: 'call' };
  if (name !== '') throw rpcErrorWithReason('INVALID_TRANSACTION_TRACE_PARAMS', `qbft-lab supports the default opcode tracer and callTracer, not ${name}`);
  const flag = (key: string): boolean | undefined => {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') throw rpcError('INVALID_TRANSACTION_TRACE_PARAMS');
    return v;
  };
  if (o.opcodes !== undefined && o.opcodes !== null) throw rpcErrorWithReason('INVALID_TRANSACTION_TRACE_PARAMS', 'qbft-lab does not filter the opcode tracer by opcodes');
  const [disableStack, disableMemory, disableStorage] = [flag('disableStack'), flag('disableMemory'), flag('disableStorage')];
  return { kind: 'opcode', options: { stack: !(disableStack ?? false), memory: disableMemory === undefined ? false : !disableMemory, storage: !(disableStorage ?? false) } };
}

function requireTracer(x: unknown): Tracer {
  return parseTraceOptions(x === undefined || x === null ? {} : x);
}

/** A block's wanted transactions traced with `tracer`, re-executed on its parent's state (undefined: that state is gone). */
async function traceWith(api: NodeApi, entry: ChainEntry, tracer: Tracer, wanted: (i: number) => boolean): Promise<unknown[] | undefined> {
  const parent = api.byHash(entry.parentHash);
  if (!parent || !api.stateAvailable(parent)) return undefined;
  let replays;
  try {
    replays = await replayOneBlock(
      api.simulator,
      entry.block.header,
      parent.block.header.stateRoot,
      hexToBytes(entry.parentHash),
      api.beneficiaryAt(entry.number, entry.coinbase),
      [...entry.block.transactions],
      wanted,
      tracer.kind === 'opcode' ? { structLogs: tracer.options } : {},
    );
  } catch (e) {
    if (e instanceof TraceTooLargeError) throw new RpcError(-32000, `Trace too large: ${e.message}`);
    throw e;
  }
  return replays.map((r) => {
    if (!r) return null;
    return tracer.kind === 'call' ? formatCallFrame(r.frame, decodeRevertReason) : (r.structLog ?? null);
  });
}

export function debugMethods(api: NodeApi): RpcMethodSpec[] {
  const traceBlock = async (entry: ChainEntry | undefined, tracer: Tracer) => {
    if (!entry) return null;
    const results = await traceWith(api, entry, tracer, () => true);
    if (!results) return null;
    return entry.block.transactions.map((tx, i) => ({ txHash: bytesToHex(tx.hash()), result: results[i] ?? null }));
  };
  return [
    {
      name: 'debug_traceTransaction',
      group: 'DEBUG',
      handler: async (params) => {
        const hash = parseHash32(params[0], 'INVALID_TRANSACTION_HASH_PARAMS');
        const found = api.minedTransaction(hash);
        if (!found) return null;
        const tracer = requireTracer(params[1]);
        const results = await traceWith(api, found.entry, tracer, (i) => i === found.index);
        return results?.[found.index] ?? null;
      },
    },
    {
      name: 'debug_traceBlockByNumber',
      group: 'DEBUG',
      handler: async (params) => {
        const block = parseBlockParam(params[0], 'INVALID_BLOCK_PARAMS');
        const tracer = requireTracer(params[1]);
        return traceBlock(api.entryOf(block), tracer);
      },
    },
    {
      name: 'debug_traceBlockByHash',
      group: 'DEBUG',
      handler: async (params) => {
        const hash = parseHash32(params[0], 'INVALID_BLOCK_HASH_PARAMS');
        const tracer = requireTracer(params[1]);
        return traceBlock(api.byHash(hash), tracer);
      },
    },
  ];
}
