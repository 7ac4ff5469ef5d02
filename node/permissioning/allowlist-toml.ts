/**
 * The permissions TOML file as text (besu PermissioningConfigurationBuilder, TomlConfigFileParser,
 * AllowlistPersistor; snapshot 3fd224e2). No I/O: callers hand in the text and the path it came from.
 *
 * Reading (start-up and perm_reloadPermissionsFromFile), for each enabled list:
 * - the file must parse and hold at least one key ("Empty TOML result" otherwise);
 * - its key (accounts-allowlist, nodes-allowlist) must be there, as an array; other keys are
 *   ignored (Besu 26 reads no *-whitelist spelling);
 * - entries are taken as text; an account must be "0x" + 40 hex digits ("Invalid account X") and a
 *   node a valid enode URL (allowlist-enode.ts); an empty array is an enabled, empty list.
 * Writing back a list: the file becomes the other allowlist key's line, if the file has that key,
 * then `<key>=["a","b"]` with no newline at the end; comments and other keys are not kept.
 * Error texts are Besu's, with the file named where Besu does not name it.
 */
import { parse as parseToml } from 'smol-toml';
import { InvalidEnodeError, parseAllowlistEnode, type AllowlistEnode } from './allowlist-enode.ts';
import { isValidAccount } from './account-allowlist.ts';
import { ACCOUNTS_ALLOWLIST_KEY, MAX_ALLOWLIST_ENTRIES, NODES_ALLOWLIST_KEY, type AllowlistKey } from './allowlist-store.ts';

/** A permissions file that cannot be used; the message says why, naming the file. */
export class PermissionsFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermissionsFileError';
  }
}

/** Besu's prefix for a file it could not read or parse. */
export function unreadableFile(path: string, reason: string): PermissionsFileError {
  return new PermissionsFileError(`Unable to read permissioning TOML config file : ${path} ${reason}`);
}

type Table = Record<string, unknown>;

/** Parses a permissions file as the start-up reading does (an empty document is an error). */
export function parsePermissionsToml(text: string, path: string): Table {
  let table: Table;
  try {
    table = parseToml(text) as Table;
  } catch (err) {
    const e = err as Error & { line?: number; column?: number };
    const where = e.line === undefined ? '' : ` (line ${e.line}, column ${e.column})`;
    throw unreadableFile(path, `Invalid TOML configuration: ${e.message.split('\n')[0]}${where}`);
  }
  if (Object.keys(table).length === 0) throw unreadableFile(path, `Empty TOML result: ${text.length > 200 ? `${text.slice(0, 200)}...` : text}`);
  return table;
}

function entryText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object' && !(value instanceof Date) && !('toISOString' in value)) return JSON.stringify(value);
  return String(value);
}

function typeName(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value !== null && typeof value === 'object') return 'a table';
  return `a ${typeof value}`;
}

/** The entries under `key` as text, for reading a list that must be there. */
function requiredList(table: Table, key: AllowlistKey, path: string): string[] {
  if (!Object.hasOwn(table, key)) throw new PermissionsFileError(`${key} config option missing in TOML config file ${path}`);
  const value = table[key];
  if (!Array.isArray(value)) throw new PermissionsFileError(`Value of '${key}' in TOML config file ${path} is ${typeName(value)}, expected an array`);
  if (value.length > MAX_ALLOWLIST_ENTRIES)
    throw new PermissionsFileError(`${key} in TOML config file ${path} has ${value.length} entries; qbft-lab accepts at most ${MAX_ALLOWLIST_ENTRIES}`);
  return value.map(entryText);
}

export function accountsAllowlistOf(table: Table, path: string): string[] {
  const accounts = requiredList(table, ACCOUNTS_ALLOWLIST_KEY, path);
  const invalid = accounts.find((a) => !isValidAccount(a));
  if (invalid !== undefined) throw new PermissionsFileError(`Invalid account ${invalid} (${ACCOUNTS_ALLOWLIST_KEY} in ${path})`);
  return accounts;
}

export function nodesAllowlistOf(table: Table, path: string): AllowlistEnode[] {
  return requiredList(table, NODES_ALLOWLIST_KEY, path).map((url) => {
    try {
      return parseAllowlistEnode(url);
    } catch (err) {
      if (err instanceof InvalidEnodeError) throw new PermissionsFileError(`${err.message} (${NODES_ALLOWLIST_KEY} in ${path})`);
      throw err;
    }
  });
}

/**
 * A list as the write-back reads it: [] when the key is absent. Throws when the text does not
 * parse or the key is not an array: such a file can be neither checked nor safely rewritten.
 */
export function allowlistEntries(text: string, key: AllowlistKey): string[] {
  const table = parseToml(text) as Table;
  if (!Object.hasOwn(table, key)) return [];
  const value = table[key];
  if (!Array.isArray(value)) throw new Error(`${key} is ${typeName(value)}, not an array`);
  return value.map(entryText);
}

function line(key: AllowlistKey, values: readonly string[]): string {
  // Besu writes "%s" around each value; JSON escaping is the same for every valid entry and keeps odd ones valid TOML.
  return `${key}=[${values.map((v) => JSON.stringify(v)).join(',')}]`;
}

/** The file after replacing `key`'s list with `values` (AllowlistPersistor.updateConfig). */
export function rewriteAllowlist(text: string, key: AllowlistKey, values: readonly string[]): string {
  const other: AllowlistKey = key === ACCOUNTS_ALLOWLIST_KEY ? NODES_ALLOWLIST_KEY : ACCOUNTS_ALLOWLIST_KEY;
  const table = parseToml(text) as Table;
  const kept = Object.hasOwn(table, other) ? `${line(other, allowlistEntries(text, other))}\n` : '';
  return `${kept}${line(key, values)}`;
}
