/**
 * EIP-7702 authorizations for simulated calls (eth_call, eth_estimateGas, eth_createAccessList
 * with an `authorizationList`), applied before the call runs as a set-code transaction applies
 * them: each valid tuple points its authority's code at the delegate (0xef0100 || address, or
 * clears it for the zero address) and bumps the authority's nonce; invalid tuples are skipped.
 * Gas: every tuple costs PER_EMPTY_ACCOUNT_COST up front, and an authority that already existed
 * refunds the difference to PER_AUTH_BASE_COST.
 */
import { RLP } from '@ethereumjs/rlp';
import type { Common } from '@ethereumjs/common';
import { Account, createAddressFromString } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { hexToBytes, intToBytes, uint256ToBytes, type Hex } from '../crypto/bytes.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { recoverAddress } from '../crypto/secp256k1.ts';
import type { Authorization } from './calls/call-types.ts';

export const PER_EMPTY_ACCOUNT_COST = 25_000n;
const PER_AUTH_BASE_COST = 12_500n;
const MAGIC = 0x05;
const DELEGATION_PREFIX = Uint8Array.of(0xef, 0x01, 0x00);
const SECP_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const MAX_NONCE = 2n ** 64n - 1n;

/** The authority that signed a tuple, or undefined when the signature does not count (EIP-7702 rules). */
export function authorityOf(a: Authorization): Hex | undefined {
  if (a.yParity !== 0 && a.yParity !== 1) return undefined;
  if (a.r === 0n || a.r >= SECP_N || a.s === 0n || a.s > SECP_N / 2n) return undefined;
  const message = keccak256(Uint8Array.from([MAGIC, ...RLP.encode([intToBytes(a.chainId), hexToBytes(a.address), intToBytes(a.nonce)])]));
  const signature = new Uint8Array(65);
  signature.set(uint256ToBytes(a.r), 0);
  signature.set(uint256ToBytes(a.s), 32);
  signature[64] = a.yParity;
  // Not through the process-wide signer cache: tuples come from callers, who must not be able to
  // push the consensus signatures out of it.
  try {
    return recoverAddress(message, signature);
  } catch {
    return undefined;
  }
}

function isDelegation(code: Uint8Array): boolean {
  return code.length === 23 && code[0] === DELEGATION_PREFIX[0] && code[1] === DELEGATION_PREFIX[1] && code[2] === DELEGATION_PREFIX[2];
}

/**
 * Applies the tuples to the VM's state (inside the caller's journal checkpoint, after the
 * transaction's own nonce increment, so a self-sponsored tuple carries the sender's nonce + 1) and
 * returns the gas refund they earn. Authorities are warmed for the call that follows.
 */
export async function applyAuthorizations(vm: VM, common: Common, list: readonly Authorization[]): Promise<bigint> {
  let refund = 0n;
  const chainId = common.chainId();
  for (const a of list) {
    if (a.chainId !== 0n && a.chainId !== chainId) continue;
    if (a.nonce >= MAX_NONCE) continue;
    const authority = authorityOf(a);
    if (authority === undefined) continue;
    const address = createAddressFromString(authority);
    vm.evm.journal.addAlwaysWarmAddress(authority.slice(2));
    const account = await vm.stateManager.getAccount(address);
    const code = account ? await vm.stateManager.getCode(address) : new Uint8Array(0);
    if (code.length > 0 && !isDelegation(code)) continue;
    if (a.nonce !== (account?.nonce ?? 0n)) continue;
    // Besu refunds for any account that exists, empty or not (CodeDelegationProcessor).
    if (account !== undefined) refund += PER_EMPTY_ACCOUNT_COST - PER_AUTH_BASE_COST;
    const zero = /^0x0{40}$/.test(a.address);
    await vm.stateManager.putCode(address, zero ? new Uint8Array(0) : Uint8Array.from([...DELEGATION_PREFIX, ...hexToBytes(a.address)]));
    const updated = (await vm.stateManager.getAccount(address)) ?? new Account();
    updated.nonce = a.nonce + 1n;
    await vm.evm.journal.putAccount(address, updated);
  }
  return refund;
}

