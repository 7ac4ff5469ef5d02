import test from 'ava';
import { AccountAllowlist, isValidAccount } from './account-allowlist.ts';
import { MAX_ALLOWLIST_ENTRIES, MemoryAllowlistStore, type AllowlistStore } from './allowlist-store.ts';

const A = '0x0000000000000000000000000000000000000009';
const B = '0xB9B81EE349C3807E46BC71AA2632203C5B462032';
const b = B.toLowerCase();
const C = '0xb9b81ee349c3807e46bc71aa2632203c5b462034';

function allowlist(initial: string[] = []) {
  const store = new MemoryAllowlistStore();
  const list = new AccountAllowlist(store);
  list.load(initial);
  return { list, store };
}

test('valid accounts: 0x and 20 bytes of hex', (t) => {
  t.true(isValidAccount(A));
  t.true(isValidAccount(B));
  t.false(isValidAccount('0xfoo'));
  t.false(isValidAccount('0X0000000000000000000000000000000000000009'));
  t.false(isValidAccount('0000000000000000000000000000000000000009'));
  t.false(isValidAccount('0x00000000000000000000000000000000000009'));
  t.false(isValidAccount('0x000000000000000000000000000000000000009'));
});

test('add: lower-cased, checked in Besu order, written back', (t) => {
  const { list, store } = allowlist([A]);
  t.deepEqual(store.values, [A], 'loading writes the list back, as Besu does at start-up');
  t.is(list.add([]), 'ERROR_EMPTY_ENTRY');
  t.is(list.add(['0xfoo', A]), 'ERROR_INVALID_ENTRY', 'invalid before existing');
  t.is(list.add([B, b]), 'ERROR_DUPLICATED_ENTRY', 'duplicates compare lower-cased');
  t.is(list.add([A, B]), 'ERROR_EXISTING_ENTRY');
  t.deepEqual(list.entries(), [A], 'a refused request changes nothing');
  t.is(list.add(['0X' + C.slice(2)]), 'SUCCESS', "'0X' is lower-cased before the check");
  t.is(list.add([B]), 'SUCCESS');
  t.deepEqual(list.entries(), [A, C, b]);
  t.deepEqual(store.values, [A, C, b]);
  t.true(list.contains(B) && list.contains(b) && list.contains(A));
  t.false(list.contains('0x0000000000000000000000000000000000000008'));
});

test('remove: absent entries refused, the rest in order', (t) => {
  const { list, store } = allowlist([A, B, C]);
  t.is(list.remove([]), 'ERROR_EMPTY_ENTRY');
  t.is(list.remove(['nope']), 'ERROR_INVALID_ENTRY');
  t.is(list.remove([A, A]), 'ERROR_DUPLICATED_ENTRY');
  t.is(list.remove([A, '0x0000000000000000000000000000000000000008']), 'ERROR_ABSENT_ENTRY');
  t.is(list.remove([B]), 'SUCCESS', 'upper case removes the lower-case entry');
  t.deepEqual(list.entries(), [A, C]);
  t.deepEqual(store.values, [A, C]);
  t.false(list.contains(B));
});

test('a file that lost entries: FILE_SYNC, the change stays in memory, the file is not written', (t) => {
  const { list, store } = allowlist([A]);
  store.values = [];
  t.is(list.add([B]), 'ERROR_ALLOWLIST_FILE_SYNC');
  t.deepEqual(list.entries(), [A, b]);
  t.deepEqual(store.values, []);
});

test('a write that fails: PERSIST_FAIL and the change is undone', (t) => {
  const { list } = allowlist([A]);
  const broken: AllowlistStore = { read: () => [A], write: () => { throw new Error('EROFS'); } };
  const other = new AccountAllowlist(broken);
  t.throws(() => other.load([A, B]), { message: 'Error reloading permissions file. Invalid accounts allowlist, validation failed due to "ERROR_ALLOWLIST_PERSIST_FAIL"' });
  t.deepEqual(other.entries(), []);
  const unreadable: AllowlistStore = { read: () => { throw new Error('ENOENT'); }, write: () => {} };
  const third = new AccountAllowlist(unreadable);
  t.is(third.add([A]), 'ERROR_ALLOWLIST_PERSIST_FAIL');
  t.false(third.contains(A));
  t.deepEqual(list.entries(), [A]);
});

test('load: a list that repeats an account is refused with Besu words and the old list stays', (t) => {
  const { list } = allowlist([A]);
  t.throws(() => list.load([B, b]), { message: 'Error reloading permissions file. Invalid accounts allowlist, validation failed due to "ERROR_DUPLICATED_ENTRY"' });
  t.deepEqual(list.entries(), [A]);
  list.load([]);
  t.deepEqual(list.entries(), [], 'an empty list is allowed: every sender is then refused');
  t.false(list.contains(A));
});

test(`the list holds at most ${MAX_ALLOWLIST_ENTRIES} accounts`, (t) => {
  const many = Array.from({ length: MAX_ALLOWLIST_ENTRIES }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`);
  const { list } = allowlist(many);
  t.is(list.entries().length, MAX_ALLOWLIST_ENTRIES);
  t.is(list.add([`0x${'f'.repeat(40)}`]), 'ERROR_ALLOWLIST_FULL');
  t.is(list.remove([many[0]]), 'SUCCESS');
  t.is(list.add([`0x${'f'.repeat(40)}`]), 'SUCCESS');
});
