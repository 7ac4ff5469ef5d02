/**
 * ethereum/execution-apis' rpc-compat cases (test/vectors/execution-apis/rpc, the suite hive's
 * rpc-compat simulator runs) against a qbft-lab node that imported their chain with `blocks import`
 * (Frontier through the merge, Shanghai, Cancun, Prague, Osaka, bpo1, bpo2).
 *
 * Comparison, as hive's simulator makes it: a case whose expected answer is an error passes when
 * ours is an error (codes and messages differ between clients); a case marked `speconly` passes
 * when ours is a result where a result is expected (hive checks it against the schema only);
 * every other case compares `result` as JSON. Cases run in file order on one node, as in hive.
 * The expected answers were recorded from geth, so some differ where Besu's answers do too.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blocksImportCommand } from '../../node/cli/blocks-import.ts';
import { parseNodeOptions } from '../../node/cli/node-options.ts';
import { startLiveNode, type LiveNode } from '../../node/cli/live-node.ts';
import { firstDifference } from './besu-spec.ts';

export const HIVE_DIR = new URL('../vectors/execution-apis/', import.meta.url).pathname;

export interface IoCase {
  name: string;
  comment: string;
  speconly: boolean;
  request: unknown;
  response: { result?: unknown; error?: unknown };
}

export interface IoResult {
  name: string;
  pass: boolean;
  reason?: string;
  /** Why qbft-lab answers otherwise on purpose (Besu's behaviour, or a geth-only method), if so. */
  known?: string;
}

const GETH_ONLY = 'a geth method Besu does not have either (-32601 Method not found, as Besu answers)';
const BLOCK_REQUIRED = "Besu requires the block parameter (-32602); geth defaults it to latest";
const TOTAL_DIFFICULTY = 'Besu still reports totalDifficulty; geth dropped it after the merge';
const REVERT_MESSAGE = 'Besu words a reverted call\'s error "Execution reverted" (with the decoded reason in parentheses); geth "execution reverted"';
const HALT_MESSAGE = 'Besu words a halted call\'s error with its ExceptionalHaltReason description ("Out of gas"); geth "out of gas"';

/** Cases where qbft-lab follows Besu, which answers otherwise than the geth recording. */
export const KNOWN_DIFFERENCES: Record<string, string> = {
  'eth_baseFee/get-current-basefee': GETH_ONLY,
  'eth_capabilities/get-capabilities': GETH_ONLY,
  'eth_getStorageValues/get-storage-values': GETH_ONLY,
  'eth_getStorageValues/get-storage-values-default-block': GETH_ONLY,
  'eth_getStorageValues/get-storage-values-multiple-addresses': GETH_ONLY,
  'eth_getStorageValues/get-storage-values-unknown-account': GETH_ONLY,
  'txpool_content/get-content': GETH_ONLY,
  'txpool_contentFrom/get-content-from-address': 'a geth method; Besu has txpool_besuTransactions instead',
  'eth_getBalance/get-balance-default-block': BLOCK_REQUIRED,
  'eth_getCode/get-code-default-block': BLOCK_REQUIRED,
  'eth_getProof/get-account-proof-default-block': BLOCK_REQUIRED,
  'eth_getStorageAt/get-storage-default-block': BLOCK_REQUIRED,
  'eth_getTransactionCount/get-nonce-default-block': BLOCK_REQUIRED,
  'eth_getBlockByHash/get-block-by-hash': TOTAL_DIFFICULTY,
  'eth_getBlockByNumber/get-block-london-fork': TOTAL_DIFFICULTY,
  'eth_getBlockByNumber/get-genesis': TOTAL_DIFFICULTY,
  'debug_traceTransaction/trace-unknown-tx': 'Besu answers null for a transaction it does not know; geth an error',
  'debug_getRawBlock/get-invalid-number': 'Besu reads "2" as a decimal block number (Long.decode) and answers block 2',
  'debug_getRawHeader/get-invalid-number': 'Besu reads "2" as a decimal block number (Long.decode) and answers block 2',
  'debug_getRawReceipts/get-invalid-number': 'Besu reads "2" as a decimal block number (Long.decode) and answers block 2',
  'debug_getRawTransaction/get-invalid-hash': 'Besu reads a hash without 0x (lenient hex) and answers null for an unknown transaction',
  'debug_traceBlockByHash/trace-block-not-found': 'Besu answers null for a block it does not know; geth an error',
  'debug_traceBlockByHash/trace-genesis': 'Besu has no parent state to trace the genesis block from and answers null; geth an error',
  'debug_traceBlockByNumber/trace-genesis': 'Besu has no parent state to trace the genesis block from and answers null; geth an error',
  'debug_traceBlockByNumber/trace-block-invalid-number': 'Besu reads the number as a decimal block number (Long.decode) and traces that block',
  'eth_simulateV1/ethSimulate-eth-send-should-not-produce-logs-on-revert': REVERT_MESSAGE,
  'eth_simulateV1/ethSimulate-eth-send-should-produce-no-logs-on-forward-revert': REVERT_MESSAGE,
  'eth_simulateV1/ethSimulate-fee-recipient-receiving-funds': REVERT_MESSAGE,
  'eth_simulateV1/ethSimulate-run-out-of-gas-in-block-38015': HALT_MESSAGE,
  'eth_simulateV1/ethSimulate-use-as-many-features-as-possible': HALT_MESSAGE,
};

/** Parses one .io file: `//` comments, then `>>` request and `<<` response lines (one pair here). */
export function parseIoCase(name: string, text: string): IoCase {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const comments = lines.filter((l) => l.startsWith('//')).map((l) => l.slice(2).trim());
  const request = lines.find((l) => l.startsWith('>> '));
  const response = lines.find((l) => l.startsWith('<< '));
  if (!request || !response) throw new Error(`${name}: no request/response pair`);
  return {
    name,
    comment: comments[0] ?? '',
    speconly: comments.some((c) => c.startsWith('speconly')),
    request: JSON.parse(request.slice(3)),
    response: JSON.parse(response.slice(3)),
  };
}

export function loadIoCases(): IoCase[] {
  const root = join(HIVE_DIR, 'rpc');
  const cases: IoCase[] = [];
  for (const method of readdirSync(root).sort())
    for (const file of readdirSync(join(root, method)).sort())
      if (file.endsWith('.io')) cases.push(parseIoCase(`${method}/${file.replace(/\.io$/, '')}`, readFileSync(join(root, method, file), 'utf8')));
  return cases;
}

export function judgeIoCase(c: IoCase, body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return `not a JSON-RPC response: ${JSON.stringify(body)?.slice(0, 200)}`;
  const got = body as { result?: unknown; error?: unknown };
  if ('error' in c.response) return 'error' in got ? undefined : `expected an error, got result ${JSON.stringify(got.result)?.slice(0, 200)}`;
  if ('error' in got) return `error ${JSON.stringify(got.error).slice(0, 200)}`;
  if (!('result' in got)) return 'no result';
  if (c.speconly) return undefined;
  return firstDifference(c.response.result, got.result, 'result');
}

export async function runIoCases(port: number, cases = loadIoCases()): Promise<IoResult[]> {
  const results: IoResult[] = [];
  for (const c of cases) {
    const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(c.request) });
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      results.push({ name: c.name, pass: false, reason: `HTTP ${res.status}, not JSON: ${text.slice(0, 200)}` });
      continue;
    }
    const reason = judgeIoCase(c, body);
    results.push({ name: c.name, pass: reason === undefined, reason, known: reason === undefined ? undefined : KNOWN_DIFFERENCES[c.name] });
  }
  return results;
}

/** Imports the hive chain into a fresh data directory and serves it over HTTP. */
export async function startHiveChainNode(): Promise<LiveNode> {
  const dataPath = mkdtempSync(join(tmpdir(), 'qbft-lab-execution-apis-'));
  const genesis = join(HIVE_DIR, 'genesis.json');
  const lines: string[] = [];
  const code = await blocksImportCommand(['--genesis-file', genesis, '--data-path', dataPath, '--from', join(HIVE_DIR, 'chain.rlp')], (t) => lines.push(t));
  if (code !== 0) throw new Error(`blocks import failed: ${lines.join('\n')}`);
  // The cases were recorded from geth, whose RPC gas cap is 50,000,000 (Besu's default is 100,000,000):
  // eth_simulateV1 gives a call without `gas` the cap, which its transaction hash and block hash carry.
  const opts = parseNodeOptions([
    '--genesis-file', genesis, '--data-path', dataPath,
    '--rpc-http-enabled', '--rpc-http-port', '0', '--rpc-http-api', 'ETH,NET,WEB3,DEBUG,TXPOOL',
    '--rpc-gas-cap', '50000000',
  ]);
  return startLiveNode(opts, { rpc: { networkId: opts.networkId }, p2pEnabled: false });
}

export function formatIoResults(results: IoResult[]): string {
  const lines = results.filter((r) => !r.pass).map((r) => `FAIL execution-apis/${r.name}: ${r.reason}${r.known ? `\n  as Besu: ${r.known}` : ''}`);
  const known = results.filter((r) => !r.pass && r.known).length;
  lines.push(`execution-apis: ${results.filter((r) => r.pass).length} of ${results.length} pass (${known} of the failures follow Besu where geth, which recorded them, differs)`);
  return lines.join('\n');
}
