/**
 * `npm run bench:rpc`: JSON-RPC throughput of a live 4-validator network, one JSON line per figure:
 * eth_blockNumber, eth_getBalance and eth_call requests per second over HTTP (autocannon), and
 * value-transfer throughput through the network (signed transfers until all are included).
 */
import autocannon from 'autocannon';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { startNetwork } from '../cli/network-command.ts';
import { BESU_TEST_ACCOUNTS } from '../sim/keys.ts';
import { bytesToHex } from '../node/crypto/bytes.ts';
import { LOGGER_CONTRACT } from '../sim/genesis-builder.ts';

const seconds = process.argv.includes('--quick') ? 2 : 5;
const emit = (figure: Record<string, unknown>) => process.stdout.write(JSON.stringify(figure) + '\n');

async function rpc(port: number, method: string, params: unknown[]): Promise<any> {
  const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return ((await res.json()) as { result: unknown }).result;
}

const net = await startNetwork({ validators: '4', 'data-path': mkdtempSync(join(tmpdir(), 'qbft-lab-bench-')), 'base-port': '0' }, Date.now());
try {
  const port = net.httpPorts[0];
  const requests: Array<[string, unknown[]]> = [
    ['eth_blockNumber', []],
    ['eth_getBalance', [BESU_TEST_ACCOUNTS[0].address, 'latest']],
    ['eth_call', [{ to: LOGGER_CONTRACT, data: '0x' }, 'latest']],
  ];
  for (const [method, params] of requests) {
    const result = await autocannon({
      url: `http://127.0.0.1:${port}/`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      connections: 32,
      pipelining: 1,
      duration: seconds,
    });
    emit({ figure: 'rpc-http', method, requestsPerSecond: Math.round(result.requests.average), p99LatencyMs: result.latency.p99, errors: result.errors, non2xx: result.non2xx });
  }

  // Three senders, each within Besu's default future-nonce window (--tx-pool-max-future-by-sender 200).
  const perSender = 190;
  const common = net.nodes[0].node.common;
  const senders = BESU_TEST_ACCOUNTS;
  const firstNonces = await Promise.all(senders.map(async (s) => BigInt(await rpc(port, 'eth_getTransactionCount', [s.address, 'pending']))));
  const raws = senders.flatMap((sender, k) =>
    Array.from({ length: perSender }, (_, i) =>
      bytesToHex(createFeeMarket1559Tx({ nonce: firstNonces[k] + BigInt(i), to: senders[(k + 1) % 3].address, value: 1n, gasLimit: 21000n, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n, chainId: 1337n }, { common }).sign(sender.privateKey).serialize()),
    ),
  );
  const transfers = raws.length;
  const start = performance.now();
  // JSON-RPC batches of 100 (one connection), as a load generator would.
  for (let i = 0; i < raws.length; i += 100) {
    const batch = raws.slice(i, i + 100).map((raw, j) => ({ jsonrpc: '2.0', id: i + j, method: 'eth_sendRawTransaction', params: [raw] }));
    const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) });
    const answers = (await res.json()) as Array<{ error?: { message: string } }>;
    const failed = answers.find((a) => a.error);
    if (failed) throw new Error(`eth_sendRawTransaction: ${failed.error!.message}`);
  }
  const includedNow = async () => {
    let n = 0n;
    for (let k = 0; k < senders.length; k++) n += BigInt(await rpc(port, 'eth_getTransactionCount', [senders[k].address, 'latest'])) - firstNonces[k];
    return n;
  };
  const deadline = start + 120_000;
  while ((await includedNow()) < BigInt(transfers) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const included = await includedNow();
  const wallSeconds = (performance.now() - start) / 1000;
  emit({ figure: 'transfer-throughput', transfers, included: Number(included), wallSeconds: +wallSeconds.toFixed(2), transfersPerSecond: Math.round(Number(included) / wallSeconds) });
} finally {
  await net.close();
}
