/**
 * Re-execution of mined transactions for the trace and debug methods: each block's transactions
 * run with the same rules as the engine (runTx) after the block's own pre-execution system calls,
 * and the wanted ones are traced: their call tree (with the facts flat traces need), with
 * `stateDiff` what they changed, with `structLogs` the opcode tracer's result.
 */
import { Block, type BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import type { TypedTransaction } from '@ethereumjs/tx';
import { runTx, type RunTxResult, type VM } from '@ethereumjs/vm';
import { bytesToHex, type Hex } from '../../crypto/bytes.ts';
import { preBlockSystemCalls } from '../system-calls.ts';
import { useFastCrypto } from '../tx-utils.ts';
import { CallTreeTracer, type CallFrame } from '../tracers/call-tracer.ts';
import { listenToEvm } from '../tracers/evm-events.ts';
import { StateChangeRecorder, type AccountChange } from '../tracers/state-changes.ts';
import { StructLogger, type StructLogOptions, type StructLogResult } from '../tracers/struct-logger.ts';
import type { CallBlockContext } from './call-types.ts';
import { callContextBlock } from './call-runner.ts';
import { haltDescription, haltReasonName } from './halt-reasons.ts';

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

export interface ReplayOptions {
  wanted: (block: number, tx: number) => boolean;
  stateDiff?: boolean;
  /** Run the opcode tracer (debug_trace*'s default) on the wanted transactions. */
  structLogs?: StructLogOptions;
  /** May answer later (a worker asks the node's thread): the replay waits for it. */
  onBlock: (block: number, replays: Array<TxReplay | undefined>) => boolean | void | Promise<boolean | void>;
}

/** Where BLOCKHASH finds the parent of the block being replayed. */
export interface ParentHashSlot {
  parent?: { number: bigint; hash: Uint8Array };
}

/** What is replayed in one block: the VM on its state, the EVM's view of the block, the options. */
interface ReplayEnv {
  vm: VM;
  sm: MerkleStateManager;
  ctx: Block;
  opts: ReplayOptions;
}

/** EIP-3529 (London) lowered the most a refund may return from half the gas used to a fifth. */
function refundQuotient(common: Common): bigint {
  return common.isActivatedEIP(3529) ? 5n : 2n;
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

/**
 * Re-executes consecutive blocks on the VM's state (the first block's parent state), one after
 * the other as Besu's trace_filter does (no block rewards in between). `onBlock` receives each
 * block's transactions (undefined where not wanted); returning false stops the replay there.
 */
export async function replayBlocksOn(vm: VM, sm: MerkleStateManager, parentRoot: Uint8Array, blocks: readonly ReplayBlock[], opts: ReplayOptions, hashes: ParentHashSlot): Promise<void> {
  for (let bi = 0; bi < blocks.length; bi++) {
    const replays = await replayBlock(vm, sm, parentRoot, blocks[bi]!, bi, opts, hashes);
    if ((await opts.onBlock(bi, replays)) === false) break;
  }
}

async function replayBlock(vm: VM, sm: MerkleStateManager, parentRoot: Uint8Array, replayed: ReplayBlock, bi: number, opts: ReplayOptions, hashes: ParentHashSlot): Promise<Array<TxReplay | undefined>> {
  const common = vm.common;
  const { header: block, parentHash, feeRecipient, txs } = replayed;
  common.setHardforkBy({ blockNumber: block.number, timestamp: block.timestamp });
  const b: CallBlockContext = {
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
  const env: ReplayEnv = { vm, sm, ctx: callContextBlock(common, b, block.baseFeePerGas), opts };
  hashes.parent = { number: block.number - 1n, hash: parentHash };
  // The block's own pre-execution writes (non-BFT chains), with its real beacon root.
  await preBlockSystemCalls(vm, new Block(block, [], [], undefined, { common: block.common, skipConsensusFormatValidation: true }));
  const replays: Array<TxReplay | undefined> = [];
  let blockGasUsed = 0n;
  for (let i = 0; i < txs.length; i++) {
    const tx = txs[i]!;
    useFastCrypto(tx);
    if (!opts.wanted(bi, i)) {
      blockGasUsed += (await runTx(vm, { tx, block: env.ctx, blockGasUsed, skipHardForkValidation: true })).totalGasSpent;
      replays.push(undefined);
      continue;
    }
    const { res, replay } = await replayTraced(env, tx, blockGasUsed);
    blockGasUsed += res.totalGasSpent;
    replays.push(replay);
  }
  return replays;
}

/** Runs a wanted transaction under the call tracer (and the recorder and opcode tracer when asked). */
async function replayTraced(env: ReplayEnv, tx: TypedTransaction, blockGasUsed: bigint): Promise<{ res: RunTxResult; replay: TxReplay }> {
  const { vm, sm, opts } = env;
  const tracer = new CallTreeTracer((a) => vm.evm.precompiles.has(bytesToHex(a.bytes).slice(2)));
  const recorder = opts.stateDiff ? new StateChangeRecorder(sm) : undefined;
  const detach = recorder?.attach();
  const logger = opts.structLogs ? new StructLogger(opts.structLogs) : undefined;
  const stopListening = listenToEvm(vm, {
    step: (s) => {
      tracer.step(s);
      logger?.step(s);
    },
    before: (m) => {
      tracer.before(m);
      logger?.enter();
    },
    after: (r) => {
      tracer.after(r);
      const error = r.execResult.exceptionError?.error;
      logger?.exit(error === undefined ? undefined : haltReasonName(error));
    },
  });
  let res: RunTxResult;
  try {
    res = await runTx(vm, { tx, block: env.ctx, blockGasUsed, skipHardForkValidation: true });
  } finally {
    detach?.();
    stopListening();
  }
  const ex = res.execResult;
  const error = ex.exceptionError?.error;
  const replay: TxReplay = {
    frame: replayedFrame(vm.common, tracer, tx, res),
    success: error === undefined,
    output: ex.returnValue,
    stateChanges: recorder ? await recorder.changes() : undefined,
    structLog: logger?.result(res.totalGasSpent, error !== undefined, ex.returnValue),
  };
  return { res, replay };
}

/** The top frame of a replayed transaction, over the frames the tracer recorded. */
function replayedFrame(common: Common, tracer: CallTreeTracer, tx: TypedTransaction, res: RunTxResult): CallFrame {
  const ex = res.execResult;
  const error = ex.exceptionError?.error;
  const created = res.createdAddress ? (res.createdAddress.toString().toLowerCase() as Hex) : undefined;
  const refundCounter = ex.gasRefund ?? 0n;
  const gasLeft = tracer.rootGasLeft();
  return tracer.root({
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
}

/** One block's wanted transactions re-executed on its parent's state (replayBlocks of one block). */
export async function replayOneBlock(
  simulator: { replayBlocks(parentRoot: Uint8Array, blocks: readonly ReplayBlock[], opts: ReplayOptions): Promise<void> },
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
