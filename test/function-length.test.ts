/**
 * No function in node/, sim/ or reports/ spans more than MAX_FUNCTION_LINES lines, except those in
 * LONG_FUNCTIONS, each with its reason; and the checker itself, on planted sources.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, repoFiles } from './repo-files.ts';
import { findLongFunctions, formatLongFunction, MAX_FUNCTION_LINES, type LongFunction } from './function-length.ts';

const SCANNED_FOLDERS = ['node', 'sim', 'reports'];

/** The functions allowed to be long, each with why. An entry whose function is no longer long (or gone) fails the test. */
const LONG_FUNCTIONS: ReadonlyArray<{ file: string; name: string; reason: string }> = [
  { file: 'node/rpc/graphql/resolvers.ts', name: 'buildResolvers', reason: "the resolver table of Besu's GraphQL schema, type by type, over helpers sharing one NodeApi" },
  { file: 'node/rpc/methods/priv.ts', name: 'privMethods', reason: 'the priv_ method table: every spec shares the filters and subscriptions held in this closure' },
  { file: 'node/rpc/methods/trace.ts', name: 'traceMethods', reason: 'the trace_ method table: every spec shares the block replay and range limit held in this closure' },
  { file: 'node/rpc/transports/http1-fast.ts', name: 'installFastFrontEnd', reason: "the fast HTTP/1.1 front end's server, its handlers sharing the connection state held in this closure" },
];

const isScanned = (name: string) => /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith('.d.ts');

function repositoryLongFunctions(): { scanned: string[]; long: LongFunction[] } {
  const scanned = SCANNED_FOLDERS.flatMap((d) => repoFiles(d, isScanned));
  return { scanned, long: scanned.flatMap((file) => findLongFunctions(file, readFileSync(join(REPO_ROOT, file), 'utf8'))) };
}

const allowed = (f: LongFunction) => LONG_FUNCTIONS.some((a) => a.file === f.file && a.name === f.name);

test(`no function in node/, sim/ or reports/ spans more than ${MAX_FUNCTION_LINES} lines unless listed with a reason`, (t) => {
  const { scanned, long } = repositoryLongFunctions();
  t.true(scanned.length > 200, `the scan found the source tree (${scanned.length} files)`);
  for (const p of ['node/node.ts', 'sim/kernel.ts', 'reports/html.ts']) t.true(scanned.includes(p), p);
  t.false(scanned.some((p) => p.endsWith('.test.ts')), 'tests themselves are not scanned');
  const unlisted = long.filter((f) => !allowed(f)).map(formatLongFunction);
  t.deepEqual(unlisted, [], `split these, or list them in LONG_FUNCTIONS with a reason:\n${unlisted.join('\n')}`);
});

test('every listed long function is still long', (t) => {
  const { long } = repositoryLongFunctions();
  const stale = LONG_FUNCTIONS.filter((a) => !long.some((f) => f.file === a.file && f.name === a.name)).map((a) => `${a.file} ${a.name}`);
  t.deepEqual(stale, [], 'remove these from LONG_FUNCTIONS: they are short now, renamed or gone');
});

test('every listed long function has a reason, once', (t) => {
  for (const a of LONG_FUNCTIONS) t.true(a.reason.length > 20, `${a.file} ${a.name}`);
  const keys = LONG_FUNCTIONS.map((a) => `${a.file} ${a.name}`);
  t.deepEqual(keys, [...new Set(keys)]);
});

/** A function `name` whose body spans `lines` lines: `{`, lines - 2 statements, `}`. */
const planted = (head: string, lines: number) => `${head} {\n${'  x++;\n'.repeat(lines - 2)}}`;

test('a planted 121-line function is reported, a 120-line one is not', (t) => {
  const source = `let x = 0;\n${planted('function tooLong()', 121)}\n${planted('function justFits()', 120)}\n`;
  t.deepEqual(findLongFunctions('sim/planted.ts', source), [{ file: 'sim/planted.ts', line: 2, name: 'tooLong', lines: 121 }]);
});

test('every kind of function is measured and named by where it sits', (t) => {
  const source = [
    'let x = 0;',
    `export class Box {`,
    planted('  constructor()', 121),
    planted('  run()', 121),
    planted('  get size()', 121),
    planted('  set size(v: number)', 121),
    `}`,
    `const arrow = () =>${planted('', 121)};`,
    `const expr = function ()${planted('', 121)};`,
    `const table = { entry: () =>${planted('', 121)} };`,
    `test('x', () =>${planted('', 121)});`,
    `function outer() { return () =>${planted('', 121)}; }`,
    `const short = () => x;`,
  ].join('\n');
  const names = findLongFunctions('reports/planted.tsx', source).map((f) => f.name);
  t.deepEqual(names, [
    'Box.constructor',
    'Box.run',
    'Box.get size',
    'Box.set size',
    'arrow',
    'expr',
    'entry',
    '<callback of test>',
    'outer',
    'outer.<anonymous>',
  ]);
});

test('an expression-bodied arrow function counts its expression', (t) => {
  const body = `{\n${'  a: 1,\n'.repeat(119)}}`;
  t.deepEqual(findLongFunctions('sim/p.ts', `const big = () => (${body});\n`).map(formatLongFunction), ['sim/p.ts:1 big (121 lines)']);
  t.deepEqual(findLongFunctions('sim/p.ts', `const fits = () => (${body.replace('  a: 1,\n', '')});\n`), []);
});
