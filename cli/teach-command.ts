/**
 * `qbft-lab teach [round-timing|round-change|votes|transitions] [--auto]`: runs a lesson's
 * scenarios and walks through its slides (reports/teach), each explaining a key moment with the
 * run's own numbers. Interactive on a terminal (Enter or space: next, b: back, q: quit); with
 * --auto, or when stdin or stdout is not a terminal, it prints every slide without waiting.
 * Without a lesson name it gives the whole course, lesson after lesson.
 */
import { UsageError } from '../node/cli/usage-error.ts';
import type { Lesson } from '../reports/teach/lesson.ts';
import { findLesson, LESSONS } from '../reports/teach/lessons.ts';
import { lessonSlides } from '../reports/teach/prepare.ts';
import { slideText, wrap } from '../reports/teach/slide-text.ts';
import type { Io } from './main.ts';
import { OPTIONS, type Parse } from './command-options.ts';

export const TEACH_USAGE = `qbft-lab teach [${LESSONS.map((l) => l.name).join('|')}] [--auto]`;

export type Advance = 'next' | 'back' | 'quit';

export interface TeachTerminal {
  interactive: boolean;
  /** Waits for the reader's key after a slide. */
  nextKey(): Promise<Advance>;
}

function readKey(): Promise<Advance> {
  const stdin = process.stdin;
  return new Promise((resolve) => {
    const done = (a: Advance) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      resolve(a);
    };
    const onData = (buf: Buffer) => {
      const k = buf.toString('utf8');
      if (k === 'q' || k === 'Q' || k === '\u0003' || k === '\u001b') done('quit');
      else if (k === 'b' || k === 'B' || k === '\u001b[D') done('back');
      else if (k === '\r' || k === '\n' || k === ' ' || k === 'n' || k === '\u001b[C') done('next');
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}

export function processTeachTerminal(): TeachTerminal {
  return { interactive: process.stdin.isTTY === true && process.stdout.isTTY === true, nextKey: readKey };
}

/** Shows one lesson; false when the reader quit. */
async function showLesson(lesson: Lesson, io: Io, interactive: boolean, terminal: TeachTerminal, wallClock: () => number, last: boolean): Promise<boolean> {
  io.out(`${lesson.title}\n(running ${lesson.scenarios.join(', ')} in the simulator ...)\n`);
  const slides = await lessonSlides(lesson, { wallClock });
  let i = 0;
  while (i < slides.length) {
    io.out(slideText(slides[i]!, i, slides.length, lesson.name));
    const end = i === slides.length - 1;
    if (!interactive || (end && last)) {
      i++;
      continue;
    }
    io.out(end ? '[Enter/space] next lesson  [b] back  [q] quit' : '[Enter/space] next  [b] back  [q] quit');
    const key = await terminal.nextKey();
    if (key === 'quit') return false;
    i = key === 'back' ? Math.max(0, i - 1) : i + 1;
  }
  return true;
}

export async function teachCommand(args: string[], io: Io, parse: Parse, wallClock: () => number, terminal: TeachTerminal = processTeachTerminal()): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS.teach);
  if (positionals.length > 1) throw new UsageError(`teach: give at most one lesson (usage: ${TEACH_USAGE})`);
  const name = positionals[0];
  const chosen = name === undefined ? LESSONS : [findLesson(name)];
  if (chosen[0] === undefined) {
    throw new UsageError(`teach: no lesson '${name}'; lessons: ${LESSONS.map((l) => `${l.name} (${l.summary})`).join('; ')}`);
  }
  const interactive = values.auto !== true && terminal.interactive;
  for (let i = 0; i < chosen.length; i++) {
    const go = await showLesson(chosen[i]!, io, interactive, terminal, wallClock, i === chosen.length - 1);
    if (!go) return 0;
  }
  const others = LESSONS.filter((l) => !chosen.includes(l));
  io.out(wrap(`End of ${chosen.length === 1 ? `the lesson ${chosen[0]!.name}` : 'the course'}.${others.length ? ` Other lessons: ${others.map((l) => `qbft-lab teach ${l.name}`).join(', ')}.` : ''}`).join('\n'));
  return 0;
}
