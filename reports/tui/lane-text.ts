/**
 * Plain-text pieces of a replay frame, shared by the ink view and the plain (non-terminal) replay:
 * one fixed-width row per lane (height, round, phase, running timers, faults, message flow), the
 * focused lane's details and event-log lines. Everything fits 80 columns.
 */
import { shortHex } from '../format.ts';
import type { FaultInterval } from '../../sim/run-model/faults.ts';
import type { Moment } from '../timeline/moments.ts';
import type { Phase } from '../../sim/run-model/phases.ts';
import type { RunningTimer } from '../timeline/state-at.ts';
import type { LaneFrame } from './replay-data.ts';

/** Virtual ms as seconds: 5000 -> "5.000s". */
export function seconds(ms: number, digits = 3): string {
  return `${(ms / 1000).toFixed(digits)}s`;
}

export const PHASE_TEXT: Record<Phase, string> = {
  idle: 'idle',
  'block-timer': 'block timer',
  proposing: 'proposing',
  'round-change': 'round change',
  prepared: 'prepared',
  committed: 'committed',
  down: 'down',
};

/** Fits text into width columns: cut with an ellipsis, padded with spaces. */
export function fit(text: string, width: number): string {
  if (width <= 0) return '';
  const chars = [...text];
  if (chars.length > width) return chars.slice(0, width - 1).join('') + '…';
  return text + ' '.repeat(width - chars.length);
}

export function timersText(timers: readonly RunningTimer[]): string {
  const order = (t: RunningTimer) => (t.kind === 'block' ? 0 : 1);
  return [...timers]
    .sort((a, b) => order(a) - order(b))
    .map((t) => `${t.kind === 'block' ? 'blk' : 'rnd'} ${seconds(t.remainingMs, 2)}`)
    .join(' ');
}

export function faultText(f: FaultInterval): string {
  switch (f.kind) {
    case 'crash':
      return 'crashed';
    case 'pause':
      return 'paused';
    case 'byzantine':
      return `byz:${f.detail}`;
    case 'partition':
      return 'partitioned';
    case 'clog':
      return 'clogged';
    case 'clock-skew':
      return `skew ${f.detail.replace(/^clock /, '').replace(' ms', 'ms')}`;
  }
}

export function faultsText(faults: readonly FaultInterval[]): string {
  return [...new Set(faults.map(faultText))].join(',');
}

export const LANE_WIDTHS = { name: 6, height: 7, round: 4, phase: 14, timers: 21, faults: 15, flow: 12 } as const;

/** A column: the text fitted into width - 1, then one space. */
const col = (text: string, width: number) => fit(text, width - 1) + ' ';

export function laneHeader(): string {
  const w = LANE_WIDTHS;
  return (col(' node', w.name) + col('height', w.height) + col('rnd', w.round) + col('phase', w.phase) + col('timers left', w.timers) + col('faults', w.faults) + 'msgs out/in').trimEnd();
}

export function phaseOf(lane: LaneFrame): string {
  if (lane.committedNow !== null && lane.state.up) return `committed #${lane.committedNow}`;
  return PHASE_TEXT[lane.state.phase];
}

export function laneRow(lane: LaneFrame, focused = false): string {
  const w = LANE_WIDTHS;
  const s = lane.state;
  const name = `${focused ? '>' : ' '}${s.node}${lane.proposing ? '*' : ''}`;
  const height = s.height === null ? '-' : `h${s.height}`;
  const round = s.round === null ? '-' : `r${s.round}`;
  const flow = `${lane.flow.sent}/${lane.flow.received}`;
  return (col(name, w.name) + col(height, w.height) + col(round, w.round) + col(phaseOf(lane), w.phase) + col(timersText(s.timers) || '-', w.timers) + col(faultsText(s.faults) || '-', w.faults) + flow).trimEnd();
}

/** Four lines about one lane: identity and chain head, timers, faults, messages by type. */
export function laneDetail(lane: LaneFrame, address: string | null, role: string, width = 80): string[] {
  const s = lane.state;
  const proposer = s.proposer ? `, proposer of h${s.height} r${s.round}: ${s.proposer}` : '';
  const timers = s.timers.length === 0 ? 'none' : s.timers.map((t) => `${t.kind} timer (h${t.height}${t.round !== null ? ` r${t.round}` : ''}) due ${seconds(t.dueMs)}, ${seconds(t.remainingMs)} left`).join('; ');
  const faults = s.faults.length === 0 ? 'none' : s.faults.map((f) => `${f.kind} since ${seconds(f.startMs)} (${f.detail})`).join('; ');
  const types = lane.flow.byType.map((t) => `${t.type} ${t.sent}/${t.received}`).join('  ');
  return [
    `${s.node} ${shortHex(address)} ${role}: head #${s.head}, ${s.roundChanges} round changes${proposer}`,
    `  timers: ${timers}`,
    `  faults: ${faults}`,
    `  sent/received: ${types}${lane.flow.dropped ? `  dropped ${lane.flow.dropped}` : ''}`,
  ].map((l) => fit(l, width).trimEnd());
}

export function momentLine(m: Moment, current: boolean, width = 80): string {
  return fit(`${current ? '>' : ' '}${seconds(m.atMs).padStart(9)}  ${m.text}`, width).trimEnd();
}

/** Words into lines of at most width columns (a longer word gets a line of its own). */
export function wrapWords(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && [...line].length + 1 + [...word].length > width) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out;
}

/** A moment in full, wrapped under its time (for the moment being shown). */
export function momentLines(m: Moment, current: boolean, width = 80): string[] {
  const prefix = `${current ? '>' : ' '}${seconds(m.atMs).padStart(9)}  `;
  return wrapWords(m.text, Math.max(10, width - prefix.length)).map((l, i) => (i === 0 ? prefix : ' '.repeat(prefix.length)) + l);
}
