/** Waiting helpers shared by the attack bench. */

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Sleeps `ms` or until `signal` aborts, whichever comes first. */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Polls `holds` every `everyMs` until it is true (true) or `timeoutMs` passes (false); a throw counts as false. */
export async function waitUntil(holds: () => boolean | Promise<boolean>, timeoutMs: number, everyMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await Promise.resolve().then(holds).catch(() => false)) return true;
    if (Date.now() >= deadline) return false;
    await sleep(everyMs);
  }
}

function timeoutError(ms: number): Error {
  const err = new Error(`no answer within ${ms} ms`);
  err.name = 'TimeoutError';
  return err;
}

/**
 * A signal that aborts after `ms`, or at once when `parent` aborts, held until `close()` (which
 * releases the timer and the listener on `parent`; AbortSignal.any could be collected early).
 */
export function deadline(ms: number, parent?: AbortSignal): { signal: AbortSignal; close(): void } {
  const controller = new AbortController();
  const onParent = (): void => controller.abort(parent!.reason);
  const timer = setTimeout(() => controller.abort(timeoutError(ms)), ms);
  if (parent?.aborted) onParent();
  else parent?.addEventListener('abort', onParent, { once: true });
  return {
    signal: controller.signal,
    close: () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParent);
    },
  };
}

/** Runs `fn` with a signal that aborts after `ms` or when `parent` does. */
export async function withDeadline<T>(ms: number, parent: AbortSignal, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const d = deadline(ms, parent);
  try {
    return await fn(d.signal);
  } finally {
    d.close();
  }
}
