import test from 'ava';
import type { Moment } from '../timeline/moments.ts';
import { actionForKey } from './keys.ts';
import { initialState, reduce, SPEEDS, speedOf, type ReplayAction, type ReplayContext, type ReplayState } from './replay-controller.ts';
import { nextStop, previousStop } from './step-times.ts';

const moment = (atMs: number, kind: Moment['kind']): Moment => ({ atMs, kind, nodes: [], height: null, round: null, text: `${kind} at ${atMs}` });
const ctx: ReplayContext = {
  endMs: 10_000,
  stops: [0, 1000, 1040, 2500, 3000, 5000, 5068, 10_000],
  moments: [moment(1040, 'commit'), moment(2500, 'fault'), moment(5000, 'round-change'), moment(5068, 'commit'), moment(9000, 'round-change')],
  lanes: 4,
};
const run = (actions: ReplayAction[], from: ReplayState = initialState(ctx)) => actions.reduce((s, a) => reduce(ctx, s, a), from);

test('starts paused at 0 at 1x with no focus', (t) => {
  t.like(initialState(ctx), { atMs: 0, playing: false, focus: null, mode: 'normal', quit: false });
  t.is(speedOf(initialState(ctx)), 1);
});

test('single steps go from stop to stop, forwards and back, and pause playback', (t) => {
  t.is(run([{ type: 'step' }]).atMs, 1000);
  t.is(run([{ type: 'step' }, { type: 'step' }, { type: 'step' }]).atMs, 2500);
  t.is(run([{ type: 'step' }, { type: 'step' }, { type: 'step-back' }]).atMs, 1000);
  t.is(run([{ type: 'step-back' }]).atMs, 0);
  t.false(run([{ type: 'toggle-play' }, { type: 'step' }]).playing);
  const end = run([{ type: 'seek', atMs: 10_000 }, { type: 'step' }]);
  t.is(end.atMs, 10_000);
  t.is(end.note, 'at the end of the run');
  t.is(nextStop(ctx.stops, 1020), 1040);
  t.is(previousStop(ctx.stops, 1040), 1000);
});

test('next and previous round change and commit jump to the moments, or say there is none', (t) => {
  t.is(run([{ type: 'next', kind: 'round-change' }]).atMs, 5000);
  t.is(run([{ type: 'next', kind: 'round-change' }, { type: 'next', kind: 'round-change' }]).atMs, 9000);
  const none = run([{ type: 'seek', atMs: 9000 }, { type: 'next', kind: 'round-change' }]);
  t.is(none.atMs, 9000);
  t.is(none.note, 'no more round changes');
  t.is(run([{ type: 'next', kind: 'commit' }, { type: 'next', kind: 'commit' }]).atMs, 5068);
  t.is(run([{ type: 'seek', atMs: 6000 }, { type: 'previous', kind: 'commit' }]).atMs, 5068);
  t.is(run([{ type: 'previous', kind: 'commit' }]).note, 'no earlier commits');
  t.is(run([{ type: 'next', kind: 'commit' }, { type: 'step' }]).note, null, 'the next key clears the note');
});

test('seek takes typed seconds, ignores other characters, clamps to the run and can be cancelled', (t) => {
  const typed = run([{ type: 'seek-start' }, ...'2x.5.'.split('').map((char) => ({ type: 'seek-char' as const, char }))]);
  t.is(typed.mode, 'seek');
  t.is(typed.seekText, '2.5');
  t.like(reduce(ctx, typed, { type: 'seek-commit' }), { atMs: 2500, mode: 'normal', seekText: '' });
  t.is(run([{ type: 'seek-start' }, { type: 'seek-char', char: '9' }, { type: 'seek-char', char: '9' }, { type: 'seek-commit' }]).atMs, 10_000);
  t.is(run([{ type: 'seek-start' }, { type: 'seek-char', char: '3' }, { type: 'seek-backspace' }, { type: 'seek-char', char: '4' }, { type: 'seek-commit' }]).atMs, 4000);
  t.like(run([{ type: 'seek-start' }, { type: 'seek-char', char: '3' }, { type: 'seek-cancel' }]), { atMs: 0, mode: 'normal' });
  t.like(run([{ type: 'seek-start' }, { type: 'seek-commit' }]), { atMs: 0, mode: 'normal', note: 'seek: type a time in seconds, then Enter' });
});

test('playback advances virtual time by wall time times speed and stops at the end', (t) => {
  let s = run([{ type: 'toggle-play' }, { type: 'tick', wallMs: 500 }]);
  t.like(s, { playing: true, atMs: 500 });
  s = run([{ type: 'faster' }, { type: 'faster' }, { type: 'tick', wallMs: 100 }], s);
  t.is(speedOf(s), 5);
  t.is(s.atMs, 1000);
  s = run([{ type: 'tick', wallMs: 60_000 }], s);
  t.like(s, { playing: false, atMs: 10_000 });
  t.is(run([{ type: 'toggle-play' }], s).atMs, 0, 'play at the end starts over');
  t.is(run([{ type: 'tick', wallMs: 500 }]).atMs, 0, 'ticks do nothing while paused');
  t.is(speedOf(run(Array(20).fill({ type: 'slower' }))), SPEEDS[0]!);
  t.is(speedOf(run(Array(20).fill({ type: 'faster' }))), SPEEDS[SPEEDS.length - 1]!);
});

test('focus, help and quit', (t) => {
  t.is(run([{ type: 'focus', index: 2 }]).focus, 2);
  t.is(run([{ type: 'focus', index: 2 }, { type: 'focus', index: 2 }]).focus, null, 'the same key again unfocuses');
  t.is(run([{ type: 'focus', index: 2 }, { type: 'focus', index: null }]).focus, null);
  t.like(run([{ type: 'focus', index: 7 }]), { focus: null, note: 'no lane 7 (lanes 0..3)' });
  t.is(run([{ type: 'help' }]).mode, 'help');
  t.is(run([{ type: 'help' }, { type: 'help' }]).mode, 'normal');
  t.like(run([{ type: 'toggle-play' }, { type: 'quit' }]), { quit: true, playing: false });
});

test('keys map to actions by mode', (t) => {
  t.deepEqual(actionForKey('normal', ' ', {}), { type: 'toggle-play' });
  t.deepEqual(actionForKey('normal', 's', {}), { type: 'step' });
  t.deepEqual(actionForKey('normal', '', { rightArrow: true }), { type: 'step' });
  t.deepEqual(actionForKey('normal', '', { leftArrow: true }), { type: 'step-back' });
  t.deepEqual(actionForKey('normal', 'r', {}), { type: 'next', kind: 'round-change' });
  t.deepEqual(actionForKey('normal', 'C', {}), { type: 'previous', kind: 'commit' });
  t.deepEqual(actionForKey('normal', 'g', {}), { type: 'seek-start' });
  t.deepEqual(actionForKey('normal', '+', {}), { type: 'faster' });
  t.deepEqual(actionForKey('normal', '-', {}), { type: 'slower' });
  t.deepEqual(actionForKey('normal', '3', {}), { type: 'focus', index: 3 });
  t.deepEqual(actionForKey('normal', '?', {}), { type: 'help' });
  t.deepEqual(actionForKey('normal', 'q', {}), { type: 'quit' });
  t.deepEqual(actionForKey('normal', 'c', { ctrl: true }), { type: 'quit' });
  t.is(actionForKey('normal', 'x', {}), null);
  t.deepEqual(actionForKey('seek', '7', {}), { type: 'seek-char', char: '7' });
  t.deepEqual(actionForKey('seek', '', { return: true }), { type: 'seek-commit' });
  t.deepEqual(actionForKey('seek', '', { escape: true }), { type: 'seek-cancel' });
  t.deepEqual(actionForKey('seek', '', { backspace: true }), { type: 'seek-backspace' });
  t.is(actionForKey('seek', 's', {}), null);
  t.deepEqual(actionForKey('help', '?', {}), { type: 'help' });
  t.deepEqual(actionForKey('help', 'q', {}), { type: 'quit' });
  t.is(actionForKey('help', 's', {}), null);
});
