/**
 * The one shape of a call (Besu's CallParameter) that every caller of the EVM runner uses: the
 * JSON-RPC parser (eth_call, eth_estimateGas, eth_createAccessList, trace_call, eth_simulateV1,
 * priv_call), GraphQL's call and estimateGas, and the worker protocol. Also the block a call runs
 * in, the validation rules it runs under, and what comes out.
 */
import type { Hex } from '../../crypto/bytes.ts';
import type { AccountChange } from '../tracers/state-changes.ts';
import type { CallFrame } from '../tracers/call-tracer.ts';
import type { StateOverride } from './state-override.ts';

export interface AccessListEntry {
  address: Hex;
  storageKeys: Hex[];
}

/** An EIP-7702 tuple as a call object carries it (parsed and bounded in rpc/params.ts). */
export interface Authorization {
  chainId: bigint;
  address: Hex;
  nonce: bigint;
  yParity: number;
  r: bigint;
  s: bigint;
}

/** A call object after parameter parsing (Besu CallParameter). */
export interface CallRequest {
  from?: Hex;
  to?: Hex;
  gas?: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  maxFeePerBlobGas?: bigint;
  /** Present: a blob "transaction" (Besu's builder guesses the type from it). */
  blobVersionedHashes?: Hex[];
  value?: bigint;
  /** The payload (JSON-RPC's `input`, or `data` when `input` is absent). */
  data?: Uint8Array;
  nonce?: bigint;
  accessList?: AccessListEntry[];
  /** EIP-7702 tuples: applied before the call, as a set-code transaction applies them. */
  authorizationList?: Authorization[];
  strict?: boolean;
  chainId?: bigint;
}

/** The block a call runs in: its state root (the state it starts from) and header fields. */
export interface CallBlockContext {
  stateRoot: Uint8Array;
  number: bigint;
  timestamp: bigint;
  gasLimit: bigint;
  baseFee: bigint | undefined;
  /** Who receives fees (Besu: the mining beneficiary of the block; COINBASE returns it). */
  coinbase: Hex;
  difficulty: bigint;
  mixHash: Uint8Array;
  parentHash: Uint8Array;
  excessBlobGas?: bigint;
}

/** Besu TransactionValidationParams (the simulator's variants). */
export interface ValidationParams {
  allowFutureNonce: boolean;
  allowExceedingBalance: boolean;
  allowUnderpriced: boolean;
}

export const CALL_PARAMS = {
  /** transactionSimulatorAllowExceedingBalanceAndFutureNonce */
  exceedingBalance: { allowFutureNonce: true, allowExceedingBalance: true, allowUnderpriced: false },
  /** transactionSimulatorAllowFutureNonce */
  futureNonce: { allowFutureNonce: true, allowExceedingBalance: false, allowUnderpriced: false },
  /** transactionSimulatorAllowUnderpricedAndFutureNonce (eth_estimateGas, strict default) */
  underpricedFutureNonce: { allowFutureNonce: true, allowExceedingBalance: false, allowUnderpriced: true },
  /** transactionSimulator() (trace_call): no future nonce, no exceeding balance, no underpricing */
  strict: { allowFutureNonce: false, allowExceedingBalance: false, allowUnderpriced: false },
} as const satisfies Record<string, ValidationParams>;

export interface CallOptions {
  params: ValidationParams;
  overrides?: StateOverride[];
  accessList?: boolean;
  callTracer?: boolean;
  /** Record the accounts the call changes (settling fees and refund as a mined transaction would). */
  stateDiff?: boolean;
  /** Chain id for typed "transactions" that need one (Besu: the schedule's chain id). */
  chainId: bigint;
}

/** A call that failed validation (Besu TransactionInvalidReason name and message). */
export interface InvalidCall {
  kind: 'invalid';
  reason: string;
  message: string;
}

export interface ExecutedCallOutcome {
  kind: 'executed';
  success: boolean;
  output: Uint8Array;
  gasLimit: bigint;
  /** gas limit − remaining gas, before the refund (Besu getEstimateGasUsedByTransaction). */
  gasUsedBeforeRefund: bigint;
  /** gas limit − (remaining + refund) (Besu TransactionSimulatorResult.getGasEstimate). */
  gasUsed: bigint;
  revertData?: Uint8Array;
  /** Besu's ExceptionalHaltReason description, when the top frame halted. */
  halt?: string;
  createdAddress?: Hex;
  accessList?: AccessListEntry[];
  trace?: CallFrame;
  /** With `stateDiff`: the accounts the call wrote, before and after (fees and refund paid). */
  stateChanges?: AccountChange[];
}

export type CallOutcome = InvalidCall | ExecutedCallOutcome;

/** Ancestor hashes by number (QBFT on-chain hashes), for BLOCKHASH. */
export type HashLookup = (n: bigint) => Uint8Array | undefined | Promise<Uint8Array | undefined>;
