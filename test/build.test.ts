/**
 * The compiled CLI (`npm run build` -> dist/) and how bin/qbft-lab.js picks it: the compiled CLI
 * prints what the TypeScript sources print, starts its `network` nodes from dist/ too, and the
 * entry point falls back to tsx, with a note, as soon as a source differs from the build.
 */
import test, { type ExecutionContext } from 'ava';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILD_CONFIG_FILES, DIST_DIR, SOURCE_DIRS, SOURCE_FILES, STAMP_FILE, distIsFresh, readStamp, sameSources, sourceSnapshot } from '../bin/dist-freshness.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STALE_NOTE = /^qbft-lab: dist\/ is missing or older than the sources/;

/** A scratch folder inside the repository (.tmp/ is git-ignored), so that node_modules resolves. */
function scratchDir(t: ExecutionContext, prefix: string): string {
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, '.tmp', prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs node with `args`; asynchronous, so that a slow child does not stall the other tests' timers. */
function run(args: string[], options: { cwd?: string; timeoutMs?: number } = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { cwd: options.cwd ?? ROOT, encoding: 'utf8', timeout: options.timeoutMs ?? 60_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') reject(new Error(`${args.join(' ')}: ${err.message}\n${stderr}`));
      else resolve({ status: err ? (err.code as number) : 0, stdout, stderr });
    });
  });
}

function writeStamp(rootDir: string): void {
  mkdirSync(join(rootDir, DIST_DIR), { recursive: true });
  writeFileSync(join(rootDir, DIST_DIR, STAMP_FILE), JSON.stringify(sourceSnapshot(rootDir)));
}

test('dist/ is fresh until a compiled source or build config is edited, added, removed or re-dated; tests do not count', (t) => {
  const root = scratchDir(t, 'freshness-');
  mkdirSync(join(root, 'cli/sub'), { recursive: true });
  writeFileSync(join(root, 'cli/main.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'cli/sub/helper.ts'), 'export const b = 2;\n');
  writeFileSync(join(root, 'tsconfig.json'), '{}\n');
  t.false(distIsFresh(root), 'never built');
  writeStamp(root);
  t.true(distIsFresh(root));

  writeFileSync(join(root, 'cli/main.test.ts'), 'test file\n');
  t.true(distIsFresh(root), 'a test file is not compiled');

  writeFileSync(join(root, 'cli/sub/helper.ts'), 'export const b = 22;\n');
  t.false(distIsFresh(root), 'edited');
  writeStamp(root);
  writeFileSync(join(root, 'node-added.ts'), 'outside the source folders\n');
  t.true(distIsFresh(root));

  mkdirSync(join(root, 'sim'));
  writeFileSync(join(root, 'sim/new.ts'), 'export {};\n');
  t.false(distIsFresh(root), 'added');
  writeStamp(root);
  rmSync(join(root, 'sim/new.ts'));
  t.false(distIsFresh(root), 'removed');
  writeStamp(root);

  utimesSync(join(root, 'cli/main.ts'), new Date('2001-01-01'), new Date('2001-01-01'));
  t.false(distIsFresh(root), 'same content copied in with an older mtime');
  writeStamp(root);
  writeFileSync(join(root, 'tsconfig.json'), '{ "compilerOptions": {} }\n');
  t.false(distIsFresh(root), 'build config edited');

  writeStamp(root);
  writeFileSync(join(root, DIST_DIR, STAMP_FILE), '{ "sources": ');
  t.false(distIsFresh(root), 'a torn stamp is no build');
});

test('bin/qbft-lab.js runs dist/ when fresh, else the sources through tsx with a one-line note', async (t) => {
  const root = scratchDir(t, 'entry-');
  mkdirSync(join(root, 'bin'));
  for (const file of ['qbft-lab.js', 'dist-freshness.js']) cpSync(join(ROOT, 'bin', file), join(root, 'bin', file));
  mkdirSync(join(root, 'cli'));
  // Type annotations: only the tsx path can load this file.
  writeFileSync(join(root, 'cli/main.ts'), "export async function main(args: string[]): Promise<number> { console.log('sources', args.join(' ')); return 3; }\n");
  mkdirSync(join(root, 'dist/cli'), { recursive: true });
  writeFileSync(join(root, 'dist/cli/main.js'), "export async function main(args) { console.log('dist', args.join(' ')); return 4; }\n");
  const bin = join(root, 'bin/qbft-lab.js');

  const missing = await run([bin, 'a', 'b']);
  t.is(missing.stdout, 'sources a b\n');
  t.is(missing.status, 3);
  t.regex(missing.stderr, STALE_NOTE);
  t.is(missing.stderr.trim().split('\n').length, 1);

  writeStamp(root);
  const fresh = await run([bin, 'a', 'b']);
  t.is(fresh.stdout, 'dist a b\n');
  t.is(fresh.status, 4);
  t.is(fresh.stderr, '');

  writeFileSync(join(root, 'cli/main.ts'), readFileSync(join(root, 'cli/main.ts'), 'utf8') + '// edited\n');
  const stale = await run([bin, 'x']);
  t.is(stale.stdout, 'sources x\n');
  t.regex(stale.stderr, STALE_NOTE);
});

/**
 * A copy of the package with the sources as they are now and the real bin/, so that a source
 * edited elsewhere meanwhile cannot change what is tested. dist/ is copied (and stamped for the
 * copy) when it was built from exactly the copied sources, else compiled in the copy (~10 s).
 */
async function packageCopy(t: ExecutionContext): Promise<string> {
  const root = scratchDir(t, 'package-');
  const sourcesBefore = sourceSnapshot(ROOT);
  for (const entry of [...SOURCE_DIRS, ...SOURCE_FILES, ...BUILD_CONFIG_FILES, 'bin', 'scripts', 'package.json']) {
    cpSync(join(ROOT, entry), join(root, entry), { recursive: true, filter: (src) => !src.endsWith('.test.ts') });
  }
  const builtFromCopied = sameSources(readStamp(join(ROOT, DIST_DIR)), sourcesBefore) && sameSources(sourceSnapshot(ROOT), sourcesBefore);
  if (builtFromCopied) {
    cpSync(join(ROOT, DIST_DIR), join(root, DIST_DIR), { recursive: true });
    writeStamp(root);
    t.log('dist/ is fresh: copied');
  } else {
    const build = await run([join(root, 'scripts/build-dist.js')], { cwd: root, timeoutMs: 120_000 });
    if (build.status !== 0) throw new Error(`build failed:\n${build.stdout}${build.stderr}`);
    t.log(build.stderr.trim());
  }
  return root;
}

test.serial('the compiled CLI prints what the sources print, its imports are rewritten to .js, and its network nodes start', async (t) => {
  const root = await packageCopy(t);
  const bin = join(root, 'bin/qbft-lab.js');
  t.true(distIsFresh(root));

  const emitted: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else emitted.push(join(dir, entry.name));
    }
  };
  walk(join(root, DIST_DIR));
  t.false(emitted.some((f) => /\.test\.(js|d\.ts)$|(?<!\.d)\.ts$/.test(f)), 'no tests and no TypeScript in dist/ (declarations aside)');
  t.true(emitted.includes(join(root, DIST_DIR, 'index.js')) && emitted.includes(join(root, DIST_DIR, 'index.d.ts')), 'the library entry point and its declarations');
  const tsSpecifiers = emitted.filter((f) => f.endsWith('.js') && /(from |import\()\s*["']\.{1,2}\/[^"']*\.tsx?["']/.test(readFileSync(f, 'utf8')));
  t.deepEqual(tsSpecifiers, [], 'relative imports point at .js');

  for (const args of [['help'], ['scenario', 'list']]) {
    const compiled = await run([bin, ...args]);
    const sources = await run(['--import', 'tsx', '--input-type=module', '-e', "const { main } = await import(process.argv[1]); process.exitCode = await main(process.argv.slice(2));", join(root, 'cli/main.ts'), ...args]);
    t.is(compiled.stderr, '', `${args.join(' ')}: no fallback note`);
    t.is(compiled.status, sources.status);
    t.is(compiled.stdout, sources.stdout, args.join(' '));
    t.true(compiled.stdout.length > 200);
  }

  // The validator process is spawned through bin/ from dist/cli/ (a path resolved from import.meta.url).
  const net = await run([bin, 'network', '--validators', '1', '--duration', '1', '--base-port', '0', '--data-path', join(root, 'net')], { timeoutMs: 90_000 });
  t.is(net.status, 0, net.stderr);
  // Printed once the node process has printed its endpoints and started line.
  t.regex(net.stdout, /v0 {2}0x[0-9a-f]{40} {2}pid \d+ {2}http:\/\/127\.0\.0\.1:\d+/);
});
