/**
 * The TRACE group (besu: ethereum/api/.../jsonrpc/methods/TraceJsonRpcMethods.java and
 * internal/methods/TraceBlock.java, TraceTransaction.java, AbstractTraceByHash.java, TraceGet.java,
 * TraceReplayBlockTransactions.java, TraceReplayTransactionStep.java, TraceFilter.java,
 * TraceFilterSource.java, TraceFlatTransactionStep.java, TraceCall.java, AbstractTraceCall.java,
 * AbstractTraceByBlock.java, AbstractBlockParameterMethod.java; parameters/TraceTypeParameter.java,
 * FilterParameter.java; util/ArrayNodeWrapper.java; results/TraceReplayResult.java,
 * TraceCallResult.java; app/.../cli/options/ApiConfigurationOptions.java; snapshot 3fd224e2).
 *
 * Blocks are re-executed on their parent's state, which must still be retained; where it is not,
 * Besu's Tracer finds no world state and the methods answer an empty list, as here.
 * - trace_block(block): the flat traces of every transaction (with blockHash, blockNumber,
 *   transactionHash, transactionPosition), then the block's reward traces. Besu's
 *   RewardTraceGenerator runs on every chain: a QBFT block gets one "reward" trace (author: the
 *   mining beneficiary or the coinbase, value: the BFT blockreward, "0x0" by default). Genesis:
 *   []; a block that does not exist: null.
 * - trace_transaction(hash): the transaction's flat traces; an unknown hash: [].
 * - trace_get(hash, [indexes as hex strings]): the trace at that traceAddress, or null.
 * - trace_replayBlockTransactions(block, types): per transaction {output, revertReason (when it
 *   reverted), stateDiff (null unless asked), trace ([] unless asked), transactionHash, vmTrace: null}.
 * - trace_filter({fromBlock, toBlock, fromAddress, toAddress, after, count}): the flat traces of
 *   the range (block rewards included unless an address filter is given: they have no from/to),
 *   keeping the traces whose action.from / action.to are listed; `after` skips that many matching
 *   traces, `count` stops after that many. fromBlock/toBlock: numbers, "earliest" or "latest"
 *   (other tags answer -32603, as Besu's resolveBlockNumber throws); fromBlock > toBlock or toBlock
 *   above the head: -32602 "Invalid params"; more than --rpc-max-trace-filter-range blocks (Besu's
 *   default 1000, 0 = no limit; `toBlock - fromBlock > max`): -32005 "Requested range exceeds
 *   maximum RPC range limit". The range is replayed from the first block's parent state on, as Besu.
 * - trace_call(call, types, block = latest): {output (the revert data when it reverted), stateDiff,
 *   trace, vmTrace: null} of the call simulated at the end of the block, with the strict validation
 *   of a transaction (a price defaults to the base fee and the sender must afford it; Besu's
 *   TransactionValidationParams.transactionSimulator()); an invalid call answers -32603, a block
 *   that does not exist -32000 "Block not found". Its flat traces carry no creationMethod.
 * - Trace types: "trace" and "stateDiff" (any case); an unknown type answers -32602 "Invalid trace
 *   type params"; "vmTrace" (Besu's opcode-level trace) is not built here and answers -32602
 *   "Invalid trace type params (qbft-lab does not support the vmTrace trace type)".
 * - Block tags: pending, finalized and safe read as the head (qbft-lab's rule, see node-api.ts).
 * Not built: trace_callMany, trace_rawTransaction (they answer -32604 "Method not enabled"), and
 * the --rpc-max-trace-filter-range option (traceMethods takes the limit; the default is Besu's).
 */
import type { ChainEntry } from '../../chain/chain.ts';
import { powBaseReward } from '../../chain/pow-import-rules.ts';
import { bytesToHex, hexToBytes, type Hex } from '../../crypto/bytes.ts';
import { rpcError, rpcErrorWithReason } from '../errors.ts';
import type { NodeApi } from '../node-api.ts';
import { parseBlockParam, parseCallObject, parseFilterObject, parseHash32, requireParams, type BlockParam } from '../params.ts';
import type { RpcMethodSpec } from '../registry.ts';
import { RequestAbandonedError } from '../off-loop/request-budget.ts';
import { checkPoint } from '../off-loop/pause.ts';
import { flatTraceJson, flatTraces, rewardTraceJson, type Reward, type TraceLocation } from './support/flat-trace.ts';
import { CALL_PARAMS, type CallBlockContext, type CallRequest } from '../../execution/calls/call-types.ts';
import type { TxReplay } from '../../execution/calls/replay.ts';
import { formatStateDiff } from './support/state-diff.ts';

/** Besu's --rpc-max-trace-filter-range default. */
export const DEFAULT_MAX_TRACE_FILTER_RANGE = 1000;

export interface TraceMethodsOptions {
  /** Most blocks trace_filter may span (toBlock - fromBlock); 0 = no limit. */
  maxTraceFilterRange?: number;
}

type TraceType = 'trace' | 'stateDiff';

/** EIP-7825 (Osaka): no transaction may ask for more than 2^24 gas. */
const OSAKA_TX_GAS_LIMIT_CAP = 16_777_216n;

/** TraceTypeParameter: a list of "trace", "vmTrace", "stateDiff" (case-insensitive). */
function parseTraceTypes(x: unknown): Set<TraceType> {
  if (!Array.isArray(x)) throw rpcError('INVALID_TRACE_TYPE_PARAMS');
  const names = x.map((v) => (typeof v === 'string' ? v.toLowerCase() : undefined));
  if (names.some((n) => n !== 'trace' && n !== 'statediff' && n !== 'vmtrace')) throw rpcError('INVALID_TRACE_TYPE_PARAMS');
  if (names.includes('vmtrace')) throw rpcErrorWithReason('INVALID_TRACE_TYPE_PARAMS', 'qbft-lab does not support the vmTrace trace type');
  return new Set(names.map((n) => (n === 'trace' ? 'trace' : 'stateDiff')));
}

/** ArrayNodeWrapper: `after` matching items are skipped, at most `count` are kept. */
class Page {
  readonly items: unknown[] = [];
  private offset = 0;

  constructor(
    private readonly after?: number,
    private readonly count?: number,
  ) {}

  add(item: unknown): void {
    const pastOffset = this.after === undefined || this.offset >= this.after;
    const room = this.count === undefined || this.count > this.items.length;
    if (pastOffset && room) this.items.push(item);
    this.offset++;
  }

  full(): boolean {
    return this.count !== undefined && this.count <= this.items.length;
  }
}

export function traceMethods(api: NodeApi, opts: TraceMethodsOptions = {}): RpcMethodSpec[] {
  const maxRange = BigInt(opts.maxTraceFilterRange ?? api.maxTraceFilterRange ?? DEFAULT_MAX_TRACE_FILTER_RANGE);

  /** Replays `entries` from the first one's parent state; false when that state is gone. */
  async function replay(
    entries: readonly ChainEntry[],
    wanted: (block: number, tx: number) => boolean,
    stateDiff: boolean,
    onBlock: (block: number, replays: Array<TxReplay | undefined>) => boolean | void,
  ): Promise<boolean> {
    const parent = entries[0] ? api.byHash(entries[0].parentHash) : undefined;
    if (!parent || !api.stateAvailable(parent)) return false;
    await api.simulator.replayBlocks(
      parent.block.header.stateRoot,
      entries.map((e) => ({ header: e.block.header, parentHash: hexToBytes(e.parentHash), feeRecipient: api.beneficiaryAt(e.number, e.coinbase), txs: [...e.block.transactions] })),
      {
        wanted,
        stateDiff,
        // formatting a block's traces is this thread's work: the event loop turns between blocks
        onBlock: (block, replays) => {
          const more = onBlock(block, replays);
          const paused = checkPoint(api.pause);
          return paused ? paused.then(() => more) : more;
        },
      },
    );
    return true;
  }

  const locationOf = (entry: ChainEntry, index: number): TraceLocation => ({
    blockHash: entry.hash,
    blockNumber: entry.number,
    transactionHash: bytesToHex(entry.block.transactions[index]!.hash()),
    transactionPosition: index,
  });

  /** The flat traces of a block's wanted transactions, as JSON with their location. */
  const blockTxTraces = (entry: ChainEntry, replays: Array<TxReplay | undefined>) =>
    replays.flatMap((r, i) => {
      if (!r) return [];
      const location = locationOf(entry, i);
      return flatTraces(r.frame, { location, creationMethod: true }).map((t) => ({ trace: t, json: flatTraceJson(t, location) }));
    });

  /** RewardTraceGenerator: the block reward first, then one per ommer. */
  function rewards(entry: ChainEntry): Reward[] {
    if (api.node.bft) {
      const p = api.node.schedule.paramsAt(entry.number, entry.timestamp);
      return [{ author: p.miningBeneficiary ?? entry.coinbase, rewardType: 'block', valueWei: p.blockReward }];
    }
    const header = entry.block.header;
    const base = powBaseReward(api.node.common, header);
    const ommers = entry.block.uncleHeaders;
    return [
      { author: entry.coinbase, rewardType: 'block', valueWei: base + (base * BigInt(ommers.length)) / 32n },
      ...ommers.map((o): Reward => ({ author: o.coinbase.toString().toLowerCase() as Hex, rewardType: 'uncle', valueWei: base - (base * (header.number - o.number)) / 8n })),
    ];
  }

  /** A mined transaction's flat traces (its block replayed up to it); [] for an unknown hash. */
  async function transactionTraces(hash: Hex) {
    const found = api.minedTransaction(hash);
    if (!found) return [];
    let traces: ReturnType<typeof blockTxTraces> = [];
    await replay([found.entry], (_b, i) => i === found.index, false, (_b, replays) => {
      traces = blockTxTraces(found.entry, replays);
    });
    return traces;
  }

  /** TraceFilter.resolveBlockNumber: a number, earliest or latest; other tags are an internal error in Besu. */
  function filterBlockNumber(p: BlockParam): bigint {
    if (p.kind === 'number') return p.number;
    if (p.tag === 'earliest') return 0n;
    if (p.tag === 'latest') return BigInt(api.headNumber());
    throw rpcError('INTERNAL_ERROR');
  }

  /** TransactionSimulator.calculateSimulationGasCap: the call's gas (capped), else the block's limit (capped). */
  function simulationGas(req: CallRequest, block: CallBlockContext): bigint {
    const cap = api.gasCap;
    if (req.gas !== undefined) return cap > 0n && req.gas > cap ? cap : req.gas;
    const osaka = api.isActivatedAt(7825, block.number, block.timestamp);
    const txLimit = osaka && block.gasLimit > OSAKA_TX_GAS_LIMIT_CAP ? OSAKA_TX_GAS_LIMIT_CAP : block.gasLimit;
    return cap > 0n && cap < txLimit ? cap : txLimit;
  }

  return [
    {
      name: 'trace_block',
      group: 'TRACE',
      handler: async (params) => {
        const n = api.numberOf(parseBlockParam(params[0], 'INVALID_BLOCK_PARAMS'));
        if (n === 0n) return [];
        const entry = api.byNumber(n);
        if (!entry) return null;
        const out: unknown[] = [];
        const replayed = await replay([entry], () => true, false, (_b, replays) => {
          for (const t of blockTxTraces(entry, replays)) out.push(t.json);
        });
        if (!replayed) return [];
        for (const r of rewards(entry)) out.push(rewardTraceJson(r, entry.hash, entry.number));
        return out;
      },
    },
    {
      name: 'trace_transaction',
      group: 'TRACE',
      handler: async (params) => {
        const hash = parseHash32(params[0], 'INVALID_TRANSACTION_HASH_PARAMS');
        return (await transactionTraces(hash)).map((t) => t.json);
      },
    },
    {
      name: 'trace_get',
      group: 'TRACE',
      handler: async (params) => {
        requireParams(params, 2, 2);
        const hash = parseHash32(params[0], 'INVALID_TRANSACTION_HASH_PARAMS');
        const raw = params[1];
        if (!Array.isArray(raw)) throw rpcError('INVALID_TRACE_NUMBERS_PARAMS');
        const address = raw.map((v) => {
          if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{1,8}$/.test(v)) throw rpcError('INVALID_TRACE_NUMBERS_PARAMS');
          return parseInt(v.slice(2), 16);
        });
        const traces = await transactionTraces(hash);
        const hit = traces.find((t) => t.trace.traceAddress.length === address.length && t.trace.traceAddress.every((x, i) => x === address[i]));
        return hit ? hit.json : null;
      },
    },
    {
      name: 'trace_replayBlockTransactions',
      group: 'TRACE',
      handler: async (params) => {
        const n = api.numberOf(parseBlockParam(params[0], 'INVALID_BLOCK_PARAMS'));
        const types = parseTraceTypes(params[1]);
        if (n === 0n) return [];
        const entry = api.byNumber(n);
        if (!entry) return null;
        const out: unknown[] = [];
        const replayed = await replay([entry], () => true, types.has('stateDiff'), (_b, replays) => {
          replays.forEach((r, i) => {
            if (!r) return;
            const result: Record<string, unknown> = { output: r.success ? bytesToHex(r.output) : '0x' };
            if (r.frame.detail?.evmError === 'revert') result.revertReason = bytesToHex(r.output);
            result.stateDiff = types.has('stateDiff') ? formatStateDiff(r.stateChanges ?? []) : null;
            result.trace = types.has('trace') ? flatTraces(r.frame, { creationMethod: true }).map((t) => flatTraceJson(t)) : [];
            result.transactionHash = bytesToHex(entry.block.transactions[i]!.hash());
            result.vmTrace = null;
            out.push(result);
          });
        });
        return replayed ? out : [];
      },
    },
    {
      name: 'trace_filter',
      group: 'TRACE',
      handler: async (params) => {
        const filter = parseFilterObject(params[0], 'INVALID_FILTER_PARAMS');
        const from = filterBlockNumber(filter.fromBlock);
        const to = filterBlockNumber(filter.toBlock);
        if (from > to || to > BigInt(api.headNumber())) throw rpcError('INVALID_PARAMS');
        if (maxRange > 0n && to - from > maxRange) throw rpcError('EXCEEDS_RPC_MAX_BLOCK_RANGE');
        const page = new Page(filter.after, filter.count);
        // TraceFilter: the range starts at the first block that exists and is not genesis
        let start = from;
        while (start < to && (start <= 0n || !api.byNumber(start))) start++;
        const entries: ChainEntry[] = [];
        for (let n = start; n <= to; n++) {
          const e = n < 0n ? undefined : api.byNumber(n);
          if (e) entries.push(e);
        }
        if (entries.length === 0 || entries[0]!.number === 0 || page.full()) return page.items;
        const fromAddress = new Set(filter.fromAddress.map((a) => a.toLowerCase()));
        const toAddress = new Set(filter.toAddress.map((a) => a.toLowerCase()));
        const matches = (action: Record<string, unknown>) =>
          (fromAddress.size === 0 || (typeof action.from === 'string' && fromAddress.has(action.from))) &&
          (toAddress.size === 0 || (typeof action.to === 'string' && toAddress.has(action.to)));
        await replay(entries, () => true, false, (b, replays) => {
          const entry = entries[b]!;
          for (const t of blockTxTraces(entry, replays)) if (matches(t.trace.action)) page.add(t.json);
          if (fromAddress.size === 0 && toAddress.size === 0) for (const r of rewards(entry)) page.add(rewardTraceJson(r, entry.hash, entry.number));
          return !page.full();
        });
        return page.items;
      },
    },
    {
      name: 'trace_call',
      group: 'TRACE',
      handler: async (params) => {
        const blockParam: BlockParam = params[2] === undefined || params[2] === null ? { kind: 'tag', tag: 'latest' } : parseBlockParam(params[2], 'INVALID_BLOCK_PARAMS');
        const req = parseCallObject(params[0], 'INVALID_CALL_PARAMS');
        const types = parseTraceTypes(params[1]);
        const n = api.numberOf(blockParam);
        const entry = n < 0n ? undefined : api.byNumber(n);
        if (!entry) throw rpcError('BLOCK_NOT_FOUND');
        if (!api.stateAvailable(entry)) throw rpcError('INTERNAL_ERROR');
        const block = api.callBlockOf(entry);
        let outcome;
        try {
          outcome = await api.simulator.simulate(block, req, simulationGas(req, block), {
            params: CALL_PARAMS.strict,
            chainId: api.chainId,
            callTracer: true,
            stateDiff: types.has('stateDiff'),
          });
        } catch (e) {
          if (e instanceof RequestAbandonedError) throw e;
          throw rpcError('INTERNAL_ERROR');
        }
        // TraceCall: an invalid simulation (validation failure) is an internal error
        if (outcome.kind !== 'executed' || !outcome.trace) throw rpcError('INTERNAL_ERROR');
        return {
          output: outcome.revertData !== undefined ? bytesToHex(outcome.revertData) : outcome.success ? bytesToHex(outcome.output) : '0x',
          stateDiff: types.has('stateDiff') ? formatStateDiff(outcome.stateChanges ?? []) : null,
          trace: types.has('trace') ? flatTraces(outcome.trace, { creationMethod: false }).map((t) => flatTraceJson(t)) : [],
          vmTrace: null,
        };
      },
    },
  ];
}
