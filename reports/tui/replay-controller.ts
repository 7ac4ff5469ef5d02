/**
 * The replay controller: where a replay stands (virtual time, playing or paused, speed, the
 * focused lane, the key mode) and what every key does to it. Pure: `reduce(context, state,
 * action)` returns the next state; the playback clock is outside (a `tick` action says how much
 * wall time passed), so it runs and tests without a terminal.
 */
import { nextMoment, previousMoment, type Moment, type MomentKind } from '../timeline/moments.ts';
import { nextStop, previousStop } from './step-times.ts';

/** Virtual seconds per wall second. */
export const SPEEDS: readonly number[] = [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 50];
const DEFAULT_SPEED = SPEEDS.indexOf(1);

export interface ReplayContext {
  endMs: number;
  /** Single-step times, ascending (stepTimes). */
  stops: readonly number[];
  moments: readonly Moment[];
  /** Number of lanes (focus takes 0..lanes-1). */
  lanes: number;
}

export type Mode = 'normal' | 'seek' | 'help';

export interface ReplayState {
  atMs: number;
  playing: boolean;
  speedIndex: number;
  focus: number | null;
  mode: Mode;
  /** What has been typed at the seek prompt. */
  seekText: string;
  quit: boolean;
  /** A one-line answer to the last key (e.g. "no more round changes"), cleared by the next one. */
  note: string | null;
}

export type ReplayAction =
  | { type: 'toggle-play' }
  | { type: 'step' }
  | { type: 'step-back' }
  | { type: 'next'; kind: 'round-change' | 'commit' }
  | { type: 'previous'; kind: 'round-change' | 'commit' }
  | { type: 'seek-start' }
  | { type: 'seek-char'; char: string }
  | { type: 'seek-backspace' }
  | { type: 'seek-commit' }
  | { type: 'seek-cancel' }
  | { type: 'seek'; atMs: number }
  | { type: 'faster' }
  | { type: 'slower' }
  | { type: 'focus'; index: number | null }
  | { type: 'help' }
  | { type: 'quit' }
  | { type: 'tick'; wallMs: number };

export function initialState(_ctx: ReplayContext, overrides: Partial<ReplayState> = {}): ReplayState {
  return { atMs: 0, playing: false, speedIndex: DEFAULT_SPEED, focus: null, mode: 'normal', seekText: '', quit: false, note: null, ...overrides };
}

export function speedOf(state: ReplayState): number {
  return SPEEDS[state.speedIndex] ?? 1;
}

const clamp = (ctx: ReplayContext, t: number) => Math.min(Math.max(0, t), ctx.endMs);
const KIND_NAMES: Record<'round-change' | 'commit', string> = { 'round-change': 'round changes', commit: 'commits' };

function jump(ctx: ReplayContext, s: ReplayState, m: Moment | undefined, kind: 'round-change' | 'commit', dir: string): ReplayState {
  if (!m) return { ...s, playing: false, note: `no ${dir} ${KIND_NAMES[kind]}` };
  return { ...s, atMs: clamp(ctx, m.atMs), playing: false, note: null };
}

export function reduce(ctx: ReplayContext, state: ReplayState, action: ReplayAction): ReplayState {
  const s: ReplayState = action.type === 'tick' ? state : { ...state, note: null };
  switch (action.type) {
    case 'toggle-play':
      if (s.playing) return { ...s, playing: false };
      return { ...s, playing: true, atMs: s.atMs >= ctx.endMs ? 0 : s.atMs };
    case 'step':
      if (s.atMs >= ctx.endMs) return { ...s, playing: false, note: 'at the end of the run' };
      return { ...s, playing: false, atMs: clamp(ctx, nextStop(ctx.stops, s.atMs)) };
    case 'step-back':
      return { ...s, playing: false, atMs: previousStop(ctx.stops, s.atMs) };
    case 'next':
      return jump(ctx, s, nextMoment(ctx.moments as Moment[], s.atMs, [action.kind as MomentKind]), action.kind, 'more');
    case 'previous':
      return jump(ctx, s, previousMoment(ctx.moments as Moment[], s.atMs, [action.kind as MomentKind]), action.kind, 'earlier');
    case 'seek-start':
      return { ...s, mode: 'seek', seekText: '', playing: false };
    case 'seek-char':
      if (s.mode !== 'seek' || !/^[0-9.]$/.test(action.char) || s.seekText.length >= 12) return s;
      if (action.char === '.' && s.seekText.includes('.')) return s;
      return { ...s, seekText: s.seekText + action.char };
    case 'seek-backspace':
      return { ...s, seekText: s.seekText.slice(0, -1) };
    case 'seek-cancel':
      return { ...s, mode: 'normal', seekText: '' };
    case 'seek-commit': {
      const secs = Number(s.seekText);
      if (s.seekText === '' || !Number.isFinite(secs)) return { ...s, mode: 'normal', seekText: '', note: 'seek: type a time in seconds, then Enter' };
      return { ...s, mode: 'normal', seekText: '', atMs: clamp(ctx, Math.round(secs * 1000)) };
    }
    case 'seek':
      return { ...s, atMs: clamp(ctx, action.atMs) };
    case 'faster':
      return { ...s, speedIndex: Math.min(SPEEDS.length - 1, s.speedIndex + 1) };
    case 'slower':
      return { ...s, speedIndex: Math.max(0, s.speedIndex - 1) };
    case 'focus': {
      const i = action.index;
      if (i === null || i === s.focus) return { ...s, focus: null };
      if (i < 0 || i >= ctx.lanes) return { ...s, note: `no lane ${i} (lanes 0..${ctx.lanes - 1})` };
      return { ...s, focus: i };
    }
    case 'help':
      return { ...s, mode: s.mode === 'help' ? 'normal' : 'help' };
    case 'quit':
      return { ...s, quit: true, playing: false };
    case 'tick': {
      if (!s.playing || action.wallMs <= 0) return s;
      const atMs = s.atMs + action.wallMs * speedOf(s);
      if (atMs >= ctx.endMs) return { ...s, atMs: ctx.endMs, playing: false };
      return { ...s, atMs };
    }
  }
}
