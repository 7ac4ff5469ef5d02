/** The live network end to end: real clock, LevelDB stores, JSON-RPC over HTTP and WebSocket. */
import test from 'ava';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { startNetwork, type RunningNetwork } from '../cli/network-command.ts';
import { BESU_TEST_ACCOUNTS } from '../sim/keys.ts';
import { bytesToHex } from '../node/crypto/bytes.ts';
import { rpc, untilValue } from './process-kit.ts';

/** Waits as long as this test always has (20 s). */
const until = <T>(what: string, fn: () => Promise<T | undefined>): Promise<T> => untilValue(what, fn, 20_000);

test.serial('a 4-validator network makes blocks, takes a transaction, answers over HTTP, WebSocket (newHeads pub/sub) and GraphQL, and resumes after a restart', async (t) => {
  const dataPath = mkdtempSync(join(tmpdir(), 'qbft-lab-net-'));
  let net: RunningNetwork | undefined = await startNetwork({ validators: '4', 'data-path': dataPath, 'base-port': '0' }, Date.now());
  try {
    const port = net.httpPorts[0];
    await until('height 2', async () => (BigInt(await rpc(port, 'eth_blockNumber')) >= 2n ? true : undefined));
    t.is(await rpc(port, 'eth_chainId'), '0x539');
    const validators = await rpc(net.httpPorts[1], 'qbft_getValidatorsByBlockNumber', ['latest']);
    t.deepEqual(validators, net.nodes.map((l) => l.node.address).sort());

    const [from, to] = BESU_TEST_ACCOUNTS;
    const nonce = BigInt(await rpc(port, 'eth_getTransactionCount', [from.address, 'pending']));
    const tx = createFeeMarket1559Tx({ nonce, to: to.address, value: 12345n, gasLimit: 21000n, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n, chainId: 1337n }, { common: net.nodes[0].node.common }).sign(from.privateKey);
    const hash = await rpc(port, 'eth_sendRawTransaction', [bytesToHex(tx.serialize())]);
    t.is(hash, bytesToHex(tx.hash()));
    const receipt = await until('the receipt', async () => (await rpc(net!.httpPorts[2], 'eth_getTransactionReceipt', [hash])) ?? undefined);
    t.is(receipt.status, '0x1');

    const ws = new WebSocket(`ws://127.0.0.1:${net.wsPorts[3]}`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const reply = new Promise<any>((resolve) => ws.once('message', (data) => resolve(JSON.parse(String(data)))));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_blockNumber', params: [] }));
    t.regex((await reply).result, /^0x[0-9a-f]+$/);
    const heads: any[] = [];
    let subscriptionId: string | undefined;
    const subscribed = new Promise<void>((resolve) =>
      ws.on('message', (data) => {
        const m = JSON.parse(String(data));
        if (m.id === 8) {
          subscriptionId = m.result;
          resolve();
        } else if (m.method === 'eth_subscription') heads.push(m.params);
      }),
    );
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'eth_subscribe', params: ['newHeads'] }));
    await subscribed;
    await until('two newHeads notifications', async () => (heads.length >= 2 ? true : undefined));
    t.is(heads[0].subscription, subscriptionId);
    t.is(BigInt(heads[1].result.number), BigInt(heads[0].result.number) + 1n);
    t.regex(heads[0].result.hash, /^0x[0-9a-f]{64}$/);
    ws.close();
    const overHttp = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'eth_subscribe', params: ['newHeads'] }) });
    t.is(((await overHttp.json()) as any).error.code, -32604, 'pub/sub is not served over HTTP');

    const gql = await fetch(`http://127.0.0.1:${net.graphqlPorts[0]}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: `{ transaction(hash: "${hash}") { status block { number } } chainID }` }) });
    t.is(gql.status, 200);
    const gqlBody = (await gql.json()) as any;
    t.is(gqlBody.data.transaction.status, '0x1');
    t.is(gqlBody.data.chainID, '0x539');
    const health = await fetch(`http://127.0.0.1:${port}/liveness`);
    t.is(health.status, 200);

    const before = Number(BigInt(await rpc(port, 'eth_blockNumber')));
    await net.close();
    net = undefined;
    net = await startNetwork({ validators: '4', 'data-path': dataPath, 'base-port': '0' }, Date.now());
    const resumed = Number(BigInt(await rpc(net.httpPorts[0], 'eth_blockNumber')));
    t.true(resumed >= before, `resumed at ${resumed}, was ${before}`);
    t.deepEqual(await rpc(net.httpPorts[0], 'eth_getTransactionReceipt', [hash]).then((r) => r.status), '0x1');
    await until('a new block after the restart', async () => (Number(BigInt(await rpc(net!.httpPorts[0], 'eth_blockNumber'))) > resumed ? true : undefined));
  } finally {
    await net?.close();
  }
});
