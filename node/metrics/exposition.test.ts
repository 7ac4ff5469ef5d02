import test from 'ava';
import { ExpositionError, escapeLabelValue, formatValue, renderExposition, renderFamily } from './exposition.ts';
import { parseExposition } from './exposition-parse.ts';

test('families render as HELP, TYPE and one line per sample, counters with their _total name', (t) => {
  const text = renderExposition([
    { name: 'ethereum_blockchain_height', help: 'Head number', type: 'gauge', samples: [{ value: 42 }] },
    { name: 'besu_transaction_pool_number_of_transactions', help: 'Per layer', type: 'gauge', samples: [{ labels: { layer: 'ready' }, value: 3 }, { labels: { layer: 'sparse' }, value: 0 }] },
    { name: 'qbftlab_qbft_round_changes_total', help: '', type: 'counter', samples: [{ value: 7 }] },
  ]);
  t.is(
    text,
    [
      '# HELP ethereum_blockchain_height Head number',
      '# TYPE ethereum_blockchain_height gauge',
      'ethereum_blockchain_height 42',
      '# HELP besu_transaction_pool_number_of_transactions Per layer',
      '# TYPE besu_transaction_pool_number_of_transactions gauge',
      'besu_transaction_pool_number_of_transactions{layer="ready"} 3',
      'besu_transaction_pool_number_of_transactions{layer="sparse"} 0',
      '# TYPE qbftlab_qbft_round_changes_total counter',
      'qbftlab_qbft_round_changes_total 7',
      '',
    ].join('\n'),
  );
});

test('a label value with a quote, a backslash and a newline is escaped and reads back unchanged', (t) => {
  const hostile = 'a"b\\c\nd} x 1\n# TYPE evil gauge';
  t.is(escapeLabelValue(hostile), 'a\\"b\\\\c\\nd} x 1\\n# TYPE evil gauge');
  const text = renderFamily({ name: 'm', help: 'line1\nline2 \\ end', type: 'gauge', samples: [{ labels: { peer: hostile }, value: 1 }] });
  t.is(text.split('\n').length, 4, 'three lines and the final newline: nothing injected');
  t.true(text.startsWith('# HELP m line1\\nline2 \\\\ end\n'));
  const parsed = parseExposition(text);
  t.deepEqual([...parsed.keys()], ['m']);
  t.is(parsed.get('m')!.samples[0].labels.peer, hostile);
  t.is(parsed.get('m')!.help, 'line1\nline2 \\ end');
});

test('special values use the format\'s spellings', (t) => {
  t.is(formatValue(NaN), 'NaN');
  t.is(formatValue(Infinity), '+Inf');
  t.is(formatValue(-Infinity), '-Inf');
  t.is(formatValue(1.5e9), '1500000000');
  t.is(formatValue(-0.25), '-0.25');
});

test('a family without samples is left out', (t) => {
  t.is(renderExposition([{ name: 'empty', help: 'x', type: 'gauge', samples: [] }]), '');
});

test('invalid names, a counter without _total, repeated label sets and repeated families are refused', (t) => {
  const bad = (f: Parameters<typeof renderFamily>[0], pattern: RegExp) => t.throws(() => renderFamily(f), { instanceOf: ExpositionError, message: pattern });
  bad({ name: '1abc', help: '', type: 'gauge', samples: [{ value: 1 }] }, /invalid metric name/);
  bad({ name: 'a b', help: '', type: 'gauge', samples: [{ value: 1 }] }, /invalid metric name/);
  bad({ name: 'ok', help: '', type: 'gauge', samples: [{ labels: { 'bad-name': 'x' }, value: 1 }] }, /invalid label name/);
  bad({ name: 'ok', help: '', type: 'gauge', samples: [{ labels: { __name__: 'x' }, value: 1 }] }, /invalid label name/);
  bad({ name: 'ok', help: '', type: 'counter', samples: [{ value: 1 }] }, /must end in _total/);
  bad({ name: 'ok', help: '', type: 'gauge', samples: [{ labels: { a: 'x' }, value: 1 }, { labels: { a: 'x' }, value: 2 }] }, /appears twice/);
  bad({ name: 'ok', help: '', type: 'gauge', samples: [{ value: 1n as unknown as number }] }, /not a number/);
  const f = { name: 'dup', help: '', type: 'gauge' as const, samples: [{ value: 1 }] };
  t.throws(() => renderExposition([f, f]), { message: /appears twice/ });
});
