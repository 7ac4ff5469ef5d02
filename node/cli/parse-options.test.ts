import test from 'ava';
import { parseOptions } from './parse-options.ts';

const options = {
  validators: { type: 'string', value: 'N' },
  seed: { type: 'string' },
  crash: { type: 'string', multiple: true },
  json: { type: 'boolean' },
} as const;

const message = (args: string[], opts?: { positionals?: boolean }) => {
  try {
    parseOptions(args, options, opts);
  } catch (err) {
    return (err as Error).message;
  }
  return 'no error';
};

test('values come as --name value, --name=value and flags; a repeatable option collects every value', (t) => {
  t.deepEqual(parseOptions(['--validators', '7', '--seed=3', '--json', 'happy-path', '--crash', 'v1@1s', '--crash=v2@2s'], options), {
    values: { validators: '7', seed: '3', json: true, crash: ['v1@1s', 'v2@2s'] },
    positionals: ['happy-path'],
  });
  t.deepEqual(parseOptions(['--', '--json'], options).positionals, ['--json'], "after '--' everything is an argument");
});

test('a negative number after an option is its value, for the value check to judge', (t) => {
  t.deepEqual(parseOptions(['--validators', '-3', '--seed', '-0.5'], options).values, { validators: '-3', seed: '-0.5' });
});

test("every mistake is one line of ours naming the option, never parseArgs' words", (t) => {
  const cases: Array<[string[], string]> = [
    [['--validatorz', '4'], "Unknown option '--validatorz' (did you mean '--validators'?)"],
    [['-x'], "Unknown option '-x'"],
    [['--validators'], '--validators needs a value (--validators N)'],
    [['--seed'], '--seed needs a value (--seed VALUE)'],
    [['--validators', '--json'], "--validators needs a value (--validators N) before '--json' (write --validators=--json for a value that starts with '-')"],
    [['--json=1'], '--json takes no value (write --json alone, not --json=1)'],
  ];
  for (const [args, expected] of cases) {
    const m = message(args);
    t.is(m, expected, args.join(' '));
    t.notRegex(m, /ambiguous|after '--'|Did you forget|To specify/);
  }
  t.is(message(['extra'], { positionals: false }), "unexpected argument 'extra'");
  t.is(message(['--validators=--json']), 'no error', 'a value written with = may start with a dash');
});
