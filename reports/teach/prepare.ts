/**
 * Runs a lesson's scenarios in the simulator (trace kept), reads each chain, and returns the
 * lesson's slides.
 */
import { findScenario } from '../../scenarios/index.ts';
import { runScenarioTrace, timelineOf } from '../trace-source.ts';
import { replayData } from '../tui/replay-data.ts';
import { chainFacts } from './chain-facts.ts';
import type { Lesson, LessonRun, Slide } from './lesson.ts';

export async function runLessonScenario(name: string, opts: { wallClock?: () => number } = {}): Promise<LessonRun> {
  const scenario = findScenario(name);
  if (!scenario) throw new Error(`lesson scenario '${name}' is not a built-in scenario`);
  const trace = await runScenarioTrace(scenario, { wallClock: opts.wallClock });
  const timeline = timelineOf(trace);
  return { scenario, trace, timeline, data: replayData(timeline), chain: await chainFacts(trace.world, timeline.run.nodes) };
}

export async function lessonSlides(lesson: Lesson, opts: { wallClock?: () => number } = {}): Promise<Slide[]> {
  const runs: LessonRun[] = [];
  for (const name of lesson.scenarios) runs.push(await runLessonScenario(name, opts));
  return lesson.slides(runs);
}
