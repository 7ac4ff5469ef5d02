import test from 'ava';
import { validateScenario } from './scenario.ts';
import { runTwins, selectedIndices, twinsCases, withinFaultModel } from './twins.ts';

test('the enumeration: partitions split every twinned key, leaders and slot lengths vary, cases are distinct valid scenarios', (t) => {
  const { total, cases } = twinsCases({ maxCases: 60 });
  // Per slot: 2^3 sides of the honest nodes + no partition, 3 leader choices, 2 lengths; 2 slots.
  t.is(total, (9 * 3 * 2) ** 2);
  t.is(cases.length, 60);
  t.is(new Set(cases.map((c) => c.index)).size, 60);
  const seen = { partitioned: 0, connected: 0, leaders: new Set<string>(), lengths: new Set<number>() };
  for (const c of cases) {
    t.deepEqual(validateScenario(JSON.parse(JSON.stringify(c.scenario))), c.scenario);
    t.deepEqual(c.scenario.twins, ['v3']);
    t.is(c.slots.length, 2);
    for (const slot of c.slots) {
      if (slot.sides) seen.partitioned++;
      else seen.connected++;
      seen.leaders.add(slot.leaders.join());
      seen.lengths.add(slot.lengthMs);
    }
    for (const st of c.scenario.steps) {
      if (st.do !== 'partition') continue;
      const [a, b] = st.groups;
      t.true(a.includes('v3') && b.includes('v3-twin'), 'the two copies of the twinned key are on different sides');
      t.is(a.length + b.length, 5);
    }
  }
  t.true(seen.partitioned > 0 && seen.connected > 0);
  t.deepEqual([...seen.leaders].sort(), ['both', 'original', 'twin']);
  t.deepEqual([...seen.lengths].sort((x, y) => x - y), [800, 2_500]);
  // The selection spreads over the whole space with a step coprime to it (no repeats, no aliasing).
  const picked = selectedIndices(total, 60);
  t.true(picked.every((i) => i >= 0 && i < total));
  t.deepEqual(selectedIndices(10, 60), [...Array(10).keys()]);
  t.deepEqual(twinsCases({ maxCases: 60, slice: { start: 5, count: 3 } }).cases.map((c) => c.index), picked.slice(5, 8));
  t.throws(() => twinsCases({ twins: ['v9'] }), { message: /not one of/ });
});

test('one twinned key of four (f = 1): honest validators agree under every schedule of a slice', async (t) => {
  t.true(withinFaultModel({ validators: 4, twins: ['v3'] }));
  const report = await runTwins({ maxCases: 1_000, slice: { start: 0, count: 8 } });
  t.is(report.total, 2916);
  t.is(report.cases, 8);
  for (const f of report.failures) t.log(`case ${f.index}: ${f.reason}\n${f.scenario.description}`);
  t.deepEqual(report.failures, []);
});

test('negative control: two twinned keys of four (f + 1) break agreement in some schedule', async (t) => {
  t.false(withinFaultModel({ validators: 4, twins: ['v2', 'v3'] }));
  const seen: number[] = [];
  const report = await runTwins({ twins: ['v2', 'v3'], slots: 1, maxCases: 1_000, slice: { start: 0, count: 4 }, onCase: (c) => seen.push(c.index) });
  t.is(report.cases, 4);
  t.is(seen.length, 4);
  t.true(report.failures.length > 0, 'some schedule forks the honest validators');
  for (const f of report.failures) {
    t.regex(f.reason, /agreement/);
    t.false(f.result!.invariants.agreement);
  }
});
