/**
 * The proposer-crash HTML report opened in headless Chromium (Debian's, see reports/browser.ts;
 * scripts/install-chromium.sh installs it and .ci/run calls that script). Without Chromium this
 * test fails: it does not skip. Its screenshot is kept in build/test-artifacts/.
 */
import test from 'ava';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import proposerCrash from '../scenarios/proposer-crash.ts';
import { launchChromium } from './browser.ts';
import { renderHtml } from './html.ts';
import { runScenarioTrace, timelineOf } from './trace-source.ts';
import { LABEL_WIDTH } from './svg-timeline.ts';
import { CHECKER_NAMES } from '../sim/checkers/violation.ts';

const ARTIFACTS = new URL('../build/test-artifacts/', import.meta.url).pathname;

test('the proposer-crash report renders in Chromium: a lane per validator, the round change at 5 s, messages on demand, no console errors', async (t) => {
  const tl = timelineOf(await runScenarioTrace(proposerCrash));
  const dir = mkdtempSync(join(tmpdir(), 'qbft-report-'));
  const file = join(dir, 'proposer-crash.html');
  writeFileSync(file, renderHtml(tl));
  const browser = await launchChromium({ viewport: { width: 1400, height: 1000 } });
  t.teardown(async () => {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const page = await browser.context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${String(e)}`));
  page.on('request', (r) => {
    if (r.url() !== `file://${file}`) problems.push(`request: ${r.url()}`);
  });
  await page.goto(`file://${file}`);

  const lanes = page.locator('svg.timeline g.lane');
  t.is(await lanes.count(), 4);
  t.deepEqual(await lanes.evaluateAll((els) => els.map((e) => (e as unknown as { getAttribute(name: string): string | null }).getAttribute('data-lane'))), ['v0', 'v1', 'v2', 'v3']);
  t.true(await page.locator('g.lane-label[data-lane="v2"] .lane-name').isVisible());

  const svg = page.locator('svg.timeline');
  const pxPerMs = Number(await svg.getAttribute('data-px-per-ms'));
  const xOf = async (selector: string) => {
    const [box, origin] = await Promise.all([page.locator(selector).first().boundingBox(), svg.boundingBox()]);
    return box!.x + box!.width / 2 - origin!.x;
  };
  const mark = 'g.round-change[data-lane="v0"][data-height="3"] path';
  t.true(await page.locator(mark).isVisible());
  t.true(Math.abs((await xOf(mark)) - (LABEL_WIDTH + 5000 * pxPerMs)) < 1.5, 'round-change triangle at 5 s');
  t.is(await page.locator('g.round-change[data-time-ms="5000"]').count(), 3);
  t.is(await page.locator('g.commit').count(), tl.lanes.reduce((n, l) => n + l.commits.length, 0));
  t.true(await page.locator('rect.fault-crash[data-lane="v2"]').isVisible());
  t.is(await page.locator('tr[data-invariant][data-ok="true"]').count(), CHECKER_NAMES.length);

  // Messages are drawn on demand: consensus messages first, eth messages when asked for.
  t.is(await page.locator('line.msg').count(), 0);
  await page.check('#show-messages');
  const consensus = tl.messages.filter((m) => m.protocol === 'istanbul').length;
  t.is(await page.locator('line.msg').count(), consensus);
  await page.check('#show-other-messages');
  t.is(await page.locator('line.msg').count(), tl.messages.length);
  await page.uncheck('#show-other-messages');

  // Zooming moves every mark with the time axis.
  await page.click('#zoom-in');
  t.is(Number(await svg.getAttribute('data-px-per-ms')), pxPerMs * 2);
  t.true(Math.abs((await xOf(mark)) - (LABEL_WIDTH + 5000 * pxPerMs * 2)) < 1.5, 'round-change triangle at 5 s after zooming');
  // A key moment zooms to it and scrolls it into view.
  await page.click('table.moments-table tr[data-time-ms="5000"]');
  const zoomed = Number(await svg.getAttribute('data-px-per-ms'));
  t.true(zoomed >= 0.4);
  t.true(Math.abs((await xOf(mark)) - (LABEL_WIDTH + 5000 * zoomed)) < 1.5);
  const [markBox, scrollBox] = await Promise.all([page.locator(mark).boundingBox(), page.locator('.scroll').boundingBox()]);
  t.true(markBox!.x >= scrollBox!.x && markBox!.x <= scrollBox!.x + scrollBox!.width, 'the round change is in view');
  t.true((await page.locator('line.msg').count()) > 0);

  await page.click('#zoom-reset');
  mkdirSync(ARTIFACTS, { recursive: true });
  const shot = join(ARTIFACTS, 'report-proposer-crash.png');
  await page.screenshot({ path: shot, fullPage: true });
  const png = readFileSync(shot);
  t.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  t.true(png.length > 20_000);
  t.log(`screenshot: ${shot}`);
  t.deepEqual(problems, []);
});
