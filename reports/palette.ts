/** Colours of rounds, phases, faults and message types, shared by the reports (and any other view). */
import type { FaultKind } from '../sim/run-model/faults.ts';
import type { Phase } from '../sim/run-model/phases.ts';

const ROUND_COLOURS = ['#c8e6c9', '#fff176', '#ffb74d', '#ef9a9a', '#ce93d8', '#90caf9', '#80cbc4', '#bcaaa4', '#f48fb1', '#9fa8da'];
const HIGH_ROUND_COLOUR = '#8d6e63';

/** Round 0 green, 1 yellow, 2 orange, 3 red, 4 purple, 5 blue, ... 9 indigo; 10 and above brown. */
export function roundColour(round: number): string {
  return ROUND_COLOURS[round] ?? HIGH_ROUND_COLOUR;
}

/** How strongly a fault's hatching covers its lane (a crash hides the lane; a partition only tints it). */
export const FAULT_OPACITY: Record<string, number> = { crash: 0.55, pause: 0.45, byzantine: 0.45, partition: 0.3, clog: 0.35, 'clock-skew': 0.3 };

export const PHASE_COLOURS: Record<Phase, string> = {
  idle: '#eeeeee',
  'block-timer': '#b0bec5',
  proposing: '#42a5f5',
  'round-change': '#fb8c00',
  prepared: '#66bb6a',
  committed: '#1b5e20',
  down: '#424242',
};

export const PHASE_LABELS: Record<Phase, string> = {
  idle: 'idle',
  'block-timer': 'waiting for the block timer',
  proposing: 'round 0: proposal and prepares',
  'round-change': 'round > 0: round change and new proposal',
  prepared: 'prepared (commit sent)',
  committed: 'committed',
  down: 'down',
};

export const FAULT_COLOURS: Record<FaultKind, string> = {
  crash: '#212121',
  pause: '#1565c0',
  byzantine: '#c62828',
  partition: '#6a1b9a',
  clog: '#ef6c00',
  'clock-skew': '#00838f',
};

export const MESSAGE_COLOURS: Record<string, string> = {
  PROPOSAL: '#1565c0',
  PREPARE: '#2e7d32',
  COMMIT: '#1b5e20',
  ROUND_CHANGE: '#e65100',
};

export const OTHER_MESSAGE_COLOUR = '#9e9e9e';
export const DROPPED_MESSAGE_COLOUR = '#d32f2f';
