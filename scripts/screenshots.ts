/**
 * `npm run screenshots`: renders the proposer-crash HTML report in headless Chromium and writes the
 * PNGs the README shows into docs/screenshots/ (run scripts/install-chromium.sh first):
 * - report-proposer-crash.png: the top of the report, timeline included;
 * - report-proposer-crash-round-change.png: the timeline zoomed in on the round change at 5 s, messages shown.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import proposerCrash from '../scenarios/proposer-crash.ts';
import { launchChromium } from '../reports/browser.ts';
import { renderHtml } from '../reports/html.ts';
import { runScenarioTrace, timelineOf } from '../reports/trace-source.ts';

const out = new URL('../docs/screenshots/', import.meta.url).pathname;
mkdirSync(out, { recursive: true });
const dir = mkdtempSync(join(tmpdir(), 'qbft-screenshots-'));
const file = join(dir, 'proposer-crash.html');
writeFileSync(file, renderHtml(timelineOf(await runScenarioTrace(proposerCrash))));

const browser = await launchChromium({ viewport: { width: 1400, height: 900 } });
try {
  const page = await browser.context.newPage();
  await page.goto(`file://${file}`);
  const scroll = await page.locator('.scroll').boundingBox();
  const top = join(out, 'report-proposer-crash.png');
  await page.screenshot({ path: top, fullPage: true, clip: { x: 0, y: 0, width: 1400, height: Math.ceil(scroll!.y + scroll!.height + 12) } });
  await page.check('#show-messages');
  await page.click('table.moments-table tr[data-time-ms="5000"]');
  // Closer still (1.5 px per virtual ms), centred just after the round change, so message latencies show.
  await page.evaluate(() => (globalThis as unknown as { qbftReport: { rescale(px: number, centreMs: number): void } }).qbftReport.rescale(1.5, 5250));
  const zoomed = join(out, 'report-proposer-crash-round-change.png');
  await page.locator('.scroll').screenshot({ path: zoomed });
  process.stdout.write(`wrote ${top}\nwrote ${zoomed}\n`);
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
