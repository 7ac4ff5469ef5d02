import test from 'ava';
import { parseExposition } from './exposition-parse.ts';

test('reads HELP, TYPE, labels, special values and timestamps', (t) => {
  const families = parseExposition(
    [
      '# A plain comment',
      '# HELP x_total Things \\\\ done\\n twice',
      '# TYPE x_total counter',
      'x_total{a="1",b="q\\"uote"} 3 1700000000000',
      'x_total{a="2",} +Inf',
      '',
      'y NaN',
      '',
    ].join('\n'),
  );
  const x = families.get('x_total')!;
  t.is(x.type, 'counter');
  t.is(x.help, 'Things \\ done\n twice');
  t.deepEqual(x.samples, [
    { labels: { a: '1', b: 'q"uote' }, value: 3, timestampMs: 1_700_000_000_000 },
    { labels: { a: '2' }, value: Infinity },
  ]);
  t.is(families.get('y')!.type, 'untyped');
  t.true(Number.isNaN(families.get('y')!.samples[0].value));
});

test('malformed expositions are refused', (t) => {
  const bad = (text: string, pattern: RegExp) => t.throws(() => parseExposition(text), { message: pattern }, JSON.stringify(text));
  bad('x 1', /newline/);
  bad('x{a="unterminated} 1\n', /unterminated/);
  bad('x{a="b"c="d"} 1\n', /expected , or }/);
  bad('x{a="\\t"} 1\n', /unknown escape/);
  bad('x{a="1",a="2"} 1\n', /repeated/);
  bad('x one\n', /not a value/);
  bad('x 1 2 3\n', /value and an optional timestamp/);
  bad('x 1 1.5\n', /bad timestamp/);
  bad('x 1\n# TYPE x gauge\n', /after its samples/);
  bad('# TYPE x gauge\n# TYPE x gauge\n', /repeated/);
  bad('# TYPE x wobbly\n', /unknown type/);
  bad('x 1\ny 1\nx{a="b"} 2\n', /not one group/);
  bad('x 1\nx 2\n', /repeated/);
  bad('x{a="1",b="2"} 1\nx{b="2",a="1"} 1\n', /repeated/);
  bad('{a="1"} 1\n', /no metric name/);
});
