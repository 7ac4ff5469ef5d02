/**
 * Besu's local permissioning as one object: the accounts allowlist (checked for every transaction
 * entering the pool and every one picked for a block), the nodes allowlist (checked for every
 * peer), and the reload from file (besu PermReloadPermissionsFromFile, snapshot 3fd224e2).
 *
 * Reload: the accounts list first, then the nodes list; each re-reads every enabled list (Besu
 * rebuilds the whole configuration for each), so a broken nodes list fails the accounts reload
 * too. A list whose reload fails keeps its entries; one reloaded before the failure keeps the new.
 * No I/O here: files are reached through AllowlistStore (write-back) and AllowlistSource (reading).
 */
import type { Hex } from '../crypto/bytes.ts';
import { AccountAllowlist } from './account-allowlist.ts';
import type { AllowlistEnode } from './allowlist-enode.ts';
import type { AllowlistStore } from './allowlist-store.ts';
import { NodeAllowlist } from './node-allowlist.ts';

/** The lists read from the permissions file(s); a list is present when it is enabled. */
export interface LoadedAllowlists {
  accounts?: string[];
  nodes?: AllowlistEnode[];
}

/** Reads the enabled lists again, as at start-up; throws with the reason. */
export interface AllowlistSource {
  load(): LoadedAllowlists;
}

export interface LocalPermissioningParts {
  /** The lists as read at start-up; `accounts` / `nodes` present when enabled. */
  loaded: LoadedAllowlists;
  source: AllowlistSource;
  accountsStore?: AllowlistStore;
  nodesStore?: AllowlistStore;
  /** This node's id, 128 hex digits (always a permitted peer). */
  localNodeId: string;
  /** Bootnodes and static nodes, which cannot be removed from the nodes allowlist. */
  fixedNodes?: readonly AllowlistEnode[];
}

export class LocalPermissioning {
  readonly accounts: AccountAllowlist | undefined;
  readonly nodes: NodeAllowlist | undefined;
  private readonly source: AllowlistSource;

  /** Loads the start-up lists; the accounts list is written back as Besu does. Throws with Besu's reason. */
  constructor(parts: LocalPermissioningParts) {
    this.source = parts.source;
    if (parts.loaded.accounts) {
      if (!parts.accountsStore) throw new Error('the accounts allowlist needs a store');
      this.accounts = new AccountAllowlist(parts.accountsStore);
      this.accounts.load(parts.loaded.accounts);
    }
    if (parts.loaded.nodes) {
      if (!parts.nodesStore) throw new Error('the nodes allowlist needs a store');
      this.nodes = new NodeAllowlist(parts.nodesStore, { localNodeId: parts.localNodeId, fixedNodes: parts.fixedNodes });
      this.nodes.load(parts.loaded.nodes);
    }
  }

  /** Besu's PermissionTransactionValidator with local permissions: every sender when the accounts allowlist is off. */
  isSenderPermitted(address: Hex | string): boolean {
    return this.accounts === undefined || this.accounts.contains(address);
  }

  /** perm_reloadPermissionsFromFile; throws when a list could not be reloaded. */
  reload(): void {
    if (this.accounts) {
      try {
        this.accounts.load(this.source.load().accounts ?? []);
      } catch (err) {
        throw new Error('Error reloading permissions file. In-memory accounts allowlist will be reverted to previous valid configuration', { cause: err });
      }
    }
    if (this.nodes) {
      try {
        this.nodes.load(this.source.load().nodes ?? []);
      } catch (err) {
        throw new Error('Error reloading permissions file. In-memory nodes allowlist will be reverted to previous valid configuration', { cause: err });
      }
    }
  }
}
