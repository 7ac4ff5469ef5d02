/**
 * The shapes of teaching mode: a lesson runs one or more scenarios, and turns each run (its
 * timeline, key moments, lane states and chain facts) into slides, each pinned to a virtual time
 * whose lane states it shows.
 */
import type { Scenario } from '../../sim/scenario.ts';
import type { Timeline } from '../../sim/run-model/timeline.ts';
import type { LoadedTrace } from '../trace-source.ts';
import type { ReplayData } from '../tui/replay-data.ts';
import type { ChainFacts } from './chain-facts.ts';

export interface LessonRun {
  scenario: Scenario;
  trace: LoadedTrace;
  timeline: Timeline;
  data: ReplayData;
  chain: ChainFacts;
}

export interface Slide {
  title: string;
  /** The run it belongs to, and the virtual time whose lanes it shows (null: no lanes). */
  run: LessonRun | null;
  atMs: number | null;
  paragraphs: string[];
  /** Preformatted lines (tables), shown after the paragraphs. */
  table?: string[];
}

export const LESSON_NAMES = ['round-timing', 'round-change', 'votes', 'transitions'] as const;
export type LessonName = (typeof LESSON_NAMES)[number];

export interface Lesson {
  name: LessonName;
  title: string;
  summary: string;
  /** The scenarios it runs, in order (names in scenarios/index.ts). */
  scenarios: string[];
  slides(runs: LessonRun[]): Promise<Slide[]> | Slide[];
}
