import test from 'ava';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { bytesToHex } from '../crypto/bytes.ts';
import { parseGenesis } from '../chain/genesis.ts';
import { enodeUrl } from '../p2p/rlpx/enode.ts';
import { nodeIdFromPrivateKey } from '../p2p/rlpx/node-identity.ts';
import { loadAllowlists, openLocalPermissioning, type PermissionsSettings } from './permissions-file.ts';
import { parseNodeOptions } from './node-options.ts';
import { startLiveNode } from './live-node.ts';
import { buildSimGenesis } from '../../sim/genesis-builder.ts';
import { BESU_TEST_ACCOUNTS, validatorKeys } from '../../sim/keys.ts';

const A = '0x0000000000000000000000000000000000000009';
const ID = '6f8a80d14311c39f35f516fa664deaaaa13e85b2f7493f37f6144d86991ec012937307647bd3b9a82abe2974e1407241d54947bbb39763a4cac9f77166ad92a0';
const N1 = `enode://${ID}@192.168.0.9:4567`;
const N2 = `enode://${ID}@192.168.0.10:4567`;

function oneFile(text: string): { file: string; settings: PermissionsSettings } {
  const file = join(mkdtempSync(join(tmpdir(), 'qbft-lab-permfile-')), 'permissions_config.toml');
  writeFileSync(file, text);
  return { file, settings: { nodesEnabled: true, nodesFile: file, accountsEnabled: true, accountsFile: file } };
}

test('changes are written back to the TOML file in Besu\'s layout, and the accounts list is rewritten at start-up', (t) => {
  const { file, settings } = oneFile(`# Permissioning TOML file\n\naccounts-allowlist=["${A.toUpperCase().replace('0X', '0x')}"]\nnodes-allowlist=["${N1}"]\n`);
  const perm = openLocalPermissioning(settings, loadAllowlists(settings), { localNodeId: 'ab'.repeat(64), fixedNodes: [] });
  t.is(readFileSync(file, 'utf8'), `nodes-allowlist=["${N1}"]\naccounts-allowlist=["${A}"]`, 'start-up: the comment goes, the account is lower-cased');
  t.like(perm.nodes!.add([N2]), { result: 'SUCCESS' });
  t.is(readFileSync(file, 'utf8'), `accounts-allowlist=["${A}"]\nnodes-allowlist=["${N1}","${N2}"]`);
  t.is(perm.accounts!.remove([A]), 'SUCCESS');
  t.is(readFileSync(file, 'utf8'), `nodes-allowlist=["${N1}","${N2}"]\naccounts-allowlist=[]`);
  // The file edited by hand, then reloaded.
  writeFileSync(file, `accounts-allowlist=["0xb9b81ee349c3807e46bc71aa2632203c5b462032"]\nnodes-allowlist=["${N2}"]\n`);
  perm.reload();
  t.deepEqual(perm.accounts!.entries(), ['0xb9b81ee349c3807e46bc71aa2632203c5b462032']);
  t.deepEqual(perm.nodes!.entries(), [N2]);
  // A file that is gone: the change is refused and undone; a reload fails and keeps the lists.
  rmSync(file);
  t.is(perm.accounts!.add([A]), 'ERROR_ALLOWLIST_PERSIST_FAIL');
  t.false(perm.accounts!.contains(A));
  t.false(existsSync(file), 'nothing is created');
  t.throws(() => perm.reload(), { message: /Error reloading permissions file/ });
  t.deepEqual(perm.nodes!.entries(), [N2]);
});

test('start-up: an accounts list that repeats an account stops the start with Besu\'s words', (t) => {
  const { settings } = oneFile('accounts-allowlist=["0xB9B81EE349C3807E46BC71AA2632203C5B462032","0xb9b81ee349c3807e46bc71aa2632203c5b462032"]\nnodes-allowlist=[]\n');
  t.throws(() => openLocalPermissioning(settings, loadAllowlists(settings), { localNodeId: 'ab'.repeat(64), fixedNodes: [] }), {
    message: 'Error reloading permissions file. Invalid accounts allowlist, validation failed due to "ERROR_DUPLICATED_ENTRY"',
  });
});

test('a live node: a sender off the accounts allowlist gets -32007 until perm_addAccountsToAllowlist lists it (file updated); static nodes must be listed', async (t) => {
  const dataPath = mkdtempSync(join(tmpdir(), 'qbft-lab-perm-node-'));
  const [key] = validatorKeys(1);
  const genesis = parseGenesis(buildSimGenesis({ validators: [key.address], startTimeSeconds: Math.floor(Date.now() / 1000) }));
  const [allowed, outsider] = BESU_TEST_ACCOUNTS;
  const file = join(dataPath, 'permissions_config.toml');
  writeFileSync(file, `accounts-allowlist=["${allowed.address}"]\n`);
  const opts = parseNodeOptions(['--data-path', dataPath, '--rpc-http-enabled', '--rpc-http-port', '0', '--rpc-http-api', 'ETH,PERM', '--permissions-accounts-config-file-enabled']);
  const live = await startLiveNode(opts, { genesis, privateKey: key.privateKey, p2pEnabled: false });
  const rpc = async (method: string, params: unknown[]) => {
    const res = await fetch(`http://127.0.0.1:${live.servers.httpPort}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    return (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
  };
  const transfer = (privateKey: Uint8Array) =>
    bytesToHex(
      createFeeMarket1559Tx({ chainId: genesis.chainId, nonce: 0n, to: A, value: 1n, gasLimit: 21_000n, maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 2n }, { common: live.node.common })
        .sign(privateKey)
        .serialize(),
    );
  try {
    t.deepEqual((await rpc('eth_sendRawTransaction', [transfer(outsider.privateKey)])).error, { code: -32007, message: 'Sender account not authorized to send transactions' });
    t.truthy((await rpc('eth_sendRawTransaction', [transfer(allowed.privateKey)])).result);
    t.deepEqual((await rpc('perm_getNodesAllowlist', [])).error, { code: -32000, message: 'Node allowlist has not been enabled' });
    t.is((await rpc('perm_addAccountsToAllowlist', [[outsider.address]])).result, 'Success');
    t.is(readFileSync(file, 'utf8'), `accounts-allowlist=["${allowed.address.toLowerCase()}","${outsider.address.toLowerCase()}"]`);
    t.truthy((await rpc('eth_sendRawTransaction', [transfer(outsider.privateKey)])).result);
  } finally {
    await live.close();
  }

  // Node permissioning: a static node that is not listed stops the start.
  const nodesPath = mkdtempSync(join(tmpdir(), 'qbft-lab-perm-node-'));
  const staticNode = enodeUrl(nodeIdFromPrivateKey(key.privateKey), '127.0.0.1', 30399);
  writeFileSync(join(nodesPath, 'static-nodes.json'), JSON.stringify([staticNode]));
  writeFileSync(join(nodesPath, 'permissions_config.toml'), 'nodes-allowlist=[]\n');
  const nodeOpts = parseNodeOptions(['--data-path', nodesPath, '--permissions-nodes-config-file-enabled', '--p2p-port', '0', '--discovery-enabled=false']);
  await t.throwsAsync(startLiveNode(nodeOpts, { genesis, privateKey: validatorKeys(2)[1].privateKey }), { message: `Specified node(s) not in nodes-allowlist [${staticNode}]` });
});
