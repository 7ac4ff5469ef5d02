/**
 * The permissions TOML file(s) on disk (besu PermissionsOptions, PermissioningConfigurationBuilder,
 * TomlConfigFileParser, AllowlistPersistor; snapshot 3fd224e2): reading the enabled lists at
 * start-up and on reload, and the write-back of every allowlist change. The rules on the text are
 * in node/permissioning/allowlist-toml.ts; this file only reads and writes.
 *
 * - Without --permissions-*-config-file the file is permissions_config.toml in the data path.
 * - A missing file: "Configuration file does not exist: <path>"; one that cannot be read: "Read
 *   access denied for file at: <path>" (both after Besu's "Unable to read permissioning TOML config
 *   file : <path>"). Files over MAX_PERMISSIONS_FILE_BYTES are refused (qbft-lab's bound).
 * - Writes go to the file in place (no temporary file), as Besu's do.
 * - Bootnodes and static nodes must be on an enabled nodes allowlist (checkNodesAllowlisted).
 */
import { accessSync, constants, readFileSync, statSync, writeFileSync } from 'node:fs';
import { sep } from 'node:path';
import { accountsAllowlistOf, allowlistEntries, nodesAllowlistOf, parsePermissionsToml, rewriteAllowlist, unreadableFile } from '../permissioning/allowlist-toml.ts';
import { ACCOUNTS_ALLOWLIST_KEY, NODES_ALLOWLIST_KEY, type AllowlistKey, type AllowlistStore } from '../permissioning/allowlist-store.ts';
import { LocalPermissioning, type LoadedAllowlists } from '../permissioning/local-permissioning.ts';
import { formatAllowlistEnode, parseAllowlistEnode, sameListeningEndpoint, type AllowlistEnode } from '../permissioning/allowlist-enode.ts';
import { UsageError } from './usage-error.ts';

/** Besu's DefaultCommandValues.PERMISSIONING_CONFIG_LOCATION. */
export const DEFAULT_PERMISSIONS_FILE_NAME = 'permissions_config.toml';

/** 10,000 enode URLs take about 1.6 MB; a larger file is refused before it is read. */
export const MAX_PERMISSIONS_FILE_BYTES = 4 * 1024 * 1024;

/** The --permissions-* options, with the file paths resolved. */
export interface PermissionsSettings {
  nodesEnabled: boolean;
  nodesFile: string;
  accountsEnabled: boolean;
  accountsFile: string;
}

/** <data-path>/permissions_config.toml, joined as Besu joins it (data path + separator + name). */
export function defaultPermissionsFile(dataPath: string): string {
  return `${dataPath}${sep}${DEFAULT_PERMISSIONS_FILE_NAME}`;
}

function readPermissionsText(path: string): string {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    throw unreadableFile(path, `Configuration file does not exist: ${path}`);
  }
  try {
    accessSync(path, constants.R_OK);
  } catch {
    throw unreadableFile(path, `Read access denied for file at: ${path}`);
  }
  if (size > MAX_PERMISSIONS_FILE_BYTES) throw unreadableFile(path, `the file has ${size} bytes; at most ${MAX_PERMISSIONS_FILE_BYTES} are read`);
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw unreadableFile(path, (err as Error).message);
  }
}

/** Reads the enabled lists (nodes first, as Besu); throws PermissionsFileError. */
export function loadAllowlists(settings: PermissionsSettings): LoadedAllowlists {
  const loaded: LoadedAllowlists = {};
  if (settings.nodesEnabled) loaded.nodes = nodesAllowlistOf(parsePermissionsToml(readPermissionsText(settings.nodesFile), settings.nodesFile), settings.nodesFile);
  if (settings.accountsEnabled)
    loaded.accounts = accountsAllowlistOf(parsePermissionsToml(readPermissionsText(settings.accountsFile), settings.accountsFile), settings.accountsFile);
  return loaded;
}

/** One list's key in one file on disk. */
export class TomlFileAllowlistStore implements AllowlistStore {
  constructor(
    readonly path: string,
    readonly key: AllowlistKey,
  ) {}

  read(): readonly string[] {
    return allowlistEntries(this.text(), this.key);
  }

  write(values: readonly string[]): void {
    writeFileSync(this.path, rewriteAllowlist(this.text(), this.key, values));
  }

  private text(): string {
    if (statSync(this.path).size > MAX_PERMISSIONS_FILE_BYTES) throw new Error(`${this.path} is larger than ${MAX_PERMISSIONS_FILE_BYTES} bytes`);
    return readFileSync(this.path, 'utf8');
  }
}

/**
 * The node's local permissioning over the files of `settings`, from the lists read at start-up.
 * Throws (Besu's words) when the accounts list cannot be taken, e.g. it repeats an account.
 */
export function openLocalPermissioning(
  settings: PermissionsSettings,
  loaded: LoadedAllowlists,
  node: { localNodeId: string; fixedNodes: readonly AllowlistEnode[] },
): LocalPermissioning {
  return new LocalPermissioning({
    loaded,
    source: { load: () => loadAllowlists(settings) },
    accountsStore: settings.accountsEnabled ? new TomlFileAllowlistStore(settings.accountsFile, ACCOUNTS_ALLOWLIST_KEY) : undefined,
    nodesStore: settings.nodesEnabled ? new TomlFileAllowlistStore(settings.nodesFile, NODES_ALLOWLIST_KEY) : undefined,
    localNodeId: node.localNodeId,
    fixedNodes: node.fixedNodes,
  });
}

/**
 * Besu refuses to start when a bootnode or static node is not on an enabled nodes allowlist
 * (PermissioningConfigurationValidator.areAllNodesInAllowlist: same IP and listening port).
 */
export function checkNodesAllowlisted(urls: readonly string[], loaded: LoadedAllowlists): void {
  const allowlist = loaded.nodes;
  if (!allowlist) return;
  const missing = urls.filter((url) => {
    let node;
    try {
      node = parseAllowlistEnode(url);
    } catch {
      return true;
    }
    return !allowlist.some((entry) => sameListeningEndpoint(entry, node.ip, node.listeningPort ?? 0));
  });
  if (missing.length > 0) throw new UsageError(`Specified node(s) not in nodes-allowlist [${missing.map(canonicalEnode).join(', ')}]`);
}

function canonicalEnode(url: string): string {
  try {
    return formatAllowlistEnode(parseAllowlistEnode(url));
  } catch {
    return url;
  }
}
