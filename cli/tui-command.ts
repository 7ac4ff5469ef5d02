/**
 * `qbft-lab tui <scenario|file.json|trace.jsonl> [--seed N]`: replays a run on virtual time in an
 * ink terminal UI (reports/tui); when stdout or stdin is not a terminal it prints the plain text
 * replay instead. The playback clock (setInterval) lives here, outside reports/.
 */
import { createElement as h } from 'react';
import { UsageError } from '../node/cli/usage-error.ts';
import { ReplayApp } from '../reports/tui/components/replay-app.ts';
import { plainReplay } from '../reports/tui/plain-replay.ts';
import { replayData } from '../reports/tui/replay-data.ts';
import type { Ticker } from '../reports/tui/ticker.ts';
import { timelineOf } from '../reports/trace-source.ts';
import type { Io } from './main.ts';
import { loadRun, parseSeedFlag } from './run-source.ts';

type Parse = (args: string[], options: Record<string, { type: 'string' | 'boolean' }>) => { values: Record<string, unknown>; positionals: string[] };

export const TUI_USAGE = 'qbft-lab tui <scenario|file.json|trace.jsonl> [--seed N]';

export interface Terminal {
  /** stdin and stdout are both terminals: run the interactive UI. */
  interactive: boolean;
  colour: boolean;
}

export function processTerminal(): Terminal {
  const interactive = process.stdout.isTTY === true && process.stdin.isTTY === true;
  return { interactive, colour: interactive && !process.env.NO_COLOR && process.env.TERM !== 'dumb' };
}

/** A playback clock on setInterval, measuring elapsed wall time with wallClock. */
export function intervalTicker(wallClock: () => number): Ticker {
  return {
    every(intervalMs, onTick) {
      let last = wallClock();
      const id = setInterval(() => {
        const now = wallClock();
        onTick(now - last);
        last = now;
      }, intervalMs);
      return () => clearInterval(id);
    },
  };
}

let pipeWatched = false;
let pipeClosed = false;

/** Writes to a closed pipe (`| head`) end the replay quietly. */
function watchBrokenPipe(): void {
  if (pipeWatched) return;
  pipeWatched = true;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    pipeClosed = true;
  });
}

export async function tuiCommand(args: string[], io: Io, parse: Parse, wallClock: () => number, terminal: Terminal = processTerminal()): Promise<number> {
  const { values, positionals } = parse(args, { seed: { type: 'string' } });
  if (positionals.length !== 1) throw new UsageError(`tui: give one scenario name, scenario .json file or .jsonl trace (usage: ${TUI_USAGE})`);
  const seed = parseSeedFlag(values.seed);
  if (terminal.interactive) io.err(`running ${positionals[0]}${seed !== undefined ? ` (seed ${seed})` : ''} ...`);
  const trace = await loadRun(positionals[0]!, seed, 'tui', wallClock);
  const data = replayData(timelineOf(trace));
  if (!terminal.interactive) {
    watchBrokenPipe();
    for (const chunk of plainReplay(data)) {
      if (pipeClosed || process.stdout.destroyed) break;
      io.out(chunk);
      // Let a broken pipe's error arrive before writing on.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return 0;
  }
  const { render } = await import('ink');
  const app = render(h(ReplayApp, { data, ticker: intervalTicker(wallClock), colour: terminal.colour }), { exitOnCtrlC: true });
  await app.waitUntilExit();
  return 0;
}
