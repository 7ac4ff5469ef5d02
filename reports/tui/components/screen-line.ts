/** One line of the replay screen, coloured by its tone (or plain when colour is off). */
import { createElement as h } from 'react';
import { Text, type TextProps } from 'ink';
import type { StyledLine, Tone } from '../screen.ts';

const TONES: Record<Tone, TextProps> = {
  title: { bold: true, color: 'cyan' },
  header: { bold: true },
  normal: {},
  dim: { dimColor: true },
  current: { bold: true, color: 'yellow' },
  down: { color: 'red' },
  fault: { color: 'magenta' },
  'round-change': { color: 'yellow' },
  commit: { color: 'green' },
  status: { inverse: true },
  prompt: { bold: true, color: 'cyan' },
  note: { color: 'yellow' },
};

export function ScreenLine({ line, colour }: { line: StyledLine; colour: boolean }) {
  return h(Text, { ...(colour ? TONES[line.tone] : {}), wrap: 'truncate-end' }, line.text === '' ? ' ' : line.text);
}
