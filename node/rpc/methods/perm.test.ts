import test from 'ava';
import { parseAllowlistEnode } from '../../permissioning/allowlist-enode.ts';
import { MAX_ALLOWLIST_ENTRIES, MemoryAllowlistStore, type AllowlistStore } from '../../permissioning/allowlist-store.ts';
import { LocalPermissioning, type LoadedAllowlists } from '../../permissioning/local-permissioning.ts';
import { BESU_RPC_METHOD_NAMES, groupOfBesuMethod } from '../registry.ts';
import { permMethods } from './perm.ts';
import { call } from './test-kit.ts';

const A = '0x0000000000000000000000000000000000000009';
const B = '0xb9b81ee349c3807e46bc71aa2632203c5b462032';
const ID = '6f8a80d14311c39f35f516fa664deaaaa13e85b2f7493f37f6144d86991ec012937307647bd3b9a82abe2974e1407241d54947bbb39763a4cac9f77166ad92a0';
const N1 = `enode://${ID}@192.168.0.9:4567`;
const N2 = `enode://${ID}@192.168.0.10:4567`;
const BOOT = `enode://${ID}@10.0.0.1:30303`;

const err = (code: number, message: string) => ({ error: { code, message } });
const NOT_ACCOUNTS = err(-32000, 'Account allowlist has not been enabled');
const NOT_NODES = err(-32000, 'Node allowlist has not been enabled');

interface Setup {
  loaded?: LoadedAllowlists;
  accountsStore?: AllowlistStore;
  nodesStore?: AllowlistStore;
}

function methods(setup: Setup = {}) {
  const loaded = setup.loaded ?? { accounts: [A], nodes: [parseAllowlistEnode(N1), parseAllowlistEnode(BOOT)] };
  let file: LoadedAllowlists | Error = loaded;
  const accountsStore = setup.accountsStore ?? new MemoryAllowlistStore();
  const nodesStore = setup.nodesStore ?? new MemoryAllowlistStore([N1, BOOT]);
  const perm = new LocalPermissioning({
    loaded,
    source: { load: () => { if (file instanceof Error) throw file; return file; } },
    accountsStore: loaded.accounts ? accountsStore : undefined,
    nodesStore: loaded.nodes ? nodesStore : undefined,
    localNodeId: 'ab'.repeat(64),
    fixedNodes: [parseAllowlistEnode(BOOT)],
  });
  return { m: permMethods(() => perm), perm, accountsStore, nodesStore, setFile: (f: LoadedAllowlists | Error) => (file = f) };
}

const off = permMethods(() => undefined);

test('the PERM group: the seven allowlist methods; the *Whitelist names stay unregistered (-32604)', (t) => {
  const names = off.map((s) => s.name).sort();
  t.deepEqual(names, [
    'perm_addAccountsToAllowlist',
    'perm_addNodesToAllowlist',
    'perm_getAccountsAllowlist',
    'perm_getNodesAllowlist',
    'perm_reloadPermissionsFromFile',
    'perm_removeAccountsFromAllowlist',
    'perm_removeNodesFromAllowlist',
  ]);
  t.true(off.every((s) => s.group === 'PERM' && groupOfBesuMethod(s.name) === 'PERM'));
  const whitelist = BESU_RPC_METHOD_NAMES.filter((n) => /Whitelist/.test(n));
  t.is(whitelist.length, 4);
  t.false(whitelist.some((n) => names.includes(n)));
});

test('without local permissioning every method says which allowlist is not enabled', async (t) => {
  t.deepEqual(await call(off, 'perm_getAccountsAllowlist'), NOT_ACCOUNTS);
  t.deepEqual(await call(off, 'perm_addAccountsToAllowlist', [[A]]), NOT_ACCOUNTS);
  t.deepEqual(await call(off, 'perm_addAccountsToAllowlist', [[1]]), NOT_ACCOUNTS, 'entries are looked at only when enabled');
  t.deepEqual(await call(off, 'perm_removeAccountsFromAllowlist', [[A]]), NOT_ACCOUNTS);
  t.deepEqual(await call(off, 'perm_getNodesAllowlist'), NOT_NODES);
  t.deepEqual(await call(off, 'perm_addNodesToAllowlist', [[N1]]), NOT_NODES);
  t.deepEqual(await call(off, 'perm_removeNodesFromAllowlist', [[N1]]), NOT_NODES);
  t.deepEqual(await call(off, 'perm_reloadPermissionsFromFile'), err(-32000, 'Node/Account allowlist has not been enabled'));
  // The parameter is read first.
  t.deepEqual(await call(off, 'perm_addAccountsToAllowlist', []), err(-32602, 'Invalid account params'));
  t.deepEqual(await call(off, 'perm_addNodesToAllowlist', ['x']), err(-32602, 'Invalid enode params'));
  // Only one list enabled.
  const { m } = methods({ loaded: { nodes: [] } });
  t.deepEqual(await call(m, 'perm_getAccountsAllowlist'), NOT_ACCOUNTS);
  t.deepEqual(await call(m, 'perm_getNodesAllowlist'), { result: [] });
});

test('accounts: Success, the list, and every error', async (t) => {
  const { m, accountsStore } = methods();
  t.deepEqual(await call(m, 'perm_getAccountsAllowlist'), { result: [A] });
  t.deepEqual(await call(m, 'perm_addAccountsToAllowlist', [[B.toUpperCase().replace('0X', '0x')]]), { result: 'Success' });
  t.deepEqual(await call(m, 'perm_getAccountsAllowlist'), { result: [A, B] });
  t.deepEqual((accountsStore as MemoryAllowlistStore).values, [A, B], 'written back');
  t.deepEqual(await call(m, 'perm_addAccountsToAllowlist', [[]]), err(-32000, 'Request contains an empty list of accounts'));
  t.deepEqual(await call(m, 'perm_addAccountsToAllowlist', [['0x1']]), err(-32000, 'Request contains an invalid account'));
  t.deepEqual(await call(m, 'perm_addAccountsToAllowlist', [[A, A]]), err(-32000, 'Request contains duplicate accounts'));
  t.deepEqual(await call(m, 'perm_addAccountsToAllowlist', [[A]]), err(-32000, 'Cannot add an existing account to allowlist'));
  t.deepEqual(await call(m, 'perm_removeAccountsFromAllowlist', [['0x0000000000000000000000000000000000000008']]), err(-32000, 'Cannot remove an absent account from allowlist'));
  t.deepEqual(await call(m, 'perm_removeAccountsFromAllowlist', [[B, B]]), err(-32000, 'Request contains duplicate accounts'));
  t.deepEqual(await call(m, 'perm_removeAccountsFromAllowlist', [[]]), err(-32000, 'Request contains an empty list of accounts'));
  t.deepEqual(await call(m, 'perm_removeAccountsFromAllowlist', [['zz']]), err(-32000, 'Request contains an invalid account'));
  t.deepEqual(await call(m, 'perm_removeAccountsFromAllowlist', [[B]]), { result: 'Success' });
  t.deepEqual(await call(m, 'perm_getAccountsAllowlist'), { result: [A] });
  // Parameters: not a list, a list too long, entries that are not strings.
  t.deepEqual(await call(m, 'perm_addAccountsToAllowlist', [A]), err(-32602, 'Invalid account params'));
  t.deepEqual(await call(m, 'perm_removeAccountsFromAllowlist', [null]), err(-32602, 'Invalid account params'));
  t.deepEqual(await call(m, 'perm_addAccountsToAllowlist', [new Array(MAX_ALLOWLIST_ENTRIES + 1).fill(B)]), err(-32602, 'Invalid account params'));
  t.deepEqual(await call(m, 'perm_addAccountsToAllowlist', [[B, 7]]), err(-32603, 'Internal error'));
});

test('accounts: a file out of sync, a file that cannot be written, a full list', async (t) => {
  const sync = methods({ accountsStore: new MemoryAllowlistStore() });
  (sync.accountsStore as MemoryAllowlistStore).values = [];
  t.deepEqual(
    await call(sync.m, 'perm_addAccountsToAllowlist', [[B]]),
    err(-32000, 'The permissioning allowlist configuration file is out of sync.  The changes have been applied, but not persisted to disk'),
  );
  t.deepEqual(await call(sync.m, 'perm_getAccountsAllowlist'), { result: [A, B] });
  let writable = true;
  const store: AllowlistStore = {
    read: () => [A],
    write: () => {
      if (!writable) throw new Error('EROFS');
    },
  };
  const ro = methods({ accountsStore: store });
  writable = false;
  t.deepEqual(await call(ro.m, 'perm_addAccountsToAllowlist', [[B]]), err(-32000, 'Unable to persist changes to allowlist configuration file. Changes reverted'));
  t.deepEqual(await call(ro.m, 'perm_getAccountsAllowlist'), { result: [A] });
  const many = Array.from({ length: MAX_ALLOWLIST_ENTRIES }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`);
  const full = methods({ loaded: { accounts: many } });
  t.deepEqual(await call(full.m, 'perm_addAccountsToAllowlist', [[`0x${'f'.repeat(40)}`]]), err(-32000, `Allowlist is full: at most ${MAX_ALLOWLIST_ENTRIES} entries`));
});

test('nodes: Success, the list, and every error', async (t) => {
  const { m, nodesStore } = methods();
  t.deepEqual(await call(m, 'perm_getNodesAllowlist'), { result: [N1, BOOT] });
  t.deepEqual(await call(m, 'perm_addNodesToAllowlist', [[N2]]), { result: 'Success' });
  t.deepEqual((nodesStore as MemoryAllowlistStore).values, [N1, BOOT, N2], 'written back');
  t.deepEqual(await call(m, 'perm_addNodesToAllowlist', [[]]), err(-32000, 'Request contains an empty list of nodes'));
  t.deepEqual(await call(m, 'perm_addNodesToAllowlist', [[N2, N2]]), err(-32000, 'Request contains duplicate nodes'));
  t.deepEqual(await call(m, 'perm_addNodesToAllowlist', [['enode://bob@1.2.3.4:5']]), err(-32000, 'Request contains an invalid node'));
  t.deepEqual(await call(m, 'perm_addNodesToAllowlist', [[null]]), err(-32000, 'Request contains an invalid node'));
  t.deepEqual(await call(m, 'perm_addNodesToAllowlist', [[42]]), err(-32000, 'Request contains an invalid node'));
  t.deepEqual(await call(m, 'perm_addNodesToAllowlist', [[N1]]), err(-32000, 'Cannot add an existing node to allowlist'));
  t.deepEqual(await call(m, 'perm_removeNodesFromAllowlist', [[BOOT]]), err(-32000, 'Cannot remove a fixed node (bootnode or static node) from allowlist'));
  t.deepEqual(await call(m, 'perm_removeNodesFromAllowlist', [[`enode://${ID}@9.9.9.9:9`]]), err(-32000, 'Cannot remove an absent node from allowlist'));
  t.deepEqual(await call(m, 'perm_removeNodesFromAllowlist', [['nope']]), err(-32000, 'Request contains an invalid node'));
  t.deepEqual(await call(m, 'perm_removeNodesFromAllowlist', [[]]), err(-32000, 'Request contains an empty list of nodes'));
  t.deepEqual(await call(m, 'perm_removeNodesFromAllowlist', [[N1, N1]]), err(-32000, 'Request contains duplicate nodes'));
  t.deepEqual(await call(m, 'perm_removeNodesFromAllowlist', [[N1]]), { result: 'Success' });
  t.deepEqual(await call(m, 'perm_getNodesAllowlist'), { result: [BOOT, N2] });
  t.deepEqual(await call(m, 'perm_addNodesToAllowlist', [[{ enode: N1 }]]), err(-32602, 'Invalid enode params'));
  t.deepEqual(await call(m, 'perm_removeNodesFromAllowlist', []), err(-32602, 'Invalid enode params'));
  t.deepEqual(await call(m, 'perm_addNodesToAllowlist', [new Array(MAX_ALLOWLIST_ENTRIES + 1).fill(N1)]), err(-32602, 'Invalid enode params'));
  // Out of sync and unwritable files.
  (nodesStore as MemoryAllowlistStore).values = [];
  t.deepEqual(await call(m, 'perm_addNodesToAllowlist', [[N1]]), err(-32000, 'The permissioning allowlist configuration file is out of sync.  The changes have been applied, but not persisted to disk'));
  const ro = methods({ nodesStore: { read: () => [N1, BOOT], write: () => { throw new Error('EACCES'); } } });
  t.deepEqual(await call(ro.m, 'perm_removeNodesFromAllowlist', [[N1]]), err(-32000, 'Unable to persist changes to allowlist configuration file. Changes reverted'));
  t.deepEqual(await call(ro.m, 'perm_getNodesAllowlist'), { result: [N1, BOOT] });
});

test('reload: Success with the file as it is now; an error names the methods to review the state', async (t) => {
  const { m, setFile } = methods();
  setFile({ accounts: [B], nodes: [parseAllowlistEnode(N2)] });
  t.deepEqual(await call(m, 'perm_reloadPermissionsFromFile'), { result: 'Success' });
  t.deepEqual(await call(m, 'perm_getAccountsAllowlist'), { result: [B] });
  t.deepEqual(await call(m, 'perm_getNodesAllowlist'), { result: [N2] });
  setFile(new Error('Unable to read permissioning TOML config file : x Configuration file does not exist: x'));
  t.deepEqual(
    await call(m, 'perm_reloadPermissionsFromFile'),
    err(-32000, 'Error reloading permissions file. Please use perm_getAccountsAllowlist and perm_getNodesAllowlist to review the current state of the allowlists'),
  );
  t.deepEqual(await call(m, 'perm_getAccountsAllowlist'), { result: [B] });
});
