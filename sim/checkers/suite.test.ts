/** The checkers wired into a run: what a violation adds to the trace and the reports, and what a passing run keeps. */
import test from 'ava';
import { findScenario } from '../../scenarios/index.ts';
import { renderMarkdown } from '../../reports/markdown.ts';
import { summarize } from '../../reports/summary.ts';
import { buildTimeline } from '../run-model/timeline.ts';
import { runScenario } from '../scenario-runner.ts';
import type { TraceLine } from '../trace.ts';
import type { World } from '../world.ts';
import { CHECKER_NAMES } from './violation.ts';

async function tracedRun(name: string, overrides: Record<string, unknown>, plant?: (w: World) => void) {
  let world: World | undefined;
  const result = await runScenario({ ...findScenario(name)!, ...overrides }, {
    keepTrace: true,
    onWorld: (w) => {
      world = w;
      plant?.(w);
    },
  });
  const lines = world!.trace.lines().map((l) => JSON.parse(l) as TraceLine);
  return { result, lines };
}

test('a passing run: no invariant-violated line, and run-finished has the fields it always had', async (t) => {
  const { result, lines } = await tracedRun('happy-path', { durationMs: 6_000, expect: [] });
  t.true(result.ok);
  t.deepEqual(result.violations, []);
  t.is(lines.filter((l) => l.kind === 'invariant-violated').length, 0);
  const finished = lines[lines.length - 1]!;
  t.deepEqual(Object.keys(finished), ['t', 'node', 'kind', 'ok', 'height', 'roundChanges', 'maxRound', 'invariants', 'expectations', 'errors']);
  t.deepEqual(Object.keys(result.invariants), ['agreement', 'validity', 'liveness']);
});

test('a violation adds one invariant-violated line per broken invariant, the verdict lists them, the report shows the first', async (t) => {
  const { result, lines } = await tracedRun('happy-path', { durationMs: 8_000, expect: [] }, (w) => w.at(0, 'plant', () => w.setByzantine('v1', 'equivocate')));
  t.false(result.ok);
  const violated = lines.filter((l) => l.kind === 'invariant-violated');
  t.true(violated.length >= 1);
  t.is(new Set(violated.map((l) => l.checker)).size, violated.length, 'one line per checker');
  for (const l of violated) t.true((CHECKER_NAMES as readonly unknown[]).includes(l.checker));
  t.is(violated[0]!.checker, 'honest-non-equivocation');
  const finished = lines[lines.length - 1]!;
  t.is(finished.kind, 'run-finished');
  t.deepEqual(finished.kind === 'run-finished' ? finished.violations?.map((v) => v.checker) : undefined, result.violations.map((v) => v.checker));
  const summary = summarize(buildTimeline(lines));
  const fact = summary.facts.find(([k]) => k === 'first violation');
  t.truthy(fact);
  t.regex(fact![1], /^honest-non-equivocation on v1 at height 1, round 0, [\d.]+ s into the run: v1 signed two different/);
  t.regex(renderMarkdown(buildTimeline(lines)), /\| first violation \| honest-non-equivocation on v1 at height 1, round 0, /);
});

test('an expected fork leaves the trace without violation lines and the run passing', async (t) => {
  const { result, lines } = await tracedRun('twins-fork', {});
  t.true(result.ok);
  t.false(result.invariants.agreement);
  t.is(result.violations[0]!.checker, 'agreement');
  t.is(lines.filter((l) => l.kind === 'invariant-violated').length, 0);
  t.false('violations' in lines[lines.length - 1]!);
});
