// Whether dist/ (the CLI compiled by `npm run build`) was built from the TypeScript sources as
// they are now. Plain JavaScript: bin/qbft-lab.js runs it before any TypeScript loader exists.
//
// The build records path, size and mtime of every compiled source and build config; dist/ is
// fresh while a stat walk of the same files gives the same list. Any edit, added, deleted or
// renamed file changes it, also one copied in with an older mtime. (No hash: loading node:crypto
// would cost more than the walk.)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Folders compiled into dist/ (tsconfig.build.json includes the same ones). */
export const SOURCE_DIRS = ['cli', 'node', 'sim', 'scenarios', 'reports'];
/** Sources at the top level (the library's entry point). */
export const SOURCE_FILES = ['index.ts'];
/** Files whose change alters the emitted JavaScript. */
export const BUILD_CONFIG_FILES = ['tsconfig.json', 'tsconfig.build.json'];
export const DIST_DIR = 'dist';
/** Written into the output folder after the compiler succeeded. */
export const STAMP_FILE = 'build-stamp.json';

// TypeScript and JavaScript modules (tsconfig.build.json has allowJs), not the tests.
function isCompiledSource(name) {
  return /\.[mc]?[jt]sx?$/.test(name) && !/\.test\.[mc]?[jt]sx?$/.test(name);
}

function collectSources(rootDir, relDir, out) {
  let entries;
  try {
    entries = readdirSync(join(rootDir, relDir), { withFileTypes: true });
  } catch (err) {
    if (err.code === 'ENOENT') return;
    throw err;
  }
  for (const entry of entries) {
    const rel = `${relDir}/${entry.name}`;
    if (entry.isDirectory()) collectSources(rootDir, rel, out);
    else if (isCompiledSource(entry.name)) out.push(rel);
  }
}

/** Stats the sources under `rootDir`: one "path size mtimeMs" line per file, and their newest mtime. */
export function sourceSnapshot(rootDir) {
  const files = [];
  for (const dir of SOURCE_DIRS) collectSources(rootDir, dir, files);
  files.push(...SOURCE_FILES);
  files.sort();
  const sources = [];
  let newestMtimeMs = 0;
  for (const rel of [...BUILD_CONFIG_FILES, ...files]) {
    let stat;
    try {
      stat = statSync(join(rootDir, rel));
    } catch (err) {
      if (err.code !== 'ENOENT') throw err;
      sources.push(`${rel} missing`);
      continue;
    }
    sources.push(`${rel} ${stat.size} ${stat.mtimeMs}`);
    if (stat.mtimeMs > newestMtimeMs) newestMtimeMs = stat.mtimeMs;
  }
  return { newestSourceMtime: new Date(newestMtimeMs).toISOString(), fileCount: files.length, sources };
}

/** True when two snapshots list the same files with the same sizes and mtimes. */
export function sameSources(a, b) {
  return Array.isArray(a?.sources) && Array.isArray(b?.sources) && a.sources.join('\n') === b.sources.join('\n');
}

/** The stamp of a build output folder, or undefined when there is none (never built, or building). */
export function readStamp(outDir) {
  try {
    return JSON.parse(readFileSync(join(outDir, STAMP_FILE), 'utf8'));
  } catch {
    return undefined;
  }
}

/** True when `rootDir`/dist/ holds a complete build of the sources as they are now. */
export function distIsFresh(rootDir) {
  const stamp = readStamp(join(rootDir, DIST_DIR));
  return stamp !== undefined && sameSources(stamp, sourceSnapshot(rootDir));
}
