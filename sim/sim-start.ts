/** Virtual time 0 of every simulated run, and how times are shown to users (no dependencies: the scenario validator reads it). */
export const SIM_START_TIME_MS = 1_700_000_000_000;

/** Virtual ms since the start as seconds for people: 1000 -> "1 s", 1716 -> "1.716 s". */
export function seconds(msFromStart: number): string {
  return `${Number((msFromStart / 1000).toFixed(3))} s`;
}

/** An absolute virtual clock reading as seconds from the start (the kernel's clock starts at SIM_START_TIME_MS). */
export function secondsFromStart(absoluteMs: number): string {
  return seconds(absoluteMs - SIM_START_TIME_MS);
}
