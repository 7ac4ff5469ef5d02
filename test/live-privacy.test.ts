/**
 * Privacy between live nodes: three validators over real RLPx with --privacy-enabled, a group of
 * two; the nodes prove their privacy keys to each other over RLPx; a private contract deployed and
 * called with eea_sendRawTransaction over HTTP; its log reaches the members' priv_subscribe over
 * WebSocket and not the non-member's; the non-member sees only the marker. A member restarted from
 * its data directory answers priv_getTransactionReceipt, priv_getCode and priv_call for what it ran
 * before. (Removed logs on a reorganization: scenario private-group, which can fork.)
 */
import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { parseGenesis } from '../node/chain/genesis.ts';
import { parseNodeOptions } from '../node/cli/node-options.ts';
import { startLiveNode, type LiveNode } from '../node/cli/live-node.ts';
import { bytesToHex, uint256ToBytes } from '../node/crypto/bytes.ts';
import { signPrivateTransaction } from '../node/privacy/private-transaction.ts';
import { buildSimGenesis } from '../sim/genesis-builder.ts';
import { BESU_TEST_ACCOUNTS, validatorKeys } from '../sim/keys.ts';
import { privacyKeyOf, privacyPrivateKeyOf, STORED_TOPIC, storageContractInitCode } from '../sim/privacy-run.ts';
import { privacyPrivateKeyFileText } from '../node/privacy/privacy-key-file.ts';
import { rpc, untilValue } from './process-kit.ts';

const SENDER = Uint8Array.from(Buffer.from('853d7f0010fd86d0d7811c1f9d968ea89a24484a8127b4a483ddf5d2cfec766d', 'hex'));

test('three live nodes, a privacy group of two: members deploy, call and get logs through priv_subscribe; the non-member sees markers only', async (t) => {
  const keys = validatorKeys(3);
  const genesis = parseGenesis(buildSimGenesis({ validators: keys.map((k) => k.address), startTimeSeconds: Math.floor(Date.now() / 1000), blockPeriodSeconds: 1 }));
  const names = ['p0', 'p1', 'p2'];
  const nodes: LiveNode[] = [];
  const dataPaths: string[] = [];
  const start = async (i: number, bootnodes: string[]) => {
    const dataPath = dataPaths[i]!;
    const opts = parseNodeOptions([
      '--data-path', dataPath, '--p2p-port', '0', '--discovery-enabled=false',
      ...(bootnodes.length > 0 ? ['--bootnodes', bootnodes.join(',')] : []),
      '--rpc-http-enabled', '--rpc-http-port', '0', '--rpc-http-api', 'ETH,NET,PRIV,EEA',
      '--rpc-ws-enabled', '--rpc-ws-port', '0', '--rpc-ws-api', 'ETH,PRIV',
      '--privacy-enabled', '--privacy-public-key-file', join(dataPath, 'privacy.pub'), '--privacy-private-key-file', join(dataPath, 'privacy.key'),
      '--privacy-marker-transaction-signing-key-file', join(dataPath, 'marker.key'),
    ]);
    return startLiveNode(opts, { name: names[i], genesis, privateKey: keys[i]!.privateKey });
  };
  try {
    for (const [i, name] of names.entries()) {
      const dataPath = mkdtempSync(join(tmpdir(), `qbft-lab-privacy-${i}-`));
      dataPaths.push(dataPath);
      writeFileSync(join(dataPath, 'privacy.pub'), `${privacyKeyOf(name)}\n`);
      writeFileSync(join(dataPath, 'privacy.key'), privacyPrivateKeyFileText(privacyPrivateKeyOf(name)));
      writeFileSync(join(dataPath, 'marker.key'), bytesToHex(BESU_TEST_ACCOUNTS[i]!.privateKey));
      nodes.push(await start(i, nodes.map((n) => n.enode!)));
    }
    const [h0, h1, h2] = nodes.map((n) => n.servers.httpPort!);
    await untilValue('peers', async () => (nodes.every((n) => n.node.peers().length === 2) ? true : undefined));
    await untilValue('privacy keys proven over RLPx', async () => (nodes.every((n) => n.node.peers().every((p) => n.node.privacy()!.peers.keyOf(p) !== undefined)) ? true : undefined));
    await untilValue('height 2', async () => (BigInt(await rpc(h0!, 'eth_blockNumber')) >= 2n ? true : undefined));

    const groupId: string = await rpc(h0!, 'priv_createPrivacyGroup', [{ addresses: [privacyKeyOf('p0'), privacyKeyOf('p1')], name: 'pair' }]);
    await untilValue('the group at p1', async () => ((await rpc(h1!, 'priv_findPrivacyGroup', [[privacyKeyOf('p0'), privacyKeyOf('p1')]])).length === 1 ? true : undefined));

    const subscribe = async (port: number) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}`);
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      const notes: any[] = [];
      const answer = new Promise<any>((resolve) =>
        ws.on('message', (data) => {
          const m = JSON.parse(String(data));
          if (m.id === 1) resolve(m);
          else if (m.method === 'priv_subscription') notes.push(m.params);
        }),
      );
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'priv_subscribe', params: [groupId, 'logs', {}] }));
      return { ws, notes, answer: await answer };
    };
    const s0 = await subscribe(nodes[0]!.servers.wsPort!);
    const s1 = await subscribe(nodes[1]!.servers.wsPort!);
    const s2 = await subscribe(nodes[2]!.servers.wsPort!);
    t.regex(s0.answer.result, /^0x[0-9a-f]+$/);
    t.deepEqual(s2.answer.error, { code: -50100, message: 'Offchain Privacy group does not exist.' });

    const tx = (nonce: bigint, to: `0x${string}` | undefined, data: Uint8Array) =>
      bytesToHex(
        signPrivateTransaction(
          { nonce, gasPrice: 10n ** 9n, gasLimit: 300_000n, to, value: 0n, data, privateFrom: Buffer.from(privacyKeyOf('p0'), 'base64'), privacyGroupId: Buffer.from(groupId, 'base64'), restriction: 'restricted', chainId: genesis.chainId },
          SENDER,
        ).encoded,
      );
    const deploy: string = await rpc(h0!, 'eea_sendRawTransaction', [tx(0n, undefined, storageContractInitCode())]);
    const receipt = await untilValue('the private receipt at p1', async () => (await rpc(h1!, 'priv_getTransactionReceipt', [deploy])) ?? undefined);
    t.is(receipt.status, '0x1');
    const set: string = await rpc(h0!, 'eea_sendRawTransaction', [tx(1n, receipt.contractAddress, uint256ToBytes(9n))]);
    await untilValue('the log at p0 and p1', async () => (s0.notes.length >= 1 && s1.notes.length >= 1 ? true : undefined));
    for (const s of [s0, s1]) {
      t.is(s.notes[0].privacyGroupId, groupId);
      t.is(s.notes[0].result.transactionHash, set);
      t.deepEqual(s.notes[0].result.topics, [bytesToHex(STORED_TOPIC)]);
      t.false(s.notes[0].result.removed);
    }
    t.is(await rpc(h1!, 'priv_call', [groupId, { to: receipt.contractAddress, data: '0x' }, 'latest']), bytesToHex(uint256ToBytes(9n)));
    await untilValue('the marker at p2', async () => (await rpc(h2!, 'eth_getTransactionReceipt', [set])) ?? undefined);
    t.is(await rpc(h2!, 'priv_getTransactionReceipt', [set]), null);
    t.is((await rpc(h2!, 'eth_getTransactionByHash', [set])).to, '0x000000000000000000000000000000000000007e');
    t.deepEqual(s2.notes, []);
    for (const s of [s0, s1, s2]) s.ws.close();

    // p1 restarts from its data directory: what it ran before is answered at once.
    const code = await rpc(h1!, 'priv_getCode', [groupId, receipt.contractAddress, 'latest']);
    t.regex(code, /^0x36156036/);
    await nodes[1]!.close();
    nodes[1] = await start(1, [nodes[0]!.enode!, nodes[2]!.enode!]);
    const h1b = nodes[1]!.servers.httpPort!;
    t.deepEqual(await rpc(h1b, 'priv_getTransactionReceipt', [deploy]), await rpc(h0!, 'priv_getTransactionReceipt', [deploy]));
    t.is((await rpc(h1b, 'priv_getTransactionReceipt', [set])).status, '0x1');
    t.is(await rpc(h1b, 'priv_getCode', [groupId, receipt.contractAddress, 'latest']), code);
    t.is(await rpc(h1b, 'priv_call', [groupId, { to: receipt.contractAddress, data: '0x' }, 'latest']), bytesToHex(uint256ToBytes(9n)));
  } finally {
    for (const n of nodes.reverse()) await n.close();
  }
});

test('privacy options: --privacy-url is refused, key files are needed, and bad or mismatched keys are named', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-privacy-opts-'));
  writeFileSync(join(dir, 'bad.pub'), 'not a key');
  writeFileSync(join(dir, 'p0.pub'), privacyKeyOf('p0'));
  writeFileSync(join(dir, 'p0.key'), privacyPrivateKeyFileText(privacyPrivateKeyOf('p0')));
  writeFileSync(join(dir, 'p1.key'), privacyPrivateKeyFileText(privacyPrivateKeyOf('p1')));
  const withKeys = (pub: string, key: string) => ['--privacy-enabled', '--privacy-public-key-file', join(dir, pub), '--privacy-private-key-file', join(dir, key)];
  t.deepEqual(parseNodeOptions(withKeys('p0.pub', 'p0.key')).privacy, { publicKey: privacyKeyOf('p0'), privateKey: privacyPrivateKeyOf('p0') });
  t.throws(() => parseNodeOptions(['--privacy-enabled', '--privacy-public-key-file', join(dir, 'p0.pub')]), { message: /--privacy-private-key-file is needed/ });
  t.throws(() => parseNodeOptions(withKeys('p0.pub', 'p1.key')), { message: new RegExp(`its public key is ${privacyKeyOf('p1').replace(/[+/]/g, '\\$&')}, not`) });
  t.throws(() => parseNodeOptions(withKeys('p0.pub', 'bad.pub')), { message: /bad.pub: must hold a 32-byte private key/ });
  t.throws(() => parseNodeOptions(['--privacy-private-key-file', join(dir, 'p0.key')]), { message: /need --privacy-enabled/ });
  t.throws(() => parseNodeOptions(['--privacy-enabled', '--privacy-url', 'http://127.0.0.1:8888']), { message: /an external manager \(Tessera\) is not supported/ });
  t.throws(() => parseNodeOptions(['--privacy-enabled']), { message: /Please specify Enclave public key file path to enable privacy/ });
  t.throws(() => parseNodeOptions(['--privacy-enabled', '--privacy-public-key-file', join(dir, 'bad.pub')]), { message: /must hold a 32-byte public key in base64/ });
  t.throws(() => parseNodeOptions(['--privacy-public-key-file', join(dir, 'bad.pub')]), { message: /need --privacy-enabled/ });
  t.throws(() => parseNodeOptions(['--privacy-enabled', '--privacy-public-key-file', join(dir, 'missing.pub')]), { message: /cannot read it/ });
});
