/**
 * A replay screen as a self-contained HTML page (a dark terminal, one <pre>), for README
 * screenshots taken in headless Chromium: the same lines the terminal shows, coloured by tone.
 */
import { escapeHtml } from '../format.ts';
import type { StyledLine, Tone } from './screen.ts';

const CSS: Record<Tone, string> = {
  title: 'color:#56b6c2;font-weight:bold',
  header: 'font-weight:bold',
  normal: '',
  dim: 'color:#8b919c',
  current: 'color:#e5c07b;font-weight:bold',
  down: 'color:#e06c75',
  fault: 'color:#c678dd',
  'round-change': 'color:#e5c07b',
  commit: 'color:#98c379',
  status: 'background:#d7dae0;color:#1e2127',
  prompt: 'color:#56b6c2;font-weight:bold',
  note: 'color:#e5c07b',
};

export function screenHtml(lines: readonly StyledLine[], opts: { title: string; columns?: number }): string {
  const columns = opts.columns ?? 80;
  const body = lines.map((l) => `<span style="${CSS[l.tone]}">${escapeHtml(l.text.padEnd(l.tone === 'status' ? columns : 0))}</span>`).join('\n');
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(opts.title)}</title>
<style>
body{margin:0;background:#1e2127}
pre{display:inline-block;margin:0;padding:14px 16px;background:#1e2127;color:#d7dae0;font:15px/1.35 "DejaVu Sans Mono","Liberation Mono",monospace;width:${columns}ch}
</style></head>
<body><pre id="screen">${body}</pre></body></html>
`;
}
