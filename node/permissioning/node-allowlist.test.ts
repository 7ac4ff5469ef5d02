import test from 'ava';
import { parseAllowlistEnode } from './allowlist-enode.ts';
import { MemoryAllowlistStore, type AllowlistStore } from './allowlist-store.ts';
import { NodeAllowlist } from './node-allowlist.ts';

const ID1 = '6f8a80d14311c39f35f516fa664deaaaa13e85b2f7493f37f6144d86991ec012937307647bd3b9a82abe2974e1407241d54947bbb39763a4cac9f77166ad92a0';
const ID2 = ID1.replace(/^6f/, '7e');
const LOCAL = 'ab'.repeat(64);
const N1 = `enode://${ID1}@192.168.0.9:4567`;
const N2 = `enode://${ID2}@192.168.0.10:4568`;
const BOOT = `enode://${ID2}@10.0.0.1:30303`;

function allowlist<S extends AllowlistStore = MemoryAllowlistStore>(initial: string[], store: S = new MemoryAllowlistStore(initial) as unknown as S) {
  const list = new NodeAllowlist(store, { localNodeId: LOCAL, fixedNodes: [parseAllowlistEnode(BOOT)] });
  list.load(initial.map(parseAllowlistEnode));
  const changes: string[][] = [];
  list.onAllowlistChanged(() => changes.push(list.entries()));
  return { list, store, changes };
}

test('loading does not write; add checks emptiness, repeats, validity, then existing entries', (t) => {
  const store = new MemoryAllowlistStore([`enode://${ID1.toUpperCase()}@192.168.0.9:4567`]);
  const { list, changes } = allowlist([N1], store);
  t.deepEqual(store.values, [`enode://${ID1.toUpperCase()}@192.168.0.9:4567`], 'the file is as it was');
  t.like(list.add([]), { result: 'ERROR_EMPTY_ENTRY' });
  t.like(list.add([N2, N2]), { result: 'ERROR_DUPLICATED_ENTRY' });
  t.like(list.add(['enode://bob@1.2.3.4:1', N2]), { result: 'ERROR_INVALID_ENTRY' });
  t.like(list.add([null]), { result: 'ERROR_INVALID_ENTRY' });
  t.deepEqual(list.add([`${N1}?discport=4567`]), { result: 'ERROR_EXISTING_ENTRY', message: `Specified peer: ${ID1} already exists in allowlist.` });
  t.deepEqual(changes, []);
  // The file holds N1 in upper case: the canonical entry is not found there, as in Besu.
  t.like(list.add([N2]), { result: 'ERROR_ALLOWLIST_FILE_SYNC' });
  t.deepEqual(list.entries(), [N1, N2], 'the change stays in memory');
  t.deepEqual(changes, [[N1, N2]]);
});

test('add and remove write canonical URLs back; fixed nodes cannot be removed', (t) => {
  const { list, store, changes } = allowlist([N1, BOOT]);
  t.like(list.add([`ENODE://${ID2.toUpperCase()}@192.168.0.10:4568`]), { result: 'SUCCESS' });
  t.deepEqual(store.values, [N1, BOOT, N2]);
  t.like(list.remove([BOOT]), { result: 'ERROR_FIXED_NODE_CANNOT_BE_REMOVED' });
  t.like(list.remove([BOOT, `enode://${ID1}@9.9.9.9:1`]), { result: 'ERROR_FIXED_NODE_CANNOT_BE_REMOVED' }, 'fixed before absent');
  t.deepEqual(list.remove([`enode://${ID1}@9.9.9.9:1`]), { result: 'ERROR_ABSENT_ENTRY', message: `Specified peer: ${ID1} does not exist in allowlist.` });
  t.like(list.remove([N1]), { result: 'SUCCESS' });
  t.deepEqual(list.entries(), [BOOT, N2]);
  t.deepEqual(store.values, [BOOT, N2]);
  t.deepEqual(changes, [[N1, BOOT, N2], [BOOT, N2]]);
});

test('a failed write is undone and nobody is told', (t) => {
  const store: AllowlistStore = { read: () => [N1], write: () => { throw new Error('EACCES'); } };
  const { list, changes } = allowlist([N1], store);
  t.like(list.add([N2]), { result: 'ERROR_ALLOWLIST_PERSIST_FAIL' });
  t.deepEqual(list.entries(), [N1]);
  t.deepEqual(changes, []);
});

test('permission: this node, or an entry with the same IP and listening port, whatever its id', (t) => {
  const { list } = allowlist([N1]);
  t.true(list.isPeerPermitted({ nodeId: ID1, ip: '192.168.0.9', listeningPort: 4567 }));
  t.true(list.isPeerPermitted({ nodeId: ID2, ip: '192.168.0.9', listeningPort: 4567 }), 'Besu compares the listening endpoint only');
  t.true(list.isPeerPermitted({ nodeId: ID2, ip: '::ffff:192.168.0.9', listeningPort: 4567 }));
  t.false(list.isPeerPermitted({ nodeId: ID1, ip: '192.168.0.9', listeningPort: 4568 }));
  t.false(list.isPeerPermitted({ nodeId: ID1, ip: '192.168.0.8', listeningPort: 4567 }));
  t.true(list.isPeerPermitted({ nodeId: LOCAL.toUpperCase(), ip: '8.8.8.8', listeningPort: 1 }));
  list.load([]);
  t.false(list.isPeerPermitted({ nodeId: ID1, ip: '192.168.0.9', listeningPort: 4567 }), 'an empty allowlist permits no peer');
});

test('reloading tells listeners only when the list changed; a list may hold a node twice and remove takes one', (t) => {
  const { list, store, changes } = allowlist([N1]);
  list.load([parseAllowlistEnode(N1)]);
  t.deepEqual(changes, []);
  const file = [N1, N1, N2];
  store.values = file;
  list.load(file.map(parseAllowlistEnode));
  t.deepEqual(changes, [file]);
  t.like(list.remove([N1]), { result: 'SUCCESS' });
  t.deepEqual(list.entries(), [N1, N2]);
  t.deepEqual(store.values, [N1, N2]);
});
