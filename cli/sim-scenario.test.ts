/** `sim` flags turned into a scenario. */
import test from 'ava';
import { HOSTILE_BEHAVIOURS } from '../sim/byzantine/names.ts';
import { simScenario } from './sim-scenario.ts';

test('--byzantine takes every hostile behaviour, and twin', (t) => {
  for (const behaviour of HOSTILE_BEHAVIOURS) {
    const s = simScenario({ validators: '4', byzantine: [`v3:${behaviour}`] });
    t.deepEqual(s.steps.filter((st) => st.do === 'byzantine'), [{ atMs: 0, do: 'byzantine', node: 'v3', behaviour }], behaviour);
  }
  t.deepEqual(simScenario({ validators: '4', byzantine: ['v1:twin'] }).twins, ['v1']);
});

test('--byzantine refuses an unknown behaviour and none, naming the choices', (t) => {
  for (const spec of ['v1:evil', 'v1:none', 'v1']) {
    t.throws(() => simScenario({ validators: '4', byzantine: [spec] }), { message: /--byzantine: .* must be vI:BEHAVIOUR with BEHAVIOUR one of equivocate, .*round-change-flood.* or twin/ }, spec);
  }
});
