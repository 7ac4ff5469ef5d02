/**
 * One call run as Besu's TransactionSimulator.process runs it through MainnetTransactionProcessor
 * (besu: ethereum/core/.../transaction/TransactionSimulator.java,
 * mainnet/MainnetTransactionProcessor.java; snapshot 3fd224e2), on a VM whose state the caller
 * has positioned at the block's state inside a journal checkpoint (transaction-simulator.ts):
 * state overrides, validation (call-validation.ts), the up-front charge, warm addresses and
 * EIP-7702 authorizations, the EVM run, and gas used before and after the refund. It reports a
 * validation failure (reason name and message, e.g. NONCE_TOO_LOW "transaction nonce 2 below
 * sender account nonce 34 for sender 0x…"), or an execution result (success, output, gas used
 * before and after the refund, revert data or Besu's halt description), with the access list,
 * call tree and state changes when asked.
 */
import { Block, createBlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { EVMResult, InterpreterStep } from '@ethereumjs/evm';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, KECCAK256_RLP, createAddressFromString, type Address } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { bytesToHex, type Hex } from '../../crypto/bytes.ts';
import { applyAuthorizations } from '../code-delegation.ts';
import { CallTreeTracer } from '../tracers/call-tracer.ts';
import { listenToEvm } from '../tracers/evm-events.ts';
import { StateChangeRecorder } from '../tracers/state-changes.ts';
import { warmCallParties } from '../vm-state.ts';
import type { AccessListEntry, CallBlockContext, CallOptions, CallOutcome, CallRequest, ExecutedCallOutcome } from './call-types.ts';
import { validateCall, type ValidCall } from './call-validation.ts';
import { haltDescription, haltingOpcode } from './halt-reasons.ts';
import { applyOverride, movePrecompiles } from './state-override.ts';

const ZERO32 = new Uint8Array(32);

/** The EVM's view of block `b` (with the base fee the call runs under). */
export function callContextBlock(common: Common, b: CallBlockContext, baseFee: bigint | undefined): Block {
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

/** Runs `req` in block `b` with its state overrides (and the state changes recorded when asked). */
export async function runCall(vm: VM, sm: MerkleStateManager, b: CallBlockContext, req: CallRequest, gasLimit: bigint, opts: CallOptions): Promise<CallOutcome> {
  const restore = movePrecompiles(vm, opts.overrides ?? []);
  try {
    for (const o of opts.overrides ?? []) await applyOverride(sm, o);
    const recorder = opts.stateDiff ? new StateChangeRecorder(sm) : undefined;
    const detach = recorder?.attach();
    try {
      const outcome = await validateAndRun(vm, sm, b, req, gasLimit, opts);
      if (recorder && outcome.kind === 'executed') outcome.stateChanges = await recorder.changes();
      return outcome;
    } finally {
      detach?.();
    }
  } finally {
    restore();
  }
}

async function validateAndRun(vm: VM, sm: MerkleStateManager, b: CallBlockContext, req: CallRequest, gasLimit: bigint, opts: CallOptions): Promise<CallOutcome> {
  const common = vm.common;
  const senderAddr = createAddressFromString(req.from ?? '0x0000000000000000000000000000000000000000');
  const account = (await sm.getAccount(senderAddr)) ?? new Account();
  const call = validateCall(common, b, req, gasLimit, opts.params, account);
  if ('kind' in call) return call;
  await chargeSender(vm, sm, senderAddr, call);
  const ctx = callContextBlock(common, b, call.baseFee);
  const delegationRefund = await openCall(vm, sm, senderAddr, b, req, call, opts);
  const tracer = opts.callTracer ? new CallTreeTracer((a) => vm.evm.precompiles.has(bytesToHex(a.bytes).slice(2))) : undefined;
  const lastOp = new Map<number, number>();
  const res = await execute(vm, ctx, senderAddr, req, call, tracer, lastOp);
  const { outcome, refund } = outcomeOf(common, call, res, delegationRefund, lastOp);
  if (opts.accessList) outcome.accessList = accessListOf(vm);
  if (opts.stateDiff) await settleForStateDiff(vm, sm, senderAddr, b, call, res, outcome.gasUsed);
  if (tracer) outcome.trace = rootFrame(tracer, req, call, res, outcome, refund);
  return outcome;
}

/** The price of the gas limit and the blob fee, up front; the nonce the "transaction" carries (runCall increments it). */
async function chargeSender(vm: VM, sm: MerkleStateManager, senderAddr: Address, call: ValidCall): Promise<void> {
  const acc = (await sm.getAccount(senderAddr)) ?? new Account();
  acc.nonce = call.nonce; // a future nonce given by the caller is what the "transaction" carries
  const upfrontGas = call.gasLimit * call.txPrice + call.blobFeeWei;
  acc.balance = acc.balance >= upfrontGas ? acc.balance - upfrontGas : 0n; // allowUnderpriced: underflow allowed
  await vm.evm.journal.putAccount(senderAddr, acc);
}

/** Warm addresses and slots (EIP-2929/2930/3651), access list reporting, then EIP-7702's tuples; returns their refund. */
async function openCall(vm: VM, sm: MerkleStateManager, senderAddr: Address, b: CallBlockContext, req: CallRequest, call: ValidCall, opts: CallOptions): Promise<bigint> {
  const common = vm.common;
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
  if (call.authorizations.length === 0) return 0n;
  const bumped = (await sm.getAccount(senderAddr)) ?? new Account();
  bumped.nonce = call.nonce + 1n;
  await journal.putAccount(senderAddr, bumped);
  return applyAuthorizations(vm, common, call.authorizations);
}

/** The EVM run, traced when asked (step events are costly, so the halting opcode is tracked only then). */
async function execute(vm: VM, ctx: Block, senderAddr: Address, req: CallRequest, call: ValidCall, tracer: CallTreeTracer | undefined, lastOp: Map<number, number>): Promise<EVMResult> {
  const detach = tracer
    ? listenToEvm(vm, {
        step: (step: InterpreterStep) => {
          lastOp.set(step.depth, step.opcode.code);
          tracer.step(step);
        },
        before: (m) => tracer.before(m),
        after: (r) => tracer.after(r),
      })
    : undefined;
  try {
    return await vm.evm.runCall({
      block: ctx,
      caller: senderAddr,
      to: req.to ? createAddressFromString(req.to) : undefined,
      data: call.data,
      value: call.value,
      gasLimit: call.gasLimit - call.intrinsic,
      gasPrice: call.txPrice,
      origin: senderAddr,
      blobVersionedHashes: req.blobVersionedHashes,
      skipNonceIncrement: call.authorizations.length > 0,
    });
  } finally {
    detach?.();
  }
}

/** Gas used before and after the refund (EIP-3529's quotient, EIP-7623's floor), and how it ended. */
function outcomeOf(common: Common, call: ValidCall, res: EVMResult, delegationRefund: bigint, lastOp: Map<number, number>): { outcome: ExecutedCallOutcome; refund: bigint } {
  const ex = res.execResult;
  const gasUsedBeforeRefund = call.intrinsic + ex.executionGasUsed;
  const error = ex.exceptionError?.error;
  const success = error === undefined;
  let refund = 0n;
  if (success) {
    const cap = gasUsedBeforeRefund / (common.isActivatedEIP(3529) ? 5n : 2n);
    const allowance = (ex.gasRefund ?? 0n) + delegationRefund;
    refund = allowance < cap ? allowance : cap;
  }
  const afterRefund = gasUsedBeforeRefund - refund;
  let halt: string | undefined;
  if (error !== undefined && error !== 'revert') {
    let opcode: number | undefined = lastOp.get(0);
    if (error === 'invalid opcode' && opcode === undefined) opcode = haltingOpcode(ex);
    halt = haltDescription(error, opcode);
  }
  const outcome: ExecutedCallOutcome = {
    kind: 'executed',
    success,
    output: success || error === 'revert' ? ex.returnValue : new Uint8Array(0),
    gasLimit: call.gasLimit,
    gasUsedBeforeRefund,
    gasUsed: afterRefund > call.floor ? afterRefund : call.floor,
    revertData: error === 'revert' ? ex.returnValue : undefined,
    halt,
    createdAddress: res.createdAddress ? (res.createdAddress.toString().toLowerCase() as Hex) : undefined,
    accessList: undefined,
  };
  return { outcome, refund };
}

/** The slots the call touched, per address (addresses without slots left out), as eth_createAccessList reports them. */
function accessListOf(vm: VM): AccessListEntry[] {
  const accessList: AccessListEntry[] = [];
  for (const [address, slots] of vm.evm.journal.accessList ?? new Map<string, Set<string>>()) {
    if (slots.size === 0) continue;
    accessList.push({
      address: `0x${address}` as Hex,
      storageKeys: [...slots].map((s) => `0x${s.padStart(64, '0')}` as Hex).sort(),
    });
  }
  return accessList;
}

/**
 * MainnetTransactionProcessor after the execution, needed only to report the state after it:
 * the sender gets its unused gas back, the beneficiary its fee, self-destructed accounts go
 * (from Cancun only those created by this call), and so do the empty accounts it touched.
 */
async function settleForStateDiff(vm: VM, sm: MerkleStateManager, senderAddr: Address, b: CallBlockContext, call: ValidCall, res: EVMResult, gasUsed: bigint): Promise<void> {
  const journal = vm.evm.journal;
  const ex = res.execResult;
  const payer = (await sm.getAccount(senderAddr)) ?? new Account();
  payer.balance += (call.gasLimit - gasUsed) * call.txPrice;
  await journal.putAccount(senderAddr, payer);
  const beneficiary = createAddressFromString(b.coinbase);
  const miner = (await sm.getAccount(beneficiary)) ?? new Account();
  const perGas = call.baseFee === undefined ? call.txPrice : call.txPrice - call.baseFee;
  miner.balance += gasUsed * (perGas > 0n ? perGas : 0n);
  await journal.putAccount(beneficiary, miner);
  for (const address of ex.selfdestruct?.keys() ?? []) {
    if (vm.common.isActivatedEIP(6780) && !ex.createdAddresses?.has(address)) continue;
    await journal.deleteAccount(createAddressFromString(address));
  }
  await journal.cleanup();
}

/** The top frame of the call tree, over the frames the tracer recorded. */
function rootFrame(tracer: CallTreeTracer, req: CallRequest, call: ValidCall, res: EVMResult, outcome: ExecutedCallOutcome, refund: bigint) {
  const ex = res.execResult;
  const error = ex.exceptionError?.error;
  return tracer.root({
    isCreate: call.isCreate,
    from: call.sender,
    to: call.isCreate ? (outcome.success ? outcome.createdAddress : undefined) : req.to,
    value: call.value,
    gas: call.gasLimit,
    gasUsed: outcome.gasUsed,
    input: call.data,
    output: ex.returnValue,
    error: outcome.success ? undefined : error === 'revert' ? 'execution reverted' : outcome.halt,
    revertData: outcome.revertData,
    refundCounter: ex.gasRefund ?? 0n,
    refundApplied: refund,
  });
}
