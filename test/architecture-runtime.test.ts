/**
 * The runtime half of the architecture test: a whole scenario runs with the real clock, timers and
 * randomness of the process replaced by stubs that record the caller and throw. Whatever the source
 * rules of architecture-rules.ts miss (a dependency, a captured alias, code built at run time)
 * shows up here as a recorded call with its stack, even when the caller swallows the throw.
 *
 * Tests are serial: the stubs replace globals of this worker process for the length of one run.
 */
import test from 'ava';
import happyPath from '../scenarios/happy-path.ts';
import { findScenario } from '../scenarios/index.ts';
import { runScenario, type RunResult } from '../sim/scenario-runner.ts';
import type { Scenario } from '../sim/scenario.ts';

interface StubbedCall {
  what: string;
  stack: string;
}

/**
 * Calls of a stubbed primitive that are allowed through, each by its exact call site in the stack.
 * Empty: a happy-path run makes no such call (nor do @ethereumjs or @noble during it).
 */
const ALLOWED_CALL_SITES: ReadonlyArray<{ what: string; site: RegExp; why: string }> = [];

class RealTimeUsed extends Error {}

const RealDate = Date;

function stackHere(): string {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 40;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  // Drop the "Error" line and the stub's own frames.
  return stack.split('\n').slice(3).join('\n');
}

/** Replaces the process's clock, timers and randomness with throwing stubs until restore() is called. */
function installThrowingStubs(): { calls: StubbedCall[]; restore: () => void } {
  const calls: StubbedCall[] = [];
  const undo: Array<() => void> = [];

  const refuse = (what: string, real: (...args: any[]) => unknown) =>
    function (this: unknown, ...args: unknown[]) {
      const stack = stackHere();
      if (ALLOWED_CALL_SITES.some((a) => a.what === what && a.site.test(stack))) return real.apply(this, args);
      calls.push({ what, stack });
      throw new RealTimeUsed(`${what} called during a simulated run`);
    };

  const replace = (owner: object, key: string, value: unknown) => {
    const own = Object.getOwnPropertyDescriptor(owner, key);
    Object.defineProperty(owner, key, { value, writable: true, configurable: true, enumerable: own?.enumerable ?? false });
    undo.push(() => {
      if (own) Object.defineProperty(owner, key, own);
      else delete (owner as Record<string, unknown>)[key];
    });
  };

  for (const name of ['setTimeout', 'setInterval', 'setImmediate'] as const) {
    replace(globalThis, name, refuse(name, globalThis[name]));
  }
  replace(Math, 'random', refuse('Math.random', Math.random));
  replace(performance, 'now', refuse('performance.now', performance.now.bind(performance)));
  replace(process, 'hrtime', Object.assign(refuse('process.hrtime', process.hrtime), { bigint: refuse('process.hrtime.bigint', process.hrtime.bigint) }));
  replace(crypto, 'getRandomValues', refuse('crypto.getRandomValues', crypto.getRandomValues.bind(crypto)));
  replace(crypto, 'randomUUID', refuse('crypto.randomUUID', crypto.randomUUID.bind(crypto)));

  const dateNow = refuse('Date.now', RealDate.now);
  const dateCall = refuse('Date()', RealDate);
  const dateNoArgs = refuse('new Date()', () => undefined);
  const StubDate: DateConstructor = new Proxy(RealDate, {
    // new Date(ms) and friends read no clock; only the no-argument form does.
    construct(target, args, newTarget): object {
      if (args.length === 0) dateNoArgs();
      return Reflect.construct(target, args, newTarget === StubDate ? target : newTarget);
    },
    apply: () => dateCall(),
    get(target, key, receiver) {
      return key === 'now' ? dateNow : Reflect.get(target, key, receiver);
    },
  });
  replace(globalThis, 'Date', StubDate);

  const restore = () => {
    for (const u of undo.reverse()) u();
  };
  return { calls, restore };
}

async function runStubbed(s: Scenario, opts: Parameters<typeof runScenario>[1] = {}): Promise<{ calls: StubbedCall[]; result?: RunResult; error?: unknown }> {
  const stubs = installThrowingStubs();
  try {
    return { calls: stubs.calls, result: await runScenario(s, opts) };
  } catch (error) {
    return { calls: stubs.calls, error };
  } finally {
    stubs.restore();
  }
}

const describeCalls = (calls: StubbedCall[]) => calls.map((c) => `${c.what}\n${c.stack}`).join('\n\n');

test.serial('a scenario runs to the end without real timers, Date, Math.random or performance.now', async (t) => {
  const { calls, result, error } = await runStubbed(happyPath);
  t.deepEqual(calls.map((c) => c.what), [], describeCalls(calls));
  t.is(error, undefined, String((error as Error | undefined)?.stack ?? error));
  t.truthy(result);
  t.deepEqual(result!.errors, []);
  t.true(result!.ok, JSON.stringify(result!.expectations));
  t.true(result!.height >= 28, `height ${result!.height}`);
  t.is(result!.wallMs, 0, 'no wall clock was passed, so none was read');
  // The globals are back.
  t.is(globalThis.Date, RealDate);
  t.true(Date.now() > 0);
});

// Wider paths under the same stubs: JSON-RPC steps (add-validator); transactions through the EVM,
// crash and restart from storage, partition and reorganization (twins-fork).
for (const name of ['add-validator', 'twins-fork']) {
  test.serial(`${name} runs to the end under the same stubs`, async (t) => {
    const { calls, result, error } = await runStubbed(findScenario(name)!);
    t.deepEqual(calls.map((c) => c.what), [], describeCalls(calls));
    t.is(error, undefined, String((error as Error | undefined)?.stack ?? error));
    t.deepEqual(result!.errors, []);
    t.true(result!.ok, JSON.stringify(result!.expectations));
  });
}

test.serial('the stubs catch a planted setTimeout inside a run, and the run fails', async (t) => {
  const planted: Scenario = { ...happyPath, name: 'planted-timer', durationMs: 3_000, steps: [{ atMs: 1_000, do: 'custom', name: 'plant' }], expect: [] };
  let plantedRan = false;
  const { calls, result, error } = await runStubbed(planted, {
    steps: {
      plant: () => {
        plantedRan = true;
        setTimeout(() => undefined, 10);
      },
    },
  });
  t.true(plantedRan);
  t.deepEqual(calls.map((c) => c.what), ['setTimeout']);
  t.regex(calls[0].stack, /architecture-runtime\.test\.ts/);
  const failure = error ? String(error) : result!.errors.join('\n');
  t.regex(failure, /setTimeout called during a simulated run/);
  if (result) t.false(result.ok);
  t.is(typeof globalThis.setTimeout(() => undefined, 0), 'object', 'the real setTimeout is back');
});

test.serial('each stub throws and records its caller, even when the caller swallows the throw', (t) => {
  const stubs = installThrowingStubs();
  const attempts: Array<[string, () => unknown]> = [
    ['setTimeout', () => setTimeout(() => undefined, 1)],
    ['setInterval', () => setInterval(() => undefined, 1)],
    ['setImmediate', () => setImmediate(() => undefined)],
    ['Date.now', () => Date.now()],
    ['new Date()', () => new Date()],
    ['Date()', () => (Date as unknown as () => string)()],
    ['Math.random', () => Math.random()],
    ['performance.now', () => performance.now()],
    ['process.hrtime', () => process.hrtime()],
    ['process.hrtime.bigint', () => process.hrtime.bigint()],
    ['crypto.getRandomValues', () => crypto.getRandomValues(new Uint8Array(4))],
    ['crypto.randomUUID', () => crypto.randomUUID()],
  ];
  const thrown: string[] = [];
  let fixedDate: Date;
  try {
    for (const [what, call] of attempts) {
      try {
        call();
      } catch (e) {
        if (e instanceof RealTimeUsed) thrown.push(what);
      }
    }
    fixedDate = new Date(0);
  } finally {
    stubs.restore();
  }
  t.deepEqual(thrown, attempts.map(([what]) => what));
  t.deepEqual(stubs.calls.map((c) => c.what), attempts.map(([what]) => what));
  t.true(fixedDate instanceof Date, 'new Date(ms) reads no clock and stays a Date');
  t.is(fixedDate.getTime(), 0);
  t.is(Date, RealDate);
  t.is(typeof performance.now(), 'number');
});
