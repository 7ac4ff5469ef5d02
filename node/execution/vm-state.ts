/**
 * The pieces every VM over the node's state is made of: the block engine, the RPC simulator and the
 * private states all build theirs from these, so they hash, store and warm alike.
 */
import type { Common } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { ValueEncoding, type DB } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { customCrypto } from '../crypto/ethereumjs-crypto.ts';
import type { TrieNodeStore } from './state-db.ts';

/** Gives `common` (a copy the caller owns) the node's native keccak and signature recovery; returns it. */
export function withNodeCrypto(common: Common): Common {
  (common as unknown as { customCrypto: typeof customCrypto }).customCrypto = { ...common.customCrypto, ...customCrypto };
  return common;
}

/** A state manager over a content-addressed trie node store (hashed keys, raw values). */
export function stateManagerOn(common: Common, store: TrieNodeStore | DB<string, string | Uint8Array>): MerkleStateManager {
  const trie = new MerklePatriciaTrie({ db: store, useKeyHashing: true, valueEncoding: ValueEncoding.Bytes, common });
  return new MerkleStateManager({ common, trie, caches: new Caches() });
}

/** EIP-2929: a call's precompiles, caller and callee start warm, as in a transaction. */
export function warmCallParties(vm: VM, from: string, to: string | undefined): void {
  if (!vm.common.isActivatedEIP(2929)) return;
  const journal = vm.evm.journal;
  for (const [address] of vm.evm.precompiles) journal.addAlwaysWarmAddress(address);
  journal.addAlwaysWarmAddress(from);
  if (to !== undefined) journal.addAlwaysWarmAddress(to);
}
