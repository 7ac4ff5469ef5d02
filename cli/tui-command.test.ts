import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from './main.ts';
import { captureIo } from './capture-io.ts';
import { tuiCommand } from './tui-command.ts';

const capture = captureIo;

const parse = (args: string[]) => {
  const values: Record<string, unknown> = {};
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--seed') values.seed = args[++i];
    else positionals.push(args[i]!);
  }
  return { values, positionals };
};

test('tui without a terminal prints the plain replay: every lane at each key moment', async (t) => {
  const io = capture();
  t.is(await tuiCommand(['proposer-crash'], io, parse, () => 0, { interactive: false, colour: false }), 0);
  const out = io.stdout;
  t.regex(out, /^proposer-crash · 4 validators · block period 1s · round timer 2s x 2\^round$/m);
  t.regex(out, /^seed 1 · trace 0x[0-9a-f]{64} · 30\.000s virtual · \d+ key moments$/m);
  const block = out.slice(out.indexOf('\n5.000s  v1, v0, v3: round 0 timer expired, height 3 moves to round 1'));
  const lanes = block.split('\n').slice(2, 7);
  t.regex(lanes[0]!, /^ node height rnd phase/);
  for (const l of [lanes[1], lanes[2], lanes[4]]) t.regex(l!, /h3\s+r1\s+round change\s+rnd 4\.00s/);
  t.regex(lanes[3]!, /^ v2\s+-\s+-\s+down\s+-\s+crashed/);
  t.regex(out, /^2\.500s {2}v2: crash$/m);
  t.regex(out, /^PASS at 30\.000s: height 17, 6 round changes$/m);
  t.regex(out, /^invariants: agreement ok, validity ok, acceptance ok, honest-non-equivocation ok, honest-messages ok, lock-safety ok, round-timer ok, round-start ok, bounded-state ok, liveness ok$/m);
  t.notRegex(out, /replay:|first violation/, 'a passing run prints no violation and no commands');
  t.is(io.stderr, '');
});

test('tui replays a recorded trace file, and its usage errors exit 2', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-tui-'));
  const trace = join(dir, 'run.jsonl');
  t.is(await main(['scenario', 'run', 'happy-path', '--trace', trace], capture()), 0);
  const io = capture();
  t.is(await tuiCommand([trace], io, parse, () => 0, { interactive: false, colour: false }), 0);
  t.regex(io.stdout, /^happy-path · 4 validators/m);
  t.regex(io.stdout, /block 5 committed in round 0/);

  for (const [args, message] of [
    [['tui'], /tui: give one scenario name, scenario \.json file or \.jsonl trace/],
    [['tui', 'no-such-scenario'], /tui: 'no-such-scenario' is neither a scenario name/],
    [['tui', join(dir, 'missing.jsonl')], /tui: no trace file/],
    [['tui', trace, '--seed', '2'], /tui: --seed applies to scenarios/],
    [['tui', 'happy-path', '--seed', 'x'], /--seed: 'x' must be an integer/],
    [['tui', 'happy-path', '--speed', '2'], /Unknown option '--speed'/],
  ] as const) {
    const e = capture();
    t.is(await main([...args], e), 2, args.join(' '));
    t.regex(e.stderr, message);
  }
  const empty = join(dir, 'empty.jsonl');
  writeFileSync(empty, '');
  const e = capture();
  t.is(await main(['tui', empty], e), 2);
  t.regex(e.stderr, /tui: trace .* is empty/);
});
