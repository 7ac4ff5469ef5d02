/**
 * Prague's system calls and execution-layer requests, for chains without a BFT section (a
 * mainnet-style chain brought in with `blocks import`). BFT chains make none of them: their Common
 * runs Prague without EIP-2935/6110/7002/7251 (node/chain/common.ts), as Besu's PoA specs do.
 *
 * - EIP-4788 (Cancun) and EIP-2935: before the transactions, the beacon root is stored and the
 *   history contract is called with the parent hash; a contract without code is skipped.
 * - EIP-7002 / EIP-7251: after the transactions and withdrawals, the withdrawal and consolidation
 *   queues are called; what they return is the request data. No code, or a failing call, makes the
 *   block invalid.
 * - EIP-6110: deposit requests are the DepositEvent logs of the chain's deposit contract, each log's
 *   five fields concatenated; a log of another layout makes the block invalid.
 * - EIP-7685: requestsHash = sha256 of the sha256(type || data) of every non-empty request.
 *
 * A system call runs as SYSTEM_ADDRESS with 30,000,000 gas that no block pays for, at gas price 0
 * and value 0, and leaves SYSTEM_ADDRESS's account as it was (absent stays absent).
 */
import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { Address, createAddressFromString } from '@ethereumjs/util';
import type { TxReceipt, VM } from '@ethereumjs/vm';
import { concatBytes, equalBytes, hexToBytes, intToBytes, uint256ToBytes, type Hex } from '../crypto/bytes.ts';
import { sha256 } from '../crypto/ethereumjs-crypto.ts';
import { ExecutionError } from './execution-error.ts';

export const SYSTEM_ADDRESS = createAddressFromString('0xfffffffffffffffffffffffffffffffffffffffe');
export const HISTORY_STORAGE_ADDRESS = createAddressFromString('0x0000f90827f1c53a10cb7a02335b175320002935');
export const WITHDRAWAL_REQUEST_ADDRESS = createAddressFromString('0x00000961ef480eb55e80d19ad83579a64c007002');
export const CONSOLIDATION_REQUEST_ADDRESS = createAddressFromString('0x0000bbddc7ce488642fb579f8b00f3a590007251');
/** Besu's and geth's default when the genesis names no `depositContractAddress` (mainnet's). */
export const MAINNET_DEPOSIT_CONTRACT: Hex = '0x00000000219ab540356cbb839cbe05303d7705fa';
const SYSTEM_CALL_GAS = 30_000_000n;

/** keccak256("DepositEvent(bytes,bytes,bytes,bytes,bytes)") */
const DEPOSIT_EVENT_TOPIC = hexToBytes('0x649bbc62d0e31342afea4e5cd82d4049e7e1ee912fc0889aa790803be39038c5');
/** The ABI layout of a DepositEvent's data: five dynamic `bytes`, at these offsets, of these sizes. */
const DEPOSIT_FIELDS: ReadonlyArray<{ offset: number; size: number }> = [
  { offset: 160, size: 48 }, // pubkey
  { offset: 256, size: 32 }, // withdrawal credentials
  { offset: 320, size: 8 }, // amount, little-endian gwei
  { offset: 384, size: 96 }, // signature
  { offset: 512, size: 8 }, // index, little-endian
];
const DEPOSIT_LOG_SIZE = 576;

export const REQUEST_TYPE = { deposit: 0, withdrawal: 1, consolidation: 2 } as const;

export interface SystemCallResult {
  returnValue: Uint8Array;
  error?: string;
}

/** Calls `to` as the system; the caller's account is restored afterwards. */
export async function systemCall(vm: VM, block: Block, to: Address, data: Uint8Array): Promise<SystemCallResult> {
  const systemAccount = await vm.stateManager.getAccount(SYSTEM_ADDRESS);
  const res = await vm.evm.runCall({
    block,
    caller: SYSTEM_ADDRESS,
    origin: SYSTEM_ADDRESS,
    to,
    data,
    value: 0n,
    gasPrice: 0n,
    gasLimit: SYSTEM_CALL_GAS,
  });
  if (systemAccount === undefined) await vm.stateManager.deleteAccount(SYSTEM_ADDRESS);
  else await vm.stateManager.putAccount(SYSTEM_ADDRESS, systemAccount);
  await vm.evm.journal.cleanup();
  return { returnValue: res.execResult.returnValue, error: res.execResult.exceptionError?.error };
}

export const BEACON_ROOTS_ADDRESS = createAddressFromString('0x000f3df6d732807ef1319fb7b8bb8522d0beac02');

/**
 * Before a block's first transaction, on chains without a BFT section: EIP-4788's parent beacon
 * root (written as Besu's ParentBeaconBlockRootHelper writes it: the timestamp and the root in the
 * ring buffer, when the contract has code), then EIP-2935's parent hash. Block building, block
 * execution and trace replays all go through here, so they agree.
 */
export async function preBlockSystemCalls(vm: VM, block: Block): Promise<void> {
  if (vm.common.consensusType() === 'bft') return;
  if (vm.common.isActivatedEIP(4788)) await storeBeaconRoot(vm, block.header.timestamp, block.header.parentBeaconBlockRoot ?? new Uint8Array(32));
  await storeParentHash(vm, block);
}

async function storeBeaconRoot(vm: VM, timestamp: bigint, root: Uint8Array): Promise<void> {
  if ((await vm.stateManager.getCode(BEACON_ROOTS_ADDRESS)).length === 0) return;
  const length = BigInt(vm.common.param('historicalRootsLength'));
  const index = timestamp % length;
  await vm.stateManager.putStorage(BEACON_ROOTS_ADDRESS, uint256ToBytes(index), intToBytes(timestamp));
  await vm.stateManager.putStorage(BEACON_ROOTS_ADDRESS, uint256ToBytes(index + length), root);
  await vm.evm.journal.cleanup();
}

/** EIP-2935, before the first transaction: the parent's hash into the history contract. */
async function storeParentHash(vm: VM, block: Block): Promise<void> {
  if (!vm.common.isActivatedEIP(2935) || vm.common.consensusType() === 'bft') return;
  if ((await vm.stateManager.getCode(HISTORY_STORAGE_ADDRESS)).length === 0) return;
  await systemCall(vm, block, HISTORY_STORAGE_ADDRESS, block.header.parentHash);
}

/** True when the fork makes system calls that write state even in an empty block. */
export function makesSystemWrites(c: Common): boolean {
  return c.isActivatedEIP(2935) || c.isActivatedEIP(7002) || c.isActivatedEIP(7251);
}

/**
 * EIP-7685 requests of a block, after its transactions: each as type || data, in type order, the
 * empty ones included (requestsHash leaves them out).
 */
export async function collectRequests(vm: VM, block: Block, receipts: readonly TxReceipt[], depositContract: Hex): Promise<Uint8Array[]> {
  const c = vm.common;
  const requests: Uint8Array[] = [];
  if (c.consensusType() === 'bft') return requests; // BFT Prague runs no request processors (node/chain/common.ts)
  if (c.isActivatedEIP(6110)) requests.push(withType(REQUEST_TYPE.deposit, depositRequests(receipts, depositContract)));
  if (c.isActivatedEIP(7002)) requests.push(withType(REQUEST_TYPE.withdrawal, await queueCall(vm, block, WITHDRAWAL_REQUEST_ADDRESS, 'withdrawal request (EIP-7002)')));
  if (c.isActivatedEIP(7251)) requests.push(withType(REQUEST_TYPE.consolidation, await queueCall(vm, block, CONSOLIDATION_REQUEST_ADDRESS, 'consolidation request (EIP-7251)')));
  return requests;
}

/** EIP-7685's commitment: sha256 over sha256(request) of each request with data. */
export function requestsHash(requests: readonly Uint8Array[]): Uint8Array {
  return sha256(concatBytes(...requests.filter((r) => r.length > 1).map((r) => sha256(r))));
}

async function queueCall(vm: VM, block: Block, address: Address, what: string): Promise<Uint8Array> {
  if ((await vm.stateManager.getCode(address)).length === 0)
    throw new ExecutionError('INVALID_SYSTEM_CALL', `the ${what} contract ${address.toString()} has no code`);
  const res = await systemCall(vm, block, address, new Uint8Array(0));
  if (res.error !== undefined) throw new ExecutionError('INVALID_SYSTEM_CALL', `the ${what} system call failed: ${res.error}`);
  return res.returnValue;
}

/** EIP-6110: the deposit contract's DepositEvent logs, in block order, as request data. */
export function depositRequests(receipts: readonly TxReceipt[], depositContract: Hex): Uint8Array {
  const contract = hexToBytes(depositContract);
  const parts: Uint8Array[] = [];
  for (const receipt of receipts) {
    for (const [address, topics, data] of receipt.logs) {
      if (!equalBytes(address, contract) || topics.length === 0 || !equalBytes(topics[0], DEPOSIT_EVENT_TOPIC)) continue;
      parts.push(depositFields(data));
    }
  }
  return concatBytes(...parts);
}

function depositFields(data: Uint8Array): Uint8Array {
  if (data.length !== DEPOSIT_LOG_SIZE) throw new ExecutionError('INVALID_DEPOSIT_LOG', `a DepositEvent log of ${data.length} bytes, expected ${DEPOSIT_LOG_SIZE}`);
  const word = (at: number): number => {
    for (let i = at; i < at + 28; i++) if (data[i] !== 0) return -1;
    return new DataView(data.buffer, data.byteOffset + at + 28, 4).getUint32(0);
  };
  const fields: Uint8Array[] = [];
  DEPOSIT_FIELDS.forEach(({ offset, size }, i) => {
    if (word(i * 32) !== offset) throw new ExecutionError('INVALID_DEPOSIT_LOG', `DepositEvent field ${i} is not at offset ${offset}`);
    if (word(offset) !== size) throw new ExecutionError('INVALID_DEPOSIT_LOG', `DepositEvent field ${i} is not ${size} bytes`);
    fields.push(data.subarray(offset + 32, offset + 32 + size));
  });
  return concatBytes(...fields);
}

function withType(type: number, data: Uint8Array): Uint8Array {
  return concatBytes(new Uint8Array([type]), data);
}
