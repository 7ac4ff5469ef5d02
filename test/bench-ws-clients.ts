/**
 * The WebSocket side of `npm run bench`'s fan-out figure, run as a child process so that the
 * clients do not share the node's thread: opens `clients` connections (round robin over `urls`),
 * subscribes each to newHeads and, when `logsAddress` is set, to that address's logs, prints
 * `{"ready":…}` once every subscription is confirmed, then records when each notification arrives
 * (performance.timeOrigin + performance.now(), comparable with the parent's clock) until a line
 * arrives on stdin, and prints the receipts as one JSON line:
 * `{"heads":{"<url index>:<block hash>":[ms,…]},"logs":{…same by the log's block hash…},"errors":n}`.
 */
import WebSocket from 'ws';

interface Config {
  urls: string[];
  clients: number;
  logsAddress?: string;
}

const config = JSON.parse(process.argv[2] ?? '{}') as Config;
const now = (): number => performance.timeOrigin + performance.now();
const heads = new Map<string, number[]>();
const logs = new Map<string, number[]>();
let errors = 0;

function record(map: Map<string, number[]>, key: string, t: number): void {
  let list = map.get(key);
  if (list === undefined) map.set(key, (list = []));
  list.push(Math.round(t * 100) / 100);
}

async function openClient(index: number): Promise<WebSocket> {
  const urlIndex = index % config.urls.length;
  const ws = new WebSocket(config.urls[urlIndex]!);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const kinds = new Map<string, 'heads' | 'logs'>();
  const pending = new Map<number, (id: string) => void>();
  ws.on('message', (data: Buffer) => {
    const t = now();
    const msg = JSON.parse(data.toString('utf8')) as { id?: number; result?: unknown; error?: unknown; params?: { subscription: string; result: { hash?: string; blockHash?: string } } };
    if (msg.params !== undefined) {
      const kind = kinds.get(msg.params.subscription);
      if (kind === 'heads') record(heads, `${urlIndex}:${msg.params.result.hash}`, t);
      else if (kind === 'logs') record(logs, `${urlIndex}:${msg.params.result.blockHash}`, t);
      return;
    }
    if (msg.error !== undefined) errors++;
    if (msg.id !== undefined) pending.get(msg.id)?.(String(msg.result));
  });
  ws.on('error', () => errors++);
  const subscribe = (id: number, params: unknown[], kind: 'heads' | 'logs'): Promise<void> =>
    new Promise((resolve) => {
      pending.set(id, (subscription) => {
        kinds.set(subscription, kind);
        resolve();
      });
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_subscribe', params }));
    });
  await subscribe(1, ['newHeads'], 'heads');
  if (config.logsAddress !== undefined) await subscribe(2, ['logs', { address: config.logsAddress }], 'logs');
  return ws;
}

const sockets: WebSocket[] = [];
for (let i = 0; i < config.clients; i += 10) {
  sockets.push(...(await Promise.all(Array.from({ length: Math.min(10, config.clients - i) }, (_, k) => openClient(i + k)))));
}
process.stdout.write(JSON.stringify({ ready: sockets.length }) + '\n');

process.stdin.once('data', () => {
  for (const ws of sockets) ws.terminate();
  // Exit only once the report is out (a pipe may take it asynchronously).
  process.stdout.write(JSON.stringify({ heads: Object.fromEntries(heads), logs: Object.fromEntries(logs), errors }) + '\n', () => process.exit(0));
});
