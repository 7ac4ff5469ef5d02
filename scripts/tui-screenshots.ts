/**
 * `npm run screenshots:tui`: pictures in docs/reports.md of `qbft-lab tui proposer-crash` at 80x24.
 * - docs/tui-proposer-crash.txt: the frame at 5.000 s (the round change), rendered by the ink
 *   component itself (ink's renderToString), as plain text;
 * - docs/tui-proposer-crash-focus.txt: the same moment with v2 focused;
 * - docs/screenshots/tui-proposer-crash.png: the 5.000 s frame drawn as a coloured terminal
 *   (an HTML <pre>) in headless Chromium (run scripts/install-chromium.sh first; skipped with a
 *   note when Chromium is missing);
 * - docs/teach-round-timing.txt and docs/screenshots/teach-round-timing.png: the round-timing
 *   lesson's slide at its first round change, as `qbft-lab teach round-timing` prints it.
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
import { screenLines, screenText, type StyledLine } from '../reports/tui/screen.ts';
import { findLesson } from '../reports/teach/lessons.ts';
import { lessonSlides } from '../reports/teach/prepare.ts';
import { slideText } from '../reports/teach/slide-text.ts';

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

const lesson = findLesson('round-timing')!;
const slides = await lessonSlides(lesson);
const slideIndex = Math.max(0, slides.findIndex((sl) => /round change|round 1/i.test(sl.title)));
const teachText = slideText(slides[slideIndex]!, slideIndex, slides.length, lesson.name).trimEnd();
writeFileSync(join(docs, 'teach-round-timing.txt'), teachText + '\n');
process.stdout.write(`wrote ${join(docs, 'teach-round-timing.txt')}\n`);
const teachLines: StyledLine[] = teachText.split('\n').map((text, i) => ({ text, tone: i === 0 ? 'title' : 'normal' }));

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
    const teachHtml = join(dir, 'teach.html');
    writeFileSync(teachHtml, screenHtml(teachLines, { title: 'qbft-lab teach round-timing' }));
    await page.goto(`file://${teachHtml}`);
    const teachPng = join(docs, 'screenshots', 'teach-round-timing.png');
    await page.locator('#screen').screenshot({ path: teachPng });
    process.stdout.write(`wrote ${teachPng}\n`);
  } finally {
    await browser.close();
  }
} catch (err) {
  if (!(err instanceof ChromiumMissingError)) throw err;
  process.stdout.write(`no PNG: ${err.message}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
