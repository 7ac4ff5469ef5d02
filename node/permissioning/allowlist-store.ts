/**
 * What the allowlists share: Besu's operation results, the port to the permissions file, the
 * write-back rule, and qbft-lab's cap on list sizes.
 *
 * Write-back (besu AccountLocalConfigPermissioningController / NodeLocalConfigPermissioningController
 * with AllowlistPersistor, snapshot 3fd224e2): after a change in memory, the file must still hold
 * every entry of the list as it was before (else ERROR_ALLOWLIST_FILE_SYNC: the change stays in
 * memory, the file is not written); then the file is rewritten and must hold every entry of the new
 * list (else ERROR_ALLOWLIST_FILE_SYNC). A read or write that fails is ERROR_ALLOWLIST_PERSIST_FAIL
 * and the change is undone in memory.
 */

/** Besu's AllowlistOperationResult, and ERROR_ALLOWLIST_FULL for qbft-lab's cap (Besu has none). */
export type AllowlistResult =
  | 'SUCCESS'
  | 'ERROR_DUPLICATED_ENTRY'
  | 'ERROR_EMPTY_ENTRY'
  | 'ERROR_EXISTING_ENTRY'
  | 'ERROR_INVALID_ENTRY'
  | 'ERROR_ABSENT_ENTRY'
  | 'ERROR_FIXED_NODE_CANNOT_BE_REMOVED'
  | 'ERROR_ALLOWLIST_PERSIST_FAIL'
  | 'ERROR_ALLOWLIST_FILE_SYNC'
  | 'ERROR_ALLOWLIST_FULL';

/** Besu's TOML keys (PermissioningConfigurationBuilder, AllowlistPersistor.ALLOWLIST_TYPE). */
export const ACCOUNTS_ALLOWLIST_KEY = 'accounts-allowlist';
export const NODES_ALLOWLIST_KEY = 'nodes-allowlist';
export type AllowlistKey = typeof ACCOUNTS_ALLOWLIST_KEY | typeof NODES_ALLOWLIST_KEY;

/**
 * Entries per list (accounts, nodes) that a file, a request or a change may bring. Besu has no
 * limit; 10,000 is far above any permissioned network's membership and keeps a request, the file
 * (about 1.6 MB of enode URLs) and the per-connection scan small.
 */
export const MAX_ALLOWLIST_ENTRIES = 10_000;

/** One list's place in a permissions file. */
export interface AllowlistStore {
  /** The entries the file holds under this list's key now ([] when the key is absent). Throws when the file cannot be read. */
  read(): readonly string[];
  /** Rewrites the file with `values` under this list's key, keeping the other allowlist. Throws when it cannot be written. */
  write(values: readonly string[]): void;
}

/** A store that is only memory (tests, and a node whose list is not backed by a file). */
export class MemoryAllowlistStore implements AllowlistStore {
  constructor(public values: string[] = []) {}
  read(): readonly string[] {
    return this.values;
  }
  write(values: readonly string[]): void {
    this.values = [...values];
  }
}

/** Besu's verify / update / verify around a change; the caller undoes the change on ERROR_ALLOWLIST_PERSIST_FAIL. */
export function writeBack(store: AllowlistStore, before: readonly string[], after: readonly string[]): 'SUCCESS' | 'ERROR_ALLOWLIST_PERSIST_FAIL' | 'ERROR_ALLOWLIST_FILE_SYNC' {
  try {
    if (!holdsAll(store.read(), before)) return 'ERROR_ALLOWLIST_FILE_SYNC';
    store.write(after);
    if (!holdsAll(store.read(), after)) return 'ERROR_ALLOWLIST_FILE_SYNC';
    return 'SUCCESS';
  } catch {
    return 'ERROR_ALLOWLIST_PERSIST_FAIL';
  }
}

function holdsAll(file: readonly string[], entries: readonly string[]): boolean {
  const present = new Set(file);
  return entries.every((e) => present.has(e));
}

/** Whether `values` repeats an entry (compared as given). */
export function hasDuplicates(values: readonly unknown[]): boolean {
  return new Set(values).size !== values.length;
}
