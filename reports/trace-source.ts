/**
 * Where a report's trace comes from: a JSONL trace file (hashed as written, so its hash is the
 * run's traceHash), or a scenario run in the simulator with its trace kept in memory.
 */
import { readFileSync, statSync } from 'node:fs';
import { bytesToHex } from '../node/crypto/bytes.ts';
import { keccak256 } from '../node/crypto/keccak.ts';
import { runScenario, type RunResult } from '../sim/scenario-runner.ts';
import type { Scenario } from '../sim/scenario.ts';
import { parseTraceJsonl, type TraceLine } from '../sim/trace.ts';
import type { World } from '../sim/world.ts';
import { buildTimeline, type Timeline, type TimelineOptions } from '../sim/run-model/timeline.ts';

export interface LoadedTrace {
  lines: TraceLine[];
  /** The lines as recorded (canonical JSON text), when at hand. */
  raw?: string[];
  traceHash: string | null;
  /** The run's result, when the trace comes from running a scenario. */
  result?: RunResult;
}

const MAX_TRACE_BYTES = 512 * 1024 * 1024;

export function loadTraceFile(path: string): LoadedTrace {
  const size = statSync(path).size;
  if (size > MAX_TRACE_BYTES) throw new RangeError(`${path} is ${size} bytes (at most ${MAX_TRACE_BYTES} are read)`);
  const bytes = readFileSync(path);
  const lines = parseTraceJsonl(bytes.toString('utf8'));
  return { lines, traceHash: bytesToHex(keccak256(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length))) };
}

/** Runs a scenario with its trace kept and returns the trace and the result. */
export async function runScenarioTrace(s: Scenario, opts: { seed?: number; wallClock?: () => number } = {}): Promise<LoadedTrace & { result: RunResult; world: World }> {
  let world: World | undefined;
  const result = await runScenario(s, { seed: opts.seed, wallClock: opts.wallClock, keepTrace: true, onWorld: (w) => (world = w) });
  if (!world) throw new Error('runScenario did not hand out its world');
  const raw = world.trace.lines();
  return { lines: raw.map((l) => JSON.parse(l) as TraceLine), raw, traceHash: result.traceHash, result, world };
}

export function timelineOf(trace: LoadedTrace, opts: TimelineOptions = {}): Timeline {
  const tl = buildTimeline(trace.lines, opts);
  tl.run.traceHash = trace.traceHash;
  return tl;
}
