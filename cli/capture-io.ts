/** An Io for tests: collects what a command writes to stdout and stderr, and serves a fixed stdin. */
import type { Io } from './main.ts';

export function captureIo(stdin = ''): Io & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    out(t: string) {
      io.stdout += t + '\n';
    },
    err(t: string) {
      io.stderr += t + '\n';
    },
    readStdin: () => stdin,
  };
  return io;
}
