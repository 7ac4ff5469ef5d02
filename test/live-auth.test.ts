/** JSON-RPC authentication on a live node: /login, bearer tokens, per-method permissions, no-auth methods. */
import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { parseGenesis } from '../node/chain/genesis.ts';
import { parseNodeOptions } from '../node/cli/node-options.ts';
import { startLiveNode } from '../node/cli/live-node.ts';
import { buildSimGenesis } from '../sim/genesis-builder.ts';
import { validatorKeys } from '../sim/keys.ts';

test('login issues a token; methods need a permission the token carries; no-auth methods stay open', async (t) => {
  const dataPath = mkdtempSync(join(tmpdir(), 'qbft-lab-auth-'));
  const credentials = join(dataPath, 'auth.toml');
  writeFileSync(credentials, `[Users.alice]\npassword = "${bcrypt.hashSync('secret', 4)}"\npermissions = ["net:*", "eth:blockNumber"]\n`);
  const [key] = validatorKeys(1);
  const genesis = parseGenesis(buildSimGenesis({ validators: [key.address], startTimeSeconds: Math.floor(Date.now() / 1000) }));
  const opts = parseNodeOptions([
    '--data-path', dataPath, '--rpc-http-enabled', '--rpc-http-port', '0',
    '--rpc-http-authentication-enabled', '--rpc-http-authentication-credentials-file', credentials,
    '--rpc-http-api-methods-no-auth', 'web3_clientVersion',
  ]);
  const live = await startLiveNode(opts, { genesis, privateKey: key.privateKey, p2pEnabled: false });
  const url = `http://127.0.0.1:${live.servers.httpPort}`;
  const call = (method: string, token?: string) =>
    fetch(`${url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
    });
  try {
    const bad = await fetch(`${url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'alice', password: 'wrong' }) });
    t.is(bad.status, 401);
    const login = await fetch(`${url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'alice', password: 'secret' }) });
    t.is(login.status, 200);
    const { token } = (await login.json()) as { token: string };

    const anonymous = await call('eth_blockNumber');
    t.is(anonymous.status, 401, 'judged method by method: an unpermitted single request answers 401 with -40100');
    t.is(((await anonymous.json()) as any).error.code, -40100);
    t.regex(((await (await call('web3_clientVersion')).json()) as any).result, /^qbft-lab\//);
    t.regex(((await (await call('eth_blockNumber', token)).json()) as any).result, /^0x/);
    t.is(((await (await call('net_version', token)).json()) as any).result, '1337');
    t.is(((await (await call('eth_chainId', token)).json()) as any).error.code, -40100, 'eth:chainId is not among the permissions');
    t.is(((await (await call('eth_chainId', 'not-a-token')).json()) as any).error.code, -40100);
  } finally {
    await live.close();
  }
});
