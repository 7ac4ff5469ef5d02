import test from 'ava';
import { parseArgs } from 'node:util';
import { closest, didYouMean, editDistance, unknownOptionMessage } from './suggest.ts';

const COMMANDS = ['scenario', 'sim', 'report', 'tui', 'teach', 'network', 'node', 'blocks', 'fuzz', 'bugs', 'genesis', 'check', 'rehearse', 'operator', 'rlp', 'help'];

test('editDistance counts inserts, deletes, substitutions and adjacent swaps as one edit each', (t) => {
  t.is(editDistance('', ''), 0);
  t.is(editDistance('abc', ''), 3);
  t.is(editDistance('', 'ab'), 2);
  t.is(editDistance('scenaro', 'scenario'), 1);
  t.is(editDistance('netwrok', 'network'), 1, 'a transposition is one edit');
  t.is(editDistance('kitten', 'sitting'), 3);
  t.is(editDistance('ca', 'abc'), 3, 'optimal string alignment: no edit of a swapped pair');
});

test('closest names the nearest command, or the only one the text begins, or nothing', (t) => {
  t.is(closest('scenaro', COMMANDS), 'scenario');
  t.is(closest('netwrok', COMMANDS), 'network');
  t.is(closest('Fuz', COMMANDS), 'fuzz');
  t.is(closest('rehaerse', COMMANDS), 'rehearse');
  t.is(closest('gen', COMMANDS), 'genesis', 'a unique prefix');
  t.is(closest('re', COMMANDS), undefined, 'report and rehearse both begin with re');
  t.is(closest('frobnicate', COMMANDS), undefined);
  t.is(closest('x', COMMANDS), undefined, 'one character is too short to guess from');
  t.is(closest('sin', COMMANDS), 'sim');
});

test('didYouMean is empty when nothing is close', (t) => {
  t.is(didYouMean('scenaro', COMMANDS), " (did you mean 'scenario'?)");
  t.is(didYouMean('frobnicate', COMMANDS), '');
});

test("unknownOptionMessage replaces parseArgs' message with one line and the nearest option", (t) => {
  const options = { validators: { type: 'string' as const }, seed: { type: 'string' as const } };
  const error = (args: string[]) => t.throws(() => parseArgs({ args, options, strict: true, allowPositionals: true }));
  t.is(unknownOptionMessage(error(['--validatorz', '4']), Object.keys(options)), "Unknown option '--validatorz' (did you mean '--validators'?)");
  t.is(unknownOptionMessage(error(['--validatorz=4']), Object.keys(options)), "Unknown option '--validatorz' (did you mean '--validators'?)");
  t.is(unknownOptionMessage(error(['--frobnicate']), Object.keys(options)), "Unknown option '--frobnicate'");
  t.is(unknownOptionMessage(error(['-x']), Object.keys(options)), "Unknown option '-x'");
  t.is(unknownOptionMessage(error(['--seed']), Object.keys(options)), undefined, 'a missing value is not an unknown option');
  t.is(unknownOptionMessage(new Error('other'), Object.keys(options)), undefined);
});
