/** How the bench prints: a block per attack as it finishes, and a table at the end. */
import type { Figures } from './attack.ts';
import { GOAL_FRACTION_OF_BASELINE, GOAL_P95_MS, type AttackRow, type WindowFigures } from './harness.ts';
import { PROBE_TIMEOUT_MS } from './measure.ts';

const out = (line = ''): void => void process.stdout.write(`${line}\n`);
const fixed = (x: number | undefined, digits: number): string => (x === undefined || Number.isNaN(x) ? '?' : x.toFixed(digits));
const verdict = (pass: boolean): string => (pass ? 'PASS' : 'FAIL');

/** A latency, marked as the timeout when a probe never got an answer. */
const latency = (ms: number): string => (ms >= PROBE_TIMEOUT_MS ? `>= ${PROBE_TIMEOUT_MS}` : fixed(ms, 0));
const lag = (blocks: number | string): string => (typeof blocks === 'number' ? `v0 ${blocks} block(s) behind v3` : 'v0 gave no height');

function windowLines(w: WindowFigures): string[] {
  const p = w.probes;
  return [
    `v0 eth_blockNumber: p50 ${latency(p.p50Ms)} ms, p95 ${latency(p.p95Ms)} ms, max ${latency(p.maxMs)} ms over ${p.sent} probes; ${p.timeouts} timed out (${PROBE_TIMEOUT_MS} ms), ${p.errors} failed`,
    `v0 RSS ${fixed(w.rssBeforeMiB, 0)} MiB before, ${fixed(w.rssPeakMiB, 0)} MiB peak; at the window's end ${lag(w.lagBlocks)}`,
  ];
}

function figureLine(figures: Figures): string {
  return Object.entries(figures)
    .map(([k, v]) => `${k}=${v}`)
    .join('  ');
}

export function printBaseline(w: WindowFigures, windowS: number): void {
  out(`== baseline (no attack, ${windowS} s): ${fixed(w.blocksPerSecond, 3)} blocks/s on v3`);
  for (const line of windowLines(w)) out(`   ${line}`);
  out();
}

export function printRow(row: AttackRow): void {
  out(`== ${row.attack.name}: ${row.attack.description}`);
  if (row.window) {
    const w = row.window;
    const rateOk = (row.fractionOfBaseline ?? 0) >= GOAL_FRACTION_OF_BASELINE;
    out(`   block rate ${fixed(w.blocksPerSecond, 3)} blocks/s = ${fixed(row.fractionOfBaseline, 2)} of baseline (goal >= ${GOAL_FRACTION_OF_BASELINE}) ${verdict(rateOk)}`);
    out(`   v0 p95 ${latency(w.probes.p95Ms)} ms (goal < ${GOAL_P95_MS} ms) ${verdict(w.probes.p95Ms < GOAL_P95_MS)}`);
    for (const line of windowLines(w)) out(`   ${line}`);
    out(`   v0 answering and the chain producing again ${row.recoveryS} s after the window`);
  }
  if (row.result.verdict) out(`   ${verdict(row.result.verdict.pass)}: ${row.result.verdict.text}`);
  out(`   attack: ${figureLine(row.result.figures)}`);
  if (row.result.note) out(`   note: ${row.result.note}`);
  out(`   => ${verdict(row.pass)}`);
  out();
}

function pad(cells: string[], widths: number[]): string {
  return cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
}

export function printTable(baselineBlocksPerSecond: number, rows: AttackRow[]): void {
  const header = ['attack', 'blocks/s', 'x baseline', 'v0 p95 ms', 'probe t/o', 'v0 RSS peak', 'recovery s', 'goal', 'note'];
  const body = rows.map((r) => [
    r.attack.name,
    r.window ? fixed(r.window.blocksPerSecond, 3) : '-',
    r.window ? fixed(r.fractionOfBaseline, 2) : '-',
    r.window ? latency(r.window.probes.p95Ms) : '-',
    r.window ? `${r.window.probes.timeouts}/${r.window.probes.sent}` : '-',
    r.window ? `${fixed(r.window.rssPeakMiB, 0)} MiB` : '-',
    r.recoveryS === undefined ? '-' : String(r.recoveryS),
    r.window ? verdict(r.pass) : `${verdict(r.pass)} (${r.result.verdict?.text ?? 'no verdict'})`,
    r.result.note ?? (r.result.figures.error !== undefined ? `error: ${r.result.figures.error}` : ''),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  out(`Baseline ${fixed(baselineBlocksPerSecond, 3)} blocks/s. Goals: block rate >= ${GOAL_FRACTION_OF_BASELINE} of baseline and v0 eth_blockNumber p95 < ${GOAL_P95_MS} ms.`);
  out(pad(header, widths));
  out(pad(widths.map((w) => '-'.repeat(w)), widths));
  for (const b of body) out(pad(b, widths));
  out(`${rows.filter((r) => r.pass).length} of ${rows.length} attacks meet their goals.`);
}
