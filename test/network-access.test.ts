/** `qbft-lab network` (and so `npm start`) uses Besu's safe defaults unless flags open it up. */
import test from 'ava';
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeNetwork, startNetwork, type NetworkFlags } from '../cli/network-command.ts';

function post(port: number, headers: Record<string, string>, method = 'eth_chainId'): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] });
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'Content-Type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function withNetwork(flags: NetworkFlags, fn: (port: number, description: string) => Promise<void>): Promise<void> {
  const net = await startNetwork({ validators: '1', 'data-path': mkdtempSync(join(tmpdir(), 'qbft-lab-access-')), 'base-port': '0', ...flags }, Date.now());
  try {
    await fn(net.httpPorts[0], describeNetwork(net));
  } finally {
    await net.close();
  }
}

test.serial('defaults: local host names only, no CORS origin, no ADMIN, MINER or DEBUG; the start-up text says so', async (t) => {
  await withNetwork({}, async (port, description) => {
    t.is((await post(port, { Host: `localhost:${port}` })).status, 200);
    const foreign = await post(port, { Host: 'attacker.example' });
    t.is(foreign.status, 403);
    t.is(foreign.body, '{"message":"Host not authorized."}');
    const page = await post(port, { Host: `localhost:${port}`, Origin: 'https://attacker.example' });
    t.is(page.status, 403);
    t.is(page.headers['access-control-allow-origin'], undefined);
    for (const method of ['admin_peers', 'miner_stop', 'debug_getBadBlocks']) t.regex((await post(port, {}, method)).body, /"code":-32604/, method);
    t.regex((await post(port, {}, 'qbft_getPendingVotes')).body, /"result"/);
    t.regex(description, /APIs ETH,NET,WEB3,QBFT,TXPOOL; host allowlist localhost,127\.0\.0\.1; CORS origins none/);
  });
});

test.serial('flags open it up for a browser wallet', async (t) => {
  await withNetwork({ 'host-allowlist': '*', 'rpc-http-cors-origins': 'https://app.example', 'rpc-api': 'ETH,NET,WEB3,ADMIN' }, async (port) => {
    t.is((await post(port, { Host: 'my-box.lan' })).status, 200);
    const page = await post(port, { Origin: 'https://app.example' });
    t.is(page.status, 200);
    t.is(page.headers['access-control-allow-origin'], 'https://app.example');
    t.regex((await post(port, {}, 'admin_peers')).body, /"result"/);
  });
});
