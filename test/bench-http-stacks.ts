/**
 * `http-stacks` (`npm run bench:rpc -- --only stacks`): the same JSON-RPC requests through each
 * HTTP stack the node's endpoint could serve them with, in one run against one node, the stacks'
 * rounds interleaved so that the machine's load falls on all of them alike:
 * - `http1-fast`: the endpoint's hand-written HTTP/1.1 front end (http1-fast.ts) at `POST /`;
 * - `node:http`: the same endpoint's node:http handler, at `POST /?stack=node-http` (the front end
 *   hands every request line other than `POST / HTTP/1.1` to node:http, which serves every route);
 * - `hono`: hono on @hono/node-server in this process, with the same steps (Host, CORS, Accept,
 *   body limit, execution given up when the client leaves) in front of a dispatcher over the same
 *   node's methods, answering through hono's Response.
 * Per request (eth_blockNumber, eth_call, a batch of 10 eth_blockNumber), at 32 connections: each
 * stack's requests per second, p50 and p99 latency and this process's CPU per request, and each
 * stack's gain over node:http on the figures users see (requests per second, p50 and p99
 * latency). The endpoint keeps a stack besides node:http only while it gains more than 20% on one
 * of them (issue 24 item 4); hono never did and is kept here (a devDependency) only to show it.
 */
import { createServer, type Server } from 'node:http';
import { Hono } from 'hono';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import type { LiveNode } from '../node/cli/live-node.ts';
import { Dispatcher } from '../node/rpc/dispatcher.ts';
import { canonicalHashes } from '../node/rpc/node-api.ts';
import { createNodeRpc } from '../node/rpc/node-rpc.ts';
import { WorkerSimulator } from '../node/rpc/off-loop/worker-simulator.ts';
import { RequestAbandonedError, withRequestSignal } from '../node/rpc/off-loop/request-budget.ts';
import { MethodRegistry } from '../node/rpc/registry.ts';
import { acceptsJson, corsOutcome, corsRegex, DEFAULT_MAX_REQUEST_BYTES, hostAllowed } from '../node/rpc/transports/http.ts';
import { livePause } from '../node/runtime/live-pause.ts';
import { LOGGER_CONTRACT } from '../sim/genesis-builder.ts';
import { autocannonRound, requestBody, round2, summarize, type Figure, type LoadRound } from './bench-load.ts';

/** A stack improves on node:http by more than this on some user-visible figure to be worth keeping. */
export const WORTH_KEEPING_GAIN = 1.2;

const STACKS = ['http1-fast', 'node:http', 'hono'] as const;
type Stack = (typeof STACKS)[number];

const BATCH_SIZE = 10;

/**
 * After a round: a round cut off by time leaves requests in flight, whose execution work the
 * endpoint then gives up, ending its busy worker threads (request-budget.ts); a few requests
 * answered before the next round start fresh ones, so that no round pays for another's.
 */
async function settle(port: number, path: string, body: string): Promise<void> {
  const one = () => fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.text());
  await Promise.all(Array.from({ length: 4 }, one));
}

/** What the endpoint's node:http handler gets: the same route, with a query string the front end does not take. */
const NODE_HTTP_PATH = '/?stack=node-http';

/** hono serving POST / over the node's methods, as the endpoint's steps would run in it. */
async function startHonoStack(live: LiveNode): Promise<{ port: number; close(): Promise<void> }> {
  const node = live.node;
  const simulator = new WorkerSimulator({ genesis: node.config.genesis, store: node.stateStore(), hashes: canonicalHashes(node) });
  const rpc = createNodeRpc(node, { simulator, pause: livePause() });
  const registry = new MethodRegistry();
  registry.registerAll(rpc.methods);
  const dispatcher = new Dispatcher({ registry, enabledApis: new Set(['ETH', 'NET', 'WEB3', 'TXPOOL']), maxBatchSize: 1024, transport: 'http' });
  const cors = corsRegex([]);
  const app = new Hono<{ Bindings: HttpBindings }>();
  app.post('/', async (c) => {
    if (!hostAllowed(['*'], c.req.header('host'))) return c.json({ message: 'Host not authorized.' }, 403);
    const step = corsOutcome(cors, c.req.header('origin'), 'POST', undefined);
    if (step.kind === 'reject') return c.text('Exception thrown handling RPC', 403);
    if (Number(c.req.header('content-length') ?? 0) > DEFAULT_MAX_REQUEST_BYTES) return c.text('Request Entity Too Large', 413);
    if (!acceptsJson(c.req.header('accept'))) return c.body(null, 406);
    const text = await c.req.text();
    // As the endpoint does: work for a client that left is given up (request-budget.ts).
    const serving = new AbortController();
    c.env.outgoing.once('close', () => serving.abort(new RequestAbandonedError('the client closed its connection')));
    const result = await withRequestSignal(serving.signal, () => dispatcher.handleText(text, { transport: 'http' }));
    return c.body(result.body ?? '', result.httpStatus as 200, { 'Content-Type': 'application/json', ...step.headers });
  });
  const server: Server = createServer(getRequestListener(app.fetch));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as { port: number }).port,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rpc.close();
      await simulator.close();
    },
  };
}

/** Each stack's gain over node:http: requests per second, and latency (node:http's over the stack's). */
function gainsOverNodeHttp(by: Record<Stack, Figure>): Record<string, Figure> {
  const base = by['node:http'];
  const ratio = (a: unknown, b: unknown) => round2((a as number) / Math.max(b as number, 1e-9));
  const gains: Record<string, Figure> = {};
  for (const stack of STACKS) {
    if (stack === 'node:http') continue;
    const s = by[stack];
    const g = {
      requestsPerSecond: ratio(s.requestsPerSecond, base.requestsPerSecond),
      p50Latency: ratio(base.p50LatencyMs, s.p50LatencyMs),
      p99Latency: ratio(base.p99LatencyMs, s.p99LatencyMs),
    };
    gains[stack] = { ...g, worthKeeping: Object.values(g).some((x) => x > WORTH_KEEPING_GAIN) };
  }
  return gains;
}

/** The http-stacks figures against `live`, whose JSON-RPC endpoint listens on `httpPort`. */
export async function httpStackFigures(live: LiveNode, httpPort: number, quick: boolean, emit: (f: Figure) => void, progress: (text: string) => void): Promise<void> {
  const seconds = quick ? 2 : 4;
  const rounds = quick ? 1 : 3;
  const connections = 32;
  const hono = await startHonoStack(live);
  try {
    const where: Record<Stack, [number, string]> = { 'http1-fast': [httpPort, '/'], 'node:http': [httpPort, NODE_HTTP_PATH], hono: [hono.port, '/'] };
    const blockNumber = { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] };
    const requests: Array<[string, string]> = [
      ['eth_blockNumber', requestBody('eth_blockNumber', [])],
      ['eth_call', requestBody('eth_call', [{ to: LOGGER_CONTRACT, data: '0x' }, 'latest'])],
      [`batch of ${BATCH_SIZE} eth_blockNumber`, JSON.stringify(Array.from({ length: BATCH_SIZE }, (_, i) => ({ ...blockNumber, id: i })))],
    ];
    for (const [request, body] of requests) {
      progress(`http-stacks ${request}`);
      const runs: Record<Stack, LoadRound[]> = { 'http1-fast': [], 'node:http': [], hono: [] };
      for (const stack of STACKS) {
        const [port, path] = where[stack];
        await autocannonRound(port, body, { seconds: 1, connections, measureCpu: false, path }); // warm-up
        await settle(port, path, body);
      }
      for (let i = 0; i < rounds; i++) {
        for (const stack of STACKS) {
          const [port, path] = where[stack];
          runs[stack].push(await autocannonRound(port, body, { seconds, connections, measureCpu: true, path }));
          await settle(port, path, body);
        }
      }
      const by = Object.fromEntries(STACKS.map((s) => [s, summarize(runs[s])])) as Record<Stack, Figure>;
      emit({ figure: 'http-stacks', request, connections, seconds, rounds, loadTool: 'autocannon (child process)', stacks: by, gainOverNodeHttp: gainsOverNodeHttp(by) });
    }
  } finally {
    await hono.close();
  }
}
