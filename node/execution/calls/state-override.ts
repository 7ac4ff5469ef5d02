/**
 * Besu's state overrides of a simulated call (eth_call / eth_estimateGas third parameter,
 * eth_simulateV1's stateOverrides): account fields and storage set on the call's copy of the
 * state, and precompiles moved to another address.
 */
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, createAddressFromString } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { uint256ToBytes, type Hex } from '../../crypto/bytes.ts';

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

function minimal(v: bigint): Uint8Array {
  const w = uint256ToBytes(v);
  let i = 0;
  while (i < 32 && w[i] === 0) i++;
  return w.subarray(i);
}

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

/** TransactionSimulator.applyOverrides (nonce, balance, code, state = clear + set, stateDiff = set). */
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
