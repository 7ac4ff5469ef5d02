/**
 * What `tui` (and `teach`) replay: a `.jsonl` trace file as recorded, or a built-in scenario name
 * or scenario `.json` file run now in the simulator (with `--seed`). Usage errors name the command.
 */
import { existsSync, readFileSync } from 'node:fs';
import { UsageError } from '../node/cli/usage-error.ts';
import { loadTraceFile, runScenarioTrace, type LoadedTrace } from '../reports/trace-source.ts';
import { findScenario } from '../scenarios/index.ts';
import { validateScenario, type Scenario } from '../sim/scenario.ts';
import type { BesuVersion } from '../sim/bugs/version-names.ts';

export function isTraceFile(ref: string): boolean {
  return /\.(jsonl|ndjson)$/i.test(ref);
}

export function scenarioFromRef(ref: string, command: string): Scenario {
  const named = findScenario(ref);
  if (named) return named;
  if (!/\.json$/i.test(ref)) throw new UsageError(`${command}: '${ref}' is neither a scenario name (see 'qbft-lab scenario list'), a scenario .json file nor a .jsonl trace`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(ref, 'utf8'));
  } catch (err) {
    throw new UsageError(`${command}: cannot read scenario file ${ref}: ${(err as Error).message}`);
  }
  return validateScenario(json, ref);
}

export function parseSeedFlag(text: unknown): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (typeof text !== 'string' || text.trim() === '' || !Number.isSafeInteger(n)) throw new UsageError(`--seed: '${String(text)}' must be an integer`);
  return n;
}

export async function loadRun(ref: string, seed: number | undefined, command: string, wallClock: () => number, besuVersion?: BesuVersion): Promise<LoadedTrace> {
  if (isTraceFile(ref)) {
    if (seed !== undefined) throw new UsageError(`${command}: --seed applies to scenarios; a trace file is replayed as it was recorded`);
    if (besuVersion !== undefined) throw new UsageError(`${command}: --besu-version applies to scenarios; a trace file is replayed as it was recorded`);
    if (!existsSync(ref)) throw new UsageError(`${command}: no trace file ${ref}`);
    let trace: LoadedTrace;
    try {
      trace = loadTraceFile(ref);
    } catch (err) {
      throw new UsageError(`${command}: cannot read trace ${ref}: ${(err as Error).message}`);
    }
    if (trace.lines.length === 0) throw new UsageError(`${command}: trace ${ref} is empty`);
    return trace;
  }
  const scenario = scenarioFromRef(ref, command);
  return runScenarioTrace(besuVersion ? { ...scenario, besuVersion } : scenario, { seed, wallClock });
}
