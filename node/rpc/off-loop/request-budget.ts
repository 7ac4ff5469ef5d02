/**
 * The budget of the JSON-RPC request being served: an AbortSignal that fires when the request's
 * time is up (Besu's 30 s, TimeoutOptions) or its client went away. The transport opens it around
 * a whole request (a batch shares one; transports/timeouts.ts makes it), and work that runs
 * elsewhere (worker-simulator.ts) reads it to drop or stop what nobody waits for any more. Carried
 * in AsyncLocalStorage so the methods between the two need not pass it along. No time is read
 * here: in the simulator no transport opens a budget and nothing is ever given up.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const budgets = new AsyncLocalStorage<AbortSignal>();

/** Runs `fn` (and everything it starts) under `signal`. */
export function withRequestSignal<T>(signal: AbortSignal, fn: () => T): T {
  return budgets.run(signal, fn);
}

/** The signal of the request being served, if a transport opened one. */
export function requestSignal(): AbortSignal | undefined {
  return budgets.getStore();
}

/** Work given up because its request's budget ran out or its client left (answered TIMEOUT_ERROR). */
export class RequestAbandonedError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RequestAbandonedError';
  }
}

/** Why `signal` fired, as a one-line reason. */
export function abandonReason(signal: AbortSignal): string {
  const reason = signal.reason as unknown;
  return reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'request abandoned';
}
