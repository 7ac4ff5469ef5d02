/**
 * Besu's BlockSimulator for eth_simulateV1 (besu: ethereum/core/.../transaction/BlockSimulator.java,
 * BlockStateCallSimulationResult.java, BlockSimulationResult.java).
 *
 * The blocks (already numbered and timed: BlockStateCalls.fillBlockStateCalls, done by the method)
 * run one after the other on one state, starting from the base block's:
 * - header: number and time as given; coinbase = feeRecipient or the parent's coinbase; difficulty
 *   and gas limit the override or the parent's; prevRandao and parent beacon root the override or
 *   zero; base fee the override, else the parent's successor's with `validation`, else zero; excess
 *   blob gas from the parent.
 * - state overrides, then precompile moves (for this block only), then the pre-execution system
 *   calls (EIP-4788, EIP-2935), the calls, EIP-7685 requests, and the block reward;
 * - the block's gas is the rpc gas cap less what earlier blocks used, at most its gas limit; each
 *   call gets its own gas, or what is left (at most the cap);
 * - the finished header: roots of what ran, the state root (or its override), and its hash (or the
 *   `hash` override); BLOCKHASH sees the blocks made so far, then the chain.
 *
 * Everything in and out is plain data (bigints, bytes, plain objects), so a worker thread can run it.
 */
import { createBlockHeader, Block, type BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { createTx, type TypedTransaction } from '@ethereumjs/tx';
import { Account, KECCAK256_RLP, KECCAK256_RLP_ARRAY, SHA256_NULL, bigIntToUnpaddedBytes, createAddressFromString } from '@ethereumjs/util';
import { Bloom, type TxReceipt, type VM } from '@ethereumjs/vm';
import { hexToBytes, type Hex } from '../../crypto/bytes.ts';
import { computeBaseFee, receiptsRoot, transactionsRoot } from '../engine.ts';
import { collectRequests, preBlockSystemCalls, requestsHash } from '../system-calls.ts';
import { blobBaseFeeAt } from '../blob-fees.ts';
import type { RawLog } from '../tracers/transfer-log.ts';
import type { CallRequest } from './call-types.ts';
import {
  SIMULATION_ERRORS,
  SimulationError,
  TX_TYPE,
  buildTransaction,
  executeTransaction,
  validateTransaction,
  type CallEnv,
  type ExecutedCall,
  type SimulatedTransaction,
} from './simulated-call.ts';
import { PrecompileOverrideError, applyOverride, movePrecompiles, type StateOverride } from './state-override.ts';

/** The block the simulation starts from. */
export interface SimulationBase {
  stateRoot: Uint8Array;
  /** Its hash as the chain knows it (the QBFT on-chain hash on a BFT chain). */
  hash: Uint8Array;
  number: bigint;
  timestamp: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  baseFee?: bigint;
  coinbase: Hex;
  difficulty: bigint;
  excessBlobGas?: bigint;
  blobGasUsed?: bigint;
}

/** Besu BlockOverrides, with number and time always set. */
export interface SimulatedBlockOverrides {
  number: bigint;
  timestamp: bigint;
  gasLimit?: bigint;
  feeRecipient?: Hex;
  prevRandao?: Uint8Array;
  baseFee?: bigint;
  blobBaseFee?: bigint;
  difficulty?: bigint;
  extraData?: Uint8Array;
  stateRoot?: Uint8Array;
  hash?: Uint8Array;
  parentBeaconBlockRoot?: Uint8Array;
}

export interface BlockStateCall {
  overrides: SimulatedBlockOverrides;
  stateOverrides?: StateOverride[];
  calls: CallRequest[];
  /** The block reward (proof of work's, or the BFT one), credited to the coinbase after the calls. */
  rewardWei: bigint;
  /** Who takes the fees without a feeRecipient override (the BFT mining beneficiary); default the coinbase. */
  beneficiary?: Hex;
}

export interface SimulateBlocksRequest {
  base: SimulationBase;
  blocks: BlockStateCall[];
  validation: boolean;
  traceTransfers: boolean;
  /** The rpc gas cap (0: none). */
  gasCap: bigint;
  chainId: bigint;
  /** EIP-6110's deposit contract (chains without a BFT section). */
  depositContract: Hex;
  /** The base fee of the first London block, when the parent has none. */
  initialBaseFee: bigint;
}

/** Header fields of a simulated block (present as the fork has them). */
export interface SimulatedHeader {
  parentHash: Uint8Array;
  uncleHash: Uint8Array;
  coinbase: Hex;
  stateRoot: Uint8Array;
  transactionsTrie: Uint8Array;
  receiptTrie: Uint8Array;
  logsBloom: Uint8Array;
  difficulty: bigint;
  number: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  timestamp: bigint;
  extraData: Uint8Array;
  mixHash: Uint8Array;
  nonce: Uint8Array;
  baseFeePerGas?: bigint;
  withdrawalsRoot?: Uint8Array;
  blobGasUsed?: bigint;
  excessBlobGas?: bigint;
  parentBeaconBlockRoot?: Uint8Array;
  requestsHash?: Uint8Array;
}

export interface SimulatedLog {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

export interface SimulatedCallResult {
  success: boolean;
  returnData: Uint8Array;
  gasUsed: bigint;
  maxUsedGas: bigint;
  revertData?: Uint8Array;
  /** Besu's ExceptionalHaltReason description. */
  halt?: string;
  logs: SimulatedLog[];
}

export interface SimulatedBlock {
  header: SimulatedHeader;
  hash: Uint8Array;
  /** Bytes of the block's RLP. */
  size: number;
  transactions: Array<SimulatedTransaction & { hash: Uint8Array }>;
  calls: SimulatedCallResult[];
  /** Present (empty) from Shanghai on. */
  withdrawals?: [];
}

export type SimulateBlocksResult = { blocks: SimulatedBlock[] } | { error: { code: number; message: string } };

const ZERO32 = new Uint8Array(32);
const ZERO_ADDRESS: Hex = '0x0000000000000000000000000000000000000000';

/** The parent a block is built on: the base, then each simulated block. */
interface Parent {
  hash: Uint8Array;
  number: bigint;
  coinbase: Hex;
  difficulty: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  baseFee?: bigint;
  excessBlobGas?: bigint;
  blobGasUsed?: bigint;
}

/** What the simulator lends a run: its VM on the base state, and where BLOCKHASH finds simulated blocks. */
export interface SimulationVm {
  vm: VM;
  sm: MerkleStateManager;
  simulatedHashes: Map<bigint, Uint8Array>;
}

/** Runs the blocks; a failure Besu reports as a JSON-RPC error comes back as `error`. */
export async function simulateBlocksOn(env: SimulationVm, req: SimulateBlocksRequest): Promise<SimulateBlocksResult> {
  try {
    const blocks: SimulatedBlock[] = [];
    let parent: Parent = { ...req.base };
    let gasSoFar = 0n;
    for (const call of req.blocks) {
      const { block, next } = await simulateBlock(env, req, call, parent, gasSoFar);
      blocks.push(block);
      env.simulatedHashes.set(block.header.number, block.hash);
      gasSoFar += block.header.gasUsed;
      parent = next;
    }
    return { blocks };
  } catch (err) {
    if (err instanceof SimulationError) return { error: { code: err.code, message: err.message } };
    if (err instanceof PrecompileOverrideError) return { error: { code: SIMULATION_ERRORS.INVALID_PRECOMPILE_ADDRESS, message: err.message } };
    throw err;
  }
}

async function simulateBlock(env: SimulationVm, req: SimulateBlocksRequest, call: BlockStateCall, parent: Parent, gasSoFar: bigint) {
  const { vm, sm } = env;
  const o = call.overrides;
  const common = vm.common;
  common.setHardforkBy({ blockNumber: o.number, timestamp: o.timestamp });
  const fields = openHeader(common, req, call, parent);
  await applyStateOverrides(sm, call.stateOverrides ?? []);
  const precompileAddresses = [...vm.evm.precompiles.keys()];
  const restore = movePrecompiles(vm, call.stateOverrides ?? []);
  try {
    const feeRecipient = o.feeRecipient ?? call.beneficiary ?? fields.coinbase;
    const blobGasPrice = blobGasPriceOf(common, req, o, fields.excessBlobGas);
    const ctx = contextBlock(common, fields, feeRecipient, blobGasPrice);
    await preBlockSystemCalls(vm, ctx);
    const cap = blockGasBudget(req.gasCap, gasSoFar, fields.gasLimit);
    const callEnv: CallEnv = {
      vm,
      sm,
      common,
      ctx,
      feeRecipient: createAddressFromString(feeRecipient),
      baseFee: fields.baseFeePerGas,
      blobGasPrice,
      precompileAddresses,
      chainId: req.chainId,
      validation: req.validation,
      traceTransfers: req.traceTransfers,
    };
    const body = await runCalls(callEnv, call.calls, cap, req.gasCap);
    const requests = common.isActivatedEIP(7685) ? requestsHash(await collectRequests(vm, ctx, body.receipts, req.depositContract)) : undefined;
    if (call.rewardWei > 0n) await credit(sm, fields.coinbase, call.rewardWei);
    const stateRoot = o.stateRoot ?? (await sm.getStateRoot());
    return finishBlock(common, fields, body, stateRoot, requests, o.hash);
  } finally {
    restore();
  }
}

type OpenHeader = Omit<SimulatedHeader, 'stateRoot' | 'transactionsTrie' | 'receiptTrie' | 'logsBloom' | 'gasUsed' | 'blobGasUsed' | 'requestsHash'>;

/** BlockSimulator.overrideBlockHeader. */
function openHeader(common: Common, req: SimulateBlocksRequest, call: BlockStateCall, parent: Parent): OpenHeader {
  const o = call.overrides;
  const fields: OpenHeader = {
    parentHash: parent.hash,
    uncleHash: KECCAK256_RLP_ARRAY,
    coinbase: o.feeRecipient ?? parent.coinbase,
    difficulty: o.difficulty ?? parent.difficulty,
    number: o.number,
    gasLimit: o.gasLimit ?? parent.gasLimit,
    timestamp: o.timestamp,
    extraData: o.extraData ?? new Uint8Array(0),
    mixHash: o.prevRandao ?? ZERO32,
    nonce: new Uint8Array(8),
  };
  if (common.isActivatedEIP(1559)) fields.baseFeePerGas = o.baseFee ?? (req.validation ? nextBaseFee(parent, req.initialBaseFee) : 0n);
  if (common.isActivatedEIP(4895)) fields.withdrawalsRoot = KECCAK256_RLP;
  if (common.isActivatedEIP(4844)) {
    fields.parentBeaconBlockRoot = o.parentBeaconBlockRoot ?? ZERO32;
    fields.excessBlobGas = nextExcessBlobGas(parent, common);
  }
  return fields;
}

function nextBaseFee(parent: Parent, initialBaseFee: bigint): bigint {
  if (parent.baseFee === undefined) return initialBaseFee;
  return computeBaseFee(parent.baseFee, parent.gasUsed, parent.gasLimit);
}

/** The excess blob gas after `parent` (EIP-4844, with Osaka's EIP-7918 bound), under the child's fork. */
function nextExcessBlobGas(parent: Parent, child: Common): bigint {
  const excess = parent.excessBlobGas ?? 0n;
  const used = parent.blobGasUsed ?? 0n;
  const { targetBlobGasPerBlock: target, maxBlobGasPerBlock: max } = child.getBlobGasSchedule();
  if (excess + used < target) return 0n;
  if (child.isActivatedEIP(7918)) {
    const blobFee = blobBaseFeeAt(excess, child.param('blobGasPriceUpdateFraction'));
    if (child.param('blobBaseCost') * (parent.baseFee ?? 0n) > child.param('blobGasPerBlob') * blobFee) return excess + (used * (max - target)) / max;
  }
  return excess + used - target;
}

/** BlockSimulator.getBlobGasPricePerGasSupplier: the override, zero without validation, else the fee market's. */
function blobGasPriceOf(common: Common, req: SimulateBlocksRequest, o: SimulatedBlockOverrides, excessBlobGas: bigint | undefined): bigint {
  if (o.blobBaseFee !== undefined) return o.blobBaseFee;
  if (!req.validation || !common.isActivatedEIP(4844)) return 0n;
  return blobBaseFeeAt(excessBlobGas ?? 0n, common.param('blobGasPriceUpdateFraction'));
}

/** BlockSimulator.calculateSimulationGasCap: what the cap leaves after earlier blocks, at most the gas limit. */
function blockGasBudget(gasCap: bigint, gasSoFar: bigint, gasLimit: bigint): bigint {
  if (gasCap <= 0n) return gasLimit;
  const left = gasCap > gasSoFar ? gasCap - gasSoFar : 0n;
  return left < gasLimit ? left : gasLimit;
}

/** TransactionSimulator.calculateSimulationGasCap for one call. */
function callGasLimit(given: bigint | undefined, remaining: bigint, gasCap: bigint): bigint {
  if (given !== undefined) return gasCap > 0n && given > gasCap ? gasCap : given;
  return gasCap > 0n && gasCap < remaining ? gasCap : remaining;
}

/** BlockSimulator.applyStateOverrides: accounts with something to set (a move alone creates none). */
async function applyStateOverrides(sm: MerkleStateManager, overrides: StateOverride[]): Promise<void> {
  for (const o of overrides) {
    const hasAccountFields = o.nonce !== undefined || o.balance !== undefined || o.code !== undefined || o.state !== undefined || o.stateDiff !== undefined;
    if (hasAccountFields) await applyOverride(sm, o);
  }
}

/** The EVM's view of the block: COINBASE is the fee recipient, BLOBBASEFEE what blob gas costs here. */
function contextBlock(common: Common, h: OpenHeader, feeRecipient: Hex, blobGasPrice: bigint): Block {
  const header = createBlockHeader(
    { ...h, coinbase: feeRecipient, blobGasUsed: h.excessBlobGas === undefined ? undefined : 0n } as never,
    { common, skipConsensusFormatValidation: true, freeze: false },
  );
  // Besu's BLOBBASEFEE reads the simulation's blob gas price (zero without validation), not the excess
  (header as { getBlobGasPrice: () => bigint }).getBlobGasPrice = () => blobGasPrice;
  return new Block(header, [], [], undefined, { common, skipConsensusFormatValidation: true });
}

interface BlockBody {
  executed: ExecutedCall[];
  receipts: TxReceipt[];
  gasUsed: bigint;
  blobGasUsed: bigint;
  bloom: Uint8Array;
}

/** BlockSimulator.processTransactions. */
async function runCalls(env: CallEnv, calls: CallRequest[], blockGas: bigint, gasCap: bigint): Promise<BlockBody> {
  const executed: ExecutedCall[] = [];
  const receipts: TxReceipt[] = [];
  const bloom = new Bloom(undefined, env.common);
  let gasUsed = 0n;
  let blobGasUsed = 0n;
  for (const call of calls) {
    const remaining = blockGas > gasUsed ? blockGas - gasUsed : 0n;
    if (call.gas !== undefined && call.gas > remaining) throw new SimulationError(SIMULATION_ERRORS.BLOCK_GAS_LIMIT_EXCEEDED, 'Transaction gas exceeds block gas limit');
    const from = call.from ?? ZERO_ADDRESS;
    const account = (await env.sm.getAccount(createAddressFromString(from))) ?? new Account();
    const tx = buildTransaction(call, from, call.nonce ?? account.nonce, callGasLimit(call.gas, remaining, gasCap), env.baseFee, env.chainId);
    validateTransaction(env, tx, account);
    const done = await executeTransaction(env, tx);
    gasUsed += done.gasUsed;
    blobGasUsed += done.blobGasUsed;
    const receipt = await receiptOf(env, done, gasUsed);
    bloom.or(new Bloom(receipt.bitvector, env.common));
    receipts.push(receipt);
    executed.push(done);
  }
  return { executed, receipts, gasUsed, blobGasUsed, bloom: bloom.bitvector };
}

/** The transaction's receipt (before Byzantium: the state root after it instead of a status). */
async function receiptOf(env: CallEnv, done: ExecutedCall, cumulativeGasUsed: bigint): Promise<TxReceipt> {
  const bloom = new Bloom(undefined, env.common);
  for (const [address, topics] of done.receiptLogs) {
    bloom.add(address);
    for (const t of topics) bloom.add(t);
  }
  const base = { cumulativeBlockGasUsed: cumulativeGasUsed, bitvector: bloom.bitvector, logs: done.receiptLogs };
  if (env.common.gteHardfork('byzantium')) return { ...base, status: done.success ? 1 : 0 } as TxReceipt;
  return { ...base, stateRoot: await env.sm.getStateRoot() } as TxReceipt;
}

async function credit(sm: MerkleStateManager, address: Hex, amountWei: bigint): Promise<void> {
  const to = createAddressFromString(address);
  const account = (await sm.getAccount(to)) ?? new Account();
  account.balance += amountWei;
  await sm.putAccount(to, account);
}

/** BlockSimulator.createFinalBlock: the header, its hash, the transactions, the call results. */
function finishBlock(common: Common, open: OpenHeader, body: BlockBody, stateRoot: Uint8Array, requests: Uint8Array | undefined, hashOverride: Uint8Array | undefined) {
  const txs = body.executed.map((e) => ethereumjsTransaction(common, e.tx));
  const header: SimulatedHeader = {
    ...open,
    stateRoot,
    transactionsTrie: transactionsRoot(txs),
    receiptTrie: receiptsRoot(txs, body.receipts),
    logsBloom: body.bloom,
    gasUsed: body.gasUsed,
  };
  if (open.excessBlobGas !== undefined) header.blobGasUsed = body.blobGasUsed;
  if (common.isActivatedEIP(7685)) header.requestsHash = requests ?? SHA256_NULL;
  const built = createBlockHeader(header as never, { common, skipConsensusFormatValidation: true });
  const hash = hashOverride ?? built.hash();
  const withdrawals = common.isActivatedEIP(4895) ? ([] as []) : undefined;
  const block: SimulatedBlock = {
    header,
    hash,
    size: blockSize(built, txs, withdrawals !== undefined),
    transactions: body.executed.map((e, i) => ({ ...e.tx, hash: txs[i]!.hash() })),
    calls: body.executed.map(callResultOf),
  };
  if (withdrawals) block.withdrawals = withdrawals;
  const next: Parent = { ...header, hash, baseFee: header.baseFeePerGas };
  return { block, next };
}

function blockSize(header: BlockHeader, txs: TypedTransaction[], withWithdrawals: boolean): number {
  const body = txs.map((tx) => (tx.type === TX_TYPE.frontier ? tx.raw() : tx.serialize()));
  const parts: unknown[] = [header.raw(), body, []];
  if (withWithdrawals) parts.push([]);
  return RLP.encode(parts as never).length;
}

function callResultOf(e: ExecutedCall): SimulatedCallResult {
  const logs = (e.transferLogs ?? e.receiptLogs).map(([address, topics, data]: RawLog) => ({ address, topics, data }));
  return { success: e.success, returnData: e.output, gasUsed: e.gasUsed, maxUsedGas: e.maxUsedGas, revertData: e.revertData, halt: e.halt, logs };
}

/**
 * The transaction as bytes, for its hash and the roots: signature (r 0, s 0, recId 0), so v is 27 for
 * a legacy one (no chain id) and 0 (yParity) for typed ones.
 */
function ethereumjsTransaction(common: Common, tx: SimulatedTransaction): TypedTransaction {
  const data = {
    type: tx.type,
    // the library refuses a nonce of 2^64-1 and gas limits over EIP-7825's cap at construction;
    // Besu's simulation allows both, so they are set afterwards
    nonce: 0n,
    gasLimit: 0n,
    to: tx.to,
    value: tx.value,
    data: tx.data,
    gasPrice: tx.type < TX_TYPE.eip1559 ? (tx.gasPrice ?? 0n) : undefined,
    maxFeePerGas: tx.maxFeePerGas,
    maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
    maxFeePerBlobGas: tx.maxFeePerBlobGas,
    accessList: tx.type === TX_TYPE.frontier ? undefined : (tx.accessList ?? []).map((e) => ({ address: e.address, storageKeys: e.storageKeys })),
    blobVersionedHashes: tx.type === TX_TYPE.blob ? tx.blobVersionedHashes : undefined,
    authorizationList: tx.authorizationList?.map((a) => [a.chainId, hexToBytes(a.address), a.nonce, BigInt(a.yParity), a.r, a.s].map((v) => (typeof v === 'bigint' ? bigIntToUnpaddedBytes(v) : v))),
    chainId: tx.chainId,
    v: tx.type === TX_TYPE.frontier ? 27n : 0n,
    r: 0n,
    s: 0n,
  };
  const built = createTx(data as never, { common, freeze: false });
  Object.assign(built, { nonce: tx.nonce, gasLimit: tx.gasLimit });
  return built;
}

