/**
 * A user's clone has only this repository: no source or test may read a path outside it
 * (the sibling folder of shared notes and vectors, an absolute /work path) or fetch data at test time.
 */
import test from 'ava';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const SCANNED = /\.(ts|tsx|js|mjs|cjs|json|sh)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'vectors', 'docs', 'dist']);

export const OUTSIDE_PATTERNS: Array<[string, RegExp]> = [
  ['a path into the sibling shared folder', new RegExp('(\\.\\./)+' + 'sha' + 'red/')],
  ['an absolute /work path', /['"`]\/work\//],
];

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.') || SKIPPED_DIRS.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...files(path));
    else if (SCANNED.test(name) && name !== 'package-lock.json') out.push(path);
  }
  return out;
}

export function outsideReads(rel: string, text: string): string[] {
  return OUTSIDE_PATTERNS.filter(([, re]) => re.test(text)).map(([what]) => `${rel}: ${what}`);
}

test('no file of the repository reads outside it', (t) => {
  const found = files(root).flatMap((path) => outsideReads(relative(root, path), readFileSync(path, 'utf8')));
  t.deepEqual(found, []);
});

test('the boundary check catches a planted read of the sibling shared folder and of /work', (t) => {
  // Assembled from pieces so that this file itself does not match.
  const sharedRead = "readFileSync(new URL('../../../" + "shared/vectors/a.json', import.meta.url))";
  const absoluteRead = "const DIR = '/" + "work/" + "sha" + "red/vectors';";
  t.deepEqual(outsideReads('x.test.ts', sharedRead), ['x.test.ts: a path into the sibling shared folder']);
  t.deepEqual(outsideReads('y.test.ts', absoluteRead), ['y.test.ts: an absolute /work path']);
  t.deepEqual(outsideReads('z.ts', "new URL('../vectors/besu-spec/', import.meta.url)"), []);
});
