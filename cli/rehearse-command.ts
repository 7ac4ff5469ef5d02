/**
 * `qbft-lab rehearse --genesis-file OLD --new-genesis NEW [--stragglers K] [--restart-window D]
 * [--at-block B] [--left-behind NODE,...|COUNT] [--seed S] [--json] [--report-dir DIR]`: Besu's
 * procedure for a configuration change (stop every node, replace the genesis, restart), simulated on
 * the operator's files (sim/operator/rehearsal.ts). Exit 0 for verdict ok, 1 for stall, fork or
 * forked-off, 2 on a usage error (among them a NEW that is a new chain rather than a change).
 */
import { parseBesuVersion } from './besu-version.ts';
import { performance } from 'node:perf_hooks';
import { UsageError } from '../node/cli/usage-error.ts';
import { reportBaseName, writeRunReports } from '../reports/write-reports.ts';
import { OperatorInputError } from '../sim/operator/operator-genesis.ts';
import { runRehearsal, type RehearsalReport } from '../sim/operator/rehearsal.ts';
import { seconds } from '../sim/operator/rehearsal-verdict.ts';
import type { TraceLine } from '../sim/trace.ts';
import { parseStrict, parseSeedOption, readOperatorGenesisFile, type CommandIo } from './check-command.ts';
import { parseDurationMs } from './durations.ts';
import { formatTable } from './format.ts';

export const REHEARSE_USAGE =
  'qbft-lab rehearse --genesis-file OLD --new-genesis NEW [--stragglers K] [--restart-window D] [--at-block B] [--left-behind NODE,...|COUNT] [--node-checks besu|qbft-lab] [--seed S] [--besu-version V] [--json] [--report-dir DIR]';

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

export function formatRehearsalReport(r: RehearsalReport): string {
  const lines = [
    `rehearse ${r.old} -> ${r.new}: ${r.validators} validators, stopped at block ${r.atBlock}, restart window ${seconds(r.restartWindowMs)}; stragglers: ${r.stragglers.join(', ') || 'none'}; left on the old genesis: ${r.leftBehind.join(', ') || 'none'}; seed ${r.seed}`,
    'changes:',
    ...r.changes.map((c) => `  ${c.text}${c.fromBlock === undefined ? '' : ` (rules from block ${c.fromBlock})`}`),
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
  if (r.run.violations.length > 0) lines.push('', 'invariant checkers (rules of the new genesis):', ...r.run.violations.map((v) => `  ${v.checker}: ${v.reason}`));
  return lines.join('\n');
}

function nodeChecksOption(text: string | undefined): 'besu' | 'qbft-lab' {
  if (text === undefined || text === 'besu' || text === 'qbft-lab') return text ?? 'besu';
  throw new UsageError(`--node-checks: '${text}' must be besu (nodes start whatever the new genesis does to their stored blocks, as Besu's do) or qbft-lab (they refuse, as qbft-lab's node does)`);
}

export async function rehearseCommand(args: string[], io: CommandIo, wallClock: () => number = () => performance.now()): Promise<number> {
  const { values } = parseStrict(
    args,
    {
      'genesis-file': { type: 'string' },
      'new-genesis': { type: 'string' },
      stragglers: { type: 'string' },
      'restart-window': { type: 'string' },
      'at-block': { type: 'string' },
      'left-behind': { type: 'string' },
      'node-checks': { type: 'string' },
      seed: { type: 'string' },
      json: { type: 'boolean' },
      'report-dir': { type: 'string' },
      'besu-version': { type: 'string' },
    },
    'rehearse',
  );
  const besuVersion = parseBesuVersion(values['besu-version']);
  const oldFile = values['genesis-file'] as string | undefined;
  const newFile = values['new-genesis'] as string | undefined;
  if (!oldFile || !newFile) throw new UsageError(`rehearse: --genesis-file and --new-genesis are required (usage: ${REHEARSE_USAGE})`);
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
  io.out(values.json ? JSON.stringify(report) : formatRehearsalReport(report));
  return report.verdict === 'ok' ? 0 : 1;
}
