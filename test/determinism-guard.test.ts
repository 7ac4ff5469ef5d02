/**
 * The determinism rule, checked on the source: no wall clock, real timers or OS randomness
 * outside the live runtime, the CLI entry points and the benchmark helpers.
 */
import test from 'ava';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

const ALLOWED = [
  /^node\/runtime\/live-[\w-]+\.ts$/,
  /^node\/cli\//,
  /^cli\//,
  /^node\/rpc\/transports\//,
  /-bench\.ts$/,
  /^test\/bench\.ts$/,
  // Helpers of tests only (real sockets and timers for live-only code).
  /-test-kit\.ts$/,
];

const FORBIDDEN: Array<[string, RegExp]> = [
  ['Date', /\bDate\s*[.(]|\bnew\s+Date\b/],
  ['Math.random', /\bMath\.random\b/],
  ['setTimeout', /\bsetTimeout\b/],
  ['setInterval', /\bsetInterval\b/],
  ['performance.now', /\bperformance\.now\b/],
  ['process.hrtime', /\bprocess\.hrtime\b/],
  ['crypto.randomBytes', /\brandomBytes\b/],
  ['crypto.getRandomValues', /\bgetRandomValues\b/],
  ['randomUUID', /\brandomUUID\b/],
];

/** The simulator kernel drains microtasks with one real setImmediate; nowhere else may use it. */
const SET_IMMEDIATE_ALLOWED = /^sim\/kernel\.ts$/;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name)) out.push(path);
  }
  return out;
}

function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

export function findViolations(rel: string, source: string): string[] {
  if (ALLOWED.some((re) => re.test(rel))) return [];
  const code = stripComments(source);
  const found: string[] = [];
  for (const [name, re] of FORBIDDEN) if (re.test(code)) found.push(`${rel}: ${name}`);
  if (/\bsetImmediate\b/.test(code) && !SET_IMMEDIATE_ALLOWED.test(rel)) found.push(`${rel}: setImmediate`);
  return found;
}

test('no wall clock, real timers or OS randomness outside the live runtime', (t) => {
  const files = ['node', 'sim', 'scenarios', 'reports', 'cli'].filter((d) => existsSync(join(root, d))).flatMap((d) => sourceFiles(join(root, d)));
  t.true(files.length > 10, 'the scan found the source tree');
  const violations = files.flatMap((f) => findViolations(relative(root, f), readFileSync(f, 'utf8')));
  t.deepEqual(violations, []);
});

test('the guard catches each forbidden call', (t) => {
  for (const snippet of ['Date.now()', 'new Date()', 'Math.random()', 'setTimeout(f, 1)', 'setInterval(f, 1)', 'performance.now()', 'process.hrtime()', 'crypto.randomBytes(8)', 'setImmediate(f)']) {
    t.true(findViolations('node/chain/x.ts', `const a = ${snippet};`).length > 0, snippet);
  }
  t.deepEqual(findViolations('node/chain/x.ts', '// Date.now() in a comment\nconst x = 1;'), []);
  t.deepEqual(findViolations('node/runtime/live-clock.ts', 'Date.now()'), []);
});
