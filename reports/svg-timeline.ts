/**
 * The timeline picture: an SVG with one lane per node. Each lane shows its height/round intervals
 * (coloured by round), a phase strip, its block and round timers (a dot where one expired), faults
 * shaded over it, commits (diamonds), imports by sync (circles) and round changes (dashed lines with
 * a triangle). Elements carry stable classes and data attributes (`data-lane`, `data-time-ms`,
 * `data-height`, `data-round`, ...) so that tests and scripts can find them. Messages are not drawn
 * here: the HTML page draws them on demand from `layout`.
 */
import { escapeHtml, formatDuration, formatMs } from './format.ts';
import { FAULT_COLOURS, FAULT_OPACITY, PHASE_COLOURS, PHASE_LABELS, roundColour } from './palette.ts';
import type { FaultInterval } from '../sim/run-model/faults.ts';
import type { Lane, Timeline } from '../sim/run-model/timeline.ts';

export const LABEL_WIDTH = 96;
export const AXIS_HEIGHT = 30;
export const LANE_HEIGHT = 60;
const RIGHT_PAD = 20;
/** Width of one character of a round label (10px sans-serif), to decide whether it fits its round. */
export const LABEL_CHAR_PX = 6;

export interface TimelineLayout {
  width: number;
  height: number;
  /** x of time 0 and pixels per virtual ms. */
  x0: number;
  pxPerMs: number;
  endMs: number;
  /** Lane names, top to bottom, and the y of each lane's top. */
  lanes: string[];
  laneTop: number[];
  laneHeight: number;
}

export interface SvgOptions {
  /** Pixels per virtual second (default: 40, within a plot width of 900..6000 px). */
  pxPerSecond?: number;
}

/** Axis tick spacings (ms); the axis uses the first that leaves at least MIN_TICK_PX between ticks. */
export const TICK_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000];
export const MIN_TICK_PX = 70;

/** An axis label: "0 s", "0.25 s", "12 s". */
export function axisLabel(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

export function layoutFor(tl: Timeline, opts: SvgOptions = {}): TimelineLayout {
  const endMs = Math.max(tl.run.endMs, 1);
  const plot = opts.pxPerSecond !== undefined ? (endMs / 1000) * opts.pxPerSecond : Math.min(6000, Math.max(900, (endMs / 1000) * 40));
  const lanes = tl.lanes.map((l) => l.node.name);
  return {
    width: Math.round(LABEL_WIDTH + plot + RIGHT_PAD),
    height: AXIS_HEIGHT + lanes.length * LANE_HEIGHT + 8,
    x0: LABEL_WIDTH,
    pxPerMs: plot / endMs,
    endMs,
    lanes,
    laneTop: lanes.map((_, i) => AXIS_HEIGHT + i * LANE_HEIGHT),
    laneHeight: LANE_HEIGHT,
  };
}

const f1 = (n: number) => (Math.round(n * 10) / 10).toString();
const esc = escapeHtml;

function attrs(a: Record<string, string | number | boolean | null | undefined>): string {
  let s = '';
  for (const [k, v] of Object.entries(a)) if (v !== undefined && v !== null) s += ` ${k}="${esc(String(v))}"`;
  return s;
}

function axis(L: TimelineLayout): string {
  const step = TICK_STEPS.find((s) => s * L.pxPerMs >= MIN_TICK_PX) ?? TICK_STEPS[TICK_STEPS.length - 1]!;
  const out: string[] = ['<g class="axis">'];
  const bottom = L.height - 8;
  for (let t = 0; t <= L.endMs; t += step) {
    const x = f1(L.x0 + t * L.pxPerMs);
    out.push(`<line class="tick" x1="${x}" x2="${x}" y1="${AXIS_HEIGHT - 6}" y2="${bottom}"/>`);
    out.push(`<text class="tick-label" x="${x}" y="${AXIS_HEIGHT - 10}" text-anchor="middle">${esc(axisLabel(t))}</text>`);
  }
  out.push('</g>');
  return out.join('');
}

function patterns(): string {
  const defs = Object.entries(FAULT_COLOURS).map(
    ([kind, colour]) =>
      `<pattern id="hatch-${kind}" patternUnits="userSpaceOnUse" width="8" height="8" patternTransform="rotate(45)"><rect width="8" height="8" fill="${colour}" fill-opacity="${((FAULT_OPACITY[kind] ?? 0.4) / 4).toFixed(3)}"/><line x1="0" y1="0" x2="0" y2="8" stroke="${colour}" stroke-width="3" stroke-opacity="${FAULT_OPACITY[kind] ?? 0.4}"/></pattern>`,
  );
  return `<defs>${defs.join('')}</defs>`;
}

function faultRect(L: TimelineLayout, f: FaultInterval, lane: string, top: number): string {
  const x = L.x0 + f.startMs * L.pxPerMs;
  const w = Math.max(2, (f.endMs - f.startMs) * L.pxPerMs);
  const until = f.ongoing ? 'the end of the run' : formatMs(f.endMs);
  return `<rect${attrs({
    class: `fault fault-${f.kind} iv`,
    'data-lane': lane,
    'data-kind': f.kind,
    'data-start-ms': f.startMs,
    'data-end-ms': f.endMs,
    x: f1(x),
    y: top + 2,
    width: f1(w),
    height: LANE_HEIGHT - 4,
    fill: `url(#hatch-${f.kind})`,
    'data-min-w': 2,
  })}><title>${esc(`${lane}: ${f.kind} (${f.detail}) from ${formatMs(f.startMs)} to ${until}${f.endedBy ? `; ${f.endedBy}` : ''}`)}</title></rect>`;
}

function laneSvg(L: TimelineLayout, lane: Lane, index: number): string {
  const name = lane.node.name;
  const top = L.laneTop[index]!;
  const X = (ms: number) => L.x0 + ms * L.pxPerMs;
  const out: string[] = [`<g${attrs({ class: 'lane', 'data-lane': name, 'data-role': lane.node.role, 'data-faulty': lane.node.faulty })}>`];
  out.push(`<rect class="lane-bg${index % 2 ? ' odd' : ''}" x="0" y="${top}" width="100%" height="${LANE_HEIGHT}"/>`);

  for (const r of lane.rounds) {
    const x = X(r.startMs);
    const w = Math.max(1, (r.endMs - r.startMs) * L.pxPerMs);
    const proposer = r.proposer ? `, proposer ${r.proposer}` : '';
    out.push(
      `<rect${attrs({ class: `round r${Math.min(r.round, 10)} iv`, 'data-lane': name, 'data-height': r.height, 'data-round': r.round, 'data-start-ms': r.startMs, 'data-end-ms': r.endMs, 'data-outcome': r.outcome, x: f1(x), y: top + 6, width: f1(w), height: 24, fill: roundColour(r.round) })}><title>${esc(`${name}: height ${r.height}, round ${r.round}${proposer}, ${formatMs(r.startMs)} to ${formatMs(r.endMs)} (${r.outcome})${r.timeoutMs !== null ? `; round timer ${formatDuration(r.timeoutMs)}` : ''}`)}</title></rect>`,
    );
    const label = `${r.round === 0 ? String(r.height) : `${r.height} r${r.round}`}${r.proposer ? ` · ${r.proposer}` : ''}`;
    const fits = w >= label.length * LABEL_CHAR_PX + 6;
    out.push(`<text${attrs({ class: 'round-label', 'data-start-ms': r.startMs, 'data-end-ms': r.endMs, x: f1(x + 3), y: top + 22, display: fits ? undefined : 'none' })}>${esc(label)}</text>`);
  }
  for (const p of lane.phases) {
    const w = (p.endMs - p.startMs) * L.pxPerMs;
    if (w <= 0) continue;
    out.push(
      `<rect${attrs({ class: `phase phase-${p.phase} iv`, 'data-lane': name, 'data-phase': p.phase, 'data-start-ms': p.startMs, 'data-end-ms': p.endMs, x: f1(X(p.startMs)), y: top + 33, width: f1(Math.max(0.5, w)), height: 6, fill: PHASE_COLOURS[p.phase], 'data-min-w': 0.5 })}><title>${esc(`${name}: ${PHASE_LABELS[p.phase]}${p.height !== null ? ` (height ${p.height}${p.round !== null ? `, round ${p.round}` : ''})` : ''}, ${formatMs(p.startMs)} to ${formatMs(p.endMs)}`)}</title></rect>`,
    );
  }
  for (const t of lane.timers) {
    const y = top + (t.kind === 'block' ? 44 : 50);
    const x1 = X(t.startMs);
    const x2 = X(Math.max(t.startMs, t.endMs));
    const what = t.kind === 'block' ? `block timer for height ${t.height}` : `round timer of height ${t.height}, round ${t.round}`;
    out.push(
      `<g${attrs({ class: `timer timer-${t.kind} ${t.outcome}`, 'data-lane': name, 'data-kind': t.kind, 'data-height': t.height, 'data-round': t.round ?? undefined, 'data-start-ms': t.startMs, 'data-due-ms': t.dueMs, 'data-end-ms': t.endMs, 'data-outcome': t.outcome })}><title>${esc(`${name}: ${what}, set ${formatMs(t.startMs)}, due ${formatMs(t.dueMs)}, ${t.outcome}${t.outcome === 'running' ? '' : ` at ${formatMs(t.endMs)}`}`)}</title><line${attrs({ class: 'iv', 'data-start-ms': t.startMs, 'data-end-ms': Math.max(t.startMs, t.endMs), 'data-min-w': 0.5, x1: f1(x1), x2: f1(Math.max(x2, x1 + 0.5)), y1: y, y2: y })}/>${t.outcome === 'expired' ? `<g class="pt" data-time-ms="${t.endMs}" transform="translate(${f1(x2)} 0)"><circle cx="0" cy="${y}" r="2.5"/></g>` : ''}</g>`,
    );
  }
  for (const s of lane.syncs) {
    out.push(`<line${attrs({ class: 'sync iv', 'data-lane': name, 'data-start-ms': s.startMs, 'data-end-ms': s.endMs, x1: f1(X(s.startMs)), x2: f1(Math.max(X(s.endMs), X(s.startMs) + 1)), y1: top + 56, y2: top + 56, 'data-min-w': 1 })}><title>${esc(`${name}: syncing from ${s.peer}, ${formatMs(s.startMs)} to ${formatMs(s.endMs)}${s.reason ? ` (${s.reason})` : ''}`)}</title></line>`);
  }
  for (const f of lane.faults) out.push(faultRect(L, f, name, top));
  for (const i of lane.imports) {
    if (!i.viaSync) continue;
    out.push(`<g${attrs({ class: 'import pt', 'data-lane': name, 'data-height': i.number, 'data-time-ms': i.atMs, transform: `translate(${f1(X(i.atMs))} 0)` })}><title>${esc(`${name}: imported block ${i.number} (${i.status}) without committing it, at ${formatMs(i.atMs)}`)}</title><circle cx="0" cy="${top + 18}" r="3"/></g>`);
  }
  for (const c of lane.commits) {
    out.push(
      `<g${attrs({ class: 'commit pt', 'data-lane': name, 'data-height': c.height, 'data-round': c.round, 'data-time-ms': c.atMs, transform: `translate(${f1(X(c.atMs))} 0)` })}><title>${esc(`${name}: committed block ${c.height} in round ${c.round} at ${formatMs(c.atMs)} (${c.seals} commit seals)`)}</title><path d="M0 ${top + 1}l5 5-5 5-5-5z"/></g>`,
    );
  }
  for (const c of lane.roundChanges) {
    const from = c.fromRound === null ? '' : ` from round ${c.fromRound}`;
    out.push(
      `<g${attrs({ class: 'round-change pt', 'data-lane': name, 'data-time-ms': c.atMs, 'data-height': c.height, 'data-from-round': c.fromRound ?? undefined, 'data-to-round': c.toRound, 'data-reason': c.reason, transform: `translate(${f1(X(c.atMs))} 0)` })}><title>${esc(`${name}: height ${c.height}${from} to round ${c.toRound} at ${formatMs(c.atMs)} (${c.reason})`)}</title><line x1="0" x2="0" y1="${top + 2}" y2="${top + LANE_HEIGHT - 2}"/><path d="M0 ${top + 31}l-5 -8h10z"/></g>`,
    );
  }
  out.push('</g>');
  return out.join('');
}

/** Lane names, in a group the page keeps at the left edge while the timeline scrolls. */
function laneLabels(L: TimelineLayout, tl: Timeline): string {
  const out: string[] = ['<g class="lane-labels">'];
  tl.lanes.forEach((lane, i) => {
    const top = L.laneTop[i]!;
    const tag = lane.node.faulty ? `${lane.node.role}, faulty` : lane.node.role;
    out.push(
      `<g${attrs({ class: 'lane-label', 'data-lane': lane.node.name })}><rect class="lane-label-bg${i % 2 ? ' odd' : ''}" x="0" y="${top}" width="${LABEL_WIDTH - 4}" height="${LANE_HEIGHT}"/><text class="lane-name" x="8" y="${top + 24}">${esc(lane.node.name)}</text><text class="lane-role" x="8" y="${top + 40}">${esc(tag)}</text></g>`,
    );
  });
  out.push('</g>');
  return out.join('');
}

function partitionBands(L: TimelineLayout, tl: Timeline): string {
  const out: string[] = [];
  for (const f of tl.faults) {
    if (f.node !== null || f.kind !== 'partition') continue;
    const x = L.x0 + f.startMs * L.pxPerMs;
    const w = Math.max(2, (f.endMs - f.startMs) * L.pxPerMs);
    out.push(
      `<rect${attrs({ class: 'partition-band iv', 'data-start-ms': f.startMs, 'data-end-ms': f.endMs, 'data-min-w': 2, x: f1(x), y: 2, width: f1(w), height: AXIS_HEIGHT - 20 })}><title>${esc(`partition ${f.detail}, ${formatMs(f.startMs)} to ${f.ongoing ? 'the end' : formatMs(f.endMs)}`)}</title></rect>`,
    );
  }
  return out.join('');
}

export function renderTimelineSvg(tl: Timeline, opts: SvgOptions = {}): { svg: string; layout: TimelineLayout } {
  const L = layoutFor(tl, opts);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="timeline" width="${L.width}" height="${L.height}" viewBox="0 0 ${L.width} ${L.height}" data-end-ms="${L.endMs}" data-px-per-ms="${L.pxPerMs}" role="img" aria-label="timeline of ${L.lanes.length} lanes">`,
    patterns(),
    tl.lanes.map((lane, i) => laneSvg(L, lane, i)).join(''),
    axis(L),
    partitionBands(L, tl),
    '<g class="messages"></g>',
    laneLabels(L, tl),
    '</svg>',
  ];
  return { svg: parts.join(''), layout: L };
}
