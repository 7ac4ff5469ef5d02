/**
 * Besu's stateDiff: the recorder against a real MerkleStateManager (the value before the first
 * write, the value after), and the formatting rules of DiffNode / StateTraceGenerator.
 */
import test from 'ava';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, createAddressFromString } from '@ethereumjs/util';
import { hexToBytes, type Hex } from '../../../crypto/bytes.ts';
import { StateChangeRecorder, type AccountChange } from '../../../execution/tracers/state-changes.ts';
import { formatStateDiff } from './state-diff.ts';

const A = '0x00000000000000000000000000000000000000aa' as Hex;
const B = '0x00000000000000000000000000000000000000bb' as Hex;
const C = '0x00000000000000000000000000000000000000cc' as Hex;
const slot = (n: number) => hexToBytes(`0x${n.toString(16).padStart(64, '0')}`);
const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex;

test('the recorder keeps the state before the first write and reads the state after; detached, it records nothing', async (t) => {
  const sm = new MerkleStateManager();
  const a = createAddressFromString(A);
  const b = createAddressFromString(B);
  await sm.putAccount(a, new Account(1n, 100n));
  await sm.putStorage(a, slot(1), hexToBytes('0x05'));
  const recorder = new StateChangeRecorder(sm);
  const detach = recorder.attach();
  await sm.putAccount(a, new Account(2n, 90n));
  await sm.putAccount(a, new Account(3n, 80n)); // a second write keeps the first "before"
  await sm.putStorage(a, slot(1), hexToBytes('0x07'));
  await sm.putStorage(a, slot(2), hexToBytes('0x01'));
  await sm.putCode(b, hexToBytes('0x6001'));
  detach();
  await sm.putAccount(createAddressFromString(C), new Account(0n, 1n));
  const changes = await recorder.changes();
  t.deepEqual(
    changes.map((c) => c.address),
    [A, B],
  );
  const [ca, cb] = changes;
  t.deepEqual(ca!.pre, { balance: 100n, nonce: 1n, code: new Uint8Array(0) });
  t.deepEqual(ca!.post, { balance: 80n, nonce: 3n, code: new Uint8Array(0) });
  t.deepEqual(ca!.storage, [
    { key: word(1), pre: 5n, post: 7n },
    { key: word(2), pre: 0n, post: 1n },
  ]);
  t.is(cb!.pre, undefined);
  t.deepEqual(cb!.post?.code, hexToBytes('0x6001'));
  t.deepEqual(await recorder.changes(), []);
  // the state manager's own methods are back
  t.false(Object.hasOwn(sm, 'putAccount'));
  t.false(Object.hasOwn(sm, 'putStorage'));
});

test('formatStateDiff: "=", "+", "-" and "*" as Besu writes them; sorted; unchanged and never-existing accounts left out', (t) => {
  const changes: AccountChange[] = [
    // changed: balance and nonce, one slot changed, one written with the same value
    { address: B, pre: { balance: 100n, nonce: 1n, code: hexToBytes('0x60') }, post: { balance: 80n, nonce: 2n, code: hexToBytes('0x60') }, storage: [{ key: word(2), pre: 3n, post: 0n }, { key: word(1), pre: 4n, post: 4n }] },
    // new: every field "+", storage only non-zero values
    { address: A, post: { balance: 0n, nonce: 1n, code: hexToBytes('0x6001') }, storage: [{ key: word(1), pre: 0n, post: 5n }, { key: word(2), pre: 0n, post: 0n }] },
    // deleted: every field "-", no storage
    { address: C, pre: { balance: 3n, nonce: 0n, code: hexToBytes('0x00') }, storage: [{ key: word(1), pre: 9n, post: 0n }] },
    // written but unchanged, and created then removed
    { address: '0x00000000000000000000000000000000000000dd', pre: { balance: 1n, nonce: 0n, code: new Uint8Array(0) }, post: { balance: 1n, nonce: 0n, code: new Uint8Array(0) }, storage: [] },
    { address: '0x00000000000000000000000000000000000000ee', storage: [] },
  ];
  const diff = formatStateDiff(changes);
  t.deepEqual(Object.keys(diff), [A, B, C]);
  t.deepEqual(diff[A], { balance: { '+': '0x0' }, code: { '+': '0x6001' }, nonce: { '+': '0x1' }, storage: { [word(1)]: { '+': word(5) } } });
  t.deepEqual(diff[B], {
    balance: { '*': { from: '0x64', to: '0x50' } },
    code: '=',
    nonce: { '*': { from: '0x1', to: '0x2' } },
    storage: { [word(2)]: { '*': { from: word(3), to: word(0) } } },
  });
  t.deepEqual(diff[C], { balance: { '-': '0x3' }, code: { '-': '0x00' }, nonce: { '-': '0x0' }, storage: {} });
  t.deepEqual(Object.keys(diff[B]!), ['balance', 'code', 'nonce', 'storage']);
  // storage alone makes a difference
  const onlyStorage = formatStateDiff([{ address: A, pre: { balance: 1n, nonce: 0n, code: new Uint8Array(0) }, post: { balance: 1n, nonce: 0n, code: new Uint8Array(0) }, storage: [{ key: word(0), pre: 0n, post: 1n }] }]);
  t.deepEqual(onlyStorage[A], { balance: '=', code: '=', nonce: '=', storage: { [word(0)]: { '*': { from: word(0), to: word(1) } } } });
});
