/** Besu release lines: which known bugs each had, and runs that behave as one. */
import test from 'ava';
import { BESU_VERSIONS, bugsOfVersion, checkersOfVersion, switchesOfVersion, versionsAffected } from './versions.ts';
import { KNOWN_BUGS } from './catalogue.ts';
import { runScenario } from '../scenario-runner.ts';
import { validateScenario } from '../scenario.ts';
import { findScenario } from '../../scenarios/index.ts';

test('the release lines the issue names are modelled, oldest first, main last', (t) => {
  for (const v of ['21.1', '22.7', '23.10', '24.3', '24.7', '24.12', '25.2', '25.4', 'current']) t.true((BESU_VERSIONS as readonly string[]).includes(v), v);
  t.is(BESU_VERSIONS.at(-1), 'current');
});

test('current Besu has none of the corpus bugs; each bug affects the lines between its first release and its fix', (t) => {
  t.deepEqual(bugsOfVersion('current'), []);
  t.deepEqual(switchesOfVersion('24.3'), ['besu-10052', 'besu-6613', 'besu-7642', 'besu-8384', 'besu-9681', 'ghsa-23rh']);
  t.deepEqual(versionsAffected(KNOWN_BUGS.find((b) => b.id === 'besu-8307')!), ['24.12', '25.2']);
  // 21.1.6 fixed 2095: the 21.1 line (21.1.0) had it, 22.7 did not.
  t.deepEqual(versionsAffected(KNOWN_BUGS.find((b) => b.id === 'besu-2095')!), ['21.1']);
  t.true(checkersOfVersion('24.3').includes('honest-messages'));
});

test('every entry says which releases it affects and whether its switch is faithful (a stand-in says why)', (t) => {
  for (const b of KNOWN_BUGS) {
    t.truthy(b.affected.since, b.id);
    if (!b.fidelity.faithful) t.true(b.fidelity.why.length > 20, b.id);
  }
});

test('a scenario run as a release line switches its bugs on and records the line in the trace', async (t) => {
  const happy = findScenario('happy-path')!;
  let firstLine: () => string = () => '';
  const r = await runScenario({ ...happy, durationMs: 5_000, expect: [], besuVersion: '24.12' }, { keepTrace: true, onWorld: (w) => (firstLine = () => w.trace.lines()[0]!) });
  const line = JSON.parse(firstLine()) as Record<string, unknown>;
  t.is(line.besuVersion, '24.12');
  t.deepEqual(line.bugs, ['besu-8307', 'besu-8384', 'besu-9681', 'ghsa-23rh', 'besu-10052'].sort());
  t.true(r.height > 0);
});

test('a scenario file naming an unknown release line is refused with the known ones', (t) => {
  const err = t.throws(() => validateScenario({ name: 'x', description: '', validators: 4, durationMs: 1000, steps: [], expect: [], besuVersion: '9.9' }, 'x.json'));
  t.regex(err!.message, /besuVersion.*must be one of 20\.10, 21\.1/);
});
