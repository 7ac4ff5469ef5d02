/**
 * eth_simulateV1 (besu: ethereum/api/.../internal/methods/EthSimulateV1.java;
 * parameters/SimulateV1Parameter.java, JsonBlockStateCallParameter.java, BlockOverridesParameter.java,
 * SimulateCallParameterDeserializer.java; results/BlockStateCallResult.java, CallProcessingResult.java;
 * ethereum/core/.../transaction/BlockSimulationParameter.java, BlockStateCalls.java).
 *
 * - Block parameter (index 1) required: INVALID_BLOCK_PARAMS; a future number or an unknown hash:
 *   -32000 "Block not found" (EthSimulateV1.blockNotFoundResponse).
 * - The simulation object that does not parse: -32602 "Invalid params". Unknown members of it or of
 *   a blockOverrides fail (the parameter mapper's FAIL_ON_UNKNOWN_PROPERTIES); block state calls and
 *   calls ignore theirs; a call with different `input` and `data` keeps `input`.
 * - BlockSimulationParameter.validate: more than 256 block state calls -38026, block numbers or
 *   timestamps given out of order -38020 / -38021, a moved account that is no precompile -32000.
 * - BlockStateCalls.fillBlockStateCalls numbers and times the blocks (gaps become empty blocks,
 *   12 s apart) and fails past base + 256 (-38026) or when a block does not follow (-38020, -38021).
 * - The blocks then run (execution/calls/block-simulator.ts); a call that fails validation ends
 *   the request with its BlockStateCallError code (-38010..-38015, -32603) and the validator's message.
 * - Result: per block, Besu's BlockResult (no totalDifficulty) plus `calls`: status, returnData,
 *   gasUsed, maxUsedGas, logs, and `error` (revert: code 3 with the data; halt: -32015).
 */
import type { BlockHeader } from '@ethereumjs/block';
import { getActivePrecompiles } from '@ethereumjs/evm';
import type { ChainEntry } from '../../chain/chain.ts';
import { powBaseReward } from '../../chain/pow-import-rules.ts';
import { bytesToHex, hexToBytes, type Hex } from '../../crypto/bytes.ts';
import { MAINNET_DEPOSIT_CONTRACT } from '../../execution/system-calls.ts';
import { RpcError, revertError, rpcError } from '../errors.ts';
import { formatLog } from '../formatters/receipt.ts';
import { data, qty } from '../formatters/hex.ts';
import type { NodeApi } from '../node-api.ts';
import { parseAddress, parseBlockParamOrHash, parseBoolean, parseCallObject, parseData, parseHash32, parseQuantity, parseUnsignedLong } from '../params.ts';
import type { RpcMethodSpec } from '../registry.ts';
import { parseStateOverrides } from './eth-exec.ts';
import { commonAt } from '../../execution/blob-fees.ts';
import type { BlockStateCall, SimulateBlocksRequest, SimulatedBlock, SimulatedBlockOverrides, SimulatedCallResult } from '../../execution/calls/block-simulator.ts';
import { SIMULATION_ERRORS } from '../../execution/calls/simulated-call.ts';
import type { CallRequest } from '../../execution/calls/call-types.ts';
import type { StateOverride } from '../../execution/calls/state-override.ts';

/** BlockSimulationParameter.MAX_BLOCK_CALL_SIZE and BlockStateCalls.MAX_BLOCK_CALL_SIZE. */
const MAX_BLOCK_CALLS = 256;
/** BlockStateCalls.SLOT_DURATION_SECONDS: the time between blocks the caller did not time. */
const SLOT_SECONDS = 12n;
/** CallProcessingResult error code of a halted call. */
const HALT_ERROR_CODE = -32015;

/** Overrides as given (number and time may be missing until filled). */
type GivenOverrides = Omit<SimulatedBlockOverrides, 'number' | 'timestamp'> & { number?: bigint; timestamp?: bigint };

interface GivenBlockStateCall {
  overrides: GivenOverrides;
  stateOverrides?: StateOverride[];
  calls: CallRequest[];
}

/** A block state call once numbered and timed (the reward is the node's to add). */
type FilledBlockStateCall = Omit<BlockStateCall, 'rewardWei' | 'beneficiary'>;

interface SimulateParameter {
  blockStateCalls: GivenBlockStateCall[];
  validation: boolean;
  traceTransfers: boolean;
  returnFullTransactions: boolean;
}

function invalidParams(): RpcError {
  return rpcError('INVALID_PARAMS');
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Runs a parser of params.ts, answering any failure with INVALID_PARAMS (Jackson's mapping error). */
function field<T>(v: unknown, parse: (v: unknown) => T): T | undefined {
  if (v === undefined || v === null) return undefined;
  try {
    return parse(v);
  } catch {
    throw invalidParams();
  }
}

/** Bytes32.fromHexString: an even number of digits, at most 32 bytes, left-padded. */
function bytes32(v: unknown): Uint8Array {
  const b = parseData(v);
  if (b.length > 32) throw invalidParams();
  const out = new Uint8Array(32);
  out.set(b, 32 - b.length);
  return out;
}

/** Jackson's BigInteger: a JSON integer or its decimal text. */
function bigInteger(v: unknown): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^[+-]?\d+$/.test(v.trim())) return BigInt(v.trim());
  throw invalidParams();
}

const OVERRIDE_KEYS = new Set(['time', 'number', 'hash', 'prevRandao', 'gasLimit', 'feeRecipient', 'baseFeePerGas', 'blobBaseFee', 'stateRoot', 'difficulty', 'extraData', 'mixHash', 'parentBeaconBlockRoot']);

/** BlockOverridesParameter (mixHash wins over prevRandao). */
function parseBlockOverrides(x: unknown): GivenOverrides {
  if (x === undefined || x === null) return {};
  if (!isObject(x) || Object.keys(x).some((k) => !OVERRIDE_KEYS.has(k))) throw invalidParams();
  const o: GivenOverrides = {};
  const set = <K extends keyof GivenOverrides>(key: K, value: GivenOverrides[K] | undefined) => {
    if (value !== undefined) o[key] = value;
  };
  set('timestamp', field(x.time, parseUnsignedLong));
  set('number', field(x.number, parseUnsignedLong));
  set('hash', field(x.hash, (v) => hexToBytes(parseHash32(v))));
  set('gasLimit', field(x.gasLimit, parseUnsignedLong));
  set('feeRecipient', field(x.feeRecipient, (v) => parseAddress(v)));
  set('baseFee', field(x.baseFeePerGas, parseQuantity));
  set('blobBaseFee', field(x.blobBaseFee, parseQuantity));
  set('stateRoot', field(x.stateRoot, (v) => hexToBytes(parseHash32(v))));
  set('difficulty', field(x.difficulty, bigInteger));
  set('extraData', field(x.extraData, parseData));
  set('prevRandao', field(x.mixHash ?? x.prevRandao, bytes32));
  set('parentBeaconBlockRoot', field(x.parentBeaconBlockRoot, bytes32));
  return o;
}

/** SimulateCallParameterDeserializer: `input` wins over a different `data`; then CallParameter. */
function parseSimulatedCall(x: unknown): CallRequest {
  if (!isObject(x)) throw invalidParams();
  const call = x.input !== undefined && x.data !== undefined && JSON.stringify(x.input) !== JSON.stringify(x.data) ? { ...x, data: undefined } : x;
  return field(call, (v) => parseCallObject(v))!;
}

/** JsonBlockStateCallParameter (unknown members ignored). */
function parseBlockStateCall(x: unknown): GivenBlockStateCall {
  if (!isObject(x)) throw invalidParams();
  const calls = field(x.calls, (v) => {
    if (!Array.isArray(v)) throw invalidParams();
    return v.map(parseSimulatedCall);
  });
  return { overrides: parseBlockOverrides(x.blockOverrides), stateOverrides: field(x.stateOverrides, parseStateOverrides), calls: calls ?? [] };
}

const PARAMETER_KEYS = new Set(['blockStateCalls', 'validation', 'traceTransfers', 'returnFullTransactions', 'returnTrieLog', 'traceBlockImport']);

/** SimulateV1Parameter. */
export function parseSimulateParameter(x: unknown): SimulateParameter {
  if (!isObject(x) || Object.keys(x).some((k) => !PARAMETER_KEYS.has(k))) throw invalidParams();
  if (!Array.isArray(x.blockStateCalls)) throw invalidParams();
  const flag = (v: unknown) => field(v, (b) => parseBoolean(b)) ?? false;
  flag(x.returnTrieLog);
  flag(x.traceBlockImport);
  return {
    blockStateCalls: x.blockStateCalls.map(parseBlockStateCall),
    validation: flag(x.validation),
    traceTransfers: flag(x.traceTransfers),
    returnFullTransactions: flag(x.returnFullTransactions),
  };
}

/** BlockSimulationParameter.validate. */
export function validateSimulateParameter(p: SimulateParameter, precompiles: ReadonlySet<string>): RpcError | undefined {
  if (p.blockStateCalls.length > MAX_BLOCK_CALLS) return new RpcError(SIMULATION_ERRORS.TOO_MANY_BLOCK_CALLS, 'Too many block calls');
  if (!ascending(p.blockStateCalls.map((c) => c.overrides.number))) return new RpcError(SIMULATION_ERRORS.BLOCK_NUMBERS_NOT_ASCENDING, 'Block numbers are not ascending');
  if (!ascending(p.blockStateCalls.map((c) => c.overrides.timestamp))) return new RpcError(SIMULATION_ERRORS.TIMESTAMPS_NOT_ASCENDING, 'Timestamps are not ascending');
  for (const c of p.blockStateCalls)
    for (const o of c.stateOverrides ?? [])
      if (o.movePrecompileToAddress !== undefined && !precompiles.has(o.address.toLowerCase()))
        return new RpcError(SIMULATION_ERRORS.INVALID_PRECOMPILE_ADDRESS, 'Invalid precompile address');
  return undefined;
}

/** The values given (absent ones skipped) strictly increase. */
function ascending(values: Array<bigint | undefined>): boolean {
  let previous = -1n;
  for (const v of values) {
    if (v === undefined) continue;
    if (v <= previous) return false;
    previous = v;
  }
  return true;
}

/** BlockStateCalls.fillBlockStateCalls: every block numbered and timed, gaps filled with empty blocks. */
export function fillBlockStateCalls(calls: GivenBlockStateCall[], baseNumber: bigint, baseTimestamp: bigint): FilledBlockStateCall[] {
  const last = lastBlockNumber(calls);
  const limit = baseNumber + BigInt(MAX_BLOCK_CALLS);
  if (last > limit)
    throw new RpcError(SIMULATION_ERRORS.TOO_MANY_BLOCK_CALLS, `Block number ${last} exceeds the limit of ${limit} (header: ${baseNumber} + MAX_BLOCK_CALL_SIZE: ${MAX_BLOCK_CALLS})`);
  const filled: FilledBlockStateCall[] = [];
  let number = baseNumber;
  let timestamp = baseTimestamp;
  const add = (overrides: SimulatedBlockOverrides, call: Omit<GivenBlockStateCall, 'overrides'>) => {
    if (overrides.number <= number)
      throw new RpcError(SIMULATION_ERRORS.BLOCK_NUMBERS_NOT_ASCENDING, `Block number is invalid. Trying to add a call at block number ${overrides.number}, while current block number is ${number}.`);
    if (overrides.timestamp <= timestamp)
      throw new RpcError(SIMULATION_ERRORS.TIMESTAMPS_NOT_ASCENDING, `Timestamp is invalid. Trying to add a call at timestamp ${overrides.timestamp}, while current timestamp is ${timestamp}.`);
    filled.push({ overrides, stateOverrides: call.stateOverrides, calls: call.calls });
    number = overrides.number;
    timestamp = overrides.timestamp;
  };
  for (const call of calls) {
    const target = call.overrides.number ?? number + 1n;
    const start = { number, timestamp };
    for (let i = 1n; i < target - start.number; i++) add({ number: start.number + i, timestamp: start.timestamp + SLOT_SECONDS * i }, { calls: [] });
    add({ ...call.overrides, number: call.overrides.number ?? number + 1n, timestamp: call.overrides.timestamp ?? timestamp + SLOT_SECONDS }, call);
  }
  return filled;
}

/** BlockStateCalls.findLastBlockNumber: the highest number given plus the calls after it. */
function lastBlockNumber(calls: GivenBlockStateCall[]): bigint {
  const given = calls.map((c) => c.overrides.number).filter((n): n is bigint => n !== undefined);
  const highest = given.reduce((a, b) => (b > a ? b : a), -1n);
  const after = calls.filter((c) => c.overrides.number === undefined || c.overrides.number > highest).length;
  return highest + BigInt(after);
}

export function ethSimulateMethods(api: NodeApi): RpcMethodSpec[] {
  return [
    {
      name: 'eth_simulateV1',
      group: 'ETH',
      handler: async (params) => {
        const entry = api.resolveBlockOrHash(parseBlockParamOrHash(params[1], 'INVALID_BLOCK_PARAMS'));
        if (!entry) throw rpcError('BLOCK_NOT_FOUND');
        const p = parseSimulateParameter(params[0]);
        const problem = validateSimulateParameter(p, precompilesAt(api, entry));
        if (problem) throw problem;
        // BlockSimulator.getWorldState fails (an internal error) before the blocks are filled
        if (!api.stateAvailable(entry)) throw rpcError('INTERNAL_ERROR');
        const blocks = fillBlockStateCalls(p.blockStateCalls, BigInt(entry.number), BigInt(entry.timestamp));
        const result = await api.simulator.simulateBlocks(simulationRequest(api, entry, p, blocks));
        if ('error' in result) throw new RpcError(result.error.code, result.error.message);
        return result.blocks.map((b) => formatSimulatedBlock(b, p.returnFullTransactions));
      },
    },
  ];
}

/** The precompile addresses of the base block's fork (lowercase, 0x-prefixed). */
function precompilesAt(api: NodeApi, entry: ChainEntry): Set<string> {
  const common = commonAt(api.node.common, entry.number, entry.timestamp);
  return new Set([...getActivePrecompiles(common).keys()].map((k) => `0x${k.padStart(40, '0')}`));
}

function simulationRequest(api: NodeApi, entry: ChainEntry, p: SimulateParameter, blocks: FilledBlockStateCall[]): SimulateBlocksRequest {
  const h = entry.block.header;
  return {
    base: {
      stateRoot: h.stateRoot,
      hash: hexToBytes(entry.hash),
      number: h.number,
      timestamp: h.timestamp,
      gasLimit: h.gasLimit,
      gasUsed: h.gasUsed,
      baseFee: h.baseFeePerGas,
      coinbase: h.coinbase.toString().toLowerCase() as Hex,
      difficulty: h.difficulty,
      excessBlobGas: h.excessBlobGas,
      blobGasUsed: h.blobGasUsed,
    },
    blocks: blocks.map((b) => ({ ...b, ...rewardOf(api, b.overrides) })),
    validation: p.validation,
    traceTransfers: p.traceTransfers,
    gasCap: api.gasCap,
    chainId: api.chainId,
    depositContract: api.node.config.genesis.depositContractAddress ?? MAINNET_DEPOSIT_CONTRACT,
    initialBaseFee: initialBaseFee(api, h, blocks),
  };
}

/** BlockSimulator's block reward and the fee recipient of the fork's MiningBeneficiaryCalculator. */
function rewardOf(api: NodeApi, o: SimulatedBlockOverrides): Pick<BlockStateCall, 'rewardWei' | 'beneficiary'> {
  if (api.node.bft) {
    const params = api.node.schedule.paramsAt(Number(o.number), Number(o.timestamp));
    return { rewardWei: params.blockReward, beneficiary: params.miningBeneficiary };
  }
  // powBaseReward reads only the block's number and time
  return { rewardWei: powBaseReward(api.node.common, { number: o.number, timestamp: o.timestamp } as BlockHeader) };
}

/** The base fee of the first London block, should London start inside the simulated range. */
function initialBaseFee(api: NodeApi, base: BlockHeader, blocks: FilledBlockStateCall[]): bigint {
  if (base.baseFeePerGas !== undefined) return base.baseFeePerGas;
  for (const b of blocks) {
    const fee = api.node.nextBaseFee(base, b.overrides.number, b.overrides.timestamp);
    if (fee !== undefined) return fee;
  }
  return 0n;
}

/** BlockStateCallResult: BlockResult without totalDifficulty, plus the call results. */
export function formatSimulatedBlock(b: SimulatedBlock, full: boolean): Record<string, unknown> {
  const h = b.header;
  const hash = bytesToHex(b.hash);
  const out: Record<string, unknown> = {
    number: qty(h.number),
    hash,
    mixHash: data(h.mixHash),
    parentHash: data(h.parentHash),
    nonce: data(h.nonce),
    sha3Uncles: data(h.uncleHash),
    logsBloom: data(h.logsBloom),
    transactionsRoot: data(h.transactionsTrie),
    stateRoot: data(h.stateRoot),
    receiptsRoot: data(h.receiptTrie),
    miner: h.coinbase,
    difficulty: qty(h.difficulty),
    extraData: data(h.extraData),
  };
  if (h.baseFeePerGas !== undefined) out.baseFeePerGas = qty(h.baseFeePerGas);
  Object.assign(out, { size: qty(b.size), gasLimit: qty(h.gasLimit), gasUsed: qty(h.gasUsed), timestamp: qty(h.timestamp), uncles: [] });
  out.transactions = b.transactions.map((tx, index) => (full ? formatSimulatedTransaction(tx, b, index) : bytesToHex(tx.hash)));
  if (h.withdrawalsRoot !== undefined) out.withdrawalsRoot = data(h.withdrawalsRoot);
  if (b.withdrawals !== undefined) out.withdrawals = [];
  if (h.requestsHash !== undefined) out.requestsHash = data(h.requestsHash);
  if (h.blobGasUsed !== undefined) out.blobGasUsed = qty(h.blobGasUsed);
  if (h.excessBlobGas !== undefined) out.excessBlobGas = qty(h.excessBlobGas);
  if (h.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = data(h.parentBeaconBlockRoot);
  out.calls = formatCalls(b);
  return out;
}

/**
 * CallProcessingResult of each call, with its logs placed in the block (BlockSimulationResult:
 * the log index moves on by at least one per transaction, as geth's does).
 */
function formatCalls(b: SimulatedBlock): Array<Record<string, unknown>> {
  let logIndex = 0;
  return b.calls.map((c, i) => {
    const txHash = bytesToHex(b.transactions[i]!.hash);
    const logs = c.logs.map((log, j) =>
      formatLog({
        logIndex: logIndex + j,
        blockNumber: Number(b.header.number),
        blockHash: bytesToHex(b.hash),
        blockTimestamp: Number(b.header.timestamp),
        transactionHash: txHash,
        transactionIndex: i,
        address: bytesToHex(log.address),
        data: log.data,
        topics: log.topics,
        removed: false,
      }),
    );
    logIndex += Math.max(1, c.logs.length);
    const out: Record<string, unknown> = { status: qty(c.success ? 1 : 0), returnData: data(c.returnData), gasUsed: qty(c.gasUsed), maxUsedGas: qty(c.maxUsedGas) };
    const error = callError(c);
    if (error) out.error = error;
    out.logs = logs;
    return out;
  });
}

/** BlockStateCallResult.getError: a revert's JsonRpcError (code 3, with its data), or the halt (-32015). */
function callError(c: SimulatedCallResult): Record<string, unknown> | undefined {
  if (c.revertData !== undefined) return revertError(bytesToHex(c.revertData)).toJSON();
  if (c.halt !== undefined) return { code: HALT_ERROR_CODE, message: c.halt };
  return undefined;
}

/** TransactionWithMetadataResult (TransactionBaseResult's fields, with the block's). */
function formatSimulatedTransaction(tx: SimulatedBlock['transactions'][number], b: SimulatedBlock, index: number): Record<string, unknown> {
  const typed = tx.type !== 0;
  const is1559 = tx.type >= 2;
  const out: Record<string, unknown> = {};
  if (typed) out.accessList = tx.accessList ?? [];
  if (tx.authorizationList)
    out.authorizationList = tx.authorizationList.map((a) => ({ chainId: qty(a.chainId), address: a.address, nonce: qty(a.nonce), yParity: qty(a.yParity), r: qty(a.r), s: qty(a.s) }));
  Object.assign(out, { blockHash: bytesToHex(b.hash), blockNumber: qty(b.header.number), blockTimestamp: qty(b.header.timestamp) });
  if (tx.chainId !== undefined) out.chainId = qty(tx.chainId);
  Object.assign(out, { from: tx.from, gas: qty(tx.gasLimit), gasPrice: qty(tx.gasPrice ?? effectiveGasPrice(tx, b.header.baseFeePerGas)) });
  if (is1559) Object.assign(out, { maxPriorityFeePerGas: qty(tx.maxPriorityFeePerGas ?? 0n), maxFeePerGas: qty(tx.maxFeePerGas ?? 0n) });
  if (tx.maxFeePerBlobGas !== undefined) out.maxFeePerBlobGas = qty(tx.maxFeePerBlobGas);
  Object.assign(out, { hash: bytesToHex(tx.hash), input: data(tx.data), nonce: qty(tx.nonce), to: tx.to ?? null, transactionIndex: qty(index), type: qty(tx.type), value: qty(tx.value) });
  if (typed) Object.assign(out, { yParity: '0x0', v: '0x0' });
  else out.v = qty(27n);
  Object.assign(out, { r: '0x0', s: '0x0' });
  if (tx.blobVersionedHashes) out.blobVersionedHashes = tx.blobVersionedHashes;
  return out;
}

/** Transaction.getEffectiveGasPrice for a 1559-style transaction without a gas price. */
function effectiveGasPrice(tx: SimulatedBlock['transactions'][number], baseFee: bigint | undefined): bigint {
  const tip = (baseFee ?? 0n) + (tx.maxPriorityFeePerGas ?? 0n);
  const maxFee = tx.maxFeePerGas ?? 0n;
  return tip < maxFee ? tip : maxFee;
}
