/**
 * Besu's TransactionSimulator for eth_call, eth_estimateGas, eth_createAccessList and
 * debug_trace* (besu: ethereum/core/.../transaction/TransactionSimulator.java,
 * mainnet/MainnetTransactionProcessor.java, MainnetTransactionValidator.java; snapshot 3fd224e2).
 *
 * It runs one unsigned "transaction" on a copy of a block's state, on its own VM over the
 * engine's trie node store (every change is journalled and reverted; only eth_simulateV1's state
 * roots write nodes, content-addressed ones the pruner sweeps, or a worker's overlay drops), and reports what Besu's processor reports: a validation failure (reason name and
 * message, e.g. NONCE_TOO_LOW "transaction nonce 2 below sender account nonce 34 for sender 0x…"),
 * or an execution result (success, output, gas used before and after the refund, revert data or
 * Besu's halt description).
 *
 * Pricing follows buildTransaction: with `allowExceedingBalance` (eth_call without strict pricing)
 * all prices and the block's base fee are zero; otherwise missing prices default to the base fee.
 * The sender may be a contract (Besu's simulator allows it); future nonces are allowed.
 *
 * Re-execution of mined transactions (for tracing) applies the block's earlier transactions with
 * the same rules as the engine (runTx), then traces the wanted one.
 */
import { Mutex } from '../../../collections/mutex.ts';
import { Block, createBlockHeader, type BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { getMerkleStateProof, type MerkleStateManager } from '@ethereumjs/statemanager';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Account, KECCAK256_RLP, createAddressFromString, type Address, type DB } from '@ethereumjs/util';
import { createVM, runTx, type VM } from '@ethereumjs/vm';
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import { bytesToHex, uint256ToBytes, type Hex } from '../../../crypto/bytes.ts';
import type { TrieNodeStore } from '../../../execution/state-db.ts';
import { useFastCrypto } from '../../../execution/tx-utils.ts';
import { intrinsicGas } from '../../../execution/intrinsic-gas.ts';
import { stateManagerOn, warmCallParties, withNodeCrypto } from '../../../execution/vm-state.ts';
import { preBlockSystemCalls } from '../../../execution/system-calls.ts';
import { PER_EMPTY_ACCOUNT_COST, applyAuthorizations, type Authorization } from './code-delegation.ts';
import { blobBaseFeeAt, withBlockParams } from './blob-fees.ts';
import { StateChangeRecorder, type AccountChange } from './state-diff.ts';
import { StructLogger, type StructLogOptions, type StructLogResult } from './struct-logger.ts';
import { simulateBlocksOn, type SimulateBlocksRequest, type SimulateBlocksResult } from './block-simulator.ts';

export interface AccessListEntry {
  address: Hex;
  storageKeys: Hex[];
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
  data?: Uint8Array;
  nonce?: bigint;
  accessList?: AccessListEntry[];
  /** EIP-7702 tuples: applied before the call, as a set-code transaction applies them. */
  authorizationList?: Authorization[];
  strict?: boolean;
  chainId?: bigint;
}

/** The block the call runs in: its state root (the state it starts from) and header fields. */
export interface SimBlock {
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
} as const satisfies Record<string, ValidationParams>;

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

export type SimOutcome =
  | { kind: 'invalid'; reason: string; message: string }
  | {
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
    };

/** A block to re-execute: its header, parent's hash, fee recipient and transactions. */
export interface ReplayBlock {
  header: BlockHeader;
  parentHash: Uint8Array;
  feeRecipient: Hex;
  txs: TypedTransaction[];
}

/** A re-executed transaction as the trace_ methods read it. */
export interface TxReplay {
  /** The call tree, with the facts flat traces need. */
  frame: CallFrame;
  success: boolean;
  /** Return data (the revert data when it reverted). */
  output: Uint8Array;
  /** Accounts the transaction wrote (with stateDiff). */
  stateChanges?: AccountChange[];
  /** The opcode tracer's result (with structLogs). */
  structLog?: StructLogResult;
}

/** Besu StateOverride (eth_call / eth_estimateGas third parameter). */
export interface StateOverride {
  address: Hex;
  balance?: bigint;
  nonce?: bigint;
  code?: Uint8Array;
  /** Replaces the whole storage. */
  state?: Array<[bigint, bigint]>;
  /** Changes single slots. */
  stateDiff?: Array<[bigint, bigint]>;
  /** The precompile at `address` answers at this address instead (its own address runs code). */
  movePrecompileToAddress?: Hex;
}

/** An override names a precompile that does not exist (Besu: INVALID_PRECOMPILE_ADDRESS, -32000). */
export class PrecompileOverrideError extends Error {}

export interface SimulateOptions {
  params: ValidationParams;
  overrides?: StateOverride[];
  accessList?: boolean;
  callTracer?: boolean;
  /** Record the accounts the call changes (settling fees and refund as a mined transaction would). */
  stateDiff?: boolean;
  /** Chain id for typed "transactions" that need one (Besu: the schedule's chain id). */
  chainId: bigint;
}

/** Ancestor hashes by number (QBFT on-chain hashes), for BLOCKHASH. */
export type HashLookup = (n: bigint) => Uint8Array | undefined | Promise<Uint8Array | undefined>;

/**
 * The node store the simulator reads state from: the engine's TrieNodeStore in the node's own
 * thread, or a worker's copy that fetches nodes from it (off-loop/remote-node-store.ts).
 */
export type SimulatorStore = DB<string, string | Uint8Array> & Pick<TrieNodeStore, 'hasRoot' | 'beginWork' | 'endWork'>;

/** What the RPC methods call on a simulator, here or in a worker (off-loop/worker-simulator.ts). */
export type SimulatorPort = Pick<TransactionSimulator, 'hasState' | 'simulate' | 'replayBlocks' | 'proof' | 'simulateBlocks'>;

const ZERO32 = new Uint8Array(32);

/** EIP-7594 (Osaka) caps a transaction at 6 blobs whatever the block maximum. */
const MAX_BLOBS_PER_TRANSACTION_OSAKA = 6n;

/** Besu's Wei.toHumanReadableString: "0 wei", "1.50 gwei", "2.00 ether". */
export function weiHumanReadable(wei: bigint): string {
  const units: Array<[string, number]> = [['wei', 0], ['kwei', 3], ['mwei', 6], ['gwei', 9], ['szabo', 12], ['finney', 15], ['ether', 18], ['kether', 21], ['mether', 24], ['gether', 27], ['tether', 30]];
  const digits = wei.toString().length;
  const [name, pow] = units.find(([, p]) => digits <= p + 3) ?? units[units.length - 1];
  return `${(Number(wei) / 10 ** pow).toFixed(pow === 0 ? 0 : 2)} ${name}`;
}

/** MainnetBlobsValidator.validateBlobTransaction for a simulated blob call. */
export function blobTransactionProblem(common: Common, isCreate: boolean, hashes: Hex[]): Extract<SimOutcome, { kind: 'invalid' }> | undefined {
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

/** ethereumjs EVM error -> Besu ExceptionalHaltReason description. */
export function haltDescription(error: string, opcode?: number): string {
  switch (error) {
    case 'out of gas':
    case 'code store out of gas':
      return 'Out of gas';
    case 'stack underflow':
      return 'Stack underflow';
    case 'stack overflow':
      return 'Out of stack';
    case 'invalid JUMP':
      return 'Bad jump destination';
    case 'invalid opcode':
      return opcode === undefined ? 'Bad instruction' : `Invalid opcode: 0x${opcode.toString(16).padStart(2, '0')}`;
    case 'static state change':
      return 'Illegal state change';
    case 'code size to deposit exceeds maximum code size':
      return 'Code is too large';
    case 'invalid bytecode deployed':
    case 'invalid EOF format':
      return 'Code is invalid';
    case 'value out of range':
      return 'Out of bounds';
    case 'create collision':
      return 'Illegal state change';
    default:
      return error.charAt(0).toUpperCase() + error.slice(1);
  }
}


/** Besu's ExceptionalHaltReason name of an EVM error (struct logs' `error`); revert is none. */
export function haltReasonName(error: string): string | undefined {
  switch (error) {
    case 'revert':
      return undefined;
    case 'out of gas':
    case 'code store out of gas':
      return 'INSUFFICIENT_GAS';
    case 'stack underflow':
      return 'INSUFFICIENT_STACK_ITEMS';
    case 'stack overflow':
      return 'TOO_MANY_STACK_ITEMS';
    case 'invalid JUMP':
      return 'INVALID_JUMP_DESTINATION';
    case 'invalid opcode':
      return 'INVALID_OPERATION';
    case 'static state change':
    case 'create collision':
      return 'ILLEGAL_STATE_CHANGE';
    case 'code size to deposit exceeds maximum code size':
      return 'CODE_TOO_LARGE';
    case 'invalid bytecode deployed':
    case 'invalid EOF format':
      return 'INVALID_CODE';
    case 'value out of range':
    case 'return data out of bounds':
      return 'OUT_OF_BOUNDS';
    default:
      return error.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
  }
}

export class TransactionSimulator {
  private vm?: VM;
  private sm?: MerkleStateManager;
  private common?: Common;
  private readonly mutex = new Mutex();
  /** BLOCKHASH answers: the blocks an eth_simulateV1 run made, the parent, then the chain. */
  private readonly chainLookup: { parent?: { number: bigint; hash: Uint8Array }; simulated?: Map<bigint, Uint8Array> } = {};

  constructor(
    private readonly baseCommon: Common,
    private readonly store: SimulatorStore,
    private readonly hashes: HashLookup,
  ) {}

  private async ensureVm(): Promise<{ vm: VM; sm: MerkleStateManager; common: Common }> {
    if (this.vm && this.sm && this.common) return { vm: this.vm, sm: this.sm, common: this.common };
    const common = withNodeCrypto(withBlockParams(this.baseCommon));
    const sm = stateManagerOn(common, this.store);
    const lookup = this.chainLookup;
    const hashes = this.hashes;
    const blockchain = {
      async getBlock(n: number) {
        const num = BigInt(n);
        const simulated = lookup.simulated?.get(num);
        const h = simulated ?? (lookup.parent && lookup.parent.number === num ? lookup.parent.hash : ((await hashes(num)) ?? ZERO32));
        return { hash: () => h };
      },
      async putBlock() {},
      shallowCopy() {
        return blockchain;
      },
    };
    const vm = await createVM({ common, stateManager: sm, blockchain: blockchain as never });
    this.vm = vm;
    this.sm = sm;
    this.common = common;
    return { vm, sm, common };
  }

  /** True when the state is still available (retained by the engine, or not yet swept). */
  hasState(root: Uint8Array): boolean {
    return this.store.hasRoot(root);
  }

  private contextBlock(common: Common, b: SimBlock, baseFee: bigint | undefined): Block {
    const header = createBlockHeader(
      {
        parentHash: b.parentHash,
        number: b.number,
        timestamp: b.timestamp,
        gasLimit: b.gasLimit,
        coinbase: b.coinbase,
        difficulty: b.difficulty,
        mixHash: b.mixHash,
        baseFeePerGas: common.isActivatedEIP(1559) ? (baseFee ?? 0n) : undefined,
        withdrawalsRoot: common.isActivatedEIP(4895) ? KECCAK256_RLP : undefined,
        blobGasUsed: common.isActivatedEIP(4844) ? 0n : undefined,
        excessBlobGas: common.isActivatedEIP(4844) ? (b.excessBlobGas ?? 0n) : undefined,
        parentBeaconBlockRoot: common.isActivatedEIP(4788) ? ZERO32 : undefined,
      } as never,
      { common, skipConsensusFormatValidation: true },
    );
    return new Block(header, [], [], undefined, { common, skipConsensusFormatValidation: true });
  }

  /** Runs `fn` with the simulator's state manager positioned at `root` (changes are reverted). */
  withState<T>(root: Uint8Array, number: bigint, timestamp: bigint, fn: (sm: MerkleStateManager, vm: VM) => Promise<T>): Promise<T> {
    return this.mutex.run(async () => {
      const { vm, sm, common } = await this.ensureVm();
      common.setHardforkBy({ blockNumber: number, timestamp });
      if (!this.store.hasRoot(root)) throw new Error(`state ${bytesToHex(root)} is not available`);
      this.store.beginWork();
      try {
        await sm.setStateRoot(root, true);
        await vm.evm.journal.checkpoint();
        try {
          return await fn(sm, vm);
        } finally {
          await vm.evm.journal.revert();
          vm.evm.journal.cleanJournal();
        }
      } finally {
        this.store.endWork();
      }
    });
  }

  /**
   * eth_simulateV1's blocks on the base block's state (block-simulator.ts): plain data in and out.
   * Their state roots are computed inside the run's checkpoint, so nothing stays behind.
   */
  simulateBlocks(req: SimulateBlocksRequest): Promise<SimulateBlocksResult> {
    const first = req.blocks[0]?.overrides ?? { number: req.base.number, timestamp: req.base.timestamp };
    return this.withState(req.base.stateRoot, first.number, first.timestamp, async (sm, vm) => {
      const simulatedHashes = new Map<bigint, Uint8Array>([[req.base.number, req.base.hash]]);
      this.chainLookup.simulated = simulatedHashes;
      this.chainLookup.parent = undefined;
      try {
        return await simulateBlocksOn({ vm, sm, simulatedHashes }, req);
      } finally {
        this.chainLookup.simulated = undefined;
      }
    });
  }

  /** EIP-1186 proof of an account and storage slots at `root` (Besu eth_getProof). */
  proof(root: Uint8Array, number: bigint, timestamp: bigint, address: Hex, slots: Uint8Array[]) {
    return this.withState(root, number, timestamp, async (sm) => getMerkleStateProof(sm, createAddressFromString(address), slots));
  }

  /** Simulates `req` in block `b` (Besu TransactionSimulator.process + MainnetTransactionProcessor). */
  simulate(b: SimBlock, req: CallRequest, gasCap: bigint, opts: SimulateOptions): Promise<SimOutcome> {
    return this.withState(b.stateRoot, b.number, b.timestamp, async (sm, vm) => {
      const common = vm.common;
      const restore = movePrecompiles(vm, opts.overrides ?? []);
      try {
        for (const o of opts.overrides ?? []) await applyOverride(sm, o);
        const recorder = opts.stateDiff ? new StateChangeRecorder(sm) : undefined;
        const detach = recorder?.attach();
        try {
          const outcome = await this.simulateLocked(common, sm, vm, b, req, gasCap, opts);
          if (recorder && outcome.kind === 'executed') outcome.stateChanges = await recorder.changes();
          return outcome;
        } finally {
          detach?.();
        }
      } finally {
        restore();
      }
    });
  }

  private async simulateLocked(
    common: Common,
    sm: MerkleStateManager,
    vm: VM,
    b: SimBlock,
    req: CallRequest,
    gasLimit: bigint,
    opts: SimulateOptions,
  ): Promise<SimOutcome> {
    const p = opts.params;
    const london = common.isActivatedEIP(1559);
    const headerBaseFee = london ? (b.baseFee ?? 0n) : undefined;
    // eth_call without strict pricing runs on a header whose base fee is zero
    const baseFee = p.allowExceedingBalance && headerBaseFee !== undefined ? 0n : headerBaseFee;
    const sender = req.from ?? ('0x0000000000000000000000000000000000000000' as Hex);
    const senderAddr = createAddressFromString(sender);
    const account = (await sm.getAccount(senderAddr)) ?? new Account();
    const nonce = req.nonce ?? account.nonce;
    const value = req.value ?? 0n;
    const data = req.data ?? new Uint8Array(0);
    const isCreate = req.to === undefined;
    const blobHashes = req.blobVersionedHashes;

    // MainnetBlobsValidator.validateBlobTransaction, before any cost check
    if (blobHashes !== undefined) {
      const invalid = blobTransactionProblem(common, isCreate, blobHashes);
      if (invalid) return invalid;
    }

    // TransactionSimulator.buildTransaction: prices and the transaction type Besu guesses
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
    const is1559 =
      headerBaseFee !== undefined && (noPricing || req.maxFeePerGas !== undefined || req.maxPriorityFeePerGas !== undefined);
    const maxGasPrice = is1559 ? maxFee : gasPrice;

    // MainnetTransactionValidator.validate (validateCostAndFee)
    if (baseFee !== undefined) {
      const price = is1559 ? min(maxFee, baseFee + maxPrio) : gasPrice;
      if (!p.allowUnderpriced && price < baseFee)
        return { kind: 'invalid', reason: 'GAS_PRICE_BELOW_CURRENT_BASE_FEE', message: 'gasPrice is less than the current BaseFee' };
      if (is1559 && maxPrio > maxFee)
        return {
          kind: 'invalid',
          reason: 'MAX_PRIORITY_FEE_PER_GAS_EXCEEDS_MAX_FEE_PER_GAS',
          message: 'max priority fee per gas cannot be greater than max fee per gas',
        };
    }
    // validateCostAndFee, blob part: the blob base fee is zero for eth_call without strict pricing
    let blobGas = 0n;
    let maxFeePerBlobGas = 0n;
    if (blobHashes !== undefined && common.isActivatedEIP(4844)) {
      blobGas = BigInt(blobHashes.length) * common.param('blobGasPerBlob');
      const blobBaseFee = p.allowExceedingBalance ? 0n : blobBaseFeeAt(b.excessBlobGas ?? 0n, common.param('blobGasPriceUpdateFraction'));
      maxFeePerBlobGas = p.allowExceedingBalance ? 0n : (req.maxFeePerBlobGas ?? blobBaseFee);
      if (!p.allowUnderpriced && blobBaseFee > maxFeePerBlobGas)
        return {
          kind: 'invalid',
          reason: 'BLOB_GAS_PRICE_BELOW_CURRENT_BLOB_BASE_FEE',
          message: `tx max fee per blob gas less than block blob gas fee: address ${sender.toLowerCase()} blobGasFeeCap: ${weiHumanReadable(maxFeePerBlobGas)}, blobBaseFee: ${weiHumanReadable(blobBaseFee)}`,
        };
    }
    const authorizations = req.authorizationList ?? [];
    // MainnetTransactionValidator: a set-code transaction exists from Prague on, calls an address, and lists at least one tuple
    if (req.authorizationList !== undefined) {
      if (!common.isActivatedEIP(7702))
        return { kind: 'invalid', reason: 'INVALID_TRANSACTION_FORMAT', message: `Transaction type DELEGATE_CODE is invalid before Prague (${common.hardfork()})` };
      if (isCreate) return { kind: 'invalid', reason: 'INVALID_TRANSACTION_FORMAT', message: 'transaction code delegation transactions must have a to address' };
      if (authorizations.length === 0) return { kind: 'invalid', reason: 'INVALID_TRANSACTION_FORMAT', message: 'transaction code delegation transactions must have a non-empty code delegation list' };
    }
    const intrinsic = intrinsicGas(common, data, isCreate, req.accessList ?? []) + PER_EMPTY_ACCOUNT_COST * BigInt(authorizations.length);
    // EIP-7623: calldata pays at least the floor; a gas limit below it is as invalid as one below the intrinsic cost
    const floor = calldataFloorGas(common, data);
    if (floor > gasLimit)
      return {
        kind: 'invalid',
        reason: 'INTRINSIC_GAS_EXCEEDS_GAS_LIMIT',
        message: `intrinsic gas cost ${floor > intrinsic ? floor : intrinsic} exceeds gas limit ${gasLimit}`,
      };
    if (intrinsic > gasLimit)
      return {
        kind: 'invalid',
        reason: 'INTRINSIC_GAS_EXCEEDS_GAS_LIMIT',
        message: `intrinsic gas cost ${intrinsic} exceeds gas limit ${gasLimit}`,
      };
    if (isCreate && common.isActivatedEIP(3860) && data.length > Number(common.param('maxInitCodeSize')))
      return { kind: 'invalid', reason: 'INITCODE_TOO_LARGE', message: `Initcode size of ${data.length} exceeds maximum size of ${common.param('maxInitCodeSize')}` };

    // validateForSender
    const upfront = gasLimit * maxGasPrice + blobGas * maxFeePerBlobGas + value;
    if (!p.allowUnderpriced && upfront > account.balance)
      return {
        kind: 'invalid',
        reason: 'UPFRONT_COST_EXCEEDS_BALANCE',
        message: `transaction up-front cost 0x${upfront.toString(16)} exceeds transaction sender account balance 0x${account.balance.toString(16)} for sender ${sender}`,
      };
    if (nonce < account.nonce)
      return {
        kind: 'invalid',
        reason: 'NONCE_TOO_LOW',
        message: `transaction nonce ${nonce} below sender account nonce ${account.nonce} for sender ${sender}`,
      };
    if (!p.allowFutureNonce && nonce !== account.nonce)
      return {
        kind: 'invalid',
        reason: 'NONCE_TOO_HIGH',
        message: `transaction nonce ${nonce} does not match sender account nonce ${account.nonce} for sender ${sender}`,
      };

    // processing: the price paid, the up-front gas cost, the nonce (runCall increments it)
    const txPrice = is1559 ? min(maxFee, (baseFee ?? 0n) + maxPrio) : gasPrice;
    const acc = (await sm.getAccount(senderAddr)) ?? new Account();
    acc.nonce = nonce; // a future nonce given by the caller is what the "transaction" carries
    // the blob fee is paid at the blob base fee (zero for eth_call without strict pricing)
    const blobFee = blobGas > 0n && !p.allowExceedingBalance ? blobGas * blobBaseFeeAt(b.excessBlobGas ?? 0n, common.param('blobGasPriceUpdateFraction')) : 0n;
    const upfrontGas = gasLimit * txPrice + blobFee;
    acc.balance = acc.balance >= upfrontGas ? acc.balance - upfrontGas : 0n; // allowUnderpriced: underflow allowed
    await vm.evm.journal.putAccount(senderAddr, acc);

    const ctx = this.contextBlock(common, b, baseFee);
    this.chainLookup.parent = b.number > 0n ? { number: b.number - 1n, hash: b.parentHash } : undefined;
    const journal = vm.evm.journal;
    await journal.cleanup();
    if (opts.accessList) journal.startReportingAccessList();
    if (common.isActivatedEIP(2929)) {
      warmCallParties(vm, senderAddr.toString(), req.to);
      if (common.isActivatedEIP(3651)) journal.addAlwaysWarmAddress(b.coinbase);
      for (const e of req.accessList ?? []) {
        journal.addAlwaysWarmAddress(e.address, true);
        for (const k of e.storageKeys) journal.addAlwaysWarmSlot(e.address, k.slice(2), true);
      }
    }
    // EIP-7702: the transaction's nonce increment comes before its authorizations (a self-sponsored
    // tuple carries nonce + 1), so it is made here and the call below skips its own.
    let delegationRefund = 0n;
    if (authorizations.length > 0) {
      const bumped = (await sm.getAccount(senderAddr)) ?? new Account();
      bumped.nonce = nonce + 1n;
      await journal.putAccount(senderAddr, bumped);
      delegationRefund = await applyAuthorizations(vm, common, authorizations);
    }

    const tracer = opts.callTracer ? new CallTreeTracer((a) => vm.evm.precompiles.has(bytesToHex(a.bytes).slice(2))) : undefined;
    const lastOp = new Map<number, number>();
    const onStep = (step: InterpreterStep) => {
      lastOp.set(step.depth, step.opcode.code);
      tracer?.step(step);
    };
    const onBefore = (m: Message) => tracer?.before(m);
    const onAfter = (r: EVMResult) => tracer?.after(r);
    const events = vm.evm.events;
    // opcode of a halt (for "Invalid opcode: 0x.."): only tracked when tracing (step events are costly)
    if (tracer) {
      events?.on('step', onStep);
      events?.on('beforeMessage', onBefore);
      events?.on('afterMessage', onAfter);
    }
    let res: EVMResult;
    try {
      res = await vm.evm.runCall({
        block: ctx,
        caller: senderAddr,
        to: req.to ? createAddressFromString(req.to) : undefined,
        data,
        value,
        gasLimit: gasLimit - intrinsic,
        gasPrice: txPrice,
        origin: senderAddr,
        blobVersionedHashes: blobHashes,
        skipNonceIncrement: authorizations.length > 0,
      });
    } finally {
      if (tracer) {
        events?.removeListener('step', onStep);
        events?.removeListener('beforeMessage', onBefore);
        events?.removeListener('afterMessage', onAfter);
      }
    }
    const ex = res.execResult;
    const gasUsedBeforeRefund = intrinsic + ex.executionGasUsed;
    const error = ex.exceptionError?.error;
    const success = error === undefined;
    let refund = 0n;
    if (success) {
      const quotient = common.isActivatedEIP(3529) ? 5n : 2n;
      const cap = gasUsedBeforeRefund / quotient;
      refund = min((ex.gasRefund ?? 0n) + delegationRefund, cap);
    }
    const gasUsed = max(gasUsedBeforeRefund - refund, floor);
    let halt: string | undefined;
    let revertData: Uint8Array | undefined;
    if (error === 'revert') revertData = ex.returnValue;
    else if (error !== undefined) {
      let opcode: number | undefined = lastOp.get(0);
      if (error === 'invalid opcode' && opcode === undefined) opcode = haltingOpcode(ex);
      halt = haltDescription(error, opcode);
    }
    let accessList: AccessListEntry[] | undefined;
    if (opts.accessList) {
      accessList = [];
      for (const [address, slots] of journal.accessList ?? new Map<string, Set<string>>()) {
        if (slots.size === 0) continue;
        accessList.push({
          address: `0x${address}` as Hex,
          storageKeys: [...slots].map((s) => `0x${s.padStart(64, '0')}` as Hex).sort(),
        });
      }
    }
    // MainnetTransactionProcessor after the execution, needed only to report the state after it:
    // the sender gets its unused gas back, the beneficiary its fee, self-destructed accounts go
    // (from Cancun only those created by this call), and so do the empty accounts it touched.
    if (opts.stateDiff) {
      const payer = (await sm.getAccount(senderAddr)) ?? new Account();
      payer.balance += (gasLimit - gasUsed) * txPrice;
      await journal.putAccount(senderAddr, payer);
      const beneficiary = createAddressFromString(b.coinbase);
      const miner = (await sm.getAccount(beneficiary)) ?? new Account();
      miner.balance += gasUsed * max(baseFee === undefined ? txPrice : txPrice - baseFee, 0n);
      await journal.putAccount(beneficiary, miner);
      for (const address of ex.selfdestruct?.keys() ?? []) {
        if (common.isActivatedEIP(6780) && !ex.createdAddresses?.has(address)) continue;
        await journal.deleteAccount(createAddressFromString(address));
      }
      await journal.cleanup();
    }
    const createdAddress = res.createdAddress ? (res.createdAddress.toString().toLowerCase() as Hex) : undefined;
    const outcome: SimOutcome = {
      kind: 'executed',
      success,
      output: success || error === 'revert' ? ex.returnValue : new Uint8Array(0),
      gasLimit,
      gasUsedBeforeRefund,
      gasUsed,
      revertData,
      halt,
      createdAddress,
      accessList,
    };
    if (tracer)
      outcome.trace = tracer.root({
        isCreate,
        from: sender,
        to: isCreate ? (success ? createdAddress : undefined) : req.to,
        value,
        gas: gasLimit,
        gasUsed,
        input: data,
        output: ex.returnValue,
        error: success ? undefined : error === 'revert' ? 'execution reverted' : halt,
        revertData,
        refundCounter: ex.gasRefund ?? 0n,
        refundApplied: refund,
      });
    return outcome;
  }

  /**
   * Re-executes mined transactions: applies `txs[0..index)` of `block` on `parentRoot` the way the
   * engine does, then traces each wanted transaction (in order): its call tree, and with
   * `structLogs` the opcode tracer's result too.
   */
  /**
   * Re-executes consecutive blocks on `parentRoot` (the first block's parent state), one after the
   * other on the same state as Besu's trace_filter does (no block rewards in between), tracing the
   * wanted transactions and, with `stateDiff`, recording what each of them changed. `onBlock`
   * receives each block's transactions (undefined where not wanted); returning false stops the
   * replay there.
   */
  replayBlocks(
    parentRoot: Uint8Array,
    blocks: readonly ReplayBlock[],
    opts: {
      wanted: (block: number, tx: number) => boolean;
      stateDiff?: boolean;
      /** Run the opcode tracer (debug_trace*'s default) on the wanted transactions. */
      structLogs?: StructLogOptions;
      /** May answer later (a worker asks the node's thread): the replay waits for it. */
      onBlock: (block: number, replays: Array<TxReplay | undefined>) => boolean | void | Promise<boolean | void>;
    },
  ): Promise<void> {
    const first = blocks[0]?.header;
    if (!first) return Promise.resolve();
    return this.withState(parentRoot, first.number, first.timestamp, async (sm, vm) => {
      const common = vm.common;
      for (let bi = 0; bi < blocks.length; bi++) {
        const { header: block, parentHash, feeRecipient, txs } = blocks[bi]!;
        common.setHardforkBy({ blockNumber: block.number, timestamp: block.timestamp });
        const b: SimBlock = {
          stateRoot: parentRoot,
          number: block.number,
          timestamp: block.timestamp,
          gasLimit: block.gasLimit,
          baseFee: block.baseFeePerGas,
          coinbase: feeRecipient,
          difficulty: block.difficulty,
          mixHash: block.mixHash,
          parentHash,
          excessBlobGas: block.excessBlobGas,
        };
        const ctx = this.contextBlock(common, b, block.baseFeePerGas);
        this.chainLookup.parent = { number: block.number - 1n, hash: parentHash };
        // The block's own pre-execution writes (non-BFT chains), with its real beacon root.
        await preBlockSystemCalls(vm, new Block(block, [], [], undefined, { common: block.common, skipConsensusFormatValidation: true }));
        const replays: Array<TxReplay | undefined> = [];
        let blockGasUsed = 0n;
        for (let i = 0; i < txs.length; i++) {
          const tx = txs[i]!;
          useFastCrypto(tx);
          const traced = opts.wanted(bi, i);
          const tracer = traced ? new CallTreeTracer((a) => vm.evm.precompiles.has(bytesToHex(a.bytes).slice(2))) : undefined;
          const recorder = traced && opts.stateDiff ? new StateChangeRecorder(sm) : undefined;
          const detach = recorder?.attach();
          const events = vm.evm.events;
          const logger = traced && opts.structLogs ? new StructLogger(opts.structLogs) : undefined;
          const onStep = (s: InterpreterStep) => {
            tracer?.step(s);
            logger?.step(s);
          };
          const onBefore = (m: Message) => {
            tracer?.before(m);
            logger?.enter();
          };
          const onAfter = (r: EVMResult) => {
            tracer?.after(r);
            const error = r.execResult.exceptionError?.error;
            logger?.exit(error === undefined ? undefined : haltReasonName(error));
          };
          if (tracer) {
            events?.on('step', onStep);
            events?.on('beforeMessage', onBefore);
            events?.on('afterMessage', onAfter);
          }
          let res;
          try {
            res = await runTx(vm, { tx, block: ctx, blockGasUsed, skipHardForkValidation: true });
          } finally {
            detach?.();
            if (tracer) {
              events?.removeListener('step', onStep);
              events?.removeListener('beforeMessage', onBefore);
              events?.removeListener('afterMessage', onAfter);
            }
          }
          blockGasUsed += res.totalGasSpent;
          if (!tracer) {
            replays.push(undefined);
            continue;
          }
          const ex = res.execResult;
          const error = ex.exceptionError?.error;
          const created = res.createdAddress ? (res.createdAddress.toString().toLowerCase() as Hex) : undefined;
          const refundCounter = ex.gasRefund ?? 0n;
          const gasLeft = tracer.rootGasLeft();
          const frame = tracer.root({
            isCreate: tx.to === undefined,
            from: tx.getSenderAddress().toString().toLowerCase() as Hex,
            to: tx.to === undefined ? (error === undefined ? created : undefined) : (tx.to.toString().toLowerCase() as Hex),
            value: tx.value,
            gas: tx.gasLimit,
            gasUsed: res.totalGasSpent,
            input: tx.data,
            output: ex.returnValue,
            error: error === undefined ? undefined : error === 'revert' ? 'execution reverted' : haltDescription(error, tracer.lastOpcodeAt(0)),
            revertData: error === 'revert' ? ex.returnValue : undefined,
            refundCounter,
            refundApplied: error === undefined ? min(refundCounter, (tx.gasLimit - gasLeft) / refundQuotient(common)) : 0n,
          });
          replays.push({
            frame,
            success: error === undefined,
            output: ex.returnValue,
            stateChanges: recorder ? await recorder.changes() : undefined,
            structLog: logger?.result(res.totalGasSpent, error !== undefined, ex.returnValue),
          });
        }
        if ((await opts.onBlock(bi, replays)) === false) break;
      }
    });
  }
}

/** EIP-3529 (London) lowered the most a refund may return from half the gas used to a fifth. */
function refundQuotient(common: Common): bigint {
  return common.isActivatedEIP(3529) ? 5n : 2n;
}

function minimal(v: bigint): Uint8Array {
  const w = uint256ToBytes(v);
  let i = 0;
  while (i < 32 && w[i] === 0) i++;
  return w.subarray(i);
}

/** TransactionSimulator.applyOverrides (nonce, balance, code, state = clear + set, stateDiff = set). */
/**
 * Besu's SimulationTransactionProcessorFactory.overridePrecompileAddresses: for this simulation the
 * EVM's precompile table maps each moved precompile to its new address. Returns the undo.
 */
export function movePrecompiles(vm: VM, overrides: StateOverride[]): () => void {
  const moves = overrides.filter((o) => o.movePrecompileToAddress !== undefined);
  if (moves.length === 0) return () => {};
  const evm = vm.evm as unknown as { _precompiles: Map<string, unknown> };
  const original = evm._precompiles;
  const key = (address: Hex) => address.slice(2).toLowerCase().padStart(40, '0');
  const table = new Map<string, unknown>();
  for (const o of moves) {
    const fn = original.get(key(o.address));
    if (fn === undefined) throw new PrecompileOverrideError(`Address ${o.address.toLowerCase()} is not a precompile.`);
    table.set(key(o.movePrecompileToAddress!), fn);
  }
  const moved = new Set(moves.map((o) => key(o.address)));
  for (const [address, fn] of original) if (!moved.has(address)) table.set(address, fn);
  evm._precompiles = table;
  return () => {
    evm._precompiles = original;
  };
}

export async function applyOverride(sm: MerkleStateManager, o: StateOverride): Promise<void> {
  const address = createAddressFromString(o.address);
  const account = (await sm.getAccount(address)) ?? new Account();
  if (o.nonce !== undefined) account.nonce = o.nonce;
  if (o.balance !== undefined) account.balance = o.balance;
  await sm.putAccount(address, account);
  if (o.code !== undefined) await sm.putCode(address, o.code);
  if (o.state !== undefined) {
    await sm.clearStorage(address);
    for (const [k, v] of o.state) await sm.putStorage(address, uint256ToBytes(k), minimal(v));
  }
  if (o.stateDiff !== undefined) for (const [k, v] of o.stateDiff) await sm.putStorage(address, uint256ToBytes(k), minimal(v));
}

export function haltingOpcode(ex: EVMResult['execResult']): number | undefined {
  const rs = ex.runState as unknown as { code?: Uint8Array; programCounter?: number } | undefined;
  if (!rs?.code || rs.programCounter === undefined) return undefined;
  // an invalid opcode is rejected before the program counter advances
  return rs.code[rs.programCounter];
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

/** EIP-7623's calldata floor (0 before Prague): 21000 + 10 per token, a zero byte one token, any other four. */
export function calldataFloorGas(common: Common, data: Uint8Array): bigint {
  if (!common.isActivatedEIP(7623)) return 0n;
  let tokens = 0n;
  for (const byte of data) tokens += byte === 0 ? 1n : 4n;
  return 21_000n + 10n * tokens;
}

/** Intrinsic gas of a transaction-like call (Besu GasCalculator.transactionIntrinsicGasCost). */
export { intrinsicGas };

const EMPTY = new Uint8Array(0);

function lowerAddress(a: { toString(): string }): Hex {
  return a.toString().toLowerCase() as Hex;
}

/** The low 20 bytes of a stack word, as an address. */
function wordToAddress(word: bigint): Hex {
  return `0x${(word & ((1n << 160n) - 1n)).toString(16).padStart(40, '0')}`;
}

/** Builds Besu's callTracer tree from EVM message events, with the facts flat traces need. */
class CallTreeTracer {
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

/** Besu CallTracerResult JSON (property order of its @JsonPropertyOrder; absent fields omitted). */
export function formatCallFrame(f: CallFrame, decodeReason: (hex: string) => string | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { from: f.from, gas: `0x${f.gas.toString(16)}`, gasUsed: `0x${f.gasUsed.toString(16)}` };
  if (f.to !== undefined) out.to = f.to;
  out.input = bytesToHex(f.input);
  if (f.output !== undefined) out.output = bytesToHex(f.output);
  if (f.error !== undefined) out.error = f.error;
  if (f.error === 'execution reverted') {
    const reason = f.output ? decodeReason(bytesToHex(f.output)) : f.revertReason ? decodeReason(bytesToHex(f.revertReason)) : undefined;
    if (reason !== undefined && reason !== 'ABI decode error') out.revertReason = reason;
    else if (f.revertReason) out.revertReason = bytesToHex(f.revertReason);
  }
  if (f.calls.length > 0) out.calls = f.calls.map((c) => formatCallFrame(c, decodeReason));
  if (f.value !== undefined) out.value = `0x${f.value.toString(16)}`;
  out.type = f.type;
  return out;
}


/** One block's wanted transactions re-executed on its parent's state (replayBlocks of one block). */
export async function replayOneBlock(
  simulator: Pick<SimulatorPort, 'replayBlocks'>,
  block: BlockHeader,
  parentRoot: Uint8Array,
  parentHash: Uint8Array,
  feeRecipient: Hex,
  txs: TypedTransaction[],
  wanted: (i: number) => boolean,
  extra: { structLogs?: StructLogOptions } = {},
): Promise<Array<TxReplay | undefined>> {
  let out: Array<TxReplay | undefined> = [];
  await simulator.replayBlocks(parentRoot, [{ header: block, parentHash, feeRecipient, txs }], {
    wanted: (_b, i) => wanted(i),
    structLogs: extra.structLogs,
    onBlock: (_b, replays) => {
      out = replays;
    },
  });
  return out;
}
