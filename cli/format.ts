/** Plain-text rendering of run results for the terminal. */
import { checkerStatuses } from '../reports/checker-status.ts';
import type { RunResult } from '../sim/scenario-runner.ts';
import { commandLines, runCommands, runDetailLines, type RunOrigin } from './failure-lines.ts';

export function formatTable(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

/** A height for people: a node that is down (or a run with no honest node up) has none. */
const heightText = (height: number) => (height < 0 ? '-' : String(height));

/**
 * One run as text. With its origin, a failed run ends with the commands that replay it, open it
 * in the TUI and write its report.
 */
export function formatRun(r: RunResult, origin?: RunOrigin): string {
  const detail = runDetailLines(r);
  const lines: string[] = [];
  lines.push(`${r.ok ? 'PASS' : 'FAIL'} ${r.scenario} (seed ${r.seed}): height ${heightText(r.height)} after ${(r.simulatedMs / 1000).toFixed(1)} s simulated in ${r.wallMs} ms`);
  if (detail.switches) lines.push(`  ${detail.switches}`);
  lines.push(`  round changes ${r.roundChanges}, highest round ${r.maxRound}; messages sent ${r.messages.sent}, delivered ${r.messages.delivered}, dropped ${r.messages.dropped}`);
  lines.push(`  ${detail.invariants}`, ...detail.violations);
  for (const e of r.expectations) lines.push(`  [${e.ok ? 'ok' : 'FAIL'}] ${e.text}`);
  for (const e of r.errors) lines.push(`  error: ${e.split('\n')[0]}`);
  lines.push(formatTable([['node', 'address', 'height', 'status', 'head'], ...r.nodes.map((n) => [n.name, n.address, heightText(n.height), n.status, n.head ?? '-'])]).replace(/^/gm, '  '));
  lines.push(`  trace hash ${r.traceHash}`);
  if (!r.ok && origin) lines.push(...commandLines(runCommands(origin, r)));
  return lines.join('\n');
}

/** "ok", "ok (liveness n/a)", or the checkers that failed: "round-start FAIL, agreement FAIL (expected)". */
function checkersCell(r: RunResult): string {
  const expected = new Set(r.expectedViolations.map((e) => e.checker));
  const statuses = checkerStatuses({ violations: r.violations.filter((v) => !expected.has(v.checker)), liveness: r.invariants.liveness, expected: r.expectedViolations });
  const failed = statuses.filter((s) => s.status === 'FAIL').map((s) => `${s.name} FAIL${s.expectedBy ? ' (expected)' : ''}`);
  if (failed.length > 0) return failed.join(', ');
  return statuses.some((s) => s.status === 'n/a') ? `ok (${statuses.filter((s) => s.status === 'n/a').map((s) => s.name).join(', ')} n/a)` : 'ok';
}

/** `scenario run --all`: a table, then for each failed run its first violation and its commands. */
export function formatSummary(results: RunResult[]): string {
  const rows = [['scenario', 'result', 'height', 'round changes', 'max round', 'invariants', 'wall ms', 'trace hash']];
  for (const r of results) rows.push([r.scenario, r.ok ? 'PASS' : 'FAIL', heightText(r.height), String(r.roundChanges), String(r.maxRound), checkersCell(r), String(r.wallMs), r.traceHash.slice(0, 18) + '…']);
  const passed = results.filter((r) => r.ok).length;
  const failures = results.filter((r) => !r.ok).flatMap((r) => {
    const detail = runDetailLines(r);
    return [
      '',
      `FAIL ${r.scenario} (seed ${r.seed})`,
      ...(detail.switches ? [`  ${detail.switches}`] : []),
      ...detail.violations,
      ...r.expectations.filter((e) => !e.ok).map((e) => `  [FAIL] ${e.text}`),
      ...r.errors.map((e) => `  error: ${e.split('\n')[0]}`),
      ...commandLines(runCommands({ kind: 'scenario', ref: r.scenario }, r)),
    ];
  });
  return [formatTable(rows), ...failures, '', `${passed} passed, ${results.length - passed} failed`].join('\n');
}

/** The --json shape: RunResult as it is. */
export function runJson(r: RunResult): string {
  return JSON.stringify(r);
}
