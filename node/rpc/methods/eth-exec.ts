/**
 * eth_call, eth_estimateGas, eth_createAccessList (besu: ethereum/api/.../internal/methods/
 * EthCall.java, AbstractEstimateGas.java, EthEstimateGas.java, EthCreateAccessList.java,
 * CallParameterUtil.java; results/CreateAccessListResult.java; snapshot 3fd224e2).
 *
 * - eth_call: block parameter required (index 1, INVALID_BLOCK_PARAMS); "strict" unset chooses the
 *   pricing (EthCall.isAllowExceedingBalanceAutoSelection): no non-zero price given -> prices and
 *   base fee zero, balance not needed for gas; otherwise the given prices are charged.
 * - eth_estimateGas: block parameter optional (default pending); Besu's search: a plain transfer
 *   first tries 21000; else one run at the upper bound (block gas limit, or what the sender's
 *   balance pays for), then the "optimistic" (gasUsed + 2300) * 64/63, then a binary search that
 *   stops within the 1.5% tolerance.
 * - Failures: validation -> the converted RpcErrorType with the validation message as reason
 *   ("Nonce too low (transaction nonce 2 below ...)"); REVERT -> code 3 with the revert data;
 *   a halt -> -32000 "Transaction processing could not be completed due to an exception (<reason>)".
 */
import { revertError, rpcError, rpcErrorWithReason, transactionInvalidError, RpcError } from '../errors.ts';
import { data, qty } from '../formatters/hex.ts';
import type { NodeApi } from '../node-api.ts';
import {
  optional,
  parseAddress,
  parseBlockParam,
  parseBlockParamOrHash,
  parseCallObject,
  parseData,
  parseQuantity,
  type BlockParam,
} from '../params.ts';
import type { RpcMethodSpec } from '../registry.ts';
import { RequestAbandonedError } from '../off-loop/request-budget.ts';
import { CALL_PARAMS, type CallBlockContext, type CallOutcome, type CallRequest, type ValidationParams } from '../../execution/calls/call-types.ts';
import { PrecompileOverrideError, type StateOverride } from '../../execution/calls/state-override.ts';

const MIN_TX_COST = 21_000n;
const CALL_STIPEND = 2_300n;

/** A JSON number or a quantity string, for the override `nonce`. */
function overrideNonce(x: unknown): bigint {
  if (typeof x === 'number' && Number.isSafeInteger(x) && x >= 0) return BigInt(x);
  return parseQuantity(x, 'INVALID_CALL_PARAMS');
}

function slotMap(x: unknown): Array<[bigint, bigint]> {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) throw rpcError('INVALID_CALL_PARAMS');
  return Object.entries(x as Record<string, unknown>).map(([k, v]) => [parseQuantity(k, 'INVALID_CALL_PARAMS'), parseQuantity(v, 'INVALID_CALL_PARAMS')]);
}

/** Besu StateOverrideMap (index 2): { address: { balance, nonce, code, state, stateDiff, movePrecompileToAddress } }. */
export function parseStateOverrides(x: unknown): StateOverride[] | undefined {
  if (x === undefined || x === null) return undefined;
  if (typeof x !== 'object' || Array.isArray(x)) throw rpcError('INVALID_CALL_PARAMS');
  const out: StateOverride[] = [];
  for (const [address, raw] of Object.entries(x as Record<string, unknown>)) {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw rpcError('INVALID_CALL_PARAMS');
    const o = raw as Record<string, unknown>;
    const override: StateOverride = { address: parseAddress(address, 'INVALID_CALL_PARAMS') };
    const balance = optional(o.balance, (v) => parseQuantity(v, 'INVALID_CALL_PARAMS'));
    if (balance !== undefined) override.balance = balance;
    const nonce = optional(o.nonce, overrideNonce);
    if (nonce !== undefined) override.nonce = nonce;
    const code = optional(o.code, (v) => parseData(v, 'INVALID_CALL_PARAMS'));
    if (code !== undefined) override.code = code;
    const state = optional(o.state, slotMap);
    if (state !== undefined) override.state = state;
    const stateDiff = optional(o.stateDiff, slotMap);
    if (stateDiff !== undefined) override.stateDiff = stateDiff;
    const moveTo = optional(o.movePrecompileToAddress, (v) => parseAddress(v, 'INVALID_CALL_PARAMS'));
    if (moveTo !== undefined) override.movePrecompileToAddress = moveTo;
    out.push(override);
  }
  return out;
}

/** AbstractEstimateGas.errorResponse / EthCall.errorResponse for a failed simulation. */
export function simulationError(outcome: CallOutcome): RpcError {
  if (outcome.kind === 'invalid') return transactionInvalidError(outcome.reason, outcome.message);
  if (outcome.revertData !== undefined) return revertError(data(outcome.revertData));
  if (outcome.halt !== undefined) return rpcErrorWithReason('EXECUTION_HALTED', outcome.halt);
  return rpcError('INTERNAL_ERROR');
}

function isSuccess(o: CallOutcome | undefined): o is Extract<CallOutcome, { kind: 'executed' }> {
  return o !== undefined && o.kind === 'executed' && o.success;
}

/** Runs the simulator, mapping an unexpected failure to Besu's Optional.empty() (INTERNAL_ERROR). */
async function run(
  api: NodeApi,
  block: CallBlockContext,
  req: CallRequest,
  gas: bigint,
  params: ValidationParams,
  extra: { overrides?: StateOverride[]; accessList?: boolean } = {},
): Promise<CallOutcome | undefined> {
  try {
    return await api.simulator.simulate(block, req, gas, { params, chainId: api.chainId, ...extra });
  } catch (err) {
    if (err instanceof PrecompileOverrideError) throw new RpcError(-32000, err.message);
    if (err instanceof RequestAbandonedError || err instanceof RpcError) throw err;
    return undefined;
  }
}

/** EIP-7825 (Osaka): no transaction may ask for more than 2^24 gas. */
const OSAKA_TX_GAS_LIMIT_CAP = 16_777_216n;

/** The most gas one transaction may have in `block`: its gas limit, and from Osaka on at most 2^24 (Besu: min(txGasLimitCap, block gas limit)). */
function txGasLimitOf(api: NodeApi, block: CallBlockContext): bigint {
  const capped = api.isActivatedAt(7825, block.number, block.timestamp);
  return capped && block.gasLimit > OSAKA_TX_GAS_LIMIT_CAP ? OSAKA_TX_GAS_LIMIT_CAP : block.gasLimit;
}

/** TransactionSimulator.calculateSimulationGasCap. */
function simulationGas(api: NodeApi, req: CallRequest, txGasLimit: bigint): bigint {
  const cap = api.gasCap;
  if (req.gas !== undefined) return cap > 0n && req.gas > cap ? cap : req.gas;
  return cap > 0n && cap < txGasLimit ? cap : txGasLimit;
}

/** The block an estimate runs in: pending (default) or a canonical block (AbstractEstimateGas). */
function estimateBlock(api: NodeApi, param: BlockParam): CallBlockContext {
  if (param.kind === 'tag' && param.tag === 'pending') return api.pendingCallBlock();
  const entry = api.entryOf(param);
  if (!entry) throw rpcError('BLOCK_NOT_FOUND');
  if (!api.stateAvailable(entry)) throw rpcError('WORLD_STATE_UNAVAILABLE');
  return api.callBlockOf(entry);
}

/** AbstractEstimateGas.calculateGasLimitUpperBound. */
async function gasLimitUpperBound(api: NodeApi, req: CallRequest, block: CallBlockContext): Promise<bigint> {
  const maxTxGasLimit = txGasLimitOf(api, block);
  if (req.from !== undefined && (req.strict ?? true)) {
    const maxGasPrice = req.maxFeePerGas ?? req.gasPrice ?? 0n;
    if (maxGasPrice !== 0n) {
      const account = await api.node.account(block.stateRoot, req.from);
      const balance = account?.balance ?? 0n;
      if (balance === 0n) return 0n;
      const forGas = req.value !== undefined ? (balance > req.value ? balance - req.value : 0n) : balance;
      const limit = forGas / maxGasPrice;
      return limit < maxTxGasLimit ? limit : maxTxGasLimit;
    }
  }
  return maxTxGasLimit;
}

function estimateParams(req: CallRequest): ValidationParams {
  return (req.strict ?? true) ? CALL_PARAMS.underpricedFutureNonce : CALL_PARAMS.exceedingBalance;
}

/** EthCall.buildTransactionValidationParams. */
function callParams(req: CallRequest, baseFee: bigint | undefined): ValidationParams {
  let exceeding: boolean;
  if (req.strict === undefined) {
    const zeroGasPrice = (req.gasPrice ?? 0n) === 0n;
    if (baseFee !== undefined) exceeding = zeroGasPrice && (req.maxFeePerGas ?? 0n) === 0n && (req.maxPriorityFeePerGas ?? 0n) === 0n;
    else exceeding = zeroGasPrice;
  } else exceeding = !req.strict;
  return exceeding ? CALL_PARAMS.exceedingBalance : CALL_PARAMS.futureNonce;
}

export function ethExecMethods(api: NodeApi): RpcMethodSpec[] {
  const isTransfer = (req: CallRequest) => req.data === undefined || req.data.length === 0;

  async function estimate(params: unknown[]): Promise<{ block: CallBlockContext; req: CallRequest; upper: bigint; overrides?: StateOverride[] }> {
    const blockParam = optional(params[1], (v) => parseBlockParam(v, 'INVALID_BLOCK_PARAMS')) ?? { kind: 'tag', tag: 'pending' };
    const req = parseCallObject(params[0], 'INVALID_CALL_PARAMS');
    const block = estimateBlock(api, blockParam);
    const overrides = parseStateOverrides(params[2]);
    const upper = await gasLimitUpperBound(api, req, block);
    if (upper < MIN_TX_COST) throw rpcError('TRANSACTION_UPFRONT_COST_EXCEEDS_BALANCE');
    return { block, req, upper, overrides };
  }

  return [
    {
      name: 'eth_call',
      group: 'ETH',
      handler: async (params) => {
        const entry = api.resolveBlockOrHash(parseBlockParamOrHash(params[1], 'INVALID_BLOCK_PARAMS'));
        if (!entry) return null;
        const req = parseCallObject(params[0], 'INVALID_CALL_PARAMS');
        const overrides = parseStateOverrides(params[2]);
        if (!api.stateAvailable(entry)) throw rpcError('INTERNAL_ERROR');
        const block = api.callBlockOf(entry);
        const outcome = await run(api, block, req, simulationGas(api, req, txGasLimitOf(api, block)), callParams(req, block.baseFee), { overrides });
        if (!outcome) throw rpcError('INTERNAL_ERROR');
        if (isSuccess(outcome)) return data(outcome.output);
        throw simulationError(outcome);
      },
    },
    {
      name: 'eth_estimateGas',
      group: 'ETH',
      handler: async (params) => {
        const { block, req, upper, overrides } = await estimate(params);
        const p = estimateParams(req);
        const sim = (gas: bigint) => run(api, block, { ...req, gas }, simulationGas(api, { ...req, gas }, txGasLimitOf(api, block)), p, { overrides });
        if (isTransfer(req) && isSuccess(await sim(MIN_TX_COST))) return qty(MIN_TX_COST);
        const first = await sim(upper);
        if (!first) throw rpcError('INTERNAL_ERROR');
        if (!isSuccess(first)) throw simulationError(first);
        let high = upper;
        let low = first.gasUsedBeforeRefund - 1n;
        // ((gasUsed + CALL_STIPEND) * 64/63) as Java's (long) of a double
        const optimistic = BigInt(Math.floor(Number(first.gasUsedBeforeRefund + CALL_STIPEND) * (64 / 63)));
        if (isSuccess(await sim(optimistic))) high = optimistic;
        else low = optimistic;
        const tolerance = api.estimateGasToleranceRatio;
        while (low + 1n < high) {
          if (tolerance > 0 && Number(high - low) / Number(high) < tolerance) break;
          const mid = (low + high) / 2n;
          if (isSuccess(await sim(mid))) high = mid;
          else low = mid;
        }
        return qty(high);
      },
    },
    {
      name: 'eth_createAccessList',
      group: 'ETH',
      handler: async (params) => {
        const { block, req, upper, overrides } = await estimate(params);
        const p = estimateParams(req);
        const sim = (r: CallRequest, gas: bigint) => run(api, block, { ...r, gas }, simulationGas(api, { ...r, gas }, txGasLimitOf(api, block)), p, { overrides, accessList: true });
        if (isTransfer(req)) {
          const o = await sim(req, MIN_TX_COST);
          if (isSuccess(o)) return { accessList: o.accessList ?? [], gasUsed: qty(MIN_TX_COST) };
        }
        let outcome = await sim(req, upper);
        const list = outcome?.kind === 'executed' ? (outcome.accessList ?? []) : [];
        const differs = list.length > 0 && (req.accessList === undefined || JSON.stringify(req.accessList) !== JSON.stringify(list));
        if (differs) outcome = await sim({ ...req, accessList: list }, upper);
        if (!outcome) throw rpcError('INTERNAL_ERROR');
        const finalList = outcome.kind === 'executed' ? (outcome.accessList ?? []) : [];
        const gasUsed = outcome.kind === 'executed' ? outcome.gasUsed : upper;
        const result: Record<string, unknown> = { accessList: finalList, gasUsed: qty(gasUsed) };
        if (!isSuccess(outcome)) result.error = 'execution reverted';
        return result;
      },
    },
  ];
}

