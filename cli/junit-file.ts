/** Writes a `--junit FILE` report; a path that cannot be written is a usage error (exit 2) of one line. */
import { writeFileSync } from 'node:fs';
import { UsageError } from '../node/cli/usage-error.ts';

export function writeJUnitFile(file: string, text: string): void {
  try {
    writeFileSync(file, text);
  } catch (err) {
    throw new UsageError(`--junit: cannot write ${file}: ${(err as Error).message}`);
  }
}
