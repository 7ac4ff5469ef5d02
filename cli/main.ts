/**
 * The qbft-lab command line. Simulator commands live here (cli/ may use sim/); node-side tools
 * (genesis, rlp) come from node/cli.
 */
import { parseBesuVersion } from './besu-version.ts';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { performance } from 'node:perf_hooks';
import { UsageError } from '../node/cli/usage-error.ts';
import { didYouMean, unknownOptionMessage } from '../node/cli/suggest.ts';
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

export const HELP = `qbft-lab: a Besu-compatible QBFT node under a deterministic simulator

Usage:
  qbft-lab scenario list [--json]
  qbft-lab scenario run <name|file.json> [--seed N] [--besu-version V] [--json] [--junit FILE] [--trace FILE] [--report-dir DIR]
  qbft-lab scenario run --all [--seed N] [--besu-version V] [--json] [--junit FILE] [--report-dir DIR]
  qbft-lab sim [--validators N] [--duration 90s|10m|1h] [--seed N] [--block-period S]
               [--request-timeout S] [--latency 20ms|10-50ms] [--loss P] [--crash vI@T[..T2]]
               [--pause vI@T1..T2] [--partition T1..T2:vA,vB|vC,vD] [--byzantine vI:BEHAVIOUR|twin]
               [--early-round-change] [--no-gossip] [--wire-layout besu26|legacy]
               [--genesis-file F] [--duplicate-message-limit N] [--json] [--trace FILE]
               [--besu-version V] [--report-dir DIR]
  qbft-lab report <trace.jsonl|name|file.json> [--seed N] [--html FILE] [--md FILE]
  qbft-lab tui <trace.jsonl|name|file.json> [--seed N]   (replay in the terminal; keys: ? in the UI)
  qbft-lab teach [round-timing|round-change|votes|transitions] [--auto]
  qbft-lab network [--validators N] [--block-period S] [--data-path DIR] [--base-port P] [--p2p-base-port P]
                   [--chain-id ID] [--fork NAME] [--duration S] [--rpc-api LIST] [--host-allowlist LIST]
                   [--rpc-http-cors-origins LIST] [--metrics-enabled] [--single-process] [--privacy]
                   [-- NODE-OPTIONS...]   (each validator is a 'qbft-lab node' process unless --single-process)
  qbft-lab node --genesis-file F [--data-path D] [--rpc-http-enabled] [--rpc-ws-enabled] ... (Besu's options)
  qbft-lab blocks import --genesis-file F --data-path D --from FILE[,FILE] (concatenated RLP blocks)
  qbft-lab fuzz [--runs N] [--seed S] [--jobs N] [--shard i/k] [--bug ID | --besu-version V] [--json] [--junit FILE]
                [--failure-dir DIR] [--report-dir DIR]
                (with --bug ID, finding the bug is the success: exit 0, and the finding's JUnit case passes)
  qbft-lab bugs list [--json]
  qbft-lab bugs check [ID...] [--json] [--junit FILE]
  qbft-lab genesis inspect --genesis-file F [--json]
  qbft-lab check --genesis-file F [--duration D] [--seed N] [--besu-version V] [--json] [--report-dir DIR]
                 (fault battery sized to your genesis: f crashed, proposer crash, partition, wiped restart, votes, each transition)
  qbft-lab rehearse --genesis-file OLD --new-genesis NEW [--at-block B] [--restart-window D] [--stragglers K]
                    [--left-behind NODE,...|COUNT] [--node-checks besu|qbft-lab] [--seed N] [--besu-version V] [--json] [--report-dir DIR]
                    (verdict ok|stall|fork|forked-off)
  qbft-lab operator generate-blockchain-config --config-file F --to DIR [--genesis-file-name N]
                   [--private-key-file-name N] [--public-key-file-name N]   (Besu's; keys + genesis)
  qbft-lab rlp encode|decode [--type=QBFT_EXTRA_DATA|IBFT_EXTRA_DATA] [--from F] [--to F]
  qbft-lab help
  qbft-lab --version | -V   (the version; 'qbft-lab node --version' prints the client version, as 'besu --version' does)

--report-dir DIR writes an HTML and a Markdown report and the trace of every failed run.
--json prints the results as JSON instead of text.
--junit FILE writes a JUnit XML report for CI test reporters (GitLab, Jenkins, GitHub), also when runs fail:
one test case per scenario run, fuzz case or bug id, failed when its run failed its checks. With
'fuzz --bug ID' the case that finds the bug passes, and one more case, 'bug ID found', fails when the
hunt does not find it.

Known-bug switches (simulation only): 'bugs list' names them, 'bugs check' shows each bug's scenario
failing with its switch on and passing with it off, 'fuzz --bug ID' hunts one with the switch on
(exit 0 when the campaign finds it, 1 when it does not; a find is a failure one of the bug's
checkers reports whose shrunk case passes with the switch off). A validation rule's planted switch,
plant-skip-RULE, is hunted the same way. --besu-version V (20.10, 21.1, 22.7, 23.10, 24.3, 24.7, 24.12,
25.2, 25.4, current) runs the nodes as that Besu release line, every known bug it had switched on;
'fuzz --besu-version V' hunts them together.

Exit status: 0 when every run is ok; 1 when a run fails its checks, 'fuzz --bug' does not find its bug,
'bugs check' cannot show a bug, a 'check' case fails or 'rehearse' ends in stall, fork or forked-off;
2 on a usage error or a --junit FILE that cannot be written.`;

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

function parse(args: string[], options: NonNullable<ParseArgsConfig['options']>) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(unknownOptionMessage(err, Object.keys(options)) ?? (err as Error).message);
  }
}

/** The commands of HELP's usage lines ('scenario', 'sim', ..., 'help'), for "did you mean". */
const COMMANDS = [...new Set([...HELP.matchAll(/^ {2}qbft-lab (\S+)/gm)].map((m) => m[1]!))];

/** A command qbft-lab does not have: one line, with the nearest one it does or else a pointer to the help. */
class UnknownCommandError extends UsageError {}

function unknownCommand(command: string): UnknownCommandError {
  return new UnknownCommandError(`unknown command '${command}'${didYouMean(command, COMMANDS) || " (see 'qbft-lab --help')"}`);
}

const wallClock = () => performance.now();

async function runWithTrace(s: Scenario, seed: number | undefined, traceFile: string | undefined, reportDir?: { dir: string; io: Io }): Promise<RunResult> {
  let world: World | undefined;
  const { runScenario } = await import('../sim/scenario-runner.ts');
  const result = await runScenario(s, { seed, wallClock, keepTrace: traceFile !== undefined || reportDir !== undefined, onWorld: (w) => (world = w) });
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
    const { values, positionals } = parse(rest, { json: { type: 'boolean' } });
    if (positionals.length > 0) throw new UsageError(`scenario list: unexpected argument '${positionals[0]}'`);
    if (values.json) io.out(JSON.stringify(SCENARIOS.map((s) => ({ name: s.name, description: s.description }))));
    else for (const s of SCENARIOS) io.out(`${s.name.padEnd(24)} ${s.description}`);
    return 0;
  }
  if (sub !== 'run') throw new UsageError(`scenario: expected 'list' or 'run', got '${sub ?? ''}'${didYouMean(sub ?? '', ['list', 'run'])}`);
  const { values, positionals } = parse(rest, {
    seed: { type: 'string' },
    json: { type: 'boolean' },
    trace: { type: 'string' },
    all: { type: 'boolean' },
    'report-dir': { type: 'string' },
    junit: { type: 'string' },
    'besu-version': { type: 'string' },
  });
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
    else if (!values.all) io.out(formatRun(r));
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
        ...(r.ok ? {} : { failure: { message: checks.join('; ') || 'run not ok', details: [...checks, ...(checks.length > 0 ? [''] : []), formatRun(r)].join('\n') } }),
        systemOut: `seed ${r.seed}\ntrace hash ${r.traceHash}`,
      };
    });
    writeJUnitFile(junitFile, junitXml([{ name: 'qbft-lab scenario run', cases }]));
  }
  return results.every((r) => r.ok) ? 0 : 1;

}

async function simCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, {
    validators: { type: 'string' },
    duration: { type: 'string' },
    seed: { type: 'string' },
    'block-period': { type: 'string' },
    'request-timeout': { type: 'string' },
    latency: { type: 'string' },
    loss: { type: 'string' },
    crash: { type: 'string', multiple: true },
    pause: { type: 'string', multiple: true },
    partition: { type: 'string', multiple: true },
    byzantine: { type: 'string', multiple: true },
    'genesis-file': { type: 'string' },
    'early-round-change': { type: 'boolean' },
    'no-gossip': { type: 'boolean' },
    'wire-layout': { type: 'string' },
    'duplicate-message-limit': { type: 'string' },
    json: { type: 'boolean' },
    trace: { type: 'string' },
    'report-dir': { type: 'string' },
    'besu-version': { type: 'string' },
  });
  if (positionals.length > 0) throw new UsageError(`sim: unexpected argument '${positionals[0]}'`);
  const besuVersion = parseBesuVersion(values['besu-version']);
  const { simScenario } = await import('./sim-scenario.ts');
  const scenario = { ...simScenario(values as never), ...(besuVersion ? { besuVersion } : {}) };
  const reportDir = values['report-dir'] === undefined ? undefined : { dir: values['report-dir'] as string, io };
  const r = await runWithTrace(scenario, scenario.seed, values.trace as string | undefined, reportDir);
  io.out(values.json ? runJson(r) : formatRun(r));
  return r.ok ? 0 : 1;
}

async function genesisCommand(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'inspect') throw new UsageError(`genesis: expected 'inspect', got '${sub ?? ''}'`);
  const { values } = parse(rest, { 'genesis-file': { type: 'string' }, json: { type: 'boolean' } });
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
  const { values } = parse(rest, { type: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' } });
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
    if (command !== undefined && wantsHelp(args)) {
      io.out(await commandHelp(command));
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
        const { values, positionals } = parse(split >= 0 ? args.slice(0, split) : args, {
          validators: { type: 'string' },
          'data-path': { type: 'string' },
          'block-period': { type: 'string' },
          'request-timeout': { type: 'string' },
          'chain-id': { type: 'string' },
          fork: { type: 'string' },
          'base-port': { type: 'string' },
          'p2p-base-port': { type: 'string' },
          'rpc-api': { type: 'string' },
          'host-allowlist': { type: 'string' },
          'rpc-http-cors-origins': { type: 'string' },
          'metrics-enabled': { type: 'boolean' },
          duration: { type: 'string' },
          'single-process': { type: 'boolean' },
          privacy: { type: 'boolean' },
        });
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
      case 'help':
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
      io.err(`qbft-lab: ${err.message} (see 'qbft-lab ${command && command !== 'help' ? `${command} ` : ''}--help')`);
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

/** The usage lines of one command (from HELP); for `node`, also every option it accepts. */
async function commandHelp(command: string): Promise<string> {
  const lines = HELP.split('\n');
  const out: string[] = [];
  let inCommand = false;
  for (const line of lines) {
    if (/^ {2}qbft-lab /.test(line)) inCommand = line.startsWith(`  qbft-lab ${command} `) || line === `  qbft-lab ${command}`;
    else if (!/^ {4,}/.test(line)) inCommand = false;
    if (inCommand) out.push(line);
  }
  if (out.length === 0) throw unknownCommand(command);
  if (command === 'node') {
    const { NODE_OPTIONS } = await import('../node/cli/node-options.ts');
    out.push('', 'Options (Besu names; also as keys of a TOML --config-file):');
    for (const [name, spec] of Object.entries(NODE_OPTIONS)) {
      const def = 'default' in spec ? ` (default: ${Array.isArray(spec.default) ? spec.default.join(',') || 'none' : String(spec.default)})` : '';
      out.push(`  --${name}${spec.kind === 'boolean' ? '' : spec.kind === 'list' ? ' A,B,...' : spec.kind === 'int' ? ' N' : ' VALUE'}${def}`);
    }
  }
  return `Usage:\n${out.join('\n')}`;
}

export type { Io };
