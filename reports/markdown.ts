/** The report as Markdown: the same summary as the HTML report, without the timeline picture. */
import { writeFileSync } from 'node:fs';
import { escapeMarkdownCell } from './format.ts';
import { summarize, type ReportSummary, type Table } from './summary.ts';
import type { Timeline } from '../sim/run-model/timeline.ts';

const mark = (ok: boolean | null) => (ok === null ? 'not judged' : ok ? 'ok' : '**FAIL**');

function mdTable(t: Table): string {
  const cell = (s: string) => escapeMarkdownCell(s);
  const lines = [`| ${t.headers.map(cell).join(' | ')} |`, `|${t.headers.map(() => '---').join('|')}|`];
  for (const r of t.rows) lines.push(`| ${r.map(cell).join(' | ')} |`);
  if (t.leftOut > 0) lines.push('', `(${t.leftOut} more rows left out)`);
  return lines.join('\n');
}

export function renderMarkdownSummary(s: ReportSummary): string {
  const out: string[] = [];
  out.push(`# ${s.title}`, '');
  out.push(s.ok === null ? 'Verdict: unknown (the trace has no run-finished line).' : `Verdict: **${s.ok ? 'PASS' : 'FAIL'}**`, '');
  out.push(mdTable({ headers: ['fact', 'value'], rows: s.facts.map(([k, v]) => [k, v]), leftOut: 0 }), '');
  if (s.invariants.length > 0) {
    out.push('## Invariants', '');
    out.push(mdTable({ headers: ['invariant', 'result', 'meaning'], rows: s.invariants.map((i) => [i.name, mark(i.ok), i.expectedBy ? `${i.meaning} (expected by this scenario: ${i.expectedBy})` : i.meaning]), leftOut: 0 }), '');
  }
  if (s.expectations.length > 0) {
    out.push('## Expectations', '');
    for (const e of s.expectations) out.push(`- [${e.ok ? 'x' : ' '}] ${e.text}${e.ok ? '' : ' — **FAIL**'}`);
    out.push('');
  }
  if (s.errors.length > 0) {
    out.push('## Errors', '');
    for (const e of s.errors) out.push(`- \`${e.replace(/`/g, "'")}\``);
    out.push('');
  }
  out.push('## Round summaries', '');
  if (s.roundSummaries.length === 0) out.push('Every height was committed in round 0.', '');
  for (const r of s.roundSummaries) {
    out.push(`### Height ${r.height}: ${r.heading}`, '', r.outcome + '.', '', mdTable(r.table), '');
  }
  out.push('## Heights with round changes or forks', '');
  out.push(s.heights.rows.length === 0 ? 'None.' : mdTable(s.heights), '');
  out.push('## Round changes', '');
  out.push(s.roundChanges.rows.length === 0 ? 'None.' : mdTable(s.roundChanges), '');
  out.push('## Faults', '');
  out.push(s.faults.rows.length === 0 ? 'None.' : mdTable(s.faults), '');
  out.push('## Key moments', '');
  out.push(s.moments.rows.length === 0 ? 'None.' : mdTable(s.moments), '');
  return out.join('\n');
}

export function renderMarkdown(tl: Timeline): string {
  return renderMarkdownSummary(summarize(tl));
}

export function writeMarkdownReport(file: string, tl: Timeline): void {
  writeFileSync(file, renderMarkdown(tl));
}
