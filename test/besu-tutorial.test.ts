/**
 * Besu's "Create a private network using QBFT" tutorial with `besu` replaced by `qbft-lab`:
 * `operator generate-blockchain-config`, keys copied into each node's data directory, Node-1
 * started alone, Nodes 2-4 with Node-1 as their only bootnode. Discovery (discv4) must connect
 * Nodes 2-4 to each other, so the chain goes on when Node-1 is killed.
 */
import test from 'ava';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../cli/main.ts';
import { captureIo } from '../cli/capture-io.ts';
import { startNodeProcess, stopNodeProcess, type ProcessNode } from '../cli/process-network.ts';
import { blockHash, height as heightAt, peerCount, rpc, until } from './process-kit.ts';

const CONFIG = {
  genesis: {
    config: { chainId: 1337, berlinBlock: 0, qbft: { blockperiodseconds: 1, epochlength: 30000, requesttimeoutseconds: 4 } },
    nonce: '0x0',
    timestamp: '0x58ee40ba',
    gasLimit: '0x47b760',
    difficulty: '0x1',
    mixHash: '0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365',
    coinbase: '0x0000000000000000000000000000000000000000',
    alloc: { fe3b557e8fb62b89f4916b721be55ceb828dbd73: { balance: '0xad78ebc5ac6200000' } },
  },
  blockchain: { nodes: { generate: true, count: 4 } },
};

const height = (node: ProcessNode): Promise<number> => heightAt(node.httpPort);
const peers = (node: ProcessNode): Promise<number> => peerCount(node.httpPort);

test('the QBFT tutorial: generated keys and genesis, one bootnode, discovery meshes the rest; the chain survives a kill -9 of the bootnode, which catches up on restart; a fifth node syncs from a bootnode', async (t) => {
  t.timeout(180_000);
  const root = mkdtempSync(join(tmpdir(), 'QBFT-Network-'));
  writeFileSync(join(root, 'qbftConfigFile.json'), JSON.stringify(CONFIG));
  const io = captureIo();
  const code = await main(['operator', 'generate-blockchain-config', `--config-file=${join(root, 'qbftConfigFile.json')}`, `--to=${join(root, 'networkFiles')}`, '--private-key-file-name=key'], io);
  t.is(code, 0, io.stderr);
  const keyDirs = readdirSync(join(root, 'networkFiles', 'keys')).sort();
  t.is(keyDirs.length, 4);
  const nodes: ProcessNode[] = keyDirs.map((address, i) => {
    const dataPath = join(root, `Node-${i + 1}`, 'data');
    mkdirSync(dataPath, { recursive: true });
    for (const file of ['key', 'key.pub']) copyFileSync(join(root, 'networkFiles', 'keys', address, file), join(dataPath, file));
    return {
      spec: {
        name: `Node-${i + 1}`,
        address,
        privateKey: new Uint8Array(0), // the key file is already in place
        dataPath,
        args: ['--data-path', dataPath, '--genesis-file', join(root, 'networkFiles', 'genesis.json'), '--rpc-http-enabled', '--rpc-http-api=ETH,NET,QBFT', '--host-allowlist=*', '--rpc-http-cors-origins=all', '--rpc-http-port', '0', '--profile=ENTERPRISE', '--p2p-interface', '127.0.0.1'],
        p2pPort: 0,
      },
      child: undefined,
      enode: '',
      output: [],
    };
  });
  try {
    await startNodeProcess(nodes[0]!, []);
    for (const node of nodes.slice(1)) await startNodeProcess(node, [nodes[0]!.enode]);
    await until('every node peered with the other three', async () => (await Promise.all(nodes.map(peers))).every((n) => n === 3));
    await until('blocks', async () => (await height(nodes[1]!)) >= 2);
    const validators: string[] = await rpc(nodes[1]!.httpPort, 'qbft_getValidatorsByBlockNumber', ['latest']);
    t.deepEqual([...validators].sort(), keyDirs, 'the validators are the generated keys');

    await stopNodeProcess(nodes[0]!, 'SIGKILL');
    const atKill = await height(nodes[1]!);
    await until('three blocks without the bootnode', async () => (await height(nodes[3]!)) >= atKill + 3);
    t.is(await peers(nodes[2]!), 2);

    // Node-1 restarts on its data directory: the others re-dial it (it is their bootnode) and it catches up.
    await startNodeProcess(nodes[0]!, []);
    const target = await height(nodes[1]!);
    await until('Node-1 caught up and rejoined', async () => (await height(nodes[0]!)) >= target && (await peers(nodes[0]!)) === 3);

    // A fifth node, not a validator, given only a bootnode, syncs the chain.
    const fifthData = join(root, 'Node-5', 'data');
    mkdirSync(fifthData, { recursive: true });
    const fifth: ProcessNode = {
      spec: { name: 'Node-5', address: '', privateKey: Uint8Array.from({ length: 32 }, (_, i) => i + 7), dataPath: fifthData, args: ['--data-path', fifthData, '--genesis-file', join(root, 'networkFiles', 'genesis.json'), '--rpc-http-enabled', '--rpc-http-port', '0', '--p2p-interface', '127.0.0.1'], p2pPort: 0 },
      child: undefined,
      enode: '',
      output: [],
    };
    nodes.push(fifth);
    await startNodeProcess(fifth, [nodes[2]!.enode]);
    const now = await height(nodes[1]!);
    await until('Node-5 synced', async () => (await height(fifth)) >= now);
    const [a, b] = await Promise.all([blockHash(fifth.httpPort, now), blockHash(nodes[1]!.httpPort, now)]);
    t.is(a, b, 'Node-5 holds the same chain');
  } finally {
    for (const node of nodes) await stopNodeProcess(node);
  }
});
