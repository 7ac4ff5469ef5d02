/**
 * Load rounds for the JSON-RPC benches: autocannon in a child process (so that the load tool does
 * not share the server's thread) against one URL, and the summary of several rounds.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

export type Figure = Record<string, unknown>;

const autocannonCli = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
export const round2 = (x: number): number => Math.round(x * 100) / 100;

export interface LoadRound {
  requestsPerSecond: number;
  total: number;
  p50LatencyMs: number;
  p99LatencyMs: number;
  errors: number;
  non2xx: number;
  /** CPU of this process per request (undefined for an outside server). */
  serverCpuUsPerRequest?: number;
}

export interface RoundOptions {
  seconds: number;
  connections: number;
  /** Measure this process's CPU per request (the server runs in it). */
  measureCpu: boolean;
  /** Request target; default `/`. */
  path?: string;
}

/** One autocannon run in a child process. */
export async function autocannonRound(port: number, body: string, o: RoundOptions): Promise<LoadRound> {
  const cpu0 = process.cpuUsage();
  const args = [autocannonCli, '-j', '-c', String(o.connections), '-d', String(o.seconds), '-m', 'POST', '-H', 'content-type=application/json', '-b', body, `http://127.0.0.1:${port}${o.path ?? '/'}`];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise<void>((resolve, reject) => {
    child.once('exit', () => resolve());
    child.once('error', reject);
  });
  const cpu = process.cpuUsage(cpu0);
  const r = JSON.parse(out) as { requests: { average: number; total: number }; latency: { p50: number; p99: number }; errors: number; non2xx: number };
  const round: LoadRound = { requestsPerSecond: Math.round(r.requests.average), total: r.requests.total, p50LatencyMs: r.latency.p50, p99LatencyMs: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
  if (o.measureCpu && r.requests.total > 0) round.serverCpuUsPerRequest = round2((cpu.user + cpu.system) / r.requests.total);
  return round;
}

export function summarize(rounds: LoadRound[]): Figure {
  const rps = rounds.map((r) => r.requestsPerSecond);
  const cpu = rounds.map((r) => r.serverCpuUsPerRequest).filter((x): x is number => x !== undefined);
  const out: Figure = {
    requestsPerSecond: Math.round(median(rps)),
    maxRequestsPerSecond: Math.max(...rps),
    rounds: rps,
    p50LatencyMs: median(rounds.map((r) => r.p50LatencyMs)),
    p99LatencyMs: median(rounds.map((r) => r.p99LatencyMs)),
    errors: rounds.reduce((n, r) => n + r.errors, 0),
    non2xx: rounds.reduce((n, r) => n + r.non2xx, 0),
  };
  if (cpu.length > 0) {
    out.serverCpuUsPerRequest = round2(median(cpu));
    out.capacityPerCore = Math.round(1e6 / median(cpu));
  }
  return out;
}

export const requestBody = (method: string, params: unknown[]): string => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
