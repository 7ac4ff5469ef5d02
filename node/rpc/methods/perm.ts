/**
 * The PERM methods: Besu's local permissioning over JSON-RPC (besu ethereum/api/.../methods/
 * PermJsonRpcMethods.java and internal/methods/permissioning/Perm*.java, RpcErrorType.java;
 * snapshot 3fd224e2).
 *
 * - Registered whenever PERM is enabled; without the list they act on they answer -32000
 *   "Account allowlist has not been enabled" / "Node allowlist has not been enabled", and
 *   perm_reloadPermissionsFromFile "Node/Account allowlist has not been enabled" when neither is.
 * - The list parameter is read before that: not an array (or absent) is -32602 "Invalid account
 *   params" / "Invalid enode params". Account entries must be strings (Besu fails with an internal
 *   error on others); node entries may be any JSON scalar (Besu reads them as text, null included),
 *   an object or array among them is -32602.
 * - Changes answer "Success"; each AllowlistResult maps to Besu's error (below).
 * - Besu 26 no longer registers the *Whitelist names (removed in 24.8.0, PR 7401); they stay in its
 *   RpcMethod enum, so they answer -32604 "Method not enabled".
 * - qbft-lab's bound: a request of more than MAX_ALLOWLIST_ENTRIES entries is -32602, and a change
 *   that would make a list longer is -32000 "Allowlist is full ..." (Besu has no limit).
 */
import { MAX_ALLOWLIST_ENTRIES, type AllowlistResult } from '../../permissioning/allowlist-store.ts';
import type { LocalPermissioning } from '../../permissioning/local-permissioning.ts';
import { RpcError, rpcError, type RpcErrorTypeName } from '../errors.ts';
import type { RpcMethodSpec } from '../registry.ts';

const SUCCESS = 'Success';

const ACCOUNT_ERRORS: Partial<Record<AllowlistResult, RpcErrorTypeName>> = {
  ERROR_EMPTY_ENTRY: 'ACCOUNT_ALLOWLIST_EMPTY_ENTRY',
  ERROR_INVALID_ENTRY: 'ACCOUNT_ALLOWLIST_INVALID_ENTRY',
  ERROR_EXISTING_ENTRY: 'ACCOUNT_ALLOWLIST_EXISTING_ENTRY',
  ERROR_ABSENT_ENTRY: 'ACCOUNT_ALLOWLIST_ABSENT_ENTRY',
  ERROR_DUPLICATED_ENTRY: 'ACCOUNT_ALLOWLIST_DUPLICATED_ENTRY',
  ERROR_ALLOWLIST_PERSIST_FAIL: 'ALLOWLIST_PERSIST_FAILURE',
  ERROR_ALLOWLIST_FILE_SYNC: 'ALLOWLIST_FILE_SYNC',
};

const NODE_ERRORS: Partial<Record<AllowlistResult, RpcErrorTypeName>> = {
  ERROR_EMPTY_ENTRY: 'NODE_ALLOWLIST_EMPTY_ENTRY',
  ERROR_INVALID_ENTRY: 'NODE_ALLOWLIST_INVALID_ENTRY',
  ERROR_EXISTING_ENTRY: 'NODE_ALLOWLIST_EXISTING_ENTRY',
  ERROR_ABSENT_ENTRY: 'NODE_ALLOWLIST_MISSING_ENTRY',
  ERROR_DUPLICATED_ENTRY: 'NODE_ALLOWLIST_DUPLICATED_ENTRY',
  ERROR_FIXED_NODE_CANNOT_BE_REMOVED: 'NODE_ALLOWLIST_FIXED_NODE_CANNOT_BE_REMOVED',
  ERROR_ALLOWLIST_PERSIST_FAIL: 'ALLOWLIST_PERSIST_FAILURE',
  ERROR_ALLOWLIST_FILE_SYNC: 'ALLOWLIST_FILE_SYNC',
};

/** Besu's answer to a result; an operation's result it never gives (e.g. ABSENT on add) is an internal error, as Besu's switch default. */
function answer(result: AllowlistResult, errors: Partial<Record<AllowlistResult, RpcErrorTypeName>>, possible: readonly AllowlistResult[]): string {
  if (result === 'SUCCESS') return SUCCESS;
  if (result === 'ERROR_ALLOWLIST_FULL') throw new RpcError(-32000, `Allowlist is full: at most ${MAX_ALLOWLIST_ENTRIES} entries`);
  const type = possible.includes(result) ? errors[result] : undefined;
  throw rpcError(type ?? 'INTERNAL_ERROR');
}

const ADD_ACCOUNT_RESULTS: AllowlistResult[] = ['ERROR_EMPTY_ENTRY', 'ERROR_INVALID_ENTRY', 'ERROR_EXISTING_ENTRY', 'ERROR_DUPLICATED_ENTRY', 'ERROR_ALLOWLIST_PERSIST_FAIL', 'ERROR_ALLOWLIST_FILE_SYNC'];
const REMOVE_ACCOUNT_RESULTS: AllowlistResult[] = ['ERROR_EMPTY_ENTRY', 'ERROR_INVALID_ENTRY', 'ERROR_ABSENT_ENTRY', 'ERROR_DUPLICATED_ENTRY', 'ERROR_ALLOWLIST_PERSIST_FAIL', 'ERROR_ALLOWLIST_FILE_SYNC'];
const ADD_NODE_RESULTS: AllowlistResult[] = ['ERROR_EMPTY_ENTRY', 'ERROR_INVALID_ENTRY', 'ERROR_EXISTING_ENTRY', 'ERROR_DUPLICATED_ENTRY', 'ERROR_ALLOWLIST_PERSIST_FAIL', 'ERROR_ALLOWLIST_FILE_SYNC'];
const REMOVE_NODE_RESULTS: AllowlistResult[] = [
  'ERROR_EMPTY_ENTRY',
  'ERROR_INVALID_ENTRY',
  'ERROR_ABSENT_ENTRY',
  'ERROR_DUPLICATED_ENTRY',
  'ERROR_FIXED_NODE_CANNOT_BE_REMOVED',
  'ERROR_ALLOWLIST_PERSIST_FAIL',
  'ERROR_ALLOWLIST_FILE_SYNC',
];

/** Parameter 0 as a JSON array of at most MAX_ALLOWLIST_ENTRIES entries. */
function listParam(params: unknown[], invalid: RpcErrorTypeName): unknown[] {
  const list = params[0];
  if (!Array.isArray(list) || list.length > MAX_ALLOWLIST_ENTRIES) throw rpcError(invalid);
  return list;
}

/** Account entries: Besu lower-cases each as a String, so anything else fails inside the method. */
function accountEntries(list: unknown[]): string[] {
  if (!list.every((a): a is string => typeof a === 'string')) throw rpcError('INTERNAL_ERROR');
  return list;
}

/** Node entries: JSON scalars read as text (Jackson's coercion into List<String>), null kept. */
function nodeEntries(params: unknown[]): (string | null)[] {
  return listParam(params, 'INVALID_ENODE_PARAMS').map((v) => {
    if (v === null || typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    throw rpcError('INVALID_ENODE_PARAMS');
  });
}

/** `permissioning`: the node's local permissioning, undefined when neither list is enabled. */
export function permMethods(permissioning: () => LocalPermissioning | undefined): RpcMethodSpec[] {
  const accounts = () => {
    const list = permissioning()?.accounts;
    if (!list) throw rpcError('ACCOUNT_ALLOWLIST_NOT_ENABLED');
    return list;
  };
  const nodes = () => {
    const list = permissioning()?.nodes;
    if (!list) throw rpcError('NODE_ALLOWLIST_NOT_ENABLED');
    return list;
  };
  return [
    {
      name: 'perm_addAccountsToAllowlist',
      group: 'PERM',
      handler: (params) => {
        const list = listParam(params, 'INVALID_ACCOUNT_PARAMS');
        const allowlist = accounts();
        return answer(allowlist.add(accountEntries(list)), ACCOUNT_ERRORS, ADD_ACCOUNT_RESULTS);
      },
    },
    {
      name: 'perm_removeAccountsFromAllowlist',
      group: 'PERM',
      handler: (params) => {
        const list = listParam(params, 'INVALID_ACCOUNT_PARAMS');
        const allowlist = accounts();
        return answer(allowlist.remove(accountEntries(list)), ACCOUNT_ERRORS, REMOVE_ACCOUNT_RESULTS);
      },
    },
    {
      name: 'perm_getAccountsAllowlist',
      group: 'PERM',
      handler: () => accounts().entries(),
    },
    {
      name: 'perm_addNodesToAllowlist',
      group: 'PERM',
      handler: (params) => {
        const urls = nodeEntries(params);
        return answer(nodes().add(urls).result, NODE_ERRORS, ADD_NODE_RESULTS);
      },
    },
    {
      name: 'perm_removeNodesFromAllowlist',
      group: 'PERM',
      handler: (params) => {
        const urls = nodeEntries(params);
        return answer(nodes().remove(urls).result, NODE_ERRORS, REMOVE_NODE_RESULTS);
      },
    },
    {
      name: 'perm_getNodesAllowlist',
      group: 'PERM',
      handler: () => nodes().entries(),
    },
    {
      name: 'perm_reloadPermissionsFromFile',
      group: 'PERM',
      handler: () => {
        const local = permissioning();
        if (!local || (!local.accounts && !local.nodes)) throw rpcError('PERMISSIONING_NOT_ENABLED');
        try {
          local.reload();
        } catch {
          throw rpcError('ALLOWLIST_RELOAD_ERROR');
        }
        return SUCCESS;
      },
    },
  ];
}
