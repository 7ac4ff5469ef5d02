/**
 * The HTML report: one self-contained file (inline CSS, SVG and script; a Content-Security-Policy
 * that forbids every fetch) with the run's facts and verdict, the invariant results, the SVG
 * timeline (messages drawn on demand), Besu's round summaries and the tables of the summary.
 */
import { writeFileSync } from 'node:fs';
import { escapeHtml as esc } from './format.ts';
import { DROPPED_MESSAGE_COLOUR, FAULT_COLOURS, MESSAGE_COLOURS, OTHER_MESSAGE_COLOUR, PHASE_COLOURS, PHASE_LABELS, roundColour } from './palette.ts';
import { summarize, type ReportSummary, type Table } from './summary.ts';
import { AXIS_HEIGHT, LABEL_CHAR_PX, MIN_TICK_PX, renderTimelineSvg, TICK_STEPS, type TimelineLayout } from './svg-timeline.ts';
import type { Timeline } from '../sim/run-model/timeline.ts';
import type { Phase } from '../sim/run-model/phases.ts';

export interface HtmlOptions {
  /** Messages embedded for the on-demand message view (default 40,000; consensus messages first). */
  maxMessages?: number;
  pxPerSecond?: number;
}

const CSS = `
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;padding:20px 28px;color:#212121;background:#fafafa}
h1{font-size:22px;margin:0 0 6px}
h2{font-size:17px;margin:26px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:14px;margin:16px 0 6px}
.verdict{display:inline-block;padding:2px 10px;border-radius:4px;font-weight:700;color:#fff;margin-left:8px;font-size:14px;vertical-align:middle}
.verdict.pass{background:#2e7d32}.verdict.fail{background:#c62828}.verdict.unknown{background:#757575}
table{border-collapse:collapse;margin:4px 0 8px;background:#fff}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f0f0f0;font-weight:600}
td.ok{color:#2e7d32;font-weight:600}td.fail{color:#c62828;font-weight:700}td.na{color:#757575}
.facts td:first-child{color:#555}
.top{display:flex;gap:24px;flex-wrap:wrap;align-items:flex-start}
.top table{font-size:13px}
.mono,.address{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px}
.scroll{overflow-x:auto;border:1px solid #ddd;background:#fff;margin:6px 0}
.controls{display:flex;gap:18px;align-items:center;flex-wrap:wrap;margin:6px 0}
.legend{display:flex;gap:12px;flex-wrap:wrap;font-size:12px;margin:4px 0}
.legend span{display:inline-flex;align-items:center;gap:4px}
.sw{display:inline-block;width:14px;height:10px;border:1px solid #9e9e9e}
.note{color:#616161;font-size:12px}
.moments{max-height:320px;overflow-y:auto;display:block}
tr[data-time-ms]{cursor:pointer}tr[data-time-ms]:hover td{background:#fff8e1}
svg.timeline{display:block;font-family:system-ui,sans-serif}
svg .lane-bg,svg .lane-label-bg{fill:#fff}svg .lane-bg.odd,svg .lane-label-bg.odd{fill:#f6f7f9}
svg .lane-label{cursor:pointer}
svg .lane-name{font-size:14px;font-weight:700;fill:#212121}
svg .lane-role{font-size:10px;fill:#757575}
svg .round{stroke:#fff;stroke-width:0.5}
svg .round-label{font-size:10px;fill:#37474f;pointer-events:none}
svg .tick{stroke:#000;stroke-opacity:.08}
svg .tick-label{font-size:10px;fill:#616161}
svg .timer line{stroke-width:3}
svg .timer-block line{stroke:#90a4ae}svg .timer-round line{stroke:#8d6e63}
svg .timer.expired circle{fill:#d84315}svg .timer-block.expired circle{fill:#78909c}
svg .timer.running line{stroke-dasharray:4 2}
svg .sync{stroke:#00897b;stroke-width:2}
svg .commit{fill:#1b5e20;stroke:#fff;stroke-width:1}
svg .import{fill:#fff;stroke:#00897b;stroke-width:1.5}
svg .round-change line{stroke:#e65100;stroke-width:1.5;stroke-dasharray:3 2}
svg .round-change path{fill:#e65100}
svg .partition-band{fill:${FAULT_COLOURS.partition};fill-opacity:.35}
svg .msg{stroke-width:1;stroke-opacity:.6}
svg .msg.dropped{stroke-dasharray:2 2}
svg.highlight .lane:not(.focus){opacity:.35}
`;

/**
 * The page's script: draws messages on demand (from #qbft-data), zooms the time axis (every
 * positioned SVG element carries its times: `.iv` intervals data-start-ms/data-end-ms, `.pt`
 * points data-time-ms), focuses a lane, and jumps to a key moment.
 */
const SCRIPT = `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('qbft-data').textContent);
  var svg = document.querySelector('svg.timeline');
  var scroller = svg.parentNode;
  var group = svg.querySelector('g.messages');
  var axisGroup = svg.querySelector('g.axis');
  var NS = 'http://www.w3.org/2000/svg';
  var base = data.pxPerMs;
  var px = base;
  var drawn = false;
  function x(ms) { return data.x0 + ms * px; }
  function y(i) { return data.laneTop[i] + data.laneHeight / 2; }
  function el(name, attrs) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  function drawMessages() {
    while (group.firstChild) group.removeChild(group.firstChild);
    var other = document.getElementById('show-other-messages').checked;
    var frag = document.createDocumentFragment();
    for (var k = 0; k < data.messages.length; k++) {
      var m = data.messages[k];
      if (!other && !data.consensus[m[4]]) continue;
      var type = data.types[m[4]];
      var fate = data.fates[m[5]];
      var end = m[1] < 0 ? data.endMs : m[1];
      var line = el('line', {
        'class': 'msg msg-' + type + ' ' + fate + (data.consensus[m[4]] ? ' consensus' : ' other'),
        'data-from': data.lanes[m[2]], 'data-to': data.lanes[m[3]], 'data-sent-ms': String(m[0]),
        x1: x(m[0]).toFixed(1), y1: y(m[2]).toFixed(1), x2: x(end).toFixed(1),
        y2: (fate === 'dropped' ? (y(m[2]) + y(m[3])) / 2 : y(m[3])).toFixed(1),
        stroke: fate === 'dropped' ? data.droppedColour : data.colours[m[4]]
      });
      var title = el('title', {});
      title.textContent = type + ' ' + data.lanes[m[2]] + ' -> ' + data.lanes[m[3]] + ', sent ' + (m[0] / 1000).toFixed(3) + ' s, ' + fate + (m[1] < 0 ? '' : ' ' + (m[1] / 1000).toFixed(3) + ' s');
      line.appendChild(title);
      frag.appendChild(line);
    }
    group.appendChild(frag);
    drawn = true;
  }
  function showMessages() {
    var show = document.getElementById('show-messages').checked;
    if (show) drawMessages();
    else { while (group.firstChild) group.removeChild(group.firstChild); drawn = false; }
  }
  function drawAxis() {
    while (axisGroup.firstChild) axisGroup.removeChild(axisGroup.firstChild);
    var step = data.tickSteps[data.tickSteps.length - 1];
    for (var i = 0; i < data.tickSteps.length; i++) if (data.tickSteps[i] * px >= data.minTickPx) { step = data.tickSteps[i]; break; }
    for (var t = 0; t <= data.endMs; t += step) {
      axisGroup.appendChild(el('line', { 'class': 'tick', x1: x(t).toFixed(1), x2: x(t).toFixed(1), y1: data.axisHeight - 6, y2: data.height - 8 }));
      var label = el('text', { 'class': 'tick-label', x: x(t).toFixed(1), y: data.axisHeight - 10, 'text-anchor': 'middle' });
      label.textContent = Number((t / 1000).toFixed(3)) + ' s';
      axisGroup.appendChild(label);
    }
  }
  function rescale(newPx, centreMs) {
    px = Math.max(base, Math.min(newPx, data.maxPxPerMs));
    var width = Math.round(data.x0 + data.endMs * px + data.rightPad);
    svg.setAttribute('width', width);
    svg.setAttribute('viewBox', '0 0 ' + width + ' ' + data.height);
    svg.setAttribute('data-px-per-ms', String(px));
    var ivs = svg.querySelectorAll('.iv');
    for (var i = 0; i < ivs.length; i++) {
      var e = ivs[i];
      var s = Number(e.getAttribute('data-start-ms')), f = Number(e.getAttribute('data-end-ms'));
      var w = Math.max(Number(e.getAttribute('data-min-w') || 1), (f - s) * px);
      if (e.tagName === 'line') { e.setAttribute('x1', x(s).toFixed(1)); e.setAttribute('x2', (x(s) + w).toFixed(1)); }
      else { e.setAttribute('x', x(s).toFixed(1)); e.setAttribute('width', w.toFixed(1)); }
    }
    var pts = svg.querySelectorAll('.pt');
    for (var j = 0; j < pts.length; j++) pts[j].setAttribute('transform', 'translate(' + x(Number(pts[j].getAttribute('data-time-ms'))).toFixed(1) + ' 0)');
    var labels = svg.querySelectorAll('text.round-label');
    for (var k = 0; k < labels.length; k++) {
      var a = Number(labels[k].getAttribute('data-start-ms')), b = Number(labels[k].getAttribute('data-end-ms'));
      labels[k].setAttribute('x', (x(a) + 3).toFixed(1));
      if ((b - a) * px >= labels[k].textContent.length * data.labelCharPx + 6) labels[k].removeAttribute('display');
      else labels[k].setAttribute('display', 'none');
    }
    drawAxis();
    if (drawn) drawMessages();
    document.getElementById('zoom-level').textContent = Math.round(px * 1000) + ' px/s';
    if (centreMs !== undefined) scroller.scrollLeft = Math.max(0, x(centreMs) - scroller.clientWidth / 2);
  }
  function centre() { return (scroller.scrollLeft + scroller.clientWidth / 2 - data.x0) / px; }
  document.getElementById('show-messages').addEventListener('change', showMessages);
  document.getElementById('show-other-messages').addEventListener('change', showMessages);
  document.getElementById('zoom-in').addEventListener('click', function () { rescale(px * 2, centre()); });
  document.getElementById('zoom-out').addEventListener('click', function () { rescale(px / 2, centre()); });
  document.getElementById('zoom-reset').addEventListener('click', function () { rescale(base, 0); });
  var lanes = svg.querySelectorAll('g.lane');
  var labels = svg.querySelectorAll('g.lane-label');
  var labelGroup = svg.querySelector('g.lane-labels');
  for (var i = 0; i < labels.length; i++) {
    labels[i].addEventListener('click', function (e) {
      var name = e.currentTarget.getAttribute('data-lane');
      var on = false;
      for (var j = 0; j < lanes.length; j++) {
        var hit = lanes[j].getAttribute('data-lane') === name && !lanes[j].classList.contains('focus');
        lanes[j].classList.toggle('focus', hit);
        on = on || hit;
      }
      svg.classList.toggle('highlight', on);
    });
  }
  scroller.addEventListener('scroll', function () { labelGroup.setAttribute('transform', 'translate(' + scroller.scrollLeft + ' 0)'); });
  var rows = document.querySelectorAll('tr[data-time-ms]');
  for (var r = 0; r < rows.length; r++) {
    rows[r].addEventListener('click', function (e) {
      var t = Number(e.currentTarget.getAttribute('data-time-ms'));
      rescale(Math.max(px, data.momentPxPerMs), t);
      svg.scrollIntoView({ block: 'nearest' });
    });
  }
  window.qbftReport = { rescale: rescale, pxPerMs: function () { return px; } };
  showMessages();
})();
`;

function htmlTable(t: Table, cls: string, cellClass?: (row: number, col: number) => string | undefined): string {
  const head = `<tr>${t.headers.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>`;
  const body = t.rows
    .map((r, i) => `<tr${t.rowTimesMs ? ` data-time-ms="${t.rowTimesMs[i]}" title="show on the timeline"` : ''}>${r.map((c, j) => {
      const k = cellClass?.(i, j);
      return `<td${k ? ` class="${k}"` : ''}>${esc(c)}</td>`;
    }).join('')}</tr>`)
    .join('');
  const more = t.leftOut > 0 ? `<p class="note">${t.leftOut} more rows left out.</p>` : '';
  return `<table class="${cls}">${head}${body}</table>${more}`;
}

function legend(): string {
  const rounds = [0, 1, 2, 3, 4].map((r) => `<span><i class="sw" style="background:${roundColour(r)}"></i>round ${r}${r === 4 ? '+' : ''}</span>`).join('');
  const phases = (Object.keys(PHASE_COLOURS) as Phase[]).map((p) => `<span><i class="sw" style="background:${PHASE_COLOURS[p]}"></i>${esc(PHASE_LABELS[p])}</span>`).join('');
  const faults = Object.entries(FAULT_COLOURS).map(([k, c]) => `<span><i class="sw" style="background:repeating-linear-gradient(45deg,${c}99 0 3px,transparent 3px 7px)"></i>${esc(k)}</span>`).join('');
  const marks = [
    '<span><svg width="12" height="12"><path d="M6 1l5 5-5 5-5-5z" fill="#1b5e20"/></svg>commit</span>',
    '<span><svg width="12" height="12"><path d="M1 2h10l-5 8z" fill="#e65100"/></svg>round change</span>',
    '<span><svg width="12" height="12"><circle cx="6" cy="6" r="4" fill="#fff" stroke="#00897b" stroke-width="1.5"/></svg>block imported by sync</span>',
    '<span><i class="sw" style="background:#90a4ae;height:4px"></i>block timer</span>',
    '<span><i class="sw" style="background:#8d6e63;height:4px"></i>round timer</span>',
    '<span><svg width="12" height="12"><circle cx="6" cy="6" r="3" fill="#d84315"/></svg>timer expired</span>',
  ].join('');
  return `<div class="legend" id="legend-rounds">${rounds}</div><div class="legend" id="legend-phases">${phases}</div><div class="legend" id="legend-marks">${marks}${faults}</div>`;
}

function messagesData(tl: Timeline, L: TimelineLayout, max: number): { json: string; kept: number; total: number } {
  const index = new Map(L.lanes.map((n, i) => [n, i]));
  const usable = tl.messages.filter((m) => index.has(m.from) && index.has(m.to));
  const consensus = usable.filter((m) => m.protocol === 'istanbul');
  const other = usable.filter((m) => m.protocol !== 'istanbul');
  const kept = consensus.slice(0, max).concat(other.slice(0, Math.max(0, max - consensus.length)));
  const types: string[] = [];
  const typeIndex = new Map<string, number>();
  const fates = ['delivered', 'dropped', 'held', 'in-flight'];
  const rows = kept.map((m) => {
    let ti = typeIndex.get(m.type);
    if (ti === undefined) {
      ti = types.length;
      types.push(m.type);
      typeIndex.set(m.type, ti);
    }
    return [m.sentMs, m.endMs ?? -1, index.get(m.from)!, index.get(m.to)!, ti, fates.indexOf(m.fate)];
  });
  const data = {
    lanes: L.lanes,
    laneTop: L.laneTop,
    laneHeight: L.laneHeight,
    x0: L.x0,
    pxPerMs: L.pxPerMs,
    endMs: L.endMs,
    types,
    consensus: types.map((t) => t in MESSAGE_COLOURS),
    colours: types.map((t) => MESSAGE_COLOURS[t] ?? OTHER_MESSAGE_COLOUR),
    droppedColour: DROPPED_MESSAGE_COLOUR,
    fates,
    messages: rows,
    height: L.height,
    axisHeight: AXIS_HEIGHT,
    rightPad: L.width - L.x0 - Math.round(L.endMs * L.pxPerMs),
    tickSteps: TICK_STEPS,
    minTickPx: MIN_TICK_PX,
    labelCharPx: LABEL_CHAR_PX,
    // Zoom stops at 4 px per virtual ms, and before the picture grows past 400,000 px.
    maxPxPerMs: Math.max(L.pxPerMs, Math.min(4, 400_000 / L.endMs)),
    // A key moment opens at 0.4 px/ms (400 px per second): message latencies become visible.
    momentPxPerMs: Math.max(L.pxPerMs, Math.min(0.4, 400_000 / L.endMs)),
  };
  // '<' is escaped so that no message text can close the script element.
  return { json: JSON.stringify(data).replace(/</g, '\\u003c'), kept: kept.length, total: tl.messages.length + tl.messagesLeftOut };
}

function verdictBadge(s: ReportSummary): string {
  if (s.ok === null) return '<span class="verdict unknown" data-ok="unknown">NO VERDICT</span>';
  return `<span class="verdict ${s.ok ? 'pass' : 'fail'}" data-ok="${s.ok}">${s.ok ? 'PASS' : 'FAIL'}</span>`;
}

export function renderHtml(tl: Timeline, opts: HtmlOptions = {}): string {
  const s = summarize(tl);
  const { svg, layout } = renderTimelineSvg(tl, { pxPerSecond: opts.pxPerSecond });
  const msgs = messagesData(tl, layout, opts.maxMessages ?? 40_000);
  const parts: string[] = [];
  parts.push(
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<link rel="icon" href="data:,">',
    `<title>${esc(s.title)}</title><style>${CSS}</style></head><body>`,
    `<h1>${esc(s.title)} ${verdictBadge(s)}</h1>`,
    '<div class="top"><div>',
    `<table class="facts">${s.facts.map(([k, v]) => `<tr><td>${esc(k)}</td><td${k === 'trace hash' ? ' class="mono"' : ''}>${esc(v)}</td></tr>`).join('')}</table>`,
    '</div><div>',
  );
  if (s.invariants.length > 0) {
    parts.push('<table class="invariants"><tr><th>invariant</th><th>result</th><th>meaning</th></tr>');
    for (const i of s.invariants) {
      const cls = i.ok === null ? 'na' : i.ok ? 'ok' : 'fail';
      const expected = i.expectedBy ? ` (expected by this scenario: ${i.expectedBy})` : '';
      parts.push(`<tr data-invariant="${esc(i.name)}" data-ok="${i.ok === null ? 'null' : i.ok}"><td>${esc(i.name)}</td><td class="${cls}">${i.ok === null ? 'not judged' : i.ok ? 'ok' : 'FAIL'}</td><td>${esc(i.meaning + expected)}</td></tr>`);
    }
    parts.push('</table>');
  }
  if (s.expectations.length > 0) {
    parts.push('<table class="expectations"><tr><th>expectation</th><th>result</th></tr>');
    for (const e of s.expectations) parts.push(`<tr data-ok="${e.ok}"><td>${esc(e.text)}</td><td class="${e.ok ? 'ok' : 'fail'}">${e.ok ? 'ok' : 'FAIL'}</td></tr>`);
    parts.push('</table>');
  }
  if (s.errors.length > 0) parts.push(`<h3>Errors</h3><ul class="errors">${s.errors.map((e) => `<li class="mono">${esc(e)}</li>`).join('')}</ul>`);
  parts.push('</div></div>');

  parts.push(
    '<h2>Timeline</h2>',
    `<p class="note">One lane per node; time in virtual seconds from the start of the run. Hover any shape for details; click a node's name to focus its lane, and a key moment (below) to zoom to it.</p>`,
    '<div class="controls">',
    `<label><input type="checkbox" id="show-messages"> show messages (${msgs.kept}${msgs.kept < msgs.total ? ` of ${msgs.total}` : ''})</label>`,
    '<label><input type="checkbox" id="show-other-messages"> include eth (block and sync) messages</label>',
    '<span class="zoom">zoom <button type="button" id="zoom-out" title="zoom out">−</button> <button type="button" id="zoom-in" title="zoom in">+</button> <button type="button" id="zoom-reset" title="whole run">whole run</button> <span id="zoom-level" class="note"></span></span>',
    '</div>',
    legend(),
    `<div class="scroll">${svg}</div>`,
    `<script type="application/json" id="qbft-data">${msgs.json}</script>`,
  );

  parts.push('<h2>Round summaries</h2>', `<p class="note">As Besu's RoundChangeManager logs them: for each validator, the round of its latest ROUND_CHANGE message at that height.</p>`);
  if (s.roundSummaries.length === 0) parts.push('<p>Every height was committed in round 0.</p>');
  for (const r of s.roundSummaries) {
    parts.push(`<div class="round-summary" data-height="${r.height}"><h3>Height ${r.height}: ${esc(r.heading)}</h3><p>${esc(r.outcome)}.</p>`);
    parts.push(htmlTable(r.table, 'round-summary-table', (_i, j) => (j === 1 ? 'address' : undefined)), '</div>');
  }
  parts.push('<h2>Heights with round changes or forks</h2>', s.heights.rows.length === 0 ? '<p>None.</p>' : htmlTable(s.heights, 'heights'));
  parts.push('<h2>Round changes</h2>', s.roundChanges.rows.length === 0 ? '<p>None.</p>' : htmlTable(s.roundChanges, 'round-changes'));
  parts.push('<h2>Faults</h2>', s.faults.rows.length === 0 ? '<p>None.</p>' : htmlTable(s.faults, 'faults'));
  parts.push('<h2>Key moments</h2>', s.moments.rows.length === 0 ? '<p>None.</p>' : `<div class="moments">${htmlTable(s.moments, 'moments-table')}</div>`);
  parts.push(`<script>${SCRIPT}</script></body></html>`);
  return parts.join('\n');
}

export function writeHtmlReport(file: string, tl: Timeline, opts: HtmlOptions = {}): void {
  writeFileSync(file, renderHtml(tl, opts));
}
