/**
 * examples/qbft-lab-example, a project of its own that depends on qbft-lab by path, passes its
 * tests (node:test) and type-checks against the compiled `.d.ts` files, using only the public
 * entry point. The project is copied to a scratch folder with qbft-lab linked into its
 * node_modules, as `npm install` links a `file:` dependency; the package is the repository when
 * dist/ is fresh, else a scratch copy built from the sources now.
 */
import test from 'ava';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { distIsFresh } from '../bin/dist-freshness.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLE = join(ROOT, 'examples', 'qbft-lab-example');

function run(args: string[], cwd: string, timeoutMs = 240_000): Promise<{ status: number; output: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { cwd, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') reject(new Error(`${args.join(' ')}: ${err.message}\n${stderr}`));
      else resolve({ status: err ? (err.code as number) : 0, output: stdout + stderr });
    });
  });
}

async function packageDir(scratch: string): Promise<string> {
  if (distIsFresh(ROOT)) return ROOT;
  const pkg = join(scratch, 'qbft-lab');
  mkdirSync(pkg);
  writeFileSync(join(pkg, 'package.json'), readFileSync(join(ROOT, 'package.json')));
  const built = await run([join(ROOT, 'scripts', 'build-dist.js'), '--out-dir', join(pkg, 'dist')], ROOT);
  if (built.status !== 0) throw new Error(`build failed:\n${built.output}`);
  return pkg;
}

test('the example project runs its own scenarios, extensions and fuzz property through the public API', async (t) => {
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  const scratch = mkdtempSync(join(ROOT, '.tmp', 'example-'));
  t.teardown(() => rmSync(scratch, { recursive: true, force: true }));
  const project = join(scratch, 'project');
  cpSync(EXAMPLE, project, { recursive: true, filter: (src) => !src.includes('node_modules') });
  mkdirSync(join(project, 'node_modules'));
  symlinkSync(await packageDir(scratch), join(project, 'node_modules', 'qbft-lab'), 'dir');

  const tests = await run(['--import', 'tsx', '--test', 'test/own-scenarios.test.ts', 'test/fuzz-property.test.ts', 'test/message-level.test.ts'], project);
  t.is(tests.status, 0, tests.output);
  t.regex(tests.output, /# pass 7\b/);
  t.regex(tests.output, /# fail 0\b/);

  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const types = await run([tsc, '-p', project], project);
  t.is(types.status, 0, types.output);
});

test('the example imports nothing but the package entry point', (t) => {
  for (const file of ['test/own-scenarios.test.ts', 'test/fuzz-property.test.ts', 'test/message-level.test.ts', 'test/extensions.ts']) {
    const source = readFileSync(join(EXAMPLE, file), 'utf8');
    const specifiers = [...source.matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
    const outside = specifiers.filter((s) => !(s === 'qbft-lab' || s.startsWith('node:') || s.startsWith('./')));
    t.deepEqual(outside, [], file);
  }
});
