/**
 * Keys to replay actions. `Key` is the subset of ink's key flags the replay reads; a key that does
 * nothing in the current mode maps to null.
 *
 * normal: space play/pause, s or right step, left or b step back, r/R next/previous round change,
 * c/C next/previous commit, g seek (type seconds, Enter), Home/End, + and - speed, 0..9 focus vN (again, or
 * Esc: no focus), ? help, q quit. seek: digits and '.', Backspace, Enter, Esc. help: ? or Esc closes.
 */
import type { Mode, ReplayAction } from './replay-controller.ts';

export interface Key {
  leftArrow?: boolean;
  rightArrow?: boolean;
  return?: boolean;
  escape?: boolean;
  backspace?: boolean;
  delete?: boolean;
  ctrl?: boolean;
  home?: boolean;
  end?: boolean;
}

export const KEY_HELP: ReadonlyArray<[string, string]> = [
  ['space', 'play / pause'],
  ['s  right', 'single step (next change in any lane)'],
  ['b  left', 'step back'],
  ['r  R', 'next / previous round change'],
  ['c  C', 'next / previous commit'],
  ['g', 'seek: type a time in seconds, then Enter'],
  ['Home End', 'start / end of the run'],
  ['+  -', 'faster / slower playback'],
  ['0..9', 'focus validator vN (again or Esc: all)'],
  ['?', 'this help'],
  ['q', 'quit'],
];

export function actionForKey(mode: Mode, input: string, key: Key): ReplayAction | null {
  if (key.ctrl && input === 'c') return { type: 'quit' };
  if (mode === 'seek') {
    if (key.return) return { type: 'seek-commit' };
    if (key.escape) return { type: 'seek-cancel' };
    if (key.backspace || key.delete) return { type: 'seek-backspace' };
    if (/^[0-9.]$/.test(input)) return { type: 'seek-char', char: input };
    if (input === 'q') return { type: 'seek-cancel' };
    return null;
  }
  if (mode === 'help') {
    if (input === 'q') return { type: 'quit' };
    if (input === '?' || key.escape || key.return) return { type: 'help' };
    return null;
  }
  if (key.home) return { type: 'seek', atMs: 0 };
  if (key.end) return { type: 'seek', atMs: Number.MAX_SAFE_INTEGER };
  if (key.rightArrow) return { type: 'step' };
  if (key.leftArrow) return { type: 'step-back' };
  if (key.escape) return { type: 'focus', index: null };
  switch (input) {
    case ' ':
      return { type: 'toggle-play' };
    case 's':
      return { type: 'step' };
    case 'b':
      return { type: 'step-back' };
    case 'r':
      return { type: 'next', kind: 'round-change' };
    case 'R':
      return { type: 'previous', kind: 'round-change' };
    case 'c':
      return { type: 'next', kind: 'commit' };
    case 'C':
      return { type: 'previous', kind: 'commit' };
    case 'g':
      return { type: 'seek-start' };
    case '+':
    case '=':
      return { type: 'faster' };
    case '-':
    case '_':
      return { type: 'slower' };
    case '?':
    case 'h':
      return { type: 'help' };
    case 'q':
      return { type: 'quit' };
  }
  if (/^[0-9]$/.test(input)) return { type: 'focus', index: Number(input) };
  return null;
}
