/**
 * debug_traceTransaction, debug_traceBlockByNumber, debug_traceBlockByHash with the call tracer
 * (besu: ethereum/api/.../internal/methods/DebugTraceTransaction.java, DebugTraceBlockByNumber.java,
 * DebugTraceBlockByHash.java, results/CallTracerResult.java, CallTracerResultConverter.java,
 * CallTracerErrorHandler.java, results/DebugTraceTransactionResult.java; snapshot 3fd224e2).
 *
 * The block is re-executed on its parent's state (the parent's state must still be retained) and
 * the wanted transactions are traced from the EVM's message events. Only `{"tracer":"callTracer"}`
 * is supported: the default opcode logger and Besu's other tracers (flatCallTracer,
 * prestateTracer, 4byteTracer) answer -32602 "Invalid transaction trace params (<why>)"; an
 * unknown tracer name answers -32602 "Invalid transaction trace params", as Besu.
 * Result shapes: a CallTracerResult for a transaction; [{txHash, result}] for a block.
 */
import type { ChainEntry } from '../../chain/chain.ts';
import { bytesToHex, hexToBytes } from '../../crypto/bytes.ts';
import { decodeRevertReason, rpcError, rpcErrorWithReason } from '../errors.ts';
import type { NodeApi } from '../node-api.ts';
import { parseBlockParam, parseHash32 } from '../params.ts';
import type { RpcMethodSpec } from '../registry.ts';
import { formatCallFrame } from './support/simulator.ts';

const KNOWN_TRACERS = new Set(['', 'callTracer', 'flatCallTracer', 'prestateTracer', '4byteTracer']);

/** TransactionTraceParams: only the call tracer is served. */
function parseTraceOptions(x: unknown): void {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) throw rpcError('INVALID_TRANSACTION_TRACE_PARAMS');
  const tracer = (x as Record<string, unknown>).tracer;
  if (tracer !== undefined && tracer !== null && typeof tracer !== 'string') throw rpcError('INVALID_TRANSACTION_TRACE_PARAMS');
  const name = typeof tracer === 'string' ? tracer : '';
  if (!KNOWN_TRACERS.has(name)) throw rpcError('INVALID_TRANSACTION_TRACE_PARAMS');
  if (name !== 'callTracer')
    throw rpcErrorWithReason('INVALID_TRANSACTION_TRACE_PARAMS', `qbft-lab supports only {"tracer":"callTracer"}, not ${name === '' ? 'the default opcode tracer' : name}`);
}

function requireTracer(x: unknown): void {
  if (x === undefined || x === null) parseTraceOptions({});
  else parseTraceOptions(x);
}

async function traceEntry(api: NodeApi, entry: ChainEntry, wanted: (i: number) => boolean) {
  const parent = api.byHash(entry.parentHash);
  if (!parent || !api.stateAvailable(parent)) return undefined;
  return api.simulator.traceBlock(
    entry.block.header,
    parent.block.header.stateRoot,
    hexToBytes(entry.parentHash),
    api.beneficiaryAt(entry.number, entry.coinbase),
    [...entry.block.transactions],
    wanted,
  );
}

export function debugMethods(api: NodeApi): RpcMethodSpec[] {
  const traceBlock = async (entry: ChainEntry | undefined) => {
    if (!entry) return null;
    const frames = await traceEntry(api, entry, () => true);
    if (!frames) return null;
    return entry.block.transactions.map((tx, i) => ({
      txHash: bytesToHex(tx.hash()),
      result: frames[i] ? formatCallFrame(frames[i]!, decodeRevertReason) : null,
    }));
  };
  return [
    {
      name: 'debug_traceTransaction',
      group: 'DEBUG',
      handler: async (params) => {
        const hash = parseHash32(params[0], 'INVALID_TRANSACTION_HASH_PARAMS');
        const found = api.minedTransaction(hash);
        if (!found) return null;
        requireTracer(params[1]);
        const frames = await traceEntry(api, found.entry, (i) => i === found.index);
        const frame = frames?.[found.index];
        return frame ? formatCallFrame(frame, decodeRevertReason) : null;
      },
    },
    {
      name: 'debug_traceBlockByNumber',
      group: 'DEBUG',
      handler: async (params) => {
        const block = parseBlockParam(params[0], 'INVALID_BLOCK_PARAMS');
        requireTracer(params[1]);
        return traceBlock(api.entryOf(block));
      },
    },
    {
      name: 'debug_traceBlockByHash',
      group: 'DEBUG',
      handler: async (params) => {
        const hash = parseHash32(params[0], 'INVALID_BLOCK_HASH_PARAMS');
        requireTracer(params[1]);
        return traceBlock(api.byHash(hash));
      },
    },
  ];
}
