/** `qbft-lab bugs list|check`: the known-bug corpus (sim/bugs/). */
import { performance } from 'node:perf_hooks';
import { UsageError } from '../node/cli/usage-error.ts';
import type { Io } from './main.ts';
import type { BugCheck } from '../sim/bugs/check.ts';
import type { KnownBug } from '../sim/bugs/known-bug.ts';
import type { JUnitCase } from '../reports/junit.ts';
import { writeJUnitFile } from './junit-file.ts';
import { formatTable } from './format.ts';
import { BESU_VERSIONS } from '../sim/bugs/version-names.ts';
import { OPTIONS, type Parse } from './command-options.ts';

export async function bugsCommand(args: string[], io: Io, parse: Parse): Promise<number> {
  const [sub, ...rest] = args;
  const { KNOWN_BUGS, findKnownBug } = await import('../sim/bugs/catalogue.ts');
  const { values, positionals } = parse(rest, OPTIONS['bugs check']);
  const junitFile = values.junit as string | undefined;
  switch (sub) {
    case 'list': {
      if (positionals.length > 0) throw new UsageError(`bugs list: unexpected argument '${positionals[0]}'`);
      if (junitFile !== undefined) throw new UsageError('bugs list: --junit is for bugs check');
      const { versionsAffected } = await import('../sim/bugs/versions.ts');
      const rows = KNOWN_BUGS.map((b) => ({
        id: b.id,
        title: b.title,
        link: b.link,
        scenario: b.scenario.name,
        symptom: b.symptom,
        caughtBy: b.caughtBy,
        rootCause: b.rootCause,
        versions: versionsAffected(b),
        affected: b.affected,
        faithful: b.fidelity.faithful,
        ...(b.fidelity.faithful ? {} : { standInBecause: b.fidelity.why }),
      }));
      if (values.json) io.out(JSON.stringify(rows));
      else io.out(listText(rows));
      return 0;
    }
    case 'check': {
      const bugs = positionals.length === 0 ? KNOWN_BUGS : positionals.map((id) => findKnownBug(id) ?? fail(id, KNOWN_BUGS.map((b) => b.id)));
      const { checkKnownBug } = await import('../sim/bugs/check.ts');
      // Truncated before the runs: a bad path fails at once, and a crash leaves no stale report behind.
      if (junitFile !== undefined) writeJUnitFile(junitFile, '');
      const results = [];
      const cases: JUnitCase[] = [];
      for (const bug of bugs) {
        const startMs = performance.now();
        const r = await checkKnownBug(bug);
        results.push(r);
        cases.push(bugCase(bug, r, (performance.now() - startMs) / 1000));
        if (!values.json) {
          io.out(`${r.ok ? 'ok  ' : 'FAIL'} ${r.id.padEnd(11)} switch off: ${r.passesWithout ? 'passes' : 'FAILS'}; switch on: ${r.failsWith ? `fails, caught by ${r.checkers.join(', ') || 'expectations only'} (${r.symptom.join('; ')})` : 'PASSES'}`);
          for (const p of r.problems) io.out(`       without the switch: ${p}`);
        }
      }
      const passed = results.filter((r) => r.ok).length;
      if (junitFile !== undefined) {
        const { junitXml } = await import('../reports/junit.ts');
        writeJUnitFile(junitFile, junitXml([{ name: 'qbft-lab bugs check', cases }]));
      }
      if (values.json) io.out(JSON.stringify({ passed, total: results.length, bugs: results }));
      else io.out(`bugs check: ${passed} of ${results.length} bugs shown (their scenario fails with the switch on and passes with it off)`);
      return passed === results.length ? 0 : 1;
    }
    default:
      throw new UsageError(`bugs: unknown subcommand '${sub ?? ''}' (list or check)`);
  }
}

function fail(id: string, known: string[]): never {
  throw new UsageError(`bugs check: no known bug '${id}' (${known.join(', ')})`);
}

/** A bug's case passes when the check does: its scenario fails with the switch on, caught as expected, and passes with it off. */
export function bugCase(bug: KnownBug, r: BugCheck, timeSeconds: number): JUnitCase {
  const caught = `switch on: ${r.failsWith ? `fails, caught by ${r.checkers.join(', ') || 'expectations only'}` : 'passes'}`;
  const systemOut = [`switch off: ${r.passesWithout ? 'passes' : 'fails'}`, caught, ...r.symptom.map((s) => `  ${s}`)].join('\n');
  const junitCase: JUnitCase = { name: r.id, classname: 'qbft-lab.bugs', timeSeconds, systemOut };
  if (r.ok) return junitCase;
  const why: string[] = [];
  if (!r.passesWithout) why.push(`fails with the switch off (${r.problems.join('; ')})`);
  if (!r.failsWith) why.push('passes with the switch on');
  const missed = bug.caughtBy.filter((c) => !r.checkers.includes(c));
  if (r.failsWith && missed.length > 0) why.push(`not caught by ${missed.join(', ')}`);
  junitCase.failure = { message: `${bug.scenario.name}: ${why.join('; ')}`, details: `${bug.title}\n${bug.link}\n${systemOut}` };
  return junitCase;
}

type ListRow = { id: string; symptom: string; title: string; link: string; caughtBy: readonly string[]; versions: string[]; affected: { since: string; fixedIn?: string }; faithful: boolean; standInBecause?: string };

/** Release lines in BESU_VERSIONS order, runs of three or more written A..B, so the column stays narrow. */
function releaseLines(versions: string[]): string {
  const index = versions.map((v) => (BESU_VERSIONS as readonly string[]).indexOf(v)).sort((a, b) => a - b);
  const runs: number[][] = [];
  for (const i of index) {
    const last = runs.at(-1);
    if (last && last.at(-1) === i - 1) last.push(i);
    else runs.push([i]);
  }
  const text = runs.map((run) => (run.length >= 3 ? `${BESU_VERSIONS[run[0]!]}..${BESU_VERSIONS[run.at(-1)!]}` : run.map((i) => BESU_VERSIONS[i]).join(', ')));
  return text.join(', ') || '-';
}

/** The corpus as a table (the long title last, so it cannot push the columns apart), then each bug's link and why a stand-in is one. */
function listText(rows: ListRow[]): string {
  const table = formatTable([
    ['id', 'symptom', 'caught by', 'fixed in', 'release lines', 'fidelity', 'title'],
    ...rows.map((r) => [r.id, r.symptom, r.caughtBy.join(', '), r.affected.fixedIn ?? 'not fixed', releaseLines(r.versions), r.faithful ? 'faithful' : 'stand-in', r.title]),
  ]);
  const width = Math.max(...rows.map((r) => r.id.length));
  const notes = rows.flatMap((r) => [`  ${r.id.padEnd(width)}  ${r.link}`, ...(r.standInBecause ? [`  ${' '.repeat(width)}  stand-in: ${r.standInBecause}`] : [])]);
  return [
    table,
    '',
    "release lines: the --besu-version lines that have the bug (A..B: every line from A to B; '-': none of those modelled)",
    'links, and why a stand-in approximates its bug:',
    ...notes,
    '',
    "'qbft-lab bugs check ID' shows a bug's scenario failing with its switch on and passing with it off; 'qbft-lab fuzz --bug ID' hunts it.",
  ].join('\n');
}
