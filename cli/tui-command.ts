/**
 * `qbft-lab tui <scenario|file.json|trace.jsonl> [--seed N] [--besu-version V]`: replays a run on virtual time in an
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
import { parseBesuVersion } from './besu-version.ts';
import { replayCommandLines } from './failure-lines.ts';
import { isTraceFile, loadRun, parseSeedFlag } from './run-source.ts';
import { OPTIONS, type Parse } from './command-options.ts';

export const TUI_USAGE = 'qbft-lab tui <scenario|file.json|trace.jsonl> [--seed N] [--besu-version V]';

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
  const { values, positionals } = parse(args, OPTIONS.tui);
  if (positionals.length !== 1) throw new UsageError(`tui: give one scenario name, scenario .json file or .jsonl trace (usage: ${TUI_USAGE})`);
  const seed = parseSeedFlag(values.seed);
  const besuVersion = parseBesuVersion(values['besu-version']);
  const ref = positionals[0]!;
  if (terminal.interactive) io.err(`running ${ref}${seed !== undefined ? ` (seed ${seed})` : ''} ...`);
  const trace = await loadRun(ref, seed, 'tui', wallClock, besuVersion);
  const data = replayData(timelineOf(trace));
  const commands = replayCommandLines(isTraceFile(ref) ? { kind: 'trace', file: ref } : { kind: 'scenario', ref }, data.timeline.run);
  if (!terminal.interactive) {
    watchBrokenPipe();
    for (const chunk of plainReplay(data)) {
      if (pipeClosed || process.stdout.destroyed) break;
      io.out(chunk);
      // Let a broken pipe's error arrive before writing on.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (commands.length > 0 && !pipeClosed) io.out(['', ...commands].join('\n'));
    return 0;
  }
  const { render } = await import('ink');
  const app = render(h(ReplayApp, { data, ticker: intervalTicker(wallClock), colour: terminal.colour }), { exitOnCtrlC: true });
  await app.waitUntilExit();
  if (commands.length > 0) io.out(commands.join('\n'));
  return 0;
}
