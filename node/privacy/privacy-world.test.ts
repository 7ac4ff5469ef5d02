/**
 * Privacy that holds, in a simulated network (four validators, privacy on v0..v2):
 * - the key hijack: v2 runs with v1's public privacy key; v0 restarts while v1 is cut off, so v2
 *   meets it first. v2 cannot prove the key: v0 maps it to v1 when v1 is back, and v1 gets the
 *   payload. With v0's key proof planted off the same run cuts v1 out and sends v2 the payload.
 * - payloads on the wire are ciphertext: no captured ptm message holds the private transaction.
 * - a restarted member answers priv_getTransactionReceipt, priv_getCode and priv_call for what it
 *   ran before (from its store, at once), and runs the next private transaction on those states;
 *   with the store's privacy entries deleted it cannot (the answers do come from the store).
 */
import test from 'ava';
import { bytesToHex, hexToBytes, uint256ToBytes, type Hex } from '../crypto/bytes.ts';
import type { QbftNode } from '../node.ts';
import { Dispatcher } from '../rpc/dispatcher.ts';
import { createNodeRpc } from '../rpc/node-rpc.ts';
import { ALL_API_GROUPS, MethodRegistry } from '../rpc/registry.ts';
import { InProcessRpc } from '../rpc/transports/in-process.ts';
import type { World } from '../../sim/world.ts';
import { privacyConfig, privacyKey, privacyWorld, storageContractInitCode } from './privacy-test-kit.ts';
import { signPrivateTransaction, type PrivateTransaction } from './private-transaction.ts';
import { PTM_CODE } from './ptm-wire.ts';

const SENDER_KEY = hexToBytes('0x853d7f0010fd86d0d7811c1f9d968ea89a24484a8127b4a483ddf5d2cfec766d');

function rpcOf(node: QbftNode): InProcessRpc {
  const registry = new MethodRegistry();
  registry.registerAll(createNodeRpc(node).methods);
  return new InProcessRpc(new Dispatcher({ registry, enabledApis: new Set(ALL_API_GROUPS), maxBatchSize: 16, transport: 'in-process' }), { connectionId: 'test' });
}

function privateTx(nonce: bigint, to: Hex | undefined, data: Uint8Array): PrivateTransaction {
  return signPrivateTransaction(
    { nonce, gasPrice: 10n ** 9n, gasLimit: 300_000n, to, value: 0n, data, privateFrom: Buffer.from(privacyKey(0), 'base64'), privateFor: [Buffer.from(privacyKey(1), 'base64')], restriction: 'restricted', chainId: 1337n },
    SENDER_KEY,
  );
}

const send = async (node: QbftNode, tx: PrivateTransaction): Promise<Hex> => (await rpcOf(node).request('eea_sendRawTransaction', [bytesToHex(tx.encoded)])) as Hex;

/** Payload messages a node's privacy peers are handed. */
function countPayloadsAt(world: World, name: string): { count: number } {
  const peers = world.get(name).node!.privacy()!.peers;
  const onMessage = peers.onMessage.bind(peers);
  const seen = { count: 0 };
  peers.onMessage = (peer, code, data) => {
    if (code === PTM_CODE.payload) seen.count++;
    onMessage(peer, code, data);
  };
  return seen;
}

async function hijackRun(plantSkipKeyProof: boolean) {
  const world = await privacyWorld((i) => (i === 0 ? { ...privacyConfig(0)!, plantSkipKeyProof } : i === 2 ? { ...privacyConfig(2)!, publicKey: privacyKey(1) } : privacyConfig(i)));
  const wire: Uint8Array[] = [];
  world.network.tap((_from, m) => {
    if (m.protocol === 'ptm' && m.code === PTM_CODE.payload) wire.push(m.data);
  });
  world.partition([['v0', 'v2', 'v3'], ['v1']]);
  await world.restart('v0');
  await world.advanceBy(2_000);
  world.heal();
  await world.advanceBy(2_000);
  const atV2 = countPayloadsAt(world, 'v2');
  const tx = privateTx(0n, undefined, storageContractInitCode());
  const marker = await send(world.get('v0').node!, tx);
  await world.advanceBy(4_000);
  const receiptAtV1 = (await rpcOf(world.get('v1').node!).request('priv_getTransactionReceipt', [marker])) as { status: string } | null;
  return { world, tx, wire, receiptAtV1, payloadsAtV2: atV2.count };
}

test('key hijack: a node started with a member\'s public privacy key, met first after a restart, gets nothing; the member gets the payload', async (t) => {
  const r = await hijackRun(false);
  t.is(r.receiptAtV1?.status, '0x1', 'v1 ran the private transaction');
  t.is(r.payloadsAtV2, 0, 'v2 was sent nothing');
  t.is(r.world.get('v0').node!.privacy()!.peers.keyOf('v2'), undefined);
  t.is(r.world.get('v0').node!.privacy()!.peers.keyOf('v1'), privacyKey(1));
  t.deepEqual(r.world.errors, []);
});

test('planted: with the key proof off at the restarted node the same run hands the member\'s payload to the impostor and cuts the member out', async (t) => {
  const r = await hijackRun(true);
  t.is(r.receiptAtV1, null, 'v1 never got the payload');
  t.true(r.payloadsAtV2 >= 1, 'v2 was sent it');
  t.is(r.world.get('v0').node!.privacy()!.peers.keyOf('v2'), privacyKey(1));
});

test('payloads on the wire are ciphertext: no captured ptm payload message holds the private transaction', async (t) => {
  const r = await hijackRun(false);
  t.true(r.wire.length >= 1, 'payload messages were captured');
  for (const data of r.wire) for (let at = 0; at + 32 <= r.tx.encoded.length; at += 32) t.false(Buffer.from(data).includes(Buffer.from(r.tx.encoded.subarray(at, at + 32))));
});

/** Deploy and store 42 from v0 to v1; returns the markers, the group and the contract. */
async function runPrivateHistory(world: World) {
  const v0 = world.get('v0').node!;
  const deploy = await send(v0, privateTx(0n, undefined, storageContractInitCode()));
  await world.advanceBy(4_000);
  const c1 = rpcOf(world.get('v1').node!);
  const receipt = (await c1.request('priv_getTransactionReceipt', [deploy])) as { contractAddress: Hex; status: string };
  const set = await send(v0, privateTx(1n, receipt.contractAddress, uint256ToBytes(42n)));
  await world.advanceBy(4_000);
  const groupId = v0.privacy()!.groupOf(privateTx(0n, undefined, new Uint8Array(0)))!.privacyGroupId;
  return { deploy, set, contract: receipt.contractAddress, groupId };
}

async function answers(node: QbftNode, h: Awaited<ReturnType<typeof runPrivateHistory>>) {
  const c = rpcOf(node);
  return {
    deploy: await c.request('priv_getTransactionReceipt', [h.deploy]),
    set: await c.request('priv_getTransactionReceipt', [h.set]),
    code: await c.request('priv_getCode', [h.groupId, h.contract, 'latest']).catch((e: Error) => e.message),
    stored: await c.request('priv_call', [h.groupId, { to: h.contract, data: '0x' }, 'latest']).catch((e: Error) => e.message),
  };
}

test('a restarted member answers for its private transactions at once, from its store, and carries on from the restored states', async (t) => {
  const world = await privacyWorld();
  const h = await runPrivateHistory(world);
  const before = await answers(world.get('v1').node!, h);
  t.is((before.set as { status: string }).status, '0x1');
  t.is(before.stored, bytesToHex(uint256ToBytes(42n)));

  await world.restart('v1');
  const after = await answers(world.get('v1').node!, h);
  t.deepEqual(after, before, 'same receipts, code and storage right after the restart, before any new block');
  const restarted = world.get('v1').node!;
  t.false(restarted.privacy()!.states.has(restarted.blockAt(1)!.hash), 'resumed from the persisted private states, not run again from the genesis');

  await world.advanceBy(1_000);
  await send(world.get('v0').node!, privateTx(2n, h.contract, uint256ToBytes(43n)));
  await world.advanceBy(4_000);
  t.is(await rpcOf(world.get('v1').node!).request('priv_call', [h.groupId, { to: h.contract, data: '0x' }, 'latest']), bytesToHex(uint256ToBytes(43n)));
  const [v0, v1] = [world.get('v0').node!, world.get('v1').node!];
  t.deepEqual(v1.privacy()!.states.rootAt(v1.head().hash, h.groupId), v0.privacy()!.states.rootAt(v0.head().hash, h.groupId), 'the member states agree');
  t.deepEqual(world.errors, []);
});

test('control: with its stored privacy entries deleted a restarted member cannot answer (the answers above come from the store)', async (t) => {
  const world = await privacyWorld();
  const h = await runPrivateHistory(world);
  world.crash('v1');
  const store = world.stores.open('v1');
  await store.write((await store.keys('priv:')).map((key) => ({ key, value: undefined })));
  await world.startNode('v1');
  const after = await answers(world.get('v1').node!, h);
  t.is(after.deploy, null);
  t.is(after.set, null);
  t.regex(String(after.code), /Offchain Privacy group does not exist/);
});
