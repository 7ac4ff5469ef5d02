/**
 * `qbft-lab rehearse --genesis-file OLD --new-genesis NEW [--stragglers K] [--restart-window D]
 * [--at-block B] [--left-behind NODE,...|COUNT] [--seed S] [--json] [--report-dir DIR]`: Besu's
 * procedure for a configuration change (stop every node, replace the genesis, restart), simulated on
 * the operator's files (sim/operator/rehearsal.ts). Exit 0 for verdict ok, 1 for stall, fork,
 * forked-off or violation, 2 on a usage error (among them a NEW that is a new chain rather than a change).
 */
import { parseBesuVersion } from './besu-version.ts';
import { performance } from 'node:perf_hooks';
import { UsageError } from '../node/cli/usage-error.ts';
import { reportBaseName, writeRunReports } from '../reports/write-reports.ts';
import { changeStartText } from '../sim/operator/genesis-change.ts';
import { OperatorInputError } from '../sim/operator/operator-genesis.ts';
import { runRehearsal, type RehearsalReport } from '../sim/operator/rehearsal.ts';
import { seconds } from '../sim/operator/rehearsal-verdict.ts';
import type { TraceLine } from '../sim/trace.ts';
import { parseStrict, parseSeedOption, readOperatorGenesisFile, type CommandIo } from './check-command.ts';
import { OPTIONS } from './command-options.ts';
import { parseDurationMs } from './durations.ts';
import { batteryCommands, violationLines } from './failure-lines.ts';
import { formatTable } from './format.ts';

function wholeNumber(text: string | undefined, flag: string, min: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(Number(text)) || Number(text) < min) throw new UsageError(`${flag}: '${text}' must be a whole number${min > 0 ? ` of at least ${min}` : ''}`);
  return Number(text);
}

function leftBehindOption(text: string | undefined): string[] | number | undefined {
  if (text === undefined) return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text);
  const names = text.split(',').map((s) => s.trim());
  if (names.some((n) => n === '')) throw new UsageError(`--left-behind: '${text}' must be a count or node names separated by commas (v3 or v1,v3)`);
  return names;
}

function historyLine(r: RehearsalReport): string {
  const h = r.history!;
  return (
    `history: blocks 1..${h.height} made under ${r.old} without the message exchange (${h.built} built by the node's block creator, the others copies of them with their own parent hash, coinbase, number and timestamp), ` +
    `imported under each genesis (${h.imported} through the node's import, the others by its header rules, ${h.sealsChecked} with their seals recovered); ${(h.bytes / 1e6).toFixed(1)} MB, shared by the nodes`
  );
}

/** The name of the scenario a rehearsal runs (sim/operator/rehearsal.ts), which names its report files. */
const REHEARSAL_SCENARIO = 'rehearsal';

export function formatRehearsalReport(r: RehearsalReport, args?: readonly string[]): string {
  const lines = [
    `rehearse ${r.old} -> ${r.new}: ${r.validators} validators, stopped at block ${r.atBlock}, restart window ${seconds(r.restartWindowMs)}; stragglers: ${r.stragglers.join(', ') || 'none'}; left on the old genesis: ${r.leftBehind.join(', ') || 'none'}; seed ${r.seed}`,
    ...(r.history ? [historyLine(r)] : []),
    'changes:',
    ...r.changes.map((c) => `  ${c.text}${c.fromBlock === undefined ? '' : ` (${changeStartText(c)})`}`),
    ...(r.notes.length > 0 ? ['notes:', ...r.notes.map((n) => `  ${n}`)] : []),
    '',
    `verdict: ${r.verdict}${r.block === null ? '' : ` at block ${r.block}`}${r.nodes.length > 0 ? ` (${r.nodes.join(', ')})` : ''}`,
    `  ${r.detail}`,
    '',
    'timeline:',
    ...r.timeline.map((e) => `  ${seconds(e.atMs).padStart(9)}  ${e.text}`),
    '',
    formatTable([
      ['node', 'validator', 'genesis', 'role', 'restarted', 'head at stop', 'head', 'status'],
      ...r.nodeTable.map((n) => [n.name, n.operatorAddress, n.genesis, n.role, seconds(n.restartMs), String(n.headAtStop), String(n.head), n.status]),
    ]),
  ];
  if (r.run.violations.length > 0) lines.push('', 'invariant checkers (rules of the new genesis):', ...violationLines(r.run.violations));
  // With the command's arguments, a rehearsal that went wrong ends with the commands that replay it and open its run.
  if (args && (r.verdict !== 'ok' || r.run.violations.length > 0)) lines.push('', ...batteryCommands('rehearse', args, r.seed, [{ label: 'the rehearsal run', scenario: REHEARSAL_SCENARIO }]));
  return lines.join('\n');
}

function nodeChecksOption(text: string | undefined): 'besu' | 'qbft-lab' {
  if (text === undefined || text === 'besu' || text === 'qbft-lab') return text ?? 'besu';
  throw new UsageError(`--node-checks: '${text}' must be besu (nodes start whatever the new genesis does to their stored blocks, as Besu's do) or qbft-lab (they refuse, as qbft-lab's node does)`);
}

export async function rehearseCommand(args: string[], io: CommandIo, wallClock: () => number = () => performance.now()): Promise<number> {
  const { values } = parseStrict(args, OPTIONS.rehearse, 'rehearse');
  const besuVersion = parseBesuVersion(values['besu-version']);
  const oldFile = values['genesis-file'] as string | undefined;
  const newFile = values['new-genesis'] as string | undefined;
  if (!oldFile || !newFile) throw new UsageError('rehearse: --genesis-file and --new-genesis are required');
  const restartWindow = values['restart-window'] as string | undefined;
  const reportDir = values['report-dir'] as string | undefined;
  if (reportDir === '') throw new UsageError('--report-dir needs a directory');
  const options = {
    stragglers: wholeNumber(values.stragglers as string | undefined, '--stragglers', 0),
    atBlock: wholeNumber(values['at-block'] as string | undefined, '--at-block', 1),
    restartWindowMs: restartWindow === undefined ? undefined : parseDurationMs(restartWindow, '--restart-window'),
    leftBehind: leftBehindOption(values['left-behind'] as string | undefined),
    seed: parseSeedOption(values.seed as string | undefined),
    nodeChecks: nodeChecksOption(values['node-checks'] as string | undefined),
    ...(besuVersion ? { besuVersion } : {}),
  };
  const old = await readOperatorGenesisFile(oldFile, '--genesis-file');
  const next = await readOperatorGenesisFile(newFile, '--new-genesis');
  let report: RehearsalReport;
  try {
    report = await runRehearsal(old, next, {
      ...options,
      wallClock,
      keepTrace: reportDir !== undefined,
      onRun: (scenario, result, world) => {
        if (reportDir === undefined) return;
        const raw = world.trace.lines();
        const files = writeRunReports(reportDir, reportBaseName(scenario.name, result.seed), { lines: raw.map((l) => JSON.parse(l) as TraceLine), raw, traceHash: result.traceHash });
        io.err(`rehearsal report: ${files.html}, ${files.md}, trace ${files.trace}`);
      },
    });
  } catch (err) {
    if (err instanceof OperatorInputError) throw new UsageError(err.message);
    throw err;
  }
  io.out(values.json ? JSON.stringify(report) : formatRehearsalReport(report, args));
  return report.verdict === 'ok' ? 0 : 1;
}
