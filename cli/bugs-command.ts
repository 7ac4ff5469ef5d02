/** `qbft-lab bugs list|check`: the known-bug corpus (sim/bugs/). */
import { UsageError } from '../node/cli/usage-error.ts';
import type { Io } from './main.ts';

type Parse = (args: string[], options: Record<string, { type: 'string' | 'boolean' }>) => { values: Record<string, unknown>; positionals: string[] };

export async function bugsCommand(args: string[], io: Io, parse: Parse): Promise<number> {
  const [sub, ...rest] = args;
  const { KNOWN_BUGS, findKnownBug } = await import('../sim/bugs/catalogue.ts');
  const { values, positionals } = parse(rest, { json: { type: 'boolean' } });
  switch (sub) {
    case 'list': {
      if (positionals.length > 0) throw new UsageError(`bugs list: unexpected argument '${positionals[0]}'`);
      const rows = KNOWN_BUGS.map((b) => ({ id: b.id, title: b.title, link: b.link, scenario: b.scenario.name, symptom: b.symptom, caughtBy: b.caughtBy, rootCause: b.rootCause }));
      if (values.json) io.out(JSON.stringify(rows));
      else for (const r of rows) io.out(`${r.id.padEnd(11)} ${r.symptom.padEnd(24)} ${r.title}\n            ${r.link}`);
      return 0;
    }
    case 'check': {
      const bugs = positionals.length === 0 ? KNOWN_BUGS : positionals.map((id) => findKnownBug(id) ?? fail(id, KNOWN_BUGS.map((b) => b.id)));
      const { checkKnownBug } = await import('../sim/bugs/check.ts');
      const results = [];
      for (const bug of bugs) {
        const r = await checkKnownBug(bug);
        results.push(r);
        if (!values.json) {
          io.out(`${r.ok ? 'ok  ' : 'FAIL'} ${r.id.padEnd(11)} switch off: ${r.passesWithout ? 'passes' : 'FAILS'}; switch on: ${r.failsWith ? `fails, caught by ${r.checkers.join(', ') || 'expectations only'} (${r.symptom.join('; ')})` : 'PASSES'}`);
          for (const p of r.problems) io.out(`       without the switch: ${p}`);
        }
      }
      const passed = results.filter((r) => r.ok).length;
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
