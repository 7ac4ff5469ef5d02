import test from 'ava';
import { SKIPPED_DIRS, repoFiles } from './repo-files.ts';

interface Lane {
  files: string[];
}
// Plain JavaScript config files (ava reads them): loaded by a computed name, so no typings are needed.
const load = async <T>(name: string): Promise<T> => ((await import(new URL(name, import.meta.url).href)) as { default: T }).default;
const fastLane = await load<Lane>('../ava.config.js');
const e2eLane = await load<Lane>('../ava.e2e.config.js');
const { E2E } = (await import(new URL('./lanes.js', import.meta.url).href)) as { E2E: string[] };

// examples/ is a project of its own: test/example-project.test.ts runs its tests.
const SKIP = new Set([...SKIPPED_DIRS, 'build', 'examples']);

/** The globs the lanes use: `**` (any folders), `*` (within a name). */
function globRegex(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*\//g, '\0').replace(/\*/g, '[^/]*').replace(/\0/g, '(?:.*/)?');
  return new RegExp(`^${body}$`);
}

const FILES = repoFiles('.', (name) => name.endsWith('.test.ts'), SKIP);
const matches = (glob: string) => FILES.filter((f) => globRegex(glob).test(f));

function lane(config: Lane): Set<string> {
  const out = new Set<string>();
  for (const glob of config.files.filter((g) => !g.startsWith('!'))) for (const f of matches(glob)) out.add(f);
  for (const glob of config.files.filter((g) => g.startsWith('!'))) for (const f of matches(glob.slice(1))) out.delete(f);
  return out;
}

test('every end-to-end glob names at least one test file, so a renamed file cannot slip into the fast lane', (t) => {
  for (const glob of E2E) t.true(matches(glob).length > 0, glob);
});

test('the lanes split the test files: none is in both, none in neither', (t) => {
  const fast = lane(fastLane);
  const e2e = lane(e2eLane);
  t.deepEqual([...fast].filter((f) => e2e.has(f)), []);
  t.deepEqual(FILES.filter((f) => !fast.has(f) && !e2e.has(f)), []);
  t.true(fast.has('sim/scenario.test.ts'));
  t.true(e2e.has('test/hardhat.test.ts'));
  t.true(e2e.has('reports/html.browser.test.ts'));
});
