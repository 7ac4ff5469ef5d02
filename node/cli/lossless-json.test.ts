import test from 'ava';
import { isJsonObject, JsonNumber, JsonSyntaxError, MAX_JSON_DEPTH, parseLosslessJson, stringifyLosslessJson } from './lossless-json.ts';

test('numbers keep their text, objects their key order, strings their content', (t) => {
  const text = '{"b": 90000000000000000000000, "a": [1.50, -0, 1e400, "x\\u00e9\\n"], "c": {"z": null, "y": true, "x": false}}';
  const v = parseLosslessJson(text);
  t.true(isJsonObject(v));
  const out = stringifyLosslessJson(v);
  t.regex(out, /"b": 90000000000000000000000,/);
  t.regex(out, /1\.50,\n\s+-0,\n\s+1e400/);
  t.deepEqual(JSON.parse(out).c, { z: null, y: true, x: false });
  t.deepEqual(Object.keys(JSON.parse(out)), ['b', 'a', 'c']);
  t.is(JSON.parse(out).a[3], 'x\u00e9\n');
  t.is(stringifyLosslessJson(parseLosslessJson(out)), out, 'a second round trip changes nothing');
});

test('a key given twice keeps its first place and its last value; __proto__ is an ordinary key', (t) => {
  const v = parseLosslessJson('{"a": 1, "b": 2, "a": 3, "__proto__": {"polluted": true}}');
  if (!isJsonObject(v)) return t.fail();
  t.deepEqual([...v.keys()], ['a', 'b', '__proto__']);
  t.is((v.get('a') as JsonNumber).text, '3');
  t.is(({} as Record<string, unknown>).polluted, undefined);
});

test('empty containers print compactly', (t) => {
  t.is(stringifyLosslessJson(parseLosslessJson(' { "a" : [ ] , "b" : { } } ')), '{\n  "a": [],\n  "b": {}\n}');
});

test('malformed JSON is refused with its position', (t) => {
  for (const bad of ['', '{', '{"a" 1}', '{"a": 01}', '[1,]', '{"a": tru}', '"a\u0001"', '{"a": 1} x', "{'a': 1}", '{"a": -}', '[1 2]', '{"a": NaN}']) {
    t.throws(() => parseLosslessJson(bad), { instanceOf: JsonSyntaxError }, JSON.stringify(bad));
  }
  t.throws(() => parseLosslessJson('{\n"a": x}'), { message: /line 2/ });
});

test('nesting is bounded instead of overflowing the stack', (t) => {
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
  t.notThrows(() => parseLosslessJson(deep(MAX_JSON_DEPTH)));
  t.throws(() => parseLosslessJson(deep(MAX_JSON_DEPTH + 2)), { message: /nesting deeper than/ });
  t.throws(() => parseLosslessJson(deep(100_000)), { instanceOf: JsonSyntaxError });
});
