/**
 * PRIV and EEA over JSON-RPC on a simulated network: three privacy-enabled nodes (v0..v2), a group
 * of v0 and v1, a private contract deployed with eea_sendRawTransaction and called; priv_subscribe
 * delivers its logs to members only; a reorganization's removed logs come with removed: true; the
 * non-member's answers are Besu's for a non-member; a node without privacy answers -50100.
 */
import test from 'ava';
import { bytesToHex, uint256ToBytes, type Hex } from '../../crypto/bytes.ts';
import type { QbftNode } from '../../node.ts';
import { signPrivateTransaction } from '../../privacy/private-transaction.ts';
import { privacyKey, privacyWorld, STORED_TOPIC, storageContractInitCode } from '../../privacy/privacy-test-kit.ts';
import { Dispatcher } from '../dispatcher.ts';
import { createNodeRpc } from '../node-rpc.ts';
import { ALL_API_GROUPS, MethodRegistry } from '../registry.ts';
import { InProcessRpc } from '../transports/in-process.ts';
import { RpcError } from '../errors.ts';

const SENDER_KEY = Uint8Array.from(Buffer.from('853d7f0010fd86d0d7811c1f9d968ea89a24484a8127b4a483ddf5d2cfec766d', 'hex'));

function connect(node: QbftNode, connectionId: string): InProcessRpc {
  const rpc = createNodeRpc(node);
  const registry = new MethodRegistry();
  registry.registerAll(rpc.methods);
  const dispatcher = new Dispatcher({ registry, enabledApis: new Set(ALL_API_GROUPS), maxBatchSize: 1024, transport: 'in-process' });
  return new InProcessRpc(dispatcher, { connectionId });
}

async function rpcError(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RpcError) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('expected an error');
}

function rawPrivate(nonce: bigint, to: Hex | undefined, data: Uint8Array, privacyGroupId: string): string {
  return bytesToHex(
    signPrivateTransaction(
      { nonce, gasPrice: 10n ** 9n, gasLimit: 300_000n, to, value: 0n, data, privateFrom: Buffer.from(privacyKey(0), 'base64'), privacyGroupId: Buffer.from(privacyGroupId, 'base64'), restriction: 'restricted', chainId: 1337n },
      SENDER_KEY,
    ).encoded,
  );
}

test('privacy group, private contract, priv_subscribe and a non-member, over JSON-RPC', async (t) => {
  const world = await privacyWorld();
  const [c0, c1, c2, c3] = ['v0', 'v1', 'v2', 'v3'].map((n, i) => connect(world.get(n).node!, `conn-${i}`));
  const [k0, k1] = [privacyKey(0), privacyKey(1)];

  t.is(await c0.request('priv_getPrivacyPrecompileAddress'), '0x000000000000000000000000000000000000007e');
  t.deepEqual(await rpcError(c3.request('priv_getPrivacyPrecompileAddress')), { code: -50100, message: 'Privacy is not enabled' });
  t.deepEqual(await rpcError(c0.request('priv_createPrivacyGroup', [{ addresses: [k1, privacyKey(2)] }])), { code: -50200, message: 'CreatePrivacyGroupShouldIncludeSelf' });

  const groupId = (await c0.request('priv_createPrivacyGroup', [{ addresses: [k0, k1], name: 'pair', description: 'v0 and v1' }])) as string;
  await world.advanceBy(500);
  const found = (await c1.request('priv_findPrivacyGroup', [[k1, k0]])) as Array<{ privacyGroupId: string; type: string; members: string[] }>;
  t.deepEqual(found.map((g) => [g.privacyGroupId, g.type]), [[groupId, 'PANTHEON']]);
  t.deepEqual(await c2.request('priv_findPrivacyGroup', [[k0, k1]]), [], 'the non-member was never told of the group');

  await c1.request('priv_subscribe', [groupId, 'logs', {}]);
  await c0.request('priv_subscribe', [groupId, 'logs', { topics: [bytesToHex(STORED_TOPIC)] }]);
  t.deepEqual(await rpcError(c2.request('priv_subscribe', [groupId, 'logs', {}])), { code: -50100, message: 'Offchain Privacy group does not exist.' });

  const deploy = (await c0.request('eea_sendRawTransaction', [rawPrivate(0n, undefined, storageContractInitCode(), groupId)])) as Hex;
  await world.advanceBy(4_000);
  const receipt = (await c1.request('priv_getTransactionReceipt', [deploy])) as Record<string, unknown>;
  t.is(receipt.status, '0x1');
  t.is(receipt.commitmentHash, deploy);
  t.is(receipt.privacyGroupId, groupId);
  const contract = receipt.contractAddress as Hex;
  t.deepEqual(await c0.request('priv_getTransactionReceipt', [deploy]), receipt);
  t.is(await c2.request('priv_getTransactionReceipt', [deploy]), null, 'the non-member only sees the marker');
  t.is(await c2.request('priv_getPrivateTransaction', [deploy]), null);
  t.is(((await c2.request('eth_getTransactionByHash', [deploy])) as { to: string }).to, '0x000000000000000000000000000000000000007e');
  t.regex((await c1.request('priv_getCode', [groupId, contract, 'latest'])) as string, /^0x36156036/);
  t.deepEqual(await rpcError(c2.request('priv_getCode', [groupId, contract, 'latest'])), { code: -50100, message: 'Offchain Privacy group does not exist.' });
  t.deepEqual(await rpcError(c2.request('priv_getTransactionCount', [((await c0.request('priv_getPrivateTransaction', [deploy])) as { from: string }).from, groupId])), { code: -50100, message: 'Unable to determine nonce for account in group.' });

  const set = (await c0.request('eea_sendRawTransaction', [rawPrivate(1n, contract, uint256ToBytes(7n), groupId)])) as Hex;
  await world.advanceBy(4_000);
  t.is(await c1.request('priv_call', [groupId, { to: contract, data: '0x' }, 'latest']), bytesToHex(uint256ToBytes(7n)));
  const sender = ((await c0.request('priv_getPrivateTransaction', [set])) as { from: string }).from;
  t.is(await c0.request('priv_getTransactionCount', [sender, groupId]), '0x2');
  const logs = (await c1.request('priv_getLogs', [groupId, { fromBlock: '0x0' }])) as Array<{ transactionHash: string; data: string; removed: boolean }>;
  t.deepEqual(logs.map((l) => [l.transactionHash, BigInt(l.data), l.removed]), [[set, 7n, false]]);

  for (const [c, name] of [[c0, 'v0'], [c1, 'v1']] as const) {
    const n = c.takeNotifications();
    t.is(n.length, 1, name);
    t.is(n[0]!.privacyGroupId, groupId);
    t.is((n[0]!.result as { transactionHash: string }).transactionHash, set);
  }
  t.deepEqual(c2.takeNotifications(), []);

  // A reorganization that drops the block of `set` (what the node passes on one).
  const node1 = world.get('v1').node!;
  const entry = node1.blockByHash(node1.transactionLocation(set)!.blockHash)!;
  await node1.privacy()!.onReorg({ removed: [entry], added: [] }, node1.genesisBlock().hash);
  const removed = c1.takeNotifications();
  t.is(removed.length, 1);
  t.is((removed[0]!.result as { removed: boolean; transactionHash: string }).removed, true);
  t.is((removed[0]!.result as { transactionHash: string }).transactionHash, set);
  t.deepEqual(world.errors, []);
});

test('eea_sendRawTransaction refuses what Besu refuses', async (t) => {
  const world = await privacyWorld();
  const c0 = connect(world.get('v0').node!, 'c');
  t.deepEqual(await rpcError(c0.request('eea_sendRawTransaction', ['0x1234'])), { code: -50100, message: 'Unable to decode the private signed raw transaction' });
  const groupId = (await c0.request('priv_createPrivacyGroup', [{ addresses: [privacyKey(0), privacyKey(1)] }])) as string;
  const fromOther = bytesToHex(
    signPrivateTransaction({ nonce: 0n, gasPrice: 1n, gasLimit: 100_000n, value: 0n, data: new Uint8Array(0), privateFrom: Buffer.from(privacyKey(1), 'base64'), privacyGroupId: Buffer.from(groupId, 'base64'), restriction: 'restricted', chainId: 1337n }, SENDER_KEY).encoded,
  );
  t.deepEqual(await rpcError(c0.request('eea_sendRawTransaction', [fromOther])), { code: -50100, message: 'Private from does not match enclave public key' });
  const unrestricted = bytesToHex(
    signPrivateTransaction({ nonce: 0n, gasPrice: 1n, gasLimit: 100_000n, value: 0n, data: new Uint8Array(0), privateFrom: Buffer.from(privacyKey(0), 'base64'), privacyGroupId: Buffer.from(groupId, 'base64'), restriction: 'unrestricted', chainId: 1337n }, SENDER_KEY).encoded,
  );
  t.deepEqual(await rpcError(c0.request('eea_sendRawTransaction', [unrestricted])), { code: -50100, message: 'Unsupported private transaction type' });
  const unknownGroup = rawPrivate(0n, undefined, new Uint8Array(0), Buffer.alloc(32, 9).toString('base64'));
  t.deepEqual(await rpcError(c0.request('eea_sendRawTransaction', [unknownGroup])), { code: -50100, message: 'Offchain Privacy group does not exist.' });
  const withValue = bytesToHex(
    signPrivateTransaction({ nonce: 0n, gasPrice: 1n, gasLimit: 100_000n, value: 5n, data: new Uint8Array(0), privateFrom: Buffer.from(privacyKey(0), 'base64'), privacyGroupId: Buffer.from(groupId, 'base64'), restriction: 'restricted', chainId: 1337n }, SENDER_KEY).encoded,
  );
  t.deepEqual(await rpcError(c0.request('eea_sendRawTransaction', [withValue])), { code: -50100, message: 'We cannot transfer ether in a private transaction yet.' });
});
