/** Writes the reports of one run into a folder: <base>.html, <base>.md and the trace <base>.jsonl. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderHtml } from './html.ts';
import { renderMarkdown } from './markdown.ts';
import { timelineOf, type LoadedTrace } from './trace-source.ts';
import { encodeTraceLine } from '../sim/trace.ts';

/** A file-name-safe base for a run: "proposer-crash-seed-1". */
export function reportBaseName(scenario: string, seed: number): string {
  return `${scenario.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80)}-seed-${seed}`;
}

export function writeRunReports(dir: string, base: string, trace: LoadedTrace): { html: string; md: string; trace: string } {
  mkdirSync(dir, { recursive: true });
  const tl = timelineOf(trace);
  const files = { html: join(dir, `${base}.html`), md: join(dir, `${base}.md`), trace: join(dir, `${base}.jsonl`) };
  writeFileSync(files.html, renderHtml(tl));
  writeFileSync(files.md, renderMarkdown(tl));
  const raw =
    trace.raw ??
    trace.lines.map((l) => {
      const { t, node, ...event } = l;
      return encodeTraceLine(t, node, event as never);
    });
  writeFileSync(files.trace, raw.length === 0 ? '' : raw.join('\n') + '\n');
  return files;
}
