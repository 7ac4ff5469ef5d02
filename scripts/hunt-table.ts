/**
 * Runs-to-find for many bug switches, one campaign each (what `qbft-lab fuzz --bug ID --runs N
 * --seed S --jobs J` does), printed as a Markdown table row per switch as it finishes.
 *
 *   node --import tsx scripts/hunt-table.ts [--runs 200] [--seed 1] [--jobs 2] [--max-shrink-runs 60] [--rules-only] [ID ...]
 *
 * Without ids: every planted skip-rule switch (and, unless --rules-only, the corpus entries and
 * the other planted switches). Failure files go to a temporary folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PLANTED_BUG_IDS } from '../node/bugs/bug-switches.ts';
import { huntOfBug, KNOWN_BUGS, plantedCaughtBy } from '../sim/bugs/catalogue.ts';
import { runFuzz } from '../sim/fuzz.ts';
import { workerCaseRunner } from '../cli/fuzz-workers.ts';

const { values, positionals } = parseArgs({
  options: { runs: { type: 'string', default: '200' }, seed: { type: 'string', default: '1' }, jobs: { type: 'string', default: '2' }, 'max-shrink-runs': { type: 'string', default: '60' }, 'rules-only': { type: 'boolean' } },
  allowPositionals: true,
});

function huntOf(id: string): { switches: string[]; checkers: string[] } {
  const hunt = huntOfBug(id);
  if (!hunt) throw new Error(`unknown bug id ${id}`);
  return hunt;
}

const skipRules = PLANTED_BUG_IDS.filter((id) => id.startsWith('plant-skip-'));
const ids = positionals.length > 0 ? positionals : values['rules-only'] ? skipRules : [...KNOWN_BUGS.map((b) => b.id), ...PLANTED_BUG_IDS.filter((id) => plantedCaughtBy(id).length > 0)];
const runs = Number(values.runs);
const dir = mkdtempSync(join(tmpdir(), 'hunt-table-'));
console.log(`| switch | runs to find (of ${runs}, seed ${values.seed}) | caught by |`);
console.log('|---|---|---|');
try {
  for (const id of ids) {
    const hunt = huntOf(id);
    const report = await runFuzz({
      runs,
      seed: Number(values.seed),
      bugs: hunt.switches,
      ...(hunt.checkers.length > 0 ? { expectedCheckers: hunt.checkers } : {}),
      stopAtFirstFailure: true,
      // Fewer shrinks only make the find's case larger; the runs to find stay the same.
      maxShrinkRuns: Number(values['max-shrink-runs']),
      failureDir: dir,
      runCases: workerCaseRunner(Number(values.jobs)),
    });
    const found = report.find ? String(report.runsToFind) : `not found in ${report.runs}`;
    console.log(`| ${id} | ${found} | ${report.find?.checker ?? hunt.checkers.join(', ')} |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
