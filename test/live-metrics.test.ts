/** --metrics-enabled end to end: a live validator's /metrics against its JSON-RPC answers. */
import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNetwork, describeNetwork } from '../cli/network-command.ts';
import { captureIo } from '../cli/capture-io.ts';
import { main } from '../cli/main.ts';
import { buildSimGenesis } from '../sim/genesis-builder.ts';
import { validatorKeys } from '../sim/keys.ts';
import { parseExposition, type ParsedFamily } from '../node/metrics/exposition-parse.ts';

async function rpc(port: number, method: string): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }) });
  return ((await res.json()) as { result: string }).result;
}

async function scrape(port: number): Promise<{ contentType: string | null; families: Map<string, ParsedFamily> }> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  return { contentType: res.headers.get('content-type'), families: parseExposition(await res.text()) };
}

const value = (families: Map<string, ParsedFamily>, name: string): number | undefined => families.get(name)?.samples[0]?.value;

test.serial('a 1-validator network with --metrics-enabled serves /metrics whose height is eth_blockNumber', async (t) => {
  const dataPath = mkdtempSync(join(tmpdir(), 'qbft-lab-metrics-'));
  const net = await startNetwork({ validators: '1', 'data-path': dataPath, 'base-port': '0', 'metrics-enabled': true }, Date.now());
  try {
    t.is(net.metricsPorts.length, 1);
    const [metricsPort] = net.metricsPorts;
    const [httpPort] = net.httpPorts;
    t.true(metricsPort > 0);
    t.regex(describeNetwork(net), new RegExp(`metrics http://127\\.0\\.0\\.1:${metricsPort}/metrics`));

    // Blocks keep coming: equal readings before and after eth_blockNumber pin the height between them.
    const deadline = Date.now() + 20_000;
    let checked = false;
    while (!checked && Date.now() < deadline) {
      const before = value((await scrape(metricsPort)).families, 'ethereum_blockchain_height');
      const number = Number(BigInt(await rpc(httpPort, 'eth_blockNumber')));
      const after = value((await scrape(metricsPort)).families, 'ethereum_blockchain_height');
      if (before !== undefined && before >= 1 && before === after) {
        t.is(number, before);
        checked = true;
      } else await new Promise((r) => setTimeout(r, 100));
    }
    t.true(checked, 'saw a stable height of at least 1');

    const { contentType, families } = await scrape(metricsPort);
    t.is(contentType, 'text/plain; version=0.0.4; charset=utf-8');
    const height = value(families, 'ethereum_blockchain_height')!;
    t.is(families.get('ethereum_blockchain_height')!.type, 'gauge');
    t.is(value(families, 'ethereum_peer_count'), 0, 'one validator, no peers');
    t.is(value(families, 'besu_transaction_pool_transactions'), 0);
    t.is(value(families, 'besu_synchronizer_in_sync'), 1);
    t.true(value(families, 'besu_blockchain_chain_head_timestamp')! > 1_600_000_000);
    t.true(value(families, 'qbftlab_qbft_height')! >= height, 'consensus works on the next height');
    t.is(families.get('qbftlab_qbft_round_changes_total')!.type, 'counter');
    t.is(value(families, 'qbftlab_qbft_round_changes_total'), 0, 'a lone validator never changes round');
  } finally {
    await net.close();
  }
});

test.serial('qbft-lab node: --metrics-port in use is one line naming the option; an unknown category is refused', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-metrics-node-'));
  const genesisFile = join(dir, 'genesis.json');
  writeFileSync(genesisFile, JSON.stringify(buildSimGenesis({ validators: validatorKeys(1).map((k) => k.address), startTimeSeconds: 1_700_000_000 })));
  const busy = createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
  const port = (busy.address() as AddressInfo).port;
  try {
    const io = captureIo();
    t.is(await main(['node', '--p2p-enabled=false', '--genesis-file', genesisFile, '--data-path', join(dir, 'd1'), '--metrics-enabled', '--metrics-port', String(port)], io), 2);
    t.regex(io.stderr, new RegExp(`--metrics-port: Failed to bind Metrics listener to 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
    t.is(io.stderr.trim().split('\n').length, 1);
  } finally {
    busy.close();
  }
  const io = captureIo();
  t.is(await main(['node', '--p2p-enabled=false', '--genesis-file', genesisFile, '--data-path', join(dir, 'd2'), '--metrics-category', 'ETHEREUM,WOBBLE'], io), 2);
  t.regex(io.stderr, /--metrics-categories contains unknown categories: \[WOBBLE\]/);
});
