/** The wall clock for the live node. */
import type { Clock } from './ports.ts';

export class LiveClock implements Clock {
  nowMs(): number {
    return Date.now();
  }
}
