/**
 * The qbft-lab command line. Simulator commands live here (cli/ may use sim/); node-side tools
 * (genesis, rlp) come from node/cli.
 */
import { parseBesuVersion } from './besu-version.ts';
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { UsageError } from '../node/cli/usage-error.ts';
import { didYouMean } from '../node/cli/suggest.ts';
import { parseOptions } from '../node/cli/parse-options.ts';
import { parseExtraDataType, rlpDecode, rlpEncode } from '../node/cli/rlp-command.ts';
import { GenesisError } from '../node/chain/genesis.ts';
import { loadGenesisFile } from '../node/cli/genesis-file.ts';
import { SCENARIOS, findScenario } from '../scenarios/index.ts';
// The simulator, the EVM and the fuzzer load on first use, so that `help` and listings start fast.
import type { RunResult } from '../sim/scenario-runner.ts';
import { ScenarioError, validateScenario, type Scenario } from '../sim/scenario.ts';
import type { World } from '../sim/world.ts';
import { formatRun, formatSummary, runJson } from './format.ts';
import { writeJUnitFile } from './junit-file.ts';
import { OPTIONS, type OptionTable } from './command-options.ts';
import { COMMAND_WORDS, commandHelp, overview, subcommandOf } from './help.ts';

/** `qbft-lab --help`: one line per command; `qbft-lab COMMAND --help` has its options (cli/help.ts). */
export const HELP = overview();

interface Io {
  out(text: string): void;
  err(text: string): void;
  readStdin(): string;
}

const processIo: Io = {
  out: (t) => process.stdout.write(t.endsWith('\n') ? t : t + '\n'),
  err: (t) => process.stderr.write(t.endsWith('\n') ? t : t + '\n'),
  readStdin: () => readFileSync(0, 'utf8'),
};

/** Reads a command's arguments against its option table (cli/command-options.ts), the one its help lists. */
function parse(args: string[], options: OptionTable) {
  return parseOptions(args, options);
}

/** A command qbft-lab does not have: one line, with the nearest one it does or else a pointer to the help. */
class UnknownCommandError extends UsageError {}

function unknownCommand(command: string): UnknownCommandError {
  return new UnknownCommandError(`unknown command '${command}'${didYouMean(command, COMMAND_WORDS) || " (see 'qbft-lab --help')"}`);
}

const wallClock = () => performance.now();

/**
 * Validator-seconds from which the checkers run in a worker thread: below it, starting the worker
 * costs more than the second core saves.
 */
const WORKER_CHECKERS_FROM_VALIDATOR_SECONDS = 400;

function checkersWorthAWorker(s: Scenario): boolean {
  return s.validators * (s.durationMs / 1000) >= WORKER_CHECKERS_FROM_VALIDATOR_SECONDS;
}

async function runWithTrace(s: Scenario, seed: number | undefined, traceFile: string | undefined, reportDir?: { dir: string; io: Io }): Promise<RunResult> {
  let world: World | undefined;
  const { runScenario } = await import('../sim/scenario-runner.ts');
  const result = await runScenario(s, { seed, wallClock, keepTrace: traceFile !== undefined || reportDir !== undefined, onWorld: (w) => (world = w), checkersInWorker: checkersWorthAWorker(s) });
  if (traceFile && world) world.trace.writeJsonl(traceFile);
  if (reportDir && world && !result.ok) (await import('./report-command.ts')).writeFailureReports(reportDir.dir, s, result, world, reportDir.io);
  return result;
}

function loadScenario(ref: string): Scenario {
  const named = findScenario(ref);
  if (named) return named;
  if (!/\.json$/i.test(ref)) throw new UsageError(`no scenario named '${ref}' (see 'qbft-lab scenario list'; files must end in .json)`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(ref, 'utf8'));
  } catch (err) {
    throw new UsageError(`cannot read scenario file ${ref}: ${(err as Error).message}`);
  }
  return validateScenario(json, ref);
}

function parseSeed(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new UsageError(`--seed: '${text}' must be an integer`);
  return n;
}

async function scenarioCommand(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'list') {
    const { values, positionals } = parse(rest, OPTIONS['scenario list']);
    if (positionals.length > 0) throw new UsageError(`scenario list: unexpected argument '${positionals[0]}'`);
    if (values.json) io.out(JSON.stringify(SCENARIOS.map((s) => ({ name: s.name, description: s.description }))));
    else for (const s of SCENARIOS) io.out(`${s.name.padEnd(24)} ${s.description}`);
    return 0;
  }
  if (sub !== 'run') throw new UsageError(`scenario: expected 'list' or 'run', got '${sub ?? ''}'${didYouMean(sub ?? '', ['list', 'run'])}`);
  const { values, positionals } = parse(rest, OPTIONS['scenario run']);
  const seed = parseSeed(values.seed as string | undefined);
  const besuVersion = parseBesuVersion(values['besu-version']);
  const reportDir = values['report-dir'] === undefined ? undefined : { dir: values['report-dir'] as string, io };
  if (!values.all && positionals.length !== 1) throw new UsageError('scenario run: give one scenario name or file (or --all)');
  const scenarios = (values.all ? SCENARIOS : [loadScenario(positionals[0])]).map((s) => (besuVersion ? { ...s, besuVersion } : s));
  const junitFile = values.junit as string | undefined;
  // Truncated before the runs: a bad path fails at once, and a crash leaves no stale report behind.
  if (junitFile !== undefined) writeJUnitFile(junitFile, '');
  const results: RunResult[] = [];
  for (const s of scenarios) {
    const r = await runWithTrace(s, seed, values.all ? undefined : (values.trace as string | undefined), reportDir);
    results.push(r);
    if (values.json) io.out(runJson(r));
    else if (!values.all) io.out(formatRun(r, { kind: 'scenario', ref: positionals[0]! }));
  }
  if (values.all && !values.json) io.out(formatSummary(results));
  if (junitFile !== undefined) {
    const [{ junitXml }, { failedChecks }] = await Promise.all([import('../reports/junit.ts'), import('../sim/bugs/check.ts')]);
    const cases = results.map((r) => {
      const checks = failedChecks(r);
      return {
        name: r.scenario,
        classname: 'qbft-lab.scenario',
        timeSeconds: r.wallMs / 1000,
        ...(r.ok ? {} : { failure: { message: checks.join('; ') || 'run not ok', details: [...checks, ...(checks.length > 0 ? [''] : []), formatRun(r, { kind: 'scenario', ref: values.all ? r.scenario : positionals[0]! })].join('\n') } }),
        systemOut: `seed ${r.seed}\ntrace hash ${r.traceHash}`,
      };
    });
    writeJUnitFile(junitFile, junitXml([{ name: 'qbft-lab scenario run', cases }]));
  }
  return results.every((r) => r.ok) ? 0 : 1;

}

async function simCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS.sim);
  if (positionals.length > 0) throw new UsageError(`sim: unexpected argument '${positionals[0]}'`);
  const besuVersion = parseBesuVersion(values['besu-version']);
  const { simScenario } = await import('./sim-scenario.ts');
  const scenario = { ...simScenario(values as never), ...(besuVersion ? { besuVersion } : {}) };
  const reportDir = values['report-dir'] === undefined ? undefined : { dir: values['report-dir'] as string, io };
  const r = await runWithTrace(scenario, scenario.seed, values.trace as string | undefined, reportDir);
  io.out(values.json ? runJson(r) : formatRun(r, { kind: 'sim', args }));
  return r.ok ? 0 : 1;
}

async function genesisCommand(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'inspect') throw new UsageError(`genesis: expected 'inspect', got '${sub ?? ''}'`);
  const { values } = parse(rest, OPTIONS['genesis inspect']);
  const file = values['genesis-file'] as string | undefined;
  if (!file) throw new UsageError('genesis inspect: --genesis-file is required');
  let genesis;
  try {
    genesis = loadGenesisFile(file);
  } catch (err) {
    if (err instanceof GenesisError) throw new UsageError(err.message);
    throw new UsageError(`cannot read genesis file ${file}: ${(err as Error).message}`);
  }
  const { formatGenesisReport, inspectGenesis } = await import('../node/chain/genesis-inspect.ts');
  const report = await inspectGenesis(genesis);
  io.out(values.json ? JSON.stringify(report) : formatGenesisReport(report));
  return 0;
}

function rlpCommand(args: string[], io: Io): number {
  const [sub, ...rest] = args;
  if (sub !== 'encode' && sub !== 'decode') throw new UsageError(`rlp: expected 'encode' or 'decode', got '${sub ?? ''}'`);
  const { values } = parse(rest, OPTIONS.rlp);
  const type = parseExtraDataType(values.type as string | undefined);
  let input: string;
  try {
    input = values.from ? readFileSync(values.from as string, 'utf8') : io.readStdin();
  } catch (err) {
    throw new UsageError(`rlp ${sub}: cannot read input: ${(err as Error).message}`);
  }
  const output = sub === 'encode' ? rlpEncode(type, input) : rlpDecode(type, input);
  if (values.to) writeFileSync(values.to as string, output);
  else io.out(output);
  return 0;
}

export async function main(argv: string[], io: Io = processIo): Promise<number> {
  const [command, ...args] = argv;
  try {
    if (command === '--version' || command === '-V') {
      io.out(`qbft-lab ${(await import('../node/rpc/node-api.ts')).QBFT_LAB_VERSION}`);
      return 0;
    }
    if (command === 'node' && wantsVersion(args)) {
      io.out((await import('../node/rpc/node-api.ts')).defaultClientVersion());
      return 0;
    }
    if (command === 'help' || (command !== undefined && command !== '--help' && command !== '-h' && wantsHelp(args))) {
      io.out(await helpOf(command === 'help' ? args.filter((a) => a !== '--help' && a !== '-h') : [command, ...args]));
      return 0;
    }
    switch (command) {
      case 'scenario':
        return await scenarioCommand(args, io);
      case 'sim':
        return await simCommand(args, io);
      case 'fuzz':
        return await (await import('./fuzz-command.ts')).fuzzCommand(args, io, parse, wallClock);
      case 'bugs':
        return await (await import('./bugs-command.ts')).bugsCommand(args, io, parse);
      case 'report':
        return await (await import('./report-command.ts')).reportCommand(args, io, parse, wallClock);
      case 'tui':
        return await (await import('./tui-command.ts')).tuiCommand(args, io, parse, wallClock);
      case 'teach':
        return await (await import('./teach-command.ts')).teachCommand(args, io, parse, wallClock);
      case 'genesis':
        return await genesisCommand(args, io);
      case 'check':
        return await (await import('./check-command.ts')).checkCommand(args, io, wallClock);
      case 'rehearse':
        return await (await import('./rehearse-command.ts')).rehearseCommand(args, io, wallClock);
      case 'network': {
        const split = args.indexOf('--');
        const nodeArgs = split >= 0 ? args.slice(split + 1) : [];
        const { values, positionals } = parse(split >= 0 ? args.slice(0, split) : args, OPTIONS.network);
        if (positionals.length > 0) throw new UsageError(`network: unexpected argument '${positionals[0]}'`);
        const { networkCommand } = await import('./network-command.ts');
        return await networkCommand(values as never, io, () => Date.now(), process.stdout.isTTY === true, nodeArgs);
      }
      case 'node': {
        const { nodeCommand } = await import('./node-command.ts');
        return await nodeCommand(args, io);
      }
      case 'blocks': {
        const [sub, ...rest] = args;
        if (sub !== 'import') throw new UsageError(`blocks: unknown subcommand '${sub ?? ''}' (only 'import')`);
        const { blocksImportCommand } = await import('../node/cli/blocks-import.ts');
        return await blocksImportCommand(rest, io.out);
      }
      case 'rlp':
        return rlpCommand(args, io);
      case 'operator':
        return await (await import('./operator-command.ts')).operatorCommand(args, io, parse);
      case undefined:
      case '--help':
      case '-h':
        io.out(HELP);
        return command === undefined ? 2 : 0;
      default:
        throw unknownCommand(command);
    }
  } catch (err) {
    if (err instanceof UnknownCommandError) {
      io.err(`qbft-lab: ${err.message}`);
      return 2;
    }
    if (err instanceof UsageError || err instanceof ScenarioError) {
      const sub = command === undefined ? undefined : subcommandOf(command, args[0]);
      io.err(`qbft-lab: ${err.message} (see 'qbft-lab ${command ? `${command} ` : ''}${sub ? `${sub} ` : ''}--help')`);
      return 2;
    }
    throw err;
  }
}

/** `--help` or `-h` among a command's arguments (before a `--` that ends the options). */
function wantsHelp(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** `--version` or `-V` among a command's arguments (before a `--`), as `besu --version`. */
function wantsVersion(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === '--version' || a === '-V');
}

/** The overview (no words), or the help of the command (and subcommand) the words name. */
async function helpOf(words: string[]): Promise<string> {
  const [command, ...rest] = words;
  if (command === undefined) return HELP;
  const text = await commandHelp(command, rest);
  if (text === undefined) throw unknownCommand(command);
  return text;
}

export type { Io };
