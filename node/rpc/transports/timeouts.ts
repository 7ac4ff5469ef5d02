/**
 * Timers against slow clients, for the HTTP endpoints (JSON-RPC and its fast path, GraphQL, the
 * WebSocket handshake) and the limits the stream endpoints use (WebSocket heartbeat, IPC partial
 * values).
 *
 * Besu has no such timers: Vert.x's HttpServerOptions idle timeout defaults to 0, none
 * (vert.x 4.5.24 TCPSSLOptions.DEFAULT_IDLE_TIMEOUT), and JsonRpcHttpService, GraphQLHttpService
 * and WebSocketService leave it at that; their TimeoutHandler (30 s, TimeoutOptions) starts only
 * once the body has been read. There a client that sends a request head and stops keeps its
 * connection forever, and 80 of them (--rpc-http-max-active-connections) lock everyone else out.
 * Here a request must arrive whole in time: its head within `headersTimeoutMs` and all of it
 * within `requestTimeoutMs`, both counted from its first byte (so trickling does not extend
 * them); otherwise it is answered 408 and the connection closes (node:http's own behaviour, which
 * http1-fast.ts copies). An idle keep-alive connection closes after `keepAliveTimeoutMs`.
 */
import type { Server } from 'node:http';
import { RequestAbandonedError } from '../off-loop/request-budget.ts';

export interface HttpTimeouts {
  /** Longest wait for a request's head, from its first byte; 0: no limit. */
  headersTimeoutMs: number;
  /** Longest wait for a whole request (head and body), from its first byte; 0: no limit. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection closes after this; 0: never. */
  keepAliveTimeoutMs: number;
}

/** 10 s for a head and 30 s for a whole request (the same as Besu's 30 s execution timeout); node's 5 s keep-alive. */
export const DEFAULT_HTTP_TIMEOUTS: Readonly<HttpTimeouts> = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 };

/** The given timeouts over the defaults; RangeError when one is negative or the head may take longer than the request. */
export function resolveHttpTimeouts(given: Partial<HttpTimeouts> = {}): HttpTimeouts {
  const t = { ...DEFAULT_HTTP_TIMEOUTS, ...given };
  for (const [name, value] of Object.entries(t)) {
    if (!(Number.isSafeInteger(value) && value >= 0)) throw new RangeError(`${name} must be a non-negative integer`);
  }
  if (t.headersTimeoutMs > 0 && t.requestTimeoutMs > 0 && t.headersTimeoutMs > t.requestTimeoutMs) {
    throw new RangeError('headersTimeoutMs must not exceed requestTimeoutMs');
  }
  return t;
}

/** How often a checker looks at its connections: a tenth of the shortest timer in use, within [5 ms, 1 s]. */
export function checkPeriodMs(...timersMs: number[]): number {
  const inUse = timersMs.filter((ms) => ms > 0);
  if (inUse.length === 0) return 1000;
  return Math.max(5, Math.min(1000, Math.floor(Math.min(...inUse) / 10)));
}

/** node:http createServer options for these timeouts (its checker runs every 30 s unless told otherwise). */
export function httpServerTimerOptions(t: HttpTimeouts): { connectionsCheckingInterval: number } {
  return { connectionsCheckingInterval: checkPeriodMs(t.headersTimeoutMs, t.requestTimeoutMs) };
}

/** Sets the timeouts on a node:http server (the fast path reads them from there too). */
export function applyHttpTimeouts(server: Server, t: HttpTimeouts): void {
  server.headersTimeout = t.headersTimeoutMs;
  server.requestTimeout = t.requestTimeoutMs;
  server.keepAliveTimeout = t.keepAliveTimeoutMs;
}

/**
 * The budget of one request (off-loop/request-budget.ts): aborts after `timeoutMs` (0: never)
 * with "Timeout expired", or when `abandon` is called (the client closed its connection). `done`
 * clears the timer.
 */
export function requestBudget(timeoutMs: number): { signal: AbortSignal; abandon(reason: string): void; done(): void } {
  const controller = new AbortController();
  const timer = timeoutMs > 0 ? setTimeout(() => controller.abort(new RequestAbandonedError('Timeout expired')), timeoutMs) : undefined;
  timer?.unref?.();
  return {
    signal: controller.signal,
    abandon: (reason) => {
      if (!controller.signal.aborted) controller.abort(new RequestAbandonedError(reason));
    },
    done: () => clearTimeout(timer),
  };
}
