/**
 * The accounts allowlist (besu AccountLocalConfigPermissioningController, snapshot 3fd224e2):
 * - Entries are "0x" + 40 hex digits, kept in lower case in the order added; a request's entries
 *   are lower-cased before they are checked. Checks, in order: empty request, an invalid entry,
 *   a repeated entry, then (add) one already listed / (remove) one not listed.
 * - Every change is written back to the file (allowlist-store.ts). Loading the file's list at
 *   start-up or on reload goes through the same add, so Besu rewrites the accounts file then too.
 * - A sender is permitted when its address is listed (case-insensitive).
 * No I/O here: the file is reached through the AllowlistStore port.
 */
import { hasDuplicates, MAX_ALLOWLIST_ENTRIES, writeBack, type AllowlistResult, type AllowlistStore } from './allowlist-store.ts';

/** Besu's isValidAccountString: "0x" (lower case x) and exactly 20 bytes of hex. */
export function isValidAccount(text: string): boolean {
  return /^0x[0-9a-fA-F]{40}$/.test(text);
}

export class AccountAllowlist {
  private list: string[] = [];
  private listed = new Set<string>();

  constructor(private readonly store: AllowlistStore) {}

  entries(): string[] {
    return [...this.list];
  }

  /** Case-insensitive, as Besu's contains(). */
  contains(address: string): boolean {
    return this.listed.has(address.toLowerCase());
  }

  add(accounts: readonly string[]): AllowlistResult {
    const requested = accounts.map((a) => a.toLowerCase());
    const invalid = validate(requested);
    if (invalid) return invalid;
    if (requested.some((a) => this.listed.has(a))) return 'ERROR_EXISTING_ENTRY';
    if (this.list.length + requested.length > MAX_ALLOWLIST_ENTRIES) return 'ERROR_ALLOWLIST_FULL';
    return this.change([...this.list, ...requested]);
  }

  remove(accounts: readonly string[]): AllowlistResult {
    const requested = accounts.map((a) => a.toLowerCase());
    const invalid = validate(requested);
    if (invalid) return invalid;
    if (!requested.every((a) => this.listed.has(a))) return 'ERROR_ABSENT_ENTRY';
    const gone = new Set(requested);
    return this.change(this.list.filter((a) => !gone.has(a)));
  }

  /**
   * Replaces the list with the file's (start-up and perm_reloadPermissionsFromFile). On failure
   * the list is left as it was and the error says why, in Besu's words.
   */
  load(accounts: readonly string[]): void {
    const previous = this.list;
    this.set([]);
    if (accounts.length === 0) return;
    const result = this.add(accounts);
    if (result !== 'SUCCESS') {
      this.set(previous);
      throw new Error(`Error reloading permissions file. Invalid accounts allowlist, validation failed due to "${result}"`);
    }
  }

  private change(next: string[]): AllowlistResult {
    const before = this.list;
    this.set(next);
    const written = writeBack(this.store, before, next);
    if (written === 'ERROR_ALLOWLIST_PERSIST_FAIL') this.set(before);
    return written;
  }

  private set(list: string[]): void {
    this.list = list;
    this.listed = new Set(list);
  }
}

function validate(accounts: readonly string[]): AllowlistResult | undefined {
  if (accounts.length === 0) return 'ERROR_EMPTY_ENTRY';
  if (!accounts.every(isValidAccount)) return 'ERROR_INVALID_ENTRY';
  if (hasDuplicates(accounts)) return 'ERROR_DUPLICATED_ENTRY';
  return undefined;
}
