/**
 * The privacy store keeps what the manager keeps (groups, payloads as this node's encrypted
 * envelopes), the private states' marker and receipts; a payload restored from it opens again; an
 * unreadable entry is skipped with a warning; a failed write stops the store with a warning.
 */
import test from 'ava';
import { randomBytes } from '@noble/ciphers/utils.js';
import { KECCAK256_RLP } from '@ethereumjs/util';
import { SimStore } from '../../sim/storage.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { bytesToHex, hexToBytes, type Hex } from '../crypto/bytes.ts';
import type { Store } from '../runtime/ports.ts';
import type { PrivateReceipt } from './private-state.ts';
import { decodePrivateTransaction, signPrivateTransaction } from './private-transaction.ts';
import { PrivateTransactionManager, type PtmNetwork } from './private-tx-manager.ts';
import { keyPairOf } from './ptm-crypto.ts';
import { PRIVACY_KEYS, PrivacyStore } from './privacy-store.ts';

const A = keyPairOf(keccak256(new TextEncoder().encode('store test a')));
const B = keyPairOf(keccak256(new TextEncoder().encode('store test b')));
const net: PtmNetwork = { send: () => {}, reachable: () => true };

function storeWithWarnings(store: Store = new SimStore()) {
  const warnings: string[] = [];
  return { store, warnings, privacy: new PrivacyStore(store, (m) => void warnings.push(m)) };
}

test('groups and payloads persist as the manager keeps and drops them, encrypted, and come back', async (t) => {
  const { store, privacy } = storeWithWarnings();
  const a = new PrivateTransactionManager(A, net, { entropy: randomBytes, journal: privacy });
  const group = a.createGroup([A.publicKey, B.publicKey], 'pair', 'd', new Uint8Array(32).fill(5));
  const payload = new TextEncoder().encode('a private payload kept on disk');
  const key = a.send(payload, group);
  await privacy.settled();
  const raw = [...(await store.keys('priv:'))].map((k) => (store as SimStore).getSync(k)!);
  t.false(raw.some((v) => Buffer.from(v).includes(Buffer.from(payload))), 'the disk holds no plaintext');

  const again = new PrivateTransactionManager(A, net, { entropy: randomBytes });
  for (const { group: g, pinned } of await privacy.loadGroups()) again.restoreGroup(g, pinned);
  for (const p of await privacy.loadPayloads()) again.restorePayload(p.key, p.senderKey, p.privacyGroupId, p.envelope, p.pinned);
  t.deepEqual(again.group(group.privacyGroupId), group);
  t.deepEqual(again.receive(key)?.payload, payload);

  a.deleteGroup(group.privacyGroupId);
  await privacy.settled();
  t.deepEqual(await privacy.loadGroups(), []);

  const other = new PrivateTransactionManager(B, net, { entropy: randomBytes });
  const [p] = await privacy.loadPayloads();
  t.is(other.restorePayload(p!.key, p!.senderKey, p!.privacyGroupId, p!.envelope, false), undefined, "another key cannot open A's stored envelope");
});

test('the private states marker and receipts round-trip; removed blocks lose theirs', async (t) => {
  const { privacy } = storeWithWarnings();
  const tx = signPrivateTransaction(
    { nonce: 0n, gasPrice: 1n, gasLimit: 100_000n, value: 0n, data: new Uint8Array([1]), privateFrom: Buffer.from(A.publicKey, 'base64'), privateFor: [Buffer.from(B.publicKey, 'base64')], restriction: 'restricted', chainId: 1337n },
    hexToBytes('0x853d7f0010fd86d0d7811c1f9d968ea89a24484a8127b4a483ddf5d2cfec766d'),
  );
  const blockHash = bytesToHex(randomBytes(32));
  const receipt: PrivateReceipt = {
    commitmentHash: bytesToHex(randomBytes(32)),
    blockHash,
    blockNumber: 7,
    transactionIndex: 0,
    privacyGroupId: Buffer.alloc(32, 1).toString('base64'),
    tx,
    status: 0,
    output: Uint8Array.of(8, 9),
    logs: [[randomBytes(20), [randomBytes(32)], Uint8Array.of(1)]],
    revertReason: new Uint8Array(0),
  };
  const roots = new Map([[receipt.privacyGroupId, KECCAK256_RLP]]);
  const nothingNew = () => ({ nodes: new Map(), missing: 0 });
  await privacy.flush({ number: 7, hash: blockHash }, roots, nothingNew, [{ hash: blockHash, receipts: [receipt] }], []);
  const head = await privacy.loadHead();
  t.deepEqual(head, { number: 7, hash: blockHash, roots });
  const back = (await privacy.receiptsOf(blockHash, decodePrivateTransaction))!;
  t.deepEqual({ ...back[0]!, tx: undefined }, { ...receipt, tx: undefined });
  t.is(back[0]!.tx.sender, tx.sender);
  await privacy.flush({ number: 8, hash: bytesToHex(randomBytes(32)) as Hex }, roots, nothingNew, [], [blockHash]);
  t.is(await privacy.receiptsOf(blockHash, decodePrivateTransaction), undefined);
});

test('an unreadable entry is skipped with a warning; a failed write stops the store with a warning', async (t) => {
  const { store, warnings, privacy } = storeWithWarnings();
  await store.write([{ key: `${PRIVACY_KEYS.payload}00`, value: Uint8Array.of(0xff) }, { key: PRIVACY_KEYS.head, value: Uint8Array.of(0xc1) }]);
  t.deepEqual(await privacy.loadPayloads(), []);
  t.is(await privacy.loadHead(), undefined);
  t.is(warnings.length, 2);

  const failing: Store = { get: async () => undefined, keys: async () => [], write: async () => Promise.reject(new Error('disk full')) };
  const broken = storeWithWarnings(failing);
  broken.privacy.groupDropped(Buffer.alloc(32).toString('base64'));
  await broken.privacy.settled();
  t.true(broken.privacy.stopped);
  t.regex(broken.warnings[0]!, /privacy persistence stopped/);
});
