import test from 'ava';
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

test('unknownOptionMessage names the option and the nearest accepted one', (t) => {
  const names = ['validators', 'seed'];
  t.is(unknownOptionMessage('--validatorz', names), "Unknown option '--validatorz' (did you mean '--validators'?)");
  t.is(unknownOptionMessage('--frobnicate', names), "Unknown option '--frobnicate'");
  t.is(unknownOptionMessage('-x', names), "Unknown option '-x'", 'a short option is not matched against long names');
});
