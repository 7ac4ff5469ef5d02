import test from 'ava';
import { BUG_IDS, bugSwitches } from '../../node/bugs/bug-switches.ts';
import { validateScenario } from '../scenario.ts';
import { KNOWN_BUGS } from './catalogue.ts';
import { switchOf } from './known-bug.ts';
import { checkKnownBug } from './check.ts';

test('every catalogue entry names a switch, once, with a link and a valid scenario that lists no switch itself', (t) => {
  const ids = KNOWN_BUGS.map((b) => b.id);
  t.is(new Set(ids).size, ids.length);
  for (const bug of KNOWN_BUGS) {
    t.true((BUG_IDS as readonly string[]).includes(switchOf(bug)), bug.id);
    if (bug.switchId) t.true(KNOWN_BUGS.some((other) => other.id === bug.switchId), `${bug.id} shares the switch of a corpus entry`);
    t.regex(bug.link, /^https:\/\/github\.com\//);
    t.notThrows(() => validateScenario(JSON.parse(JSON.stringify(bug.scenario)), bug.id));
    t.is(bug.scenario.bugs, undefined, `${bug.id}: the check adds the switch`);
  }
});

test('every switch has its own corpus entry', (t) => {
  for (const id of BUG_IDS) t.truthy(KNOWN_BUGS.find((b) => b.id === id), id);
});

test('unknown bug ids are refused', (t) => {
  t.throws(() => bugSwitches(['besu-0']), { message: /unknown bug id "besu-0"/ });
  t.throws(() => validateScenario({ name: 'x', description: '', validators: 4, durationMs: 1000, steps: [], expect: [], bugs: ['nope'] }), { message: /bugs must be an array of bug ids/ });
});

for (const bug of KNOWN_BUGS) {
  test(`bugs check ${bug.id}: its scenario passes with the switch off and fails with it on`, async (t) => {
    const r = await checkKnownBug(bug);
    t.deepEqual(r.problems, [], 'passes with the switch off');
    t.true(r.failsWith, 'fails with the switch on');
    for (const checker of bug.caughtBy) t.true(r.checkers.includes(checker), `${checker} reports it`);
  });
}
