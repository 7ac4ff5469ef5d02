/**
 * The live node's Pause (node/rpc/off-loop/pause.ts): once the current slice of RPC reading has
 * run `sliceMs`, the reader waits for setImmediate, which runs after the event loop has polled
 * its sockets and fired its timers; so consensus work waits one slice at most, however wide the read.
 */
import type { Pause } from '../rpc/off-loop/pause.ts';

export const DEFAULT_SLICE_MS = 4;

export function livePause(sliceMs: number = DEFAULT_SLICE_MS): Pause {
  let sliceStartMs = performance.now();
  let turning: Promise<void> | undefined;
  return () => {
    if (turning) return turning;
    if (performance.now() - sliceStartMs < sliceMs) return undefined;
    turning = new Promise<void>((resolve) =>
      setImmediate(() => {
        turning = undefined;
        sliceStartMs = performance.now();
        resolve();
      }),
    );
    return turning;
  };
}
