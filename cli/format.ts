/** Plain-text rendering of run results for the terminal. */
import type { RunResult } from '../sim/scenario-runner.ts';

export function formatTable(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

const mark = (ok: boolean | null) => (ok === null ? 'n/a' : ok ? 'ok' : 'FAIL');

export function formatRun(r: RunResult): string {
  const lines: string[] = [];
  lines.push(`${r.ok ? 'PASS' : 'FAIL'} ${r.scenario} (seed ${r.seed}): height ${r.height} after ${(r.simulatedMs / 1000).toFixed(1)} s simulated in ${r.wallMs} ms`);
  lines.push(`  round changes ${r.roundChanges}, highest round ${r.maxRound}; messages sent ${r.messages.sent}, delivered ${r.messages.delivered}, dropped ${r.messages.dropped}`);
  lines.push(`  invariants: agreement ${mark(r.invariants.agreement)}, validity ${mark(r.invariants.validity)}, liveness ${mark(r.invariants.liveness)}`);
  for (const e of r.expectations) lines.push(`  [${e.ok ? 'ok' : 'FAIL'}] ${e.text}`);
  for (const e of r.errors) lines.push(`  error: ${e}`);
  lines.push(formatTable([['node', 'address', 'height', 'status', 'head'], ...r.nodes.map((n) => [n.name, n.address, String(n.height), n.status, n.head ?? '-'])]).replace(/^/gm, '  '));
  lines.push(`  trace hash ${r.traceHash}`);
  return lines.join('\n');
}

export function formatSummary(results: RunResult[]): string {
  const rows = [['scenario', 'result', 'height', 'round changes', 'max round', 'agreement', 'validity', 'liveness', 'wall ms', 'trace hash']];
  for (const r of results)
    rows.push([r.scenario, r.ok ? 'PASS' : 'FAIL', String(r.height), String(r.roundChanges), String(r.maxRound), mark(r.invariants.agreement), mark(r.invariants.validity), mark(r.invariants.liveness), String(r.wallMs), r.traceHash.slice(0, 18) + '…']);
  const passed = results.filter((r) => r.ok).length;
  return `${formatTable(rows)}\n\n${passed} passed, ${results.length - passed} failed`;
}

/** The --json shape: RunResult as it is. */
export function runJson(r: RunResult): string {
  return JSON.stringify(r);
}
