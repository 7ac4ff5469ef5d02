/**
 * Where long reads on the node's thread (a wide GraphQL query, eth_getLogs over thousands of
 * blocks, the formatting of many traces) let the event loop turn, so consensus messages and timers
 * wait at most one slice. The live node gives a Pause that yields every few milliseconds
 * (node/runtime/live-pause.ts); in the simulator reads take no time and never pause.
 */
import { abandonReason, RequestAbandonedError, requestSignal } from './request-budget.ts';

/** undefined: go on at once; a promise: go on when it settles (the loop has turned meanwhile). */
export type Pause = () => Promise<void> | undefined;

export const NEVER_PAUSE: Pause = () => undefined;

/** A read's check point: throws when its request was given up, else pauses if `pause` says so. */
export function checkPoint(pause: Pause): Promise<void> | undefined {
  const signal = requestSignal();
  if (signal?.aborted) throw new RequestAbandonedError(abandonReason(signal));
  return pause();
}
