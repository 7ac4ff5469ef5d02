/**
 * Privacy in a simulated network: four validators, three with privacy, a group of two. Payloads
 * reach members only; members run the private transactions on the group's private state in
 * marker order; the non-member sees only the marker and its private states stay empty.
 */
import test from 'ava';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, concatBytes, hexToBytes, uint256ToBytes, type Hex } from '../crypto/bytes.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { BESU_TEST_ACCOUNTS } from '../../sim/keys.ts';
import { privacyKey, privacyWorld, STORED_TOPIC, storageContractInitCode } from './privacy-test-kit.ts';
import type { QbftNode } from '../node.ts';
import { signPrivateTransaction, type PrivateTransaction } from './private-transaction.ts';
import { PRIVACY_PRECOMPILE_ADDRESS } from './node-privacy.ts';

const SENDER_KEY = hexToBytes('0x853d7f0010fd86d0d7811c1f9d968ea89a24484a8127b4a483ddf5d2cfec766d');

/** What eea_sendRawTransaction does: store the payload with the manager, submit the marker. */
async function sendPrivate(node: QbftNode, tx: PrivateTransaction): Promise<Hex> {
  const privacy = node.privacy()!;
  const group = privacy.groupOf(tx)!;
  const key = privacy.ptm.send(tx.encoded, group);
  const marker = privacy.markerTransaction(tx, key, (a) => node.poolNextNonce(a), node.head().block.header);
  const r = await node.submitTransaction(marker.serialize());
  if (!r.ok) throw new Error(r.error);
  return r.hash;
}

function privateTx(nonce: bigint, to: Hex | undefined, data: Uint8Array): PrivateTransaction {
  return signPrivateTransaction(
    { nonce, gasPrice: 10n ** 9n, gasLimit: 300_000n, to, value: 0n, data, privateFrom: Buffer.from(privacyKey(0), 'base64'), privateFor: [Buffer.from(privacyKey(1), 'base64')], restriction: 'restricted', chainId: 1337n },
    SENDER_KEY,
  );
}

test('a private contract is deployed and called by the members of its group only; the non-member sees only the markers', async (t) => {
  const world = await privacyWorld();
  const [v0, v1, v2, v3] = ['v0', 'v1', 'v2', 'v3'].map((n) => world.get(n).node!);
  const deploy = await sendPrivate(v0, privateTx(0n, undefined, storageContractInitCode()));
  await world.advanceBy(4_000);
  const deployed = v0.privacy()!.states.receipt(deploy);
  t.truthy(deployed, 'the sender has a private receipt');
  t.is(deployed!.status, 1);
  const contract = deployed!.contractAddress!;
  const sender = hexToBytes(privateTx(0n, undefined, new Uint8Array(0)).sender);
  t.is(contract, bytesToHex(keccak256(RLP.encode([sender, new Uint8Array(0)])).subarray(12)), 'CREATE address of the sender at private nonce 0');
  t.deepEqual(v1.privacy()!.states.receipt(deploy)?.contractAddress, contract, 'the other member ran it too');
  t.is(v2.privacy()!.states.receipt(deploy), undefined, 'the non-member holds no payload and ran nothing');

  const set = await sendPrivate(v0, privateTx(1n, contract, uint256ToBytes(42n)));
  await world.advanceBy(4_000);
  for (const node of [v0, v1]) {
    const r = node.privacy()!.states.receipt(set)!;
    t.is(r.status, 1);
    t.is(r.logs.length, 1);
    t.is(bytesToHex(r.logs[0]![1][0]!), bytesToHex(STORED_TOPIC));
    t.is(BigInt(bytesToHex(r.logs[0]![2])), 42n);
  }
  // The markers are public: every node has them in the same block, to the privacy precompile.
  for (const node of [v0, v1, v2, v3]) {
    const loc = node.transactionLocation(set)!;
    const tx = node.blockByHash(loc.blockHash)!.block.transactions[loc.index]!;
    t.is(tx.to?.toString(), PRIVACY_PRECOMPILE_ADDRESS);
  }
  // Member states agree; the non-member's group state is empty (the empty trie).
  const head = v0.head().hash;
  const group = v0.privacy()!.groupOf(privateTx(2n, contract, new Uint8Array(0)))!.privacyGroupId;
  t.deepEqual(v0.privacy()!.states.rootAt(head, group), v1.privacy()!.states.rootAt(v1.head().hash, group));
  t.is(bytesToHex(v2.privacy()!.states.rootAt(v2.head().hash, group)!), '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421');
  const stored = await v1.privacy()!.states.call(v1.head().block.header, v1.privacy()!.states.rootAt(v1.head().hash, group)!, BESU_TEST_ACCOUNTS[0]!.address, contract, new Uint8Array(0), 100_000n);
  t.is(BigInt(bytesToHex(stored.output)), 42n);
  t.deepEqual(world.errors, []);
});

test('a private transaction with a wrong nonce changes nothing and gets a failed receipt', async (t) => {
  const world = await privacyWorld();
  const v0 = world.get('v0').node!;
  const marker = await sendPrivate(v0, privateTx(5n, undefined, storageContractInitCode()));
  await world.advanceBy(4_000);
  const r = v0.privacy()!.states.receipt(marker)!;
  t.is(r.status, 0);
  t.is(r.contractAddress, undefined);
  const group = v0.privacy()!.groupOf(privateTx(0n, undefined, new Uint8Array(0)))!.privacyGroupId;
  t.is(bytesToHex(v0.privacy()!.states.rootAt(v0.head().hash, group)!), '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421');
});

test('a block that leaves the canonical chain and comes back gets its private receipts back; an unknown parent is caught up', async (t) => {
  const world = await privacyWorld();
  const v0 = world.get('v0').node!;
  const marker = await sendPrivate(v0, privateTx(0n, undefined, storageContractInitCode()));
  await world.advanceBy(4_000);
  const entry = v0.blockByHash(v0.transactionLocation(marker)!.blockHash)!;
  const events: Array<[number, number]> = [];
  v0.privacy()!.onPrivateReorg((e) => events.push([e.removed.length, e.added.length]));
  await v0.privacy()!.onReorg({ removed: [entry], added: [] }, v0.genesisBlock().hash);
  await v0.privacy()!.onReorg({ removed: [], added: [entry] }, v0.genesisBlock().hash);
  t.deepEqual(events, [[1, 0], [0, 1]]);
  t.is(v0.privacy()!.states.receipt(marker)?.blockHash, entry.hash);

  // A node whose private states start late (a restart keeps none) runs the missing blocks first.
  const v1 = world.get('v1').node!;
  const fresh = new (v1.privacy()!.states.constructor as typeof import('./private-state.ts').PrivateStates)(v1.common);
  (v1.privacy() as unknown as { states: unknown }).states = fresh;
  const head = v1.head();
  await v1.privacy()!.onReorg({ removed: [], added: [head] }, v1.genesisBlock().hash, (h) => v1.blockByHash(h));
  t.is(fresh.receipt(marker)?.status, 1, 'the marker block, an ancestor of the head, was run');
});
