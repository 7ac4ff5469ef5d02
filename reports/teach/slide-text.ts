/**
 * A slide as plain text, at most 80 columns: a rule with its number and virtual time, the title,
 * the paragraphs wrapped, its table, and the lanes at its time (the same rows as the tui).
 */
import { laneHeader, laneRow, wrapWords } from '../tui/lane-text.ts';
import { frameAt } from '../tui/replay-data.ts';
import type { Slide } from './lesson.ts';

export function wrap(text: string, width = 78, indent = ''): string[] {
  return wrapWords(text, width - indent.length).map((l) => indent + l);
}

export function slideText(slide: Slide, index: number, total: number, lesson: string): string {
  const head = `── ${index + 1}/${total} · ${lesson}${slide.run ? ` · ${slide.run.scenario.name}` : ''} `;
  const lines = [head + '─'.repeat(Math.max(3, 78 - [...head].length)), ...wrap(slide.title), ''];
  for (const p of slide.paragraphs) lines.push(...wrap(p), '');
  if (slide.table) lines.push(...slide.table.map((l) => `  ${l}`.slice(0, 80)), '');
  if (slide.run && slide.atMs !== null) {
    lines.push(`lanes at ${(slide.atMs / 1000).toFixed(3)}s (* proposer of the round in progress):`, laneHeader(), ...frameAt(slide.run.data, slide.atMs).lanes.map((l) => laneRow(l)), '');
  }
  return lines.join('\n');
}
