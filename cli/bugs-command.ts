/** `qbft-lab bugs list|check`: the known-bug corpus (sim/bugs/). */
import { performance } from 'node:perf_hooks';
import { UsageError } from '../node/cli/usage-error.ts';
import type { Io } from './main.ts';
import type { BugCheck } from '../sim/bugs/check.ts';
import type { KnownBug } from '../sim/bugs/known-bug.ts';
import type { JUnitCase } from '../reports/junit.ts';
import { writeJUnitFile } from './junit-file.ts';

type Parse = (args: string[], options: Record<string, { type: 'string' | 'boolean' }>) => { values: Record<string, unknown>; positionals: string[] };

export async function bugsCommand(args: string[], io: Io, parse: Parse): Promise<number> {
  const [sub, ...rest] = args;
  const { KNOWN_BUGS, findKnownBug } = await import('../sim/bugs/catalogue.ts');
  const { values, positionals } = parse(rest, { json: { type: 'boolean' }, junit: { type: 'string' } });
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
      else for (const r of rows) io.out(listEntry(r));
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

function listEntry(r: { id: string; symptom: string; title: string; link: string; versions: string[]; affected: { since: string; fixedIn?: string }; faithful: boolean; standInBecause?: string }): string {
  const range = `${r.affected.fixedIn ? `fixed in ${r.affected.fixedIn}` : 'not fixed'}; release lines: ${r.versions.length > 0 ? r.versions.join(', ') : 'none of those modelled'}`;
  const fidelity = r.faithful ? 'faithful' : `stand-in: ${r.standInBecause}`;
  return `${r.id.padEnd(11)} ${r.symptom.padEnd(24)} ${r.title}\n            ${range}\n            ${fidelity}\n            ${r.link}`;
}
