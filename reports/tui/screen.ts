/**
 * The replay screen as styled text lines, for a terminal of `rows` x `columns`: a title, one row
 * per lane, the focused lane's details, the event log (or the key help), the status bar (virtual
 * time, play state, speed, seed, trace hash) and a key-hint line (or the seek prompt, or a note).
 * The ink view only colours these lines, so a frame is the same text everywhere: in the terminal,
 * in tests and in README screenshots. It never uses more than rows - 1 lines.
 */
import { switchesText } from '../checker-status.ts';
import { shortHex } from '../format.ts';
import { KEY_HELP } from './keys.ts';
import { fit, laneDetail, laneHeader, laneRow, momentLine, momentLines, seconds } from './lane-text.ts';
import { frameAt, type LaneFrame, type ReplayData } from './replay-data.ts';
import { speedOf, type ReplayState } from './replay-controller.ts';

export type Tone = 'title' | 'header' | 'normal' | 'dim' | 'current' | 'down' | 'fault' | 'round-change' | 'commit' | 'status' | 'prompt' | 'note';

export interface StyledLine {
  text: string;
  tone: Tone;
}

export interface ScreenSize {
  rows: number;
  columns: number;
}

export const HINTS = 'space play  s step  r round chg  c commit  g seek  +- speed  0-9 focus  ? help';

function laneTone(l: LaneFrame): Tone {
  if (!l.state.up) return 'down';
  if (l.committedNow !== null) return 'commit';
  if (l.state.faults.length > 0) return 'fault';
  if (l.state.phase === 'round-change') return 'round-change';
  return 'normal';
}

export function titleText(data: ReplayData): string {
  const r = data.timeline.run;
  const validators = data.timeline.lanes.filter((l) => l.node.role === 'validator').length;
  const parts = [r.scenario ?? 'trace', `${validators} validators`];
  if (r.blockPeriodSeconds !== null) parts.push(`block period ${r.blockPeriodSeconds}s`);
  if (r.requestTimeoutSeconds !== null) parts.push(`round timer ${r.requestTimeoutSeconds}s x 2^round`);
  return parts.join(' · ');
}

/** The bug switches and Besu version the run's nodes had, when any: a replay says so at its top. */
export function switchesLine(data: ReplayData): string | undefined {
  const r = data.timeline.run;
  return switchesText(r.bugs, r.besuVersion);
}

export function statusText(data: ReplayData, state: ReplayState): string {
  const r = data.timeline.run;
  const play = state.playing ? 'playing' : state.atMs >= data.endMs ? 'at end' : 'paused';
  return [
    ` ${seconds(state.atMs)} / ${seconds(data.endMs)}`,
    play,
    `${speedOf(state)}x`,
    `seed ${r.seed ?? '-'}`,
    `trace ${shortHex(r.traceHash, 8)}`,
  ].join('  ');
}

function helpLines(rows: number): StyledLine[] {
  const out: StyledLine[] = [{ text: 'keys', tone: 'header' }];
  for (const [k, what] of KEY_HELP) out.push({ text: `  ${k.padEnd(10)} ${what}`, tone: 'normal' });
  out.push(
    { text: 'lanes: * marks the proposer of the round in progress; byz: Byzantine. Timers', tone: 'dim' },
    { text: 'show the virtual time left (blk: block timer, rnd: round timer, which is', tone: 'dim' },
    { text: 'requesttimeoutseconds * 2^round); msgs: QBFT messages sent/received so far.', tone: 'dim' },
  );
  return out.slice(0, Math.max(1, rows));
}

export function screenLines(data: ReplayData, state: ReplayState, size: ScreenSize): StyledLine[] {
  const width = Math.max(20, Math.min(size.columns, 120));
  const frame = frameAt(data, state.atMs);
  const lanes = data.timeline.lanes;
  const switches = switchesLine(data);
  const out: StyledLine[] = [{ text: titleText(data), tone: 'title' }, ...(switches ? [{ text: switches, tone: 'note' } as StyledLine] : []), { text: laneHeader(), tone: 'header' }];
  frame.lanes.forEach((l, i) => out.push({ text: laneRow(l, state.focus === i), tone: laneTone(l) }));
  const focus = state.focus !== null ? frame.lanes[state.focus] : undefined;
  if (focus) {
    const node = lanes[state.focus!]!.node;
    for (const text of laneDetail(focus, node.address, node.role, width)) out.push({ text, tone: 'dim' });
  }
  const budget = Math.max(2, size.rows - 1 - out.length - 3);
  if (state.mode === 'help') {
    out.push(...helpLines(budget + 1));
  } else {
    const who = focus ? focus.state.node : null;
    const concerns = (nodes: string[]) => who === null || nodes.length === 0 || nodes.includes(who);
    out.push({ text: `events${who ? ` (${who})` : ''}`, tone: 'header' });
    const past = frame.past.filter((m) => concerns(m.nodes));
    const next = data.moments.find((m) => m.atMs > state.atMs && concerns(m.nodes));
    const room = budget - (next ? 1 : 0);
    // Newest last; the moments at the current time in full (wrapped), older ones on one line each.
    const entries: StyledLine[][] = [];
    let used = 0;
    for (let i = past.length - 1; i >= 0 && used < room; i--) {
      const m = past[i]!;
      const current = m.atMs === state.atMs;
      const lines = current ? momentLines(m, true, width).slice(0, room - used) : [momentLine(m, false, width)];
      entries.unshift(lines.map((text) => ({ text, tone: current ? 'current' : 'normal' })));
      used += lines.length;
    }
    for (const e of entries) out.push(...e);
    if (next) out.push({ text: fit(`  next ${seconds(next.atMs)}  ${next.text}`, width).trimEnd(), tone: 'dim' });
  }
  out.push({ text: statusText(data, state), tone: 'status' });
  if (state.mode === 'seek') out.push({ text: `seek to (seconds): ${state.seekText}_   Enter go, Esc cancel`, tone: 'prompt' });
  else if (state.note) out.push({ text: state.note, tone: 'note' });
  else out.push({ text: HINTS, tone: 'dim' });
  return out.map((l) => ({ ...l, text: fit(l.text, width).trimEnd() }));
}

export function screenText(data: ReplayData, state: ReplayState, size: ScreenSize): string {
  return screenLines(data, state, size)
    .map((l) => l.text)
    .join('\n');
}
