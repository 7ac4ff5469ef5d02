/**
 * Validators as separate OS processes peered over RLPx: the chain goes on when one is killed with
 * SIGKILL, the killed one catches up when restarted, and a node started later with only a bootnode
 * syncs the chain.
 */
import test from 'ava';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcessNetwork } from '../cli/network-command.ts';
import { startNodeProcess, stopNodeProcess, type ProcessNode } from '../cli/process-network.ts';
import { privateKeyToAddress } from '../node/crypto/secp256k1.ts';
import { blockHash, height, rpc, until } from './process-kit.ts';

test('four validator processes: kill -9 of one leaves the chain going, its restart catches up, a later node syncs from a bootnode', async (t) => {
  t.timeout(180_000);
  const dataPath = mkdtempSync(join(tmpdir(), 'qbft-lab-procs-'));
  // Options after `--` reach every node: here a batch limit of 2.
  const { net } = await startProcessNetwork({ validators: '4', 'data-path': dataPath, 'base-port': '0' }, Date.now(), ['--rpc-http-max-batch-size', '2']);
  const [v0, v1, v2, v3] = net.nodes as [ProcessNode, ProcessNode, ProcessNode, ProcessNode];
  const observer: ProcessNode = {
    spec: { name: 'o0', address: '', privateKey: Uint8Array.from({ length: 32 }, (_, i) => i + 7), dataPath: join(dataPath, 'o0'), args: [], p2pPort: 0 },
    child: undefined,
    enode: '',
    output: [],
  };
  try {
    await until('height 2 everywhere', async () => (await Promise.all(net.nodes.map((n) => height(n.httpPort)))).every((h) => h >= 2));
    for (const n of net.nodes) t.is(BigInt(await rpc(n.httpPort, 'net_peerCount')), 3n, `${n.spec.name} is peered with the other three`);
    for (const n of net.nodes) {
      const batch = Array.from({ length: 3 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'eth_blockNumber', params: [] }));
      const res = await fetch(`http://127.0.0.1:${n.httpPort}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) });
      t.is(((await res.json()) as { error?: { code: number } }).error?.code, -32005, `${n.spec.name} got the passed-through option`);
    }

    await net.stopNode(0, 'SIGKILL');
    const atKill = await height(v1.httpPort);
    await until('3 more blocks without v0', async () => (await height(v1.httpPort)) >= atKill + 3);
    t.true((await height(v3.httpPort)) >= atKill + 2);

    await net.startNode(0);
    const target = await height(v1.httpPort);
    await until('v0 caught up', async () => (await height(v0.httpPort)) >= target);
    await until('v0 peered again', async () => BigInt(await rpc(v0.httpPort, 'net_peerCount')) === 3n);
    t.is(await blockHash(v0.httpPort, target), await blockHash(v2.httpPort, target), 'the restarted node holds the same chain');

    mkdirSync(observer.spec.dataPath, { recursive: true });
    observer.spec.args = ['--data-path', observer.spec.dataPath, '--genesis-file', join(dataPath, 'genesis.json'), '--rpc-http-enabled', '--rpc-http-port', '0', '--p2p-interface', '127.0.0.1'];
    await startNodeProcess(observer, [v1.enode]);
    const now = await height(v1.httpPort);
    await until('the observer synced', async () => (await height(observer.httpPort)) >= now);
    t.is(await blockHash(observer.httpPort, now), await blockHash(v1.httpPort, now));
    t.is(BigInt(await rpc(observer.httpPort, 'net_peerCount')) >= 1n, true);
    const validators: string[] = await rpc(observer.httpPort, 'qbft_getValidatorsByBlockNumber', ['latest']).catch(() => []);
    t.false(validators.includes(privateKeyToAddress(observer.spec.privateKey).toLowerCase()), 'the observer is not a validator');
  } finally {
    await stopNodeProcess(observer);
    await net.close();
  }
});
