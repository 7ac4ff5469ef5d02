/**
 * Every API group of the interface starts cleanly on every transport, and a method that is not
 * served answers Besu's -32604 "Method not enabled" (never a stack trace or an internal error).
 */
import test from 'ava';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { parseGenesis } from '../node/chain/genesis.ts';
import { parseNodeOptions } from '../node/cli/node-options.ts';
import { startLiveNode } from '../node/cli/live-node.ts';
import { ALL_API_GROUPS, BESU_RPC_METHOD_NAMES } from '../node/rpc/registry.ts';
import { buildSimGenesis } from '../sim/genesis-builder.ts';
import { validatorKeys } from '../sim/keys.ts';

test('--rpc-http-api and --rpc-ws-api with every group start; each method answers a result or a JSON-RPC error, unserved ones -32604', async (t) => {
  const dataPath = mkdtempSync(join(tmpdir(), 'qbft-lab-groups-'));
  const [key] = validatorKeys(1);
  const genesis = parseGenesis(buildSimGenesis({ validators: [key.address], startTimeSeconds: Math.floor(Date.now() / 1000) }));
  const groups = ALL_API_GROUPS.join(',');
  t.true(['EEA', 'PRIV', 'CLIQUE', 'PERM', 'TRACE', 'PLUGINS', 'IBFT'].every((g) => groups.includes(g)));
  const opts = parseNodeOptions(['--data-path', dataPath, '--rpc-http-enabled', '--rpc-http-port', '0', '--rpc-http-api', groups, '--rpc-ws-enabled', '--rpc-ws-port', '0', '--rpc-ws-api', groups]);
  const live = await startLiveNode(opts, { genesis, privateKey: key.privateKey, p2pEnabled: false });
  try {
    const served = new Set<string>();
    for (const method of BESU_RPC_METHOD_NAMES) {
      if (/^(admin_(add|remove)Peer|miner_st|debug_setHead|debug_resyncWorldState|perm_|.*Subscribe|.*subscribe)/i.test(method)) continue; // state-changing or connection-bound: judged by their own tests
      const res = await fetch(`http://127.0.0.1:${live.servers.httpPort}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }) });
      const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
      t.true('result' in body || typeof body.error?.code === 'number', method);
      t.not(body.error?.code, -32603, `${method} answered an internal error`);
      t.not(body.error?.code, -32601, `${method} is a method of the interface`);
      // Without --privacy-enabled, PRIV and EEA methods answer Besu's DisabledPrivacyRpcMethod error.
      if (body.error?.code === -50100) {
        t.true(/^(priv|eea)_/.test(method), method);
        t.is(body.error.message, 'Privacy is not enabled', method);
        served.add(method);
        continue;
      }
      // eth_sendTransaction is served: it answers Besu's own -32604 text pointing at eth_sendRawTransaction.
      if (body.error?.code === -32604 && method !== 'eth_sendTransaction') t.is(body.error.message, 'Method not enabled', method);
      else served.add(method);
    }
    for (const unserved of ['clique_getSigners', 'ibft_getPendingVotes', 'plugins_reloadPluginConfig']) t.false(served.has(unserved), unserved);
    for (const s of ['eth_blockNumber', 'qbft_getValidatorsByBlockNumber', 'txpool_status', 'priv_call', 'eea_sendRawTransaction', 'priv_getTransactionReceipt']) t.true(served.has(s), s);

    const ws = new WebSocket(`ws://127.0.0.1:${live.servers.wsPort}`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const answer = await new Promise<string>((resolve) => {
      ws.once('message', (data) => resolve(String(data)));
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'clique_getSigners', params: [] }));
    });
    ws.close();
    t.deepEqual(JSON.parse(answer), { jsonrpc: '2.0', id: 7, error: { code: -32604, message: 'Method not enabled' } });
  } finally {
    await live.close();
  }
});
