/**
 * One call of eth_simulateV1, as Besu's BlockSimulator hands it to TransactionSimulator and
 * MainnetTransactionProcessor (besu: ethereum/core/.../transaction/BlockSimulator.java,
 * TransactionSimulator.java (processWithWorldUpdater, buildTransaction),
 * mainnet/MainnetTransactionValidator.java, mainnet/MainnetTransactionProcessor.java,
 * mainnet/TransactionValidationParams.java).
 *
 * - The call becomes a transaction carrying the caller's own prices (isPreserveCallerGasPricing:
 *   a missing price is zero, never the base fee), the sender's nonce unless given, and the type
 *   Transaction.Builder.guessType picks; its signature is (r 0, s 0, recId 0).
 * - Validation (blockSimulatorStrict / blockSimulatorNonStrict): without `validation` future nonces
 *   and prices under the base fee pass, with it they fail; the up-front cost is checked against the
 *   balance either way (allowUnderpriced is off in both).
 * - Processing charges the sender at the price the block's base fee gives, pays the fee recipient
 *   the priority fee (nothing when the price is under the base fee), refunds unused gas, deletes
 *   self-destructed accounts and touched empty ones, and records a receipt.
 */
import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { EVMResult } from '@ethereumjs/evm';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, createAddressFromString, type Address } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import type { Hex } from '../../crypto/bytes.ts';
import { intrinsicGas } from '../intrinsic-gas.ts';
import { PER_EMPTY_ACCOUNT_COST, applyAuthorizations } from '../code-delegation.ts';
import { TransferLogTracer, type RawLog } from '../tracers/transfer-log.ts';
import type { AccessListEntry, Authorization, CallRequest } from './call-types.ts';
import { blobTransactionProblem, calldataFloorGas, weiHumanReadable } from './call-validation.ts';
import { haltDescription, haltingOpcode } from './halt-reasons.ts';


/** A failure that ends the whole simulation with a JSON-RPC error (Besu BlockStateCallException). */
export class SimulationError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** BlockStateCallError codes (besu: ethereum/core/.../transaction/exceptions/BlockStateCallError.java). */
export const SIMULATION_ERRORS = {
  TOO_MANY_BLOCK_CALLS: -38026,
  BLOCK_NUMBERS_NOT_ASCENDING: -38020,
  TIMESTAMPS_NOT_ASCENDING: -38021,
  INVALID_PRECOMPILE_ADDRESS: -32000,
  NONCE_TOO_LOW: -38010,
  NONCE_TOO_HIGH: -38011,
  BLOCK_GAS_LIMIT_EXCEEDED: -38015,
  UPFRONT_COST_EXCEEDS_BALANCE: -38014,
  GAS_PRICE_TOO_LOW: -32602,
  GAS_PRICE_BELOW_BASE_FEE: -38012,
  INTRINSIC_GAS_EXCEEDS_GAS_LIMIT: -38013,
  UNKNOWN: -32603,
} as const;

/** BlockStateCallException.fromTransactionInvalidReason: every other reason is UNKNOWN. */
function invalid(reason: string, message: string): SimulationError {
  const byReason: Record<string, number> = {
    UPFRONT_COST_EXCEEDS_BALANCE: SIMULATION_ERRORS.UPFRONT_COST_EXCEEDS_BALANCE,
    GAS_PRICE_TOO_LOW: SIMULATION_ERRORS.GAS_PRICE_TOO_LOW,
    GAS_PRICE_BELOW_CURRENT_BASE_FEE: SIMULATION_ERRORS.GAS_PRICE_BELOW_BASE_FEE,
    INTRINSIC_GAS_EXCEEDS_GAS_LIMIT: SIMULATION_ERRORS.INTRINSIC_GAS_EXCEEDS_GAS_LIMIT,
    NONCE_TOO_LOW: SIMULATION_ERRORS.NONCE_TOO_LOW,
    NONCE_TOO_HIGH: SIMULATION_ERRORS.NONCE_TOO_HIGH,
  };
  return new SimulationError(byReason[reason] ?? SIMULATION_ERRORS.UNKNOWN, message);
}

/** The block a call runs in, as far as the call needs it. */
export interface CallEnv {
  vm: VM;
  sm: MerkleStateManager;
  common: Common;
  /** The EVM's view of the block (its coinbase is the fee recipient). */
  ctx: Block;
  feeRecipient: Address;
  /** The header's base fee (undefined before London). */
  baseFee: bigint | undefined;
  /** What blob gas costs in this block (the override, zero without validation, else from the excess). */
  blobGasPrice: bigint;
  /** The fork's precompile addresses (unprefixed): warm, wherever a state override moved their code. */
  precompileAddresses: readonly string[];
  chainId: bigint;
  validation: boolean;
  traceTransfers: boolean;
}

/** Transaction types by their serialized type number. */
export const TX_TYPE = { frontier: 0, accessList: 1, eip1559: 2, blob: 3, delegateCode: 4 } as const;

/** The transaction a call becomes (fields as Besu's Transaction holds them). */
export interface SimulatedTransaction {
  type: number;
  from: Hex;
  nonce: bigint;
  gasLimit: bigint;
  to?: Hex;
  value: bigint;
  data: Uint8Array;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  maxFeePerBlobGas?: bigint;
  accessList?: AccessListEntry[];
  blobVersionedHashes?: Hex[];
  authorizationList?: Authorization[];
  chainId?: bigint;
}

export interface ExecutedCall {
  tx: SimulatedTransaction;
  success: boolean;
  output: Uint8Array;
  /** Gas after the refund (the receipt's), and before it (Besu getEstimateGasUsedByTransaction). */
  gasUsed: bigint;
  maxUsedGas: bigint;
  blobGasUsed: bigint;
  revertData?: Uint8Array;
  halt?: string;
  receiptLogs: RawLog[];
  /** With traceTransfers: the ETH transfer logs, which Besu reports instead of the receipt's. */
  transferLogs?: RawLog[];
}

const MAX_NONCE = 2n ** 64n - 1n;
const TWO_POW_256 = 2n ** 256n;

/** TransactionSimulator.buildTransaction with isPreserveCallerGasPricing, then guessType. */
export function buildTransaction(call: CallRequest, from: Hex, nonce: bigint, gasLimit: bigint, baseFee: bigint | undefined, chainId: bigint): SimulatedTransaction {
  const tx: SimulatedTransaction = { type: TX_TYPE.frontier, from, nonce, gasLimit, to: call.to, value: call.value ?? 0n, data: call.data ?? new Uint8Array(0) };
  if (call.accessList !== undefined) tx.accessList = call.accessList;
  if (call.blobVersionedHashes !== undefined) tx.blobVersionedHashes = call.blobVersionedHashes;
  const noPricing = call.gasPrice === undefined && call.maxFeePerGas === undefined && call.maxPriorityFeePerGas === undefined;
  const fee1559Given = call.maxFeePerGas !== undefined || call.maxPriorityFeePerGas !== undefined;
  if (baseFee === undefined || !fee1559Given) tx.gasPrice = call.gasPrice ?? 0n;
  if (baseFee !== undefined && (call.blobVersionedHashes !== undefined || noPricing || fee1559Given)) {
    tx.maxFeePerGas = call.maxFeePerGas ?? 0n;
    tx.maxPriorityFeePerGas = call.maxPriorityFeePerGas ?? 0n;
  }
  if (call.blobVersionedHashes !== undefined) tx.maxFeePerBlobGas = call.maxFeePerBlobGas ?? 0n;
  if (call.authorizationList !== undefined && call.authorizationList.length > 0) tx.authorizationList = call.authorizationList;
  tx.type = guessType(tx);
  if (tx.type !== TX_TYPE.frontier) tx.chainId = call.chainId ?? chainId;
  checkShape(tx);
  return tx;
}

function guessType(tx: SimulatedTransaction): number {
  if (tx.authorizationList !== undefined) return TX_TYPE.delegateCode;
  if (tx.blobVersionedHashes !== undefined && tx.blobVersionedHashes.length > 0) return TX_TYPE.blob;
  if (tx.maxFeePerGas !== undefined || tx.maxPriorityFeePerGas !== undefined) return TX_TYPE.eip1559;
  if (tx.accessList !== undefined) return TX_TYPE.accessList;
  return TX_TYPE.frontier;
}

/** Transaction's constructor checks: a builder that fails them throws (an internal error in Besu). */
function checkShape(tx: SimulatedTransaction): void {
  const blobFields = tx.blobVersionedHashes !== undefined || tx.maxFeePerBlobGas !== undefined;
  if (blobFields && tx.type !== TX_TYPE.blob) throw new SimulationError(SIMULATION_ERRORS.UNKNOWN, 'Internal error');
  if (tx.type === TX_TYPE.frontier && tx.accessList !== undefined) throw new SimulationError(SIMULATION_ERRORS.UNKNOWN, 'Internal error');
}

function is1559Like(tx: SimulatedTransaction): boolean {
  return tx.type >= TX_TYPE.eip1559;
}

/** What one gas costs the sender (FeeMarket's TransactionPriceCalculator). */
export function effectivePrice(tx: SimulatedTransaction, baseFee: bigint | undefined): bigint {
  if (!is1559Like(tx)) return tx.gasPrice ?? 0n;
  const maxFee = tx.maxFeePerGas ?? 0n;
  const tip = (baseFee ?? 0n) + (tx.maxPriorityFeePerGas ?? 0n);
  return tip < maxFee ? tip : maxFee;
}

function maxGasPrice(tx: SimulatedTransaction): bigint {
  return is1559Like(tx) ? (tx.maxFeePerGas ?? 0n) : (tx.gasPrice ?? 0n);
}

function blobGasOf(common: Common, tx: SimulatedTransaction): bigint {
  if (tx.type !== TX_TYPE.blob || !common.isActivatedEIP(4844)) return 0n;
  return BigInt(tx.blobVersionedHashes!.length) * common.param('blobGasPerBlob');
}

/** The fork that introduced each transaction type (MainnetProtocolSpecs' accepted types). */
const TYPE_EIPS: Record<number, { eip: number; name: string }> = {
  [TX_TYPE.accessList]: { eip: 2930, name: 'ACCESS_LIST' },
  [TX_TYPE.eip1559]: { eip: 1559, name: 'EIP1559' },
  [TX_TYPE.blob]: { eip: 4844, name: 'BLOB' },
  [TX_TYPE.delegateCode]: { eip: 7702, name: 'DELEGATE_CODE' },
};

function acceptedTypes(common: Common): string {
  const names = ['FRONTIER', ...Object.values(TYPE_EIPS).filter((t) => common.isActivatedEIP(t.eip)).map((t) => t.name)];
  return `[${names.join(', ')}]`;
}

/** MainnetTransactionValidator.validate, up to the cost checks. */
function validateFormat(env: CallEnv, tx: SimulatedTransaction): void {
  if (tx.chainId !== undefined && tx.chainId !== env.chainId)
    throw invalid('WRONG_CHAIN_ID', `transaction was meant for chain id ${tx.chainId} and not this chain id ${env.chainId}`);
  const typeRule = TYPE_EIPS[tx.type];
  if (typeRule && !env.common.isActivatedEIP(typeRule.eip))
    throw invalid('INVALID_TRANSACTION_FORMAT', `Transaction type ${typeRule.name} is invalid, accepted transaction types are ${acceptedTypes(env.common)}`);
  if (env.validation && tx.nonce === MAX_NONCE) throw invalid('NONCE_OVERFLOW', 'Nonce must be less than 2^64-1');
  if (tx.type === TX_TYPE.blob) {
    const problem = blobTransactionProblem(env.common, tx.to === undefined, tx.blobVersionedHashes!);
    if (problem) throw invalid(problem.reason, problem.message);
  }
  const maxInitCode = env.common.isActivatedEIP(3860) ? Number(env.common.param('maxInitCodeSize')) : Infinity;
  if (tx.to === undefined && tx.data.length > maxInitCode)
    throw invalid('INITCODE_TOO_LARGE', `Initcode size of ${tx.data.length} exceeds maximum size of ${maxInitCode}`);
  if (tx.type === TX_TYPE.delegateCode && tx.to === undefined)
    throw invalid('INVALID_TRANSACTION_FORMAT', 'transaction code delegation transactions must have a to address');
}

/** MainnetTransactionValidator.validateCostAndFee. */
function validateCostAndFee(env: CallEnv, tx: SimulatedTransaction): void {
  if (env.baseFee !== undefined) {
    if (env.validation && effectivePrice(tx, env.baseFee) < env.baseFee)
      throw invalid('GAS_PRICE_BELOW_CURRENT_BASE_FEE', 'gasPrice is less than the current BaseFee');
    if (is1559Like(tx) && (tx.maxPriorityFeePerGas ?? 0n) > (tx.maxFeePerGas ?? 0n))
      throw invalid('MAX_PRIORITY_FEE_PER_GAS_EXCEEDS_MAX_FEE_PER_GAS', 'max priority fee per gas cannot be greater than max fee per gas');
  }
  if (tx.type === TX_TYPE.blob && env.blobGasPrice > (tx.maxFeePerBlobGas ?? 0n))
    throw invalid(
      'BLOB_GAS_PRICE_BELOW_CURRENT_BLOB_BASE_FEE',
      `tx max fee per blob gas less than block blob gas fee: address ${tx.from} blobGasFeeCap: ${weiHumanReadable(tx.maxFeePerBlobGas ?? 0n)}, blobBaseFee: ${weiHumanReadable(env.blobGasPrice)}`,
    );
  const needed = minimumGas(env.common, tx);
  if (needed > tx.gasLimit) throw invalid('INTRINSIC_GAS_EXCEEDS_GAS_LIMIT', `intrinsic gas cost ${needed} exceeds gas limit ${tx.gasLimit}`);
  if (tx.gasLimit * maxGasPrice(tx) >= TWO_POW_256) throw invalid('UPFRONT_COST_EXCEEDS_UINT256', 'Upfront gas cost cannot exceed 2^256 Wei');
}

function intrinsicOf(common: Common, tx: SimulatedTransaction): bigint {
  const auths = BigInt(tx.authorizationList?.length ?? 0);
  return intrinsicGas(common, tx.data, tx.to === undefined, tx.accessList ?? []) + PER_EMPTY_ACCOUNT_COST * auths;
}

/** max(intrinsic gas, EIP-7623 calldata floor). */
function minimumGas(common: Common, tx: SimulatedTransaction): bigint {
  const intrinsic = intrinsicOf(common, tx);
  const floor = calldataFloorGas(common, tx.data);
  return floor > intrinsic ? floor : intrinsic;
}

/** MainnetTransactionValidator.validateForSender (a contract may send: isAllowContractAddressAsSender). */
function validateForSender(env: CallEnv, tx: SimulatedTransaction, account: Account): void {
  const upfront = tx.gasLimit * maxGasPrice(tx) + blobGasOf(env.common, tx) * (tx.maxFeePerBlobGas ?? 0n) + tx.value;
  if (upfront > account.balance)
    throw invalid(
      'UPFRONT_COST_EXCEEDS_BALANCE',
      `transaction up-front cost 0x${upfront.toString(16)} exceeds transaction sender account balance 0x${account.balance.toString(16)} for sender ${tx.from}`,
    );
  if (tx.nonce < account.nonce)
    throw invalid('NONCE_TOO_LOW', `transaction nonce ${tx.nonce} below sender account nonce ${account.nonce} for sender ${tx.from}`);
  if (env.validation && tx.nonce !== account.nonce)
    throw invalid('NONCE_TOO_HIGH', `transaction nonce ${tx.nonce} does not match sender account nonce ${account.nonce} for sender ${tx.from}`);
}

export function validateTransaction(env: CallEnv, tx: SimulatedTransaction, account: Account): void {
  validateFormat(env, tx);
  validateCostAndFee(env, tx);
  validateForSender(env, tx, account);
}

/** Processes a validated transaction on the block's state; returns what its receipt and result need. */
export async function executeTransaction(env: CallEnv, tx: SimulatedTransaction): Promise<ExecutedCall> {
  const { vm, common } = env;
  const journal = vm.evm.journal;
  const sender = createAddressFromString(tx.from);
  const price = effectivePrice(tx, env.baseFee);
  const blobGasUsed = blobGasOf(common, tx);
  await journal.cleanup();
  env.sm.originalStorageCache.clear();
  await chargeSender(env, sender, tx.gasLimit * price + blobGasUsed * env.blobGasPrice);
  warmForTransaction(env, tx);
  const intrinsic = intrinsicOf(common, tx);
  const delegationRefund = tx.authorizationList ? await applyAuthorizations(vm, common, tx.authorizationList) : 0n;
  const tracer = env.traceTransfers ? new TransferLogTracer() : undefined;
  const detach = tracer?.attach(vm);
  let res: EVMResult;
  try {
    res = await vm.evm.runCall({
      block: env.ctx,
      caller: sender,
      origin: sender,
      to: tx.to === undefined ? undefined : createAddressFromString(tx.to),
      data: tx.data,
      value: tx.value,
      gasLimit: tx.gasLimit - intrinsic,
      gasPrice: price,
      blobVersionedHashes: tx.type === TX_TYPE.blob ? tx.blobVersionedHashes : undefined,
      skipNonceIncrement: true,
    });
  } finally {
    detach?.();
  }
  const outcome = settle(env, tx, res, intrinsic, delegationRefund);
  await payFees(env, sender, tx, price, outcome.gasUsed);
  await removeDestroyed(env, res, outcome.success);
  await journal.cleanup();
  return { ...outcome, tx, blobGasUsed, transferLogs: tracer?.logs };
}

/** Nonce + 1 and the up-front gas cost (Besu: incrementNonce, decrementBalance). */
async function chargeSender(env: CallEnv, sender: Address, costWei: bigint): Promise<void> {
  const account = (await env.sm.getAccount(sender)) ?? new Account();
  account.nonce = (account.nonce + 1n) & MAX_NONCE; // a Java long: 2^64-1 wraps to 0
  account.balance -= costWei;
  await env.vm.evm.journal.putAccount(sender, account);
}

/** EIP-2929/2930/3651: precompiles, sender, recipient, access list and fee recipient start warm. */
function warmForTransaction(env: CallEnv, tx: SimulatedTransaction): void {
  if (!env.common.isActivatedEIP(2929)) return;
  const journal = env.vm.evm.journal;
  // Besu's gas calculator counts the fork's precompile addresses warm (isPrecompile), moved or not
  for (const address of env.precompileAddresses) journal.addAlwaysWarmAddress(address);
  journal.addAlwaysWarmAddress(tx.from);
  if (tx.to !== undefined) journal.addAlwaysWarmAddress(tx.to);
  if (env.common.isActivatedEIP(3651)) journal.addAlwaysWarmAddress(env.feeRecipient.toString());
  for (const e of tx.accessList ?? []) {
    journal.addAlwaysWarmAddress(e.address);
    for (const k of e.storageKeys) journal.addAlwaysWarmSlot(e.address, k.slice(2));
  }
}

/** Gas used, refund and outcome (Besu TransactionGasAccounting, refund quotient 2 or 5). */
function settle(env: CallEnv, tx: SimulatedTransaction, res: EVMResult, intrinsic: bigint, delegationRefund: bigint) {
  const ex = res.execResult;
  const error = ex.exceptionError?.error;
  const success = error === undefined;
  const floor = calldataFloorGas(env.common, tx.data);
  const beforeRefund = intrinsic + ex.executionGasUsed;
  const quotient = env.common.isActivatedEIP(3529) ? 5n : 2n;
  const allowance = (ex.gasRefund ?? 0n) + delegationRefund;
  const refund = success ? (allowance < beforeRefund / quotient ? allowance : beforeRefund / quotient) : 0n;
  const afterRefund = beforeRefund - refund;
  return {
    success,
    // a failed transaction's output is empty (TransactionProcessingResult.failed); revert data goes to the error
    output: success ? ex.returnValue : new Uint8Array(0),
    gasUsed: afterRefund > floor ? afterRefund : floor,
    maxUsedGas: beforeRefund > floor ? beforeRefund : floor,
    revertData: error === 'revert' ? ex.returnValue : undefined,
    halt: error !== undefined && error !== 'revert' ? haltDescription(error, haltingOpcode(ex)) : undefined,
    receiptLogs: success ? ((ex.logs ?? []) as RawLog[]) : [],
  };
}

/** The unused gas back to the sender, the priority fee to the fee recipient (touched even at zero). */
async function payFees(env: CallEnv, sender: Address, tx: SimulatedTransaction, price: bigint, gasUsed: bigint): Promise<void> {
  const journal = env.vm.evm.journal;
  const payer = (await env.sm.getAccount(sender)) ?? new Account();
  payer.balance += (tx.gasLimit - gasUsed) * price;
  await journal.putAccount(sender, payer);
  let perGas = price;
  if (env.baseFee !== undefined) perGas = price < env.baseFee ? 0n : price - env.baseFee;
  const recipient = (await env.sm.getAccount(env.feeRecipient)) ?? new Account();
  recipient.balance += gasUsed * perGas;
  await journal.putAccount(env.feeRecipient, recipient);
}

/** Self-destructed accounts go (from Cancun only those the transaction created). */
async function removeDestroyed(env: CallEnv, res: EVMResult, success: boolean): Promise<void> {
  if (!success) return;
  const ex = res.execResult;
  for (const address of ex.selfdestruct?.keys() ?? []) {
    if (env.common.isActivatedEIP(6780) && !ex.createdAddresses?.has(address)) continue;
    await env.vm.evm.journal.deleteAccount(createAddressFromString(address));
  }
}
