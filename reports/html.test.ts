import test from 'ava';
import proposerCrash from '../scenarios/proposer-crash.ts';
import type { TraceLine } from '../sim/trace.ts';
import { renderHtml } from './html.ts';
import { renderMarkdown } from './markdown.ts';
import { runScenarioTrace, timelineOf } from './trace-source.ts';
import { buildTimeline } from '../sim/run-model/timeline.ts';
import { FORK_EXPECTATION_TEXT } from './checker-status.ts';
import { CHECKER_NAMES } from '../sim/checkers/violation.ts';

const prepared = runScenarioTrace(proposerCrash).then((trace) => {
  const tl = timelineOf(trace);
  return { trace, tl, html: renderHtml(tl), md: renderMarkdown(tl) };
});

/** Every start tag of an element with the given class (as a token), with its attributes. */
function tagsWithClass(html: string, cls: string): Array<Record<string, string>> {
  const out: Array<Record<string, string>> = [];
  for (const m of html.matchAll(/<([a-z]+)((?:\s+[A-Za-z-]+="[^"]*")*)\s*\/?>/g)) {
    const attrs: Record<string, string> = { tag: m[1]! };
    for (const a of m[2]!.matchAll(/([A-Za-z-]+)="([^"]*)"/g)) attrs[a[1]!] = a[2]!;
    if ((attrs.class ?? '').split(/\s+/).includes(cls)) out.push(attrs);
  }
  return out;
}

test('the HTML report is one self-contained file: no fetches, a CSP that forbids them', async (t) => {
  const { html } = await prepared;
  t.true(html.startsWith('<!DOCTYPE html>'));
  t.regex(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">/);
  const urls = [...html.matchAll(/https?:\/\/[^\s"'<>)]+/g)].map((m) => m[0]);
  t.deepEqual([...new Set(urls)], ['http://www.w3.org/2000/svg']);
  t.notRegex(html, /\ssrc=/);
  t.deepEqual([...html.matchAll(/\shref="([^"]*)"/g)].map((m) => m[1]), ['data:,']);
  t.notRegex(html, /@import|url\((?!#)/);
});

test('the timeline has one lane per validator and marks the round change at 5 s', async (t) => {
  const { html, tl } = await prepared;
  t.deepEqual(tagsWithClass(html, 'lane').map((a) => a['data-lane']), ['v0', 'v1', 'v2', 'v3']);
  t.deepEqual(tagsWithClass(html, 'lane-label').map((a) => a['data-lane']), ['v0', 'v1', 'v2', 'v3']);
  const changes = tagsWithClass(html, 'round-change').filter((a) => a['data-height'] === '3');
  t.deepEqual(changes.map((a) => [a['data-lane'], a['data-time-ms'], a['data-from-round'], a['data-to-round'], a['data-reason']]).sort(), [
    ['v0', '5000', '0', '1', 'timeout'],
    ['v1', '5000', '0', '1', 'timeout'],
    ['v3', '5000', '0', '1', 'timeout'],
  ]);
  t.is(tagsWithClass(html, 'round-change').length, tl.roundChanges.length);
  // Points are placed by translate(x): x = x0 + t * pxPerMs.
  const svg = tagsWithClass(html, 'timeline')[0]!;
  const pxPerMs = Number(svg['data-px-per-ms']);
  const x = Number(/translate\(([\d.]+) 0\)/.exec(changes[0]!.transform!)![1]);
  t.true(Math.abs(x - (96 + 5000 * pxPerMs)) < 0.1);
  const commits = tagsWithClass(html, 'commit');
  t.is(commits.length, tl.lanes.reduce((n, l) => n + l.commits.length, 0));
  t.true(commits.some((a) => a['data-lane'] === 'v3' && a['data-height'] === '3' && a['data-round'] === '1'));
  const crash = tagsWithClass(html, 'fault-crash');
  t.deepEqual(crash.map((a) => [a['data-lane'], a['data-start-ms'], a['data-end-ms']]), [['v2', '2500', '30000']]);
  const rounds = tagsWithClass(html, 'round');
  t.true(rounds.some((a) => a['data-lane'] === 'v0' && a['data-height'] === '3' && a['data-round'] === '0' && a['data-start-ms'] === '3000' && a['data-end-ms'] === '5000'));
  t.true(rounds.some((a) => a['data-lane'] === 'v0' && a['data-height'] === '3' && a['data-round'] === '1' && a.class!.includes('r1')));
  t.true(tagsWithClass(html, 'timer-round').some((a) => a['data-lane'] === 'v1' && a['data-height'] === '3' && a['data-due-ms'] === '5000' && a['data-outcome'] === 'expired'));
  t.true(tagsWithClass(html, 'phase-round-change').length > 0);
});

test('messages are embedded for the on-demand view, not drawn', async (t) => {
  const { html, tl } = await prepared;
  t.is(tagsWithClass(html, 'msg').length, 0);
  const json = /<script type="application\/json" id="qbft-data">([^<]*)<\/script>/.exec(html)![1]!;
  const data = JSON.parse(json);
  t.deepEqual(data.lanes, ['v0', 'v1', 'v2', 'v3']);
  t.is(data.messages.length, tl.messages.length);
  t.true(data.types.includes('ROUND_CHANGE'));
  t.regex(html, /<input type="checkbox" id="show-messages"> show messages \(720\)/);
});

test('invariants, expectations and Besu round summaries are in the page', async (t) => {
  const { html } = await prepared;
  for (const name of ['agreement', 'validity', 'liveness']) t.regex(html, new RegExp(`<tr data-invariant="${name}" data-ok="true">`));
  t.regex(html, /<span class="verdict pass" data-ok="true">PASS<\/span>/);
  t.is([...html.matchAll(/<tr data-ok="true"><td>/g)].length, proposerCrash.expect.length);
  t.regex(html, /<div class="round-summary" data-height="3"><h3>Height 3: BFT round summary \(quorum = 3\)<\/h3><p>height 3 committed in round 1 \(proposer v3\) at 5\.\d{3} s\.<\/p>/);
  t.regex(html, /<tr><td>v2<\/td><td class="address">0x[0-9a-f]{40}<\/td><td>-<\/td><td>-<\/td><td>down<\/td><\/tr>/);
  t.regex(html, /<tr data-time-ms="5000" title="show on the timeline"><td>5\.000 s<\/td><td>v1, v0, v3: round 0 timer expired, height 3 moves to round 1 \(round timer expired\)<\/td><\/tr>/);
});

test('the Markdown report carries the same summary', async (t) => {
  const { md, trace } = await prepared;
  t.true(md.startsWith('# qbft-lab report: proposer-crash (seed 1)\n'));
  t.regex(md, /^Verdict: \*\*PASS\*\*$/m);
  t.regex(md, new RegExp(`^\\| trace hash \\| ${trace.traceHash} \\|$`, 'm'));
  t.regex(md, /^\| agreement \| ok \| /m);
  t.regex(md, /^- \[x\] round changes >= 1$/m);
  t.regex(md, /^### Height 3: BFT round summary \(quorum = 3\)$/m);
  t.regex(md, /^\| v2 \| 0x[0-9a-f]{40} \| - \| - \| down \|$/m);
  t.regex(md, /^\| 5\.000 s \| v0 \| 3 \| 0 \| 1 \| timeout \| yes \|$/m);
  t.regex(md, /^\| v2 \| crash \| 2\.500 s \| end of run \| crashed \|$/m);
});

test('text from the trace is escaped', (t) => {
  const tl = buildTimeline([
    { t: 0, node: null, kind: 'run-started', scenario: '<img src=x onerror=alert(1)>', seed: 1, validators: 1, nodes: [{ name: 'v0', address: null, role: 'validator', faulty: false }] },
    { t: 10, node: 'v0', kind: 'fault', fault: 'byzantine', behaviour: '</script><b>|x|</b>' },
    { t: 20, node: null, kind: 'run-finished', ok: false, height: 0, roundChanges: 0, maxRound: 0, invariants: { agreement: true, validity: true, liveness: null }, expectations: [], errors: ['boom <b>'] },
  ] as TraceLine[]);
  const html = renderHtml(tl);
  t.false(html.includes('<img'));
  t.false(html.includes('<b>'));
  t.is(html.split('</script>').length - 1, 2);
  t.regex(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
  t.regex(html, /<span class="verdict fail" data-ok="false">FAIL<\/span>/);
  t.regex(html, /<tr data-invariant="liveness" data-ok="null"><td>liveness<\/td><td class="na">not judged<\/td>/);
  const md = renderMarkdown(tl);
  t.regex(md, /\\\|x\\\|/);
});

test('the invariant table lists every checker (custom ones that reported too), and a fork the scenario expects says so', (t) => {
  const start = { t: 0, node: null, kind: 'run-started', scenario: 's', seed: 1, validators: 4, nodes: [], bugs: ['besu-6613'], besuVersion: '24.3' };
  const violation = (checker: string) => ({ checker, atMs: 1500, node: 'v1', height: 2, round: 1, reason: `${checker} broke`, line: '' });
  const failed = buildTimeline([
    start,
    { t: 3000, node: null, kind: 'run-finished', ok: false, height: 2, roundChanges: 1, maxRound: 1, invariants: { agreement: true, validity: true, liveness: null }, violations: [violation('lock-safety'), violation('my-checker')], expectations: [], errors: [] },
  ] as TraceLine[]);
  const html = renderHtml(failed);
  const rows = [...html.matchAll(/<tr data-invariant="([^"]+)" data-ok="([^"]+)">/g)].map((m) => `${m[1]}=${m[2]}`);
  t.deepEqual(rows, [...CHECKER_NAMES.map((c) => `${c}=${c === 'lock-safety' ? 'false' : c === 'liveness' ? 'null' : 'true'}`), 'my-checker=false']);
  t.regex(html, /<td>first violation<\/td><td>lock-safety on v1 at height 2, round 1, 1\.500 s into the run: lock-safety broke<\/td>/);
  t.regex(html, /<td>bug switches on<\/td><td>besu-6613<\/td>/);
  t.regex(html, /<td>nodes behave as<\/td><td>Besu 24\.3 \(its known bugs switched on\)<\/td>/);
  t.regex(renderMarkdown(failed), /^\| my-checker \| \*\*FAIL\*\* \| a custom checker of the run \|$/m);

  const forked = buildTimeline([
    start,
    { t: 3000, node: null, kind: 'run-finished', ok: true, height: 2, roundChanges: 0, maxRound: 0, invariants: { agreement: false, validity: true, liveness: null }, expectations: [{ text: FORK_EXPECTATION_TEXT, ok: true }], errors: [] },
  ] as TraceLine[]);
  t.regex(renderMarkdown(forked), /^\| agreement \| \*\*FAIL\*\* \| no two honest nodes import different blocks at one height \(expected by this scenario: a fork is detected \(different blocks imported at one height\)\) \|$/m);
});
