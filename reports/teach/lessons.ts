/** The lessons of `qbft-lab teach`, in course order. */
import type { Lesson, LessonName } from './lesson.ts';
import { roundChange } from './round-change.ts';
import { roundTiming } from './round-timing.ts';
import { transitions } from './transitions.ts';
import { votes } from './votes.ts';

export const LESSONS: readonly Lesson[] = [roundTiming, roundChange, votes, transitions];

export function findLesson(name: string): Lesson | undefined {
  return LESSONS.find((l) => l.name === (name as LessonName));
}
