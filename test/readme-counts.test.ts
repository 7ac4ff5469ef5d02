/**
 * The numbers the README and docs/ state, held to the code: each sentence below must be there
 * (a rewrite that drops it fails too, so the check moves with the text) and every number it
 * states must be the code's. The README's two set-up commands stay at the top, as .ci/run and
 * readers expect them.
 */
import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { SCENARIOS } from '../scenarios/index.ts';
import { CHECKER_NAMES } from '../sim/checkers/violation.ts';
import { KNOWN_BUGS } from '../sim/bugs/catalogue.ts';
import { BESU_VERSIONS } from '../sim/bugs/version-names.ts';
import { VALIDATION_RULES } from '../node/consensus/qbft/rules.ts';
import { BESU_TEST_ACCOUNTS } from '../sim/keys.ts';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const README = read('README.md');
const files = (dir: string, suffix: string) => readdirSync(new URL(`../${dir}`, import.meta.url), { recursive: true }).map(String).filter((f) => f.endsWith(suffix));

const besuItTitles = files('test/besu-it', '.test.ts').flatMap((f) => [...read(`test/besu-it/${f}`).matchAll(/^test(?:\.serial)?\('([A-Za-z]+)\.[A-Za-z0-9_]+'/gm)].map((m) => m[1]!));

/** [document, a pattern whose (\d+) groups are the stated numbers, the numbers the code gives]. */
const COUNTS: Array<[string, RegExp, number[]]> = [
  ['README.md', /\b(\d+) named scenarios\b/g, [SCENARIOS.length]],
  ['README.md', /\bThe (\d+) built-in scenarios\b/g, [SCENARIOS.length]],
  ['docs/scenarios.md', /\bThe (\d+) built-in scenarios\b/g, [SCENARIOS.length]],
  ['README.md', /\b(\d+) independent invariant checkers\b/g, [CHECKER_NAMES.length]],
  ['README.md', /\bjudged by (\d+) invariant checkers\b/g, [CHECKER_NAMES.length]],
  ['README.md', /\b(\d+) real (?:Besu )?QBFT\/IBFT bugs(?: of Besu)?(?: are)? re-introduced behind (\d+) switches/g, [KNOWN_BUGS.length, KNOWN_BUGS.filter((b) => !b.switchId).length]],
  ['README.md', /\b(\d+) Besu release lines\b/g, [BESU_VERSIONS.length]],
  ['README.md', /\bone of (\d+) Besu release lines\b/g, [BESU_VERSIONS.length]],
  ['README.md', /\bEach of the (\d+) validation rules\b/g, [VALIDATION_RULES.length]],
  ['docs/checkers-and-bugs.md', /\bof the (\d+) rule\s+switches\b/g, [VALIDATION_RULES.length]],
  ['docs/checkers-and-bugs.md', /\bevery one of the (\d+) rules\b/g, [VALIDATION_RULES.length]],
  ['README.md', /\bBesu's (\d+)\s+funded development accounts\b/g, [BESU_TEST_ACCOUNTS.length]],
  ['docs/besu-compatibility.md', /\bports all (\d+) test methods of Besu's qbft-core integration tests \((\d+) classes/g, [besuItTitles.length, new Set(besuItTitles).size]],
  ['docs/besu-compatibility.md', /\ball (\d+) pass\b/g, [besuItTitles.length]],
  ['docs/besu-compatibility.md', /\bruns the (\d+) JSON-RPC and (\d+) GraphQL cases\b/g, [files('test/vectors/besu-spec/eth', '.json').length, files('test/vectors/besu-spec/graphql', '.json').length]],
];

for (const [doc, pattern, expected] of COUNTS) {
  test(`${doc}: "${pattern.source}" states ${expected.join(', ')}`, (t) => {
    const text = read(doc).replace(/\s+/g, ' ');
    const found = [...text.matchAll(pattern)];
    t.true(found.length > 0, `${doc} no longer says ${pattern}: update the sentence or this test`);
    for (const m of found) t.deepEqual(m.slice(1).map(Number), expected, `${doc}: "${m[0]}"`);
  });
}

/** Rows of the Markdown table that follows `header` in `text`: the first cell of each. */
function firstColumn(text: string, header: string): string[] {
  const at = text.indexOf(header);
  if (at < 0) return [];
  const rows: string[] = [];
  for (const line of text.slice(at).split('\n').slice(2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split('|')[1]!.trim());
  }
  return rows;
}

test("the README's scenario table lists every built-in scenario, in `scenario list` order", (t) => {
  t.deepEqual(firstColumn(README, '| scenario | what it shows |'), SCENARIOS.map((s) => s.name));
});

test("the README names every checker; docs/checkers-and-bugs.md's table has a row for each", (t) => {
  const named = /message on the virtual network[^:]*: ([^.]+)\./.exec(README.replace(/\s+/g, ' '))?.[1];
  t.deepEqual(named?.split(/, (?:and )?| and /), [...CHECKER_NAMES]);
  t.deepEqual(firstColumn(read('docs/checkers-and-bugs.md'), '| checker | an honest node or the network must never... |'), [...CHECKER_NAMES]);
});

test("docs/checkers-and-bugs.md's corpus table has a row for each known bug", (t) => {
  t.deepEqual(firstColumn(read('docs/checkers-and-bugs.md'), '| id | bug | symptom | caught by |').sort(), KNOWN_BUGS.map((b) => b.id).sort());
});

test('the two set-up commands are at the top of the README, exactly', (t) => {
  const top = README.split('\n').slice(0, 15);
  t.true(top.some((l) => l.startsWith('npm ci && npm start ')), top.join('\n'));
  t.true(top.some((l) => l.startsWith('npm ci && npm test ')), top.join('\n'));
});

test("what the README says npm start runs is package.json's start script, and its block timing follows from it", (t) => {
  const start = (JSON.parse(read('package.json')) as { scripts: { start: string } }).scripts.start;
  t.true(README.includes(`\`npm start\` runs \`${start.replace('node bin/qbft-lab.js', 'qbft-lab')}\``), start);
  const emptySeconds = /--empty-block-period (\d+)/.exec(start)?.[1];
  t.truthy(emptySeconds);
  t.regex(README, new RegExp(`every ${emptySeconds} s when (?:the chain is )?idle`));
});

test('every relative link of the README and docs/ reaches a file (and a heading, when it names one)', (t) => {
  const docs = ['README.md', ...files('docs', '.md').filter((f) => !f.includes('/')).map((f) => `docs/${f}`)];
  const slug = (heading: string) => heading.toLowerCase().replace(/[`*]/g, '').replace(/[^a-z0-9 -]/g, '').trim().replace(/ /g, '-');
  for (const doc of docs) {
    const dir = doc.includes('/') ? doc.slice(0, doc.lastIndexOf('/') + 1) : '';
    for (const [, target] of read(doc).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [path, anchor] = target!.split('#');
      const resolved = new URL(`../${dir}${path}`, import.meta.url);
      let text: string;
      try {
        text = readFileSync(resolved, path!.endsWith('.md') ? 'utf8' : undefined).toString();
      } catch {
        t.fail(`${doc}: link ${target} reaches no file`);
        continue;
      }
      if (anchor) t.true([...text.matchAll(/^#+ (.+)$/gm)].some((m) => slug(m[1]!) === anchor), `${doc}: link ${target} names no heading`);
    }
  }
  t.pass();
});
