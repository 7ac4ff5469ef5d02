/**
 * `npm run screenshots:tui`: README pictures of `qbft-lab tui proposer-crash` at 80x24.
 * - docs/tui-proposer-crash.txt: the frame at 5.000 s (the round change), rendered by the ink
 *   component itself (ink's renderToString), as plain text;
 * - docs/tui-proposer-crash-focus.txt: the same moment with v2 focused;
 * - docs/screenshots/tui-proposer-crash.png: the 5.000 s frame drawn as a coloured terminal
 *   (an HTML <pre>) in headless Chromium (run scripts/install-chromium.sh first; skipped with a
 *   note when Chromium is missing).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createElement as h } from 'react';
import { renderToString } from 'ink';
import proposerCrash from '../scenarios/proposer-crash.ts';
import { ChromiumMissingError, launchChromium } from '../reports/browser.ts';
import { runScenarioTrace, timelineOf } from '../reports/trace-source.ts';
import { ReplayApp, replayContext } from '../reports/tui/components/replay-app.ts';
import { screenHtml } from '../reports/tui/frame-html.ts';
import { initialState, type ReplayState } from '../reports/tui/replay-controller.ts';
import { replayData } from '../reports/tui/replay-data.ts';
import { screenLines, screenText } from '../reports/tui/screen.ts';

const SIZE = { rows: 24, columns: 80 };
const docs = new URL('../docs/', import.meta.url).pathname;
mkdirSync(join(docs, 'screenshots'), { recursive: true });

const data = replayData(timelineOf(await runScenarioTrace(proposerCrash)));
const ctx = replayContext(data);
const frames: Array<[string, Partial<ReplayState>]> = [
  ['tui-proposer-crash', { atMs: 5000 }],
  ['tui-proposer-crash-focus', { atMs: 5000, focus: 2 }],
];
for (const [name, at] of frames) {
  const text = renderToString(h(ReplayApp, { data, size: SIZE, initial: at }), { columns: SIZE.columns });
  // The component draws exactly the screen model's lines.
  if (text.trimEnd() !== screenText(data, initialState(ctx, at), SIZE)) throw new Error(`${name}: the ink frame differs from the screen model`);
  const file = join(docs, `${name}.txt`);
  writeFileSync(file, text.trimEnd() + '\n');
  process.stdout.write(`wrote ${file}\n`);
}

const lines = screenLines(data, initialState(ctx, { atMs: 5000 }), SIZE);
const dir = mkdtempSync(join(tmpdir(), 'qbft-tui-screenshot-'));
try {
  const html = join(dir, 'tui.html');
  writeFileSync(html, screenHtml(lines, { title: 'qbft-lab tui proposer-crash' }));
  const browser = await launchChromium({ viewport: { width: 1000, height: 700 } });
  try {
    const page = await browser.context.newPage();
    await page.goto(`file://${html}`);
    const png = join(docs, 'screenshots', 'tui-proposer-crash.png');
    await page.locator('#screen').screenshot({ path: png });
    process.stdout.write(`wrote ${png}\n`);
  } finally {
    await browser.close();
  }
} catch (err) {
  if (!(err instanceof ChromiumMissingError)) throw err;
  process.stdout.write(`no PNG: ${err.message}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
