/** The repository's files as tests scan them: one walker for the architecture, function-length and lane tests. */
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Never scanned: dependencies, builds and test vectors (besides every folder whose name starts with a dot). */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set(['node_modules', 'dist', 'vectors']);

/**
 * The files under `dir` (a repository path; '.' for all of it) whose name `accept` takes, as
 * repository paths with '/' separators, skipping `skip` folders and dot-folders.
 */
export function repoFiles(dir: string, accept: (name: string) => boolean, skip: ReadonlySet<string> = SKIPPED_DIRS): string[] {
  const walk = (abs: string): string[] =>
    readdirSync(abs, { withFileTypes: true }).flatMap((e) => {
      if (e.name.startsWith('.')) return [];
      if (e.isDirectory()) return skip.has(e.name) ? [] : walk(join(abs, e.name));
      return accept(e.name) ? [relative(REPO_ROOT, join(abs, e.name)).split(sep).join('/')] : [];
    });
  return walk(join(REPO_ROOT, dir));
}
