/** JSON-RPC helpers for tests that drive nodes running in other processes. */

export async function rpc(port: number | undefined, method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.code} ${body.error.message}`);
  return body.result;
}

export const height = async (port: number | undefined): Promise<number> => Number(BigInt(await rpc(port, 'eth_blockNumber')));
export const peerCount = async (port: number | undefined): Promise<number> => Number(BigInt(await rpc(port, 'net_peerCount')));
export const blockHash = async (port: number | undefined, number: number): Promise<string> => (await rpc(port, 'eth_getBlockByNumber', [`0x${number.toString(16)}`, false])).hash;

/** Polls `fn` every 200 ms (errors count as not yet) until it holds; throws after `timeoutMs`. */
export async function until(what: string, fn: () => Promise<boolean>, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await fn().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Polls `fn` every 100 ms until it gives a value, and returns it; throws after `timeoutMs`. */
export async function untilValue<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
