/** The bench's JSON-RPC and GraphQL client: every request bounded by an AbortSignal. */

export interface RpcCall {
  method: string;
  params: unknown[];
}

export interface RpcAnswer {
  id?: number;
  result?: unknown;
  error?: { code: number; message: string };
}

const DEFAULT_TIMEOUT_MS = 10_000;

/** The node answered, with a JSON-RPC error. */
export class RpcErrorAnswer extends Error {}

function jsonRequest(body: unknown, signal: AbortSignal, headers: Record<string, string> = {}): RequestInit {
  return { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal };
}

export async function rpc(port: number, method: string, params: unknown[] = [], signal = AbortSignal.timeout(DEFAULT_TIMEOUT_MS)): Promise<any> {
  const res = await fetch(`http://127.0.0.1:${port}/`, jsonRequest({ jsonrpc: '2.0', id: 1, method, params }, signal));
  const answer = (await res.json()) as RpcAnswer;
  if (answer.error) throw new RpcErrorAnswer(`${method}: ${answer.error.code} ${answer.error.message}`);
  return answer.result;
}

/** One JSON-RPC batch; the answers in the node's order (a single error object when the batch itself is refused). */
export async function rpcBatch(port: number, calls: RpcCall[], signal: AbortSignal): Promise<RpcAnswer[]> {
  const body = calls.map((c, id) => ({ jsonrpc: '2.0', id, method: c.method, params: c.params }));
  const res = await fetch(`http://127.0.0.1:${port}/`, jsonRequest(body, signal));
  const answer = (await res.json()) as RpcAnswer[] | RpcAnswer;
  return Array.isArray(answer) ? answer : [answer];
}

export const hexQuantity = (n: number | bigint): string => `0x${n.toString(16)}`;

export async function blockNumber(port: number, signal?: AbortSignal): Promise<number> {
  return Number(BigInt(await rpc(port, 'eth_blockNumber', [], signal)));
}

export interface GraphqlAnswer {
  status: number;
  body: string;
}

export async function graphqlPost(port: number, query: string, signal: AbortSignal, headers: Record<string, string> = {}): Promise<GraphqlAnswer> {
  const res = await fetch(`http://127.0.0.1:${port}/graphql`, jsonRequest({ query }, signal, headers));
  return { status: res.status, body: await res.text() };
}

export async function graphqlGet(port: number, query: string, signal: AbortSignal, headers: Record<string, string> = {}): Promise<GraphqlAnswer> {
  const res = await fetch(`http://127.0.0.1:${port}/graphql?query=${encodeURIComponent(query)}`, { headers, signal });
  return { status: res.status, body: await res.text() };
}

/** Whether `err` is the abort or timeout of our own signal (the client gave up), not a failure of the node. */
export function isAbort(err: unknown): boolean {
  const name = (err as { name?: string })?.name;
  return name === 'AbortError' || name === 'TimeoutError';
}
