/**
 * Besu's JSON-RPC and GraphQL spec cases (test/vectors/besu-spec) against a qbft-lab node
 * that imported the spec chain with `blocks import`, compared as Besu's runner compares them:
 * the HTTP status, then `id`, `jsonrpc` and `result` or `error` as JSON (GraphQL: the whole body).
 * `npm run conformance` prints each failure's reason and the pass counts.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import { join } from 'node:path';
import { blocksImportCommand } from '../../node/cli/blocks-import.ts';
import { parseNodeOptions } from '../../node/cli/node-options.ts';
import { startLiveNode, type LiveNode } from '../../node/cli/live-node.ts';

export const SPEC_DIR = new URL('../vectors/besu-spec/', import.meta.url).pathname;

export interface CaseResult {
  suite: 'eth' | 'graphql';
  name: string;
  pass: boolean;
  /** Why it failed: the first difference between Besu's answer and ours. */
  reason?: string;
  /** Why the expected answer is not node behaviour (a mock in Besu's test harness), if so. */
  harness?: string;
}

/**
 * GraphQL cases whose expected answer comes from a mock in Besu's GraphQL test harness
 * (AbstractEthGraphQLHttpServiceTest), not from what a node answers; reported as such when they fail.
 */
export const GRAPHQL_HARNESS_DEPENDENT: Record<string, string> = {
  eth_syncing: "the harness mocks the synchronizer with SyncStatus(1, 2, 3); a node that is not syncing answers null",
  graphql_pending: "the harness's mocked pool lists one transaction (nonce 42, gas 654321) while its count() answers 0",
  eth_sendRawTransaction_nonceTooLow:
    "the harness's mocked pool answers NONCE_TOO_LOW for any nonce-16 transaction; a real pool (Besu's too) rejects its 1 wei gas price first (GAS_PRICE_TOO_LOW)",
  graphql_variable_bytes:
    "the harness's mocked pool accepts every transaction; here eth_sendRawTransaction_transferEther has already sent the same one (TRANSACTION_ALREADY_KNOWN, GraphQL: Internal error)",
};

const MOCKED_FILTER_ID = "Besu's harness mocks its filter id generator to answer 0x1; Besu itself, like qbft-lab, hands out random 128-bit ids";

/** JSON-RPC cases whose expected answer comes from a mock in Besu's harness (AbstractJsonRpcHttpServiceTest). */
export const ETH_HARNESS_DEPENDENT: Record<string, string> = {
  eth_getNewFilter_addressOnly: MOCKED_FILTER_ID,
  eth_getNewFilter_emptyFilter: MOCKED_FILTER_ID,
  eth_getNewFilter_topicOnly: MOCKED_FILTER_ID,
  eth_getNewFilter_validFilterLatestBlock: MOCKED_FILTER_ID,
  eth_getNewFilter_validFilterWithBlockNumber: MOCKED_FILTER_ID,
  eth_newBlockFilter: MOCKED_FILTER_ID,
  eth_newPendingTransactionFilter: MOCKED_FILTER_ID,
  eth_sendRawTransaction_invalidNonceTooLow:
    "the harness's mocked pool answers NONCE_TOO_LOW for any nonce-16 transaction; a real pool (Besu's too) rejects its 1 wei gas price first (GAS_PRICE_TOO_LOW, -32009)",
  eth_config:
    'the expected fork id 0x97fa8ff0 is the CRC of the genesis hash alone (the harness passes no forks); with this genesis\' forks EIP-2124 gives 0xf3cf4bb5',
};

/** Imports the spec chain into a fresh data directory and serves it as Besu's spec runner does. */
export async function startSpecNode(): Promise<LiveNode> {
  const dataPath = mkdtempSync(join(tmpdir(), 'qbft-lab-besu-spec-'));
  const genesis = join(SPEC_DIR, 'chain/testGenesis.json');
  const lines: string[] = [];
  const code = await blocksImportCommand(['--genesis-file', genesis, '--data-path', dataPath, '--from', join(SPEC_DIR, 'chain/testBlockchain.blocks')], (t) => lines.push(t));
  if (code !== 0) throw new Error(`blocks import failed: ${lines.join('\n')}`);
  const opts = parseNodeOptions([
    '--genesis-file', genesis, '--data-path', dataPath, '--network-id', '123',
    '--rpc-http-enabled', '--rpc-http-port', '0', '--rpc-http-api', 'ETH,NET,WEB3,DEBUG,TRACE',
    '--graphql-http-enabled', '--graphql-http-port', '0',
  ]);
  return startLiveNode(opts, { rpc: { networkId: opts.networkId }, p2pEnabled: false });
}

/** The first path at which two JSON values differ, for failure reasons. */
export function firstDifference(expected: unknown, actual: unknown, path = ''): string | undefined {
  if (isDeepStrictEqual(expected, actual)) return undefined;
  if (expected && actual && typeof expected === 'object' && typeof actual === 'object' && Array.isArray(expected) === Array.isArray(actual)) {
    const e = expected as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    for (const key of new Set([...Object.keys(e), ...Object.keys(a)])) {
      if (!(key in a)) return `${path}.${key} missing (expected ${JSON.stringify(e[key])?.slice(0, 120)})`;
      if (!(key in e)) return `${path}.${key} unexpected (${JSON.stringify(a[key])?.slice(0, 120)})`;
      const d = firstDifference(e[key], a[key], `${path}.${key}`);
      if (d) return d;
    }
  }
  return `${path || '(root)'}: expected ${JSON.stringify(expected)?.slice(0, 200)}, got ${JSON.stringify(actual)?.slice(0, 200)}`;
}

function rpcView(body: unknown): unknown {
  const pick = (r: Record<string, unknown>) => {
    const out: Record<string, unknown> = { id: r.id, jsonrpc: r.jsonrpc };
    if ('result' in r) out.result = r.result;
    if ('error' in r) out.error = r.error;
    return out;
  };
  if (Array.isArray(body)) return body.map((r) => pick(r as Record<string, unknown>));
  return body && typeof body === 'object' ? pick(body as Record<string, unknown>) : body;
}

/**
 * Besu's harness answers every case from the imported chain with a mocked, always-empty
 * transaction pool. Here sent transactions do enter the pool, so the cases that send one run last
 * (each suite gets a node of its own), and every other case sees the chain as Besu's harness does.
 */
function specFiles(suite: 'eth' | 'graphql'): string[] {
  const files = readdirSync(join(SPEC_DIR, suite)).filter((f) => f.endsWith('.json')).sort();
  const sends = (f: string) => {
    const text = readFileSync(join(SPEC_DIR, suite, f), 'utf8');
    return /sendRawTransaction/.test(text);
  };
  return [...files.filter((f) => !sends(f)), ...files.filter(sends)];
}

export async function runEthCases(port: number): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const file of specFiles('eth')) {
    const spec = JSON.parse(readFileSync(join(SPEC_DIR, 'eth', file), 'utf8'));
    const name = file.replace(/\.json$/, '');
    const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(spec.request) });
    const text = await res.text();
    const expectedStatus = spec.statusCode ?? 200;
    if (res.status !== expectedStatus) {
      results.push({ suite: 'eth', name, pass: false, reason: `HTTP ${res.status}, expected ${expectedStatus}: ${text.slice(0, 200)}` });
      continue;
    }
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      results.push({ suite: 'eth', name, pass: false, reason: `not JSON: ${text.slice(0, 200)}` });
      continue;
    }
    const reason = spec.response === undefined && body === undefined ? undefined : firstDifference(rpcView(spec.response), rpcView(body));
    results.push({ suite: 'eth', name, pass: reason === undefined, reason, harness: reason === undefined ? undefined : ETH_HARNESS_DEPENDENT[name] });
  }
  return results;
}

export async function runGraphqlCases(port: number): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const file of specFiles('graphql')) {
    const spec = JSON.parse(readFileSync(join(SPEC_DIR, 'graphql', file), 'utf8'));
    const name = file.replace(/\.json$/, '');
    const init =
      spec.variables === undefined
        ? { headers: { 'content-type': 'application/graphql' }, body: spec.request as string }
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: spec.request, variables: JSON.parse(spec.variables) }) };
    const res = await fetch(`http://127.0.0.1:${port}/graphql`, { method: 'POST', ...init });
    const text = await res.text();
    const expectedStatus = spec.statusCode ?? 200;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    let reason: string | undefined;
    if (res.status !== expectedStatus) reason = `HTTP ${res.status}, expected ${expectedStatus}: ${text.slice(0, 200)}`;
    else reason = firstDifference(spec.response, body);
    results.push({ suite: 'graphql', name, pass: reason === undefined, reason, harness: reason === undefined ? undefined : GRAPHQL_HARNESS_DEPENDENT[name] });
  }
  return results;
}

export function formatResults(results: CaseResult[]): string {
  const lines: string[] = [];
  for (const suite of ['eth', 'graphql'] as const) {
    const mine = results.filter((r) => r.suite === suite);
    if (mine.length === 0) continue;
    for (const r of mine) if (!r.pass) lines.push(`FAIL ${suite}/${r.name}: ${r.reason}${r.harness ? `\n  harness-dependent: ${r.harness}` : ''}`);
    const harness = mine.filter((r) => !r.pass && r.harness).length;
    lines.push(`${suite}: ${mine.filter((r) => r.pass).length} of ${mine.length} pass${harness > 0 ? ` (${harness} of the failures depend on mocks in Besu's harness)` : ''}`);
  }
  return lines.join('\n');
}
