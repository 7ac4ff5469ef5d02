/**
 * A call before it runs, as Besu's TransactionSimulator builds it (buildTransaction: the prices
 * and the type it guesses) and MainnetTransactionValidator checks it (besu: ethereum/core/.../
 * transaction/TransactionSimulator.java, mainnet/MainnetTransactionValidator.java,
 * MainnetBlobsValidator.java; snapshot 3fd224e2).
 *
 * Pricing: with `allowExceedingBalance` (eth_call without strict pricing) all prices and the
 * block's base fee are zero; otherwise missing prices default to the base fee. The sender may be
 * a contract (Besu's simulator allows it); future nonces are allowed unless the params forbid them.
 * Checks come in Besu's order; the first that fails is the call's validation failure.
 */
import type { Common } from '@ethereumjs/common';
import type { Account } from '@ethereumjs/util';
import type { Hex } from '../../crypto/bytes.ts';
import { blobBaseFeeAt } from '../blob-fees.ts';
import { PER_EMPTY_ACCOUNT_COST } from '../code-delegation.ts';
import { intrinsicGas } from '../intrinsic-gas.ts';
import type { Authorization, CallBlockContext, CallRequest, InvalidCall, ValidationParams } from './call-types.ts';

/** EIP-7594 (Osaka) caps a transaction at 6 blobs whatever the block maximum. */
const MAX_BLOBS_PER_TRANSACTION_OSAKA = 6n;

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000' as Hex;

/** A call that passed validation: what the runner charges and runs. */
export interface ValidCall {
  sender: Hex;
  nonce: bigint;
  value: bigint;
  data: Uint8Array;
  isCreate: boolean;
  gasLimit: bigint;
  /** The base fee the call runs under (zero for eth_call without strict pricing; undefined before London). */
  baseFee: bigint | undefined;
  /** What one gas costs the sender. */
  txPrice: bigint;
  /** What the blobs cost, paid up front at the blob base fee. */
  blobFeeWei: bigint;
  intrinsic: bigint;
  /** EIP-7623's calldata floor (0 before Prague). */
  floor: bigint;
  authorizations: Authorization[];
}

/** TransactionSimulator.buildTransaction's prices, and the type it guesses (1559 or not). */
interface CallPricing {
  /** The header's base fee (undefined before London). */
  headerBaseFee: bigint | undefined;
  baseFee: bigint | undefined;
  gasPrice: bigint;
  maxFee: bigint;
  maxPrio: bigint;
  is1559: boolean;
}

/** Besu's Wei.toHumanReadableString: "0 wei", "1.50 gwei", "2.00 ether". */
export function weiHumanReadable(wei: bigint): string {
  const units: Array<[string, number]> = [['wei', 0], ['kwei', 3], ['mwei', 6], ['gwei', 9], ['szabo', 12], ['finney', 15], ['ether', 18], ['kether', 21], ['mether', 24], ['gether', 27], ['tether', 30]];
  const digits = wei.toString().length;
  const [name, pow] = units.find(([, p]) => digits <= p + 3) ?? units[units.length - 1];
  return `${(Number(wei) / 10 ** pow).toFixed(pow === 0 ? 0 : 2)} ${name}`;
}

/** MainnetBlobsValidator.validateBlobTransaction for a simulated blob call. */
export function blobTransactionProblem(common: Common, isCreate: boolean, hashes: Hex[]): InvalidCall | undefined {
  if (isCreate) return { kind: 'invalid', reason: 'INVALID_TRANSACTION_FORMAT', message: 'transaction blob transactions must have a to address' };
  if (hashes.length === 0) return { kind: 'invalid', reason: 'INVALID_BLOBS', message: 'transaction blob transactions must specify one or more versioned hashes' };
  // Besu's transactionBlobGasLimitCap: the fork's blobs per block, and at most 6 from Osaka on
  const perBlock = common.isActivatedEIP(4844) ? common.param('maxBlobGasPerBlock') / common.param('blobGasPerBlob') : 6n;
  const maxBlobs = common.isActivatedEIP(7594) && perBlock > MAX_BLOBS_PER_TRANSACTION_OSAKA ? MAX_BLOBS_PER_TRANSACTION_OSAKA : perBlock;
  if (BigInt(hashes.length) > maxBlobs)
    return { kind: 'invalid', reason: 'TOTAL_BLOB_GAS_TOO_HIGH', message: `Blob transaction has too many blobs: ${hashes.length}` };
  for (const h of hashes)
    if (!h.startsWith('0x01'))
      return { kind: 'invalid', reason: 'INVALID_BLOBS', message: `transaction blobs commitment version is not supported. Expected 1, found ${parseInt(h.slice(2, 4), 16)}` };
  return undefined;
}

/** EIP-7623's calldata floor (0 before Prague): 21000 + 10 per token, a zero byte one token, any other four. */
export function calldataFloorGas(common: Common, data: Uint8Array): bigint {
  if (!common.isActivatedEIP(7623)) return 0n;
  let tokens = 0n;
  for (const byte of data) tokens += byte === 0 ? 1n : 4n;
  return 21_000n + 10n * tokens;
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

function invalid(reason: string, message: string): InvalidCall {
  return { kind: 'invalid', reason, message };
}

function pricingOf(common: Common, b: CallBlockContext, req: CallRequest, p: ValidationParams): CallPricing {
  const headerBaseFee = common.isActivatedEIP(1559) ? (b.baseFee ?? 0n) : undefined;
  // eth_call without strict pricing runs on a header whose base fee is zero
  const baseFee = p.allowExceedingBalance && headerBaseFee !== undefined ? 0n : headerBaseFee;
  const noPricing = req.gasPrice === undefined && req.maxFeePerGas === undefined && req.maxPriorityFeePerGas === undefined;
  let gasPrice: bigint;
  let maxFee: bigint;
  let maxPrio: bigint;
  if (p.allowExceedingBalance) {
    gasPrice = maxFee = maxPrio = 0n;
  } else {
    gasPrice = noPricing ? (headerBaseFee ?? 0n) : (req.gasPrice ?? 0n);
    maxFee = req.maxFeePerGas ?? gasPrice;
    maxPrio = req.maxPriorityFeePerGas ?? gasPrice;
  }
  const is1559 = headerBaseFee !== undefined && (noPricing || req.maxFeePerGas !== undefined || req.maxPriorityFeePerGas !== undefined);
  return { headerBaseFee, baseFee, gasPrice, maxFee, maxPrio, is1559 };
}

/** MainnetTransactionValidator.validateCostAndFee, price part. */
function feeProblem(pricing: CallPricing, p: ValidationParams): InvalidCall | undefined {
  const { baseFee, is1559, maxFee, maxPrio, gasPrice } = pricing;
  if (baseFee === undefined) return undefined;
  const price = is1559 ? min(maxFee, baseFee + maxPrio) : gasPrice;
  if (!p.allowUnderpriced && price < baseFee) return invalid('GAS_PRICE_BELOW_CURRENT_BASE_FEE', 'gasPrice is less than the current BaseFee');
  if (is1559 && maxPrio > maxFee) return invalid('MAX_PRIORITY_FEE_PER_GAS_EXCEEDS_MAX_FEE_PER_GAS', 'max priority fee per gas cannot be greater than max fee per gas');
  return undefined;
}

/** validateCostAndFee, blob part: the blob base fee is zero for eth_call without strict pricing. */
function blobCosts(common: Common, b: CallBlockContext, req: CallRequest, p: ValidationParams, sender: Hex): InvalidCall | { blobGas: bigint; maxFeePerBlobGas: bigint; blobBaseFee: bigint } {
  const hashes = req.blobVersionedHashes;
  if (hashes === undefined || !common.isActivatedEIP(4844)) return { blobGas: 0n, maxFeePerBlobGas: 0n, blobBaseFee: 0n };
  const blobGas = BigInt(hashes.length) * common.param('blobGasPerBlob');
  const blobBaseFee = p.allowExceedingBalance ? 0n : blobBaseFeeAt(b.excessBlobGas ?? 0n, common.param('blobGasPriceUpdateFraction'));
  const maxFeePerBlobGas = p.allowExceedingBalance ? 0n : (req.maxFeePerBlobGas ?? blobBaseFee);
  if (!p.allowUnderpriced && blobBaseFee > maxFeePerBlobGas)
    return invalid(
      'BLOB_GAS_PRICE_BELOW_CURRENT_BLOB_BASE_FEE',
      `tx max fee per blob gas less than block blob gas fee: address ${sender.toLowerCase()} blobGasFeeCap: ${weiHumanReadable(maxFeePerBlobGas)}, blobBaseFee: ${weiHumanReadable(blobBaseFee)}`,
    );
  return { blobGas, maxFeePerBlobGas, blobBaseFee };
}

/** MainnetTransactionValidator: a set-code transaction exists from Prague on, calls an address, and lists at least one tuple. */
function authorizationProblem(common: Common, req: CallRequest): InvalidCall | undefined {
  if (req.authorizationList === undefined) return undefined;
  if (!common.isActivatedEIP(7702)) return invalid('INVALID_TRANSACTION_FORMAT', `Transaction type DELEGATE_CODE is invalid before Prague (${common.hardfork()})`);
  if (req.to === undefined) return invalid('INVALID_TRANSACTION_FORMAT', 'transaction code delegation transactions must have a to address');
  if (req.authorizationList.length === 0) return invalid('INVALID_TRANSACTION_FORMAT', 'transaction code delegation transactions must have a non-empty code delegation list');
  return undefined;
}

/** The gas limit against the intrinsic cost and EIP-7623's floor, and the init code size. */
function gasProblem(common: Common, data: Uint8Array, isCreate: boolean, gasLimit: bigint, intrinsic: bigint, floor: bigint): InvalidCall | undefined {
  // EIP-7623: calldata pays at least the floor; a gas limit below it is as invalid as one below the intrinsic cost
  if (floor > gasLimit) return invalid('INTRINSIC_GAS_EXCEEDS_GAS_LIMIT', `intrinsic gas cost ${floor > intrinsic ? floor : intrinsic} exceeds gas limit ${gasLimit}`);
  if (intrinsic > gasLimit) return invalid('INTRINSIC_GAS_EXCEEDS_GAS_LIMIT', `intrinsic gas cost ${intrinsic} exceeds gas limit ${gasLimit}`);
  if (isCreate && common.isActivatedEIP(3860) && data.length > Number(common.param('maxInitCodeSize')))
    return invalid('INITCODE_TOO_LARGE', `Initcode size of ${data.length} exceeds maximum size of ${common.param('maxInitCodeSize')}`);
  return undefined;
}

/** MainnetTransactionValidator.validateForSender. */
function senderProblem(sender: Hex, account: Account, nonce: bigint, upfront: bigint, p: ValidationParams): InvalidCall | undefined {
  if (!p.allowUnderpriced && upfront > account.balance)
    return invalid(
      'UPFRONT_COST_EXCEEDS_BALANCE',
      `transaction up-front cost 0x${upfront.toString(16)} exceeds transaction sender account balance 0x${account.balance.toString(16)} for sender ${sender}`,
    );
  if (nonce < account.nonce) return invalid('NONCE_TOO_LOW', `transaction nonce ${nonce} below sender account nonce ${account.nonce} for sender ${sender}`);
  if (!p.allowFutureNonce && nonce !== account.nonce)
    return invalid('NONCE_TOO_HIGH', `transaction nonce ${nonce} does not match sender account nonce ${account.nonce} for sender ${sender}`);
  return undefined;
}

/** The call built and validated against the sender's `account` in block `b`: what to run, or why not. */
export function validateCall(common: Common, b: CallBlockContext, req: CallRequest, gasLimit: bigint, p: ValidationParams, account: Account): ValidCall | InvalidCall {
  const sender = req.from ?? ZERO_ADDRESS;
  const nonce = req.nonce ?? account.nonce;
  const value = req.value ?? 0n;
  const data = req.data ?? new Uint8Array(0);
  const isCreate = req.to === undefined;
  // MainnetBlobsValidator.validateBlobTransaction, before any cost check
  const blobProblem = req.blobVersionedHashes === undefined ? undefined : blobTransactionProblem(common, isCreate, req.blobVersionedHashes);
  if (blobProblem) return blobProblem;
  const pricing = pricingOf(common, b, req, p);
  const problem = feeProblem(pricing, p);
  if (problem) return problem;
  const blobs = blobCosts(common, b, req, p, sender);
  if ('kind' in blobs) return blobs;
  const authProblem = authorizationProblem(common, req);
  if (authProblem) return authProblem;
  const authorizations = req.authorizationList ?? [];
  const intrinsic = intrinsicGas(common, data, isCreate, req.accessList ?? []) + PER_EMPTY_ACCOUNT_COST * BigInt(authorizations.length);
  const floor = calldataFloorGas(common, data);
  const limitProblem = gasProblem(common, data, isCreate, gasLimit, intrinsic, floor);
  if (limitProblem) return limitProblem;
  const maxGasPrice = pricing.is1559 ? pricing.maxFee : pricing.gasPrice;
  const upfront = gasLimit * maxGasPrice + blobs.blobGas * blobs.maxFeePerBlobGas + value;
  const forSender = senderProblem(sender, account, nonce, upfront, p);
  if (forSender) return forSender;
  const txPrice = pricing.is1559 ? min(pricing.maxFee, (pricing.baseFee ?? 0n) + pricing.maxPrio) : pricing.gasPrice;
  // the blob fee is paid at the blob base fee (zero for eth_call without strict pricing)
  const blobFeeWei = blobs.blobGas * blobs.blobBaseFee;
  return { sender, nonce, value, data, isCreate, gasLimit, baseFee: pricing.baseFee, txPrice, blobFeeWei, intrinsic, floor, authorizations };
}
