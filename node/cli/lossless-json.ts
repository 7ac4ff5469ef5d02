/**
 * JSON that round-trips a genesis unchanged: numbers keep their text (a balance written as
 * 90000000000000000000000 must not come back as 9e+22), objects keep their key order, and a key
 * given twice keeps its first place with its last value (as Jackson's tree model does).
 */

export class JsonNumber {
  constructor(readonly text: string) {}
}

export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;
export type JsonObject = Map<string, JsonValue>;

export class JsonSyntaxError extends Error {
  constructor(message: string, readonly offset: number) {
    super(message);
    this.name = 'JsonSyntaxError';
  }
}

/** Deeper nesting than this is refused instead of overflowing the stack. */
export const MAX_JSON_DEPTH = 512;

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// A JSON string literal: no raw control characters, only JSON's escapes.
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const WHITESPACE = /[ \t\n\r]*/y;

export function parseLosslessJson(text: string): JsonValue {
  let pos = 0;
  const fail = (what: string): never => {
    const line = text.slice(0, pos).split('\n').length;
    throw new JsonSyntaxError(`${what} at line ${line} (offset ${pos})`, pos);
  };
  const skipSpace = () => {
    WHITESPACE.lastIndex = pos;
    WHITESPACE.exec(text);
    pos = WHITESPACE.lastIndex;
  };
  const match = (re: RegExp): string | undefined => {
    re.lastIndex = pos;
    const m = re.exec(text);
    if (!m) return undefined;
    pos = re.lastIndex;
    return m[0];
  };
  const literal = (word: string, value: JsonValue): JsonValue => {
    if (!text.startsWith(word, pos)) fail('unexpected token');
    pos += word.length;
    return value;
  };
  const stringAt = (): string => {
    const raw = match(STRING);
    if (raw === undefined) return fail('invalid string');
    return JSON.parse(raw) as string;
  };
  const value = (depth: number): JsonValue => {
    if (depth > MAX_JSON_DEPTH) fail(`nesting deeper than ${MAX_JSON_DEPTH}`);
    skipSpace();
    const c = text[pos];
    if (c === '{') {
      pos++;
      const object: JsonObject = new Map();
      skipSpace();
      if (text[pos] === '}') {
        pos++;
        return object;
      }
      for (;;) {
        skipSpace();
        if (text[pos] !== '"') fail('expected a property name');
        const key = stringAt();
        skipSpace();
        if (text[pos] !== ':') fail("expected ':'");
        pos++;
        object.set(key, value(depth + 1));
        skipSpace();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === '}') {
          pos++;
          return object;
        }
        fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      pos++;
      const array: JsonValue[] = [];
      skipSpace();
      if (text[pos] === ']') {
        pos++;
        return array;
      }
      for (;;) {
        array.push(value(depth + 1));
        skipSpace();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === ']') {
          pos++;
          return array;
        }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return stringAt();
    if (c === 't') return literal('true', true);
    if (c === 'f') return literal('false', false);
    if (c === 'n') return literal('null', null);
    const number = match(NUMBER);
    if (number === undefined) return fail(pos >= text.length ? 'unexpected end of input' : 'unexpected token');
    return new JsonNumber(number);
  };
  const result = value(0);
  skipSpace();
  if (pos !== text.length) fail('unexpected text after the JSON value');
  return result;
}

export function isJsonObject(v: JsonValue | undefined): v is JsonObject {
  return v instanceof Map;
}

/** Jackson's node type names, as Besu's messages print them. */
export function jsonTypeName(v: JsonValue): string {
  if (v === null) return 'NULL';
  if (typeof v === 'boolean') return 'BOOLEAN';
  if (typeof v === 'string') return 'STRING';
  if (v instanceof JsonNumber) return 'NUMBER';
  if (Array.isArray(v)) return 'ARRAY';
  return 'OBJECT';
}

/** Pretty-printed with two-space indentation; numbers exactly as they were read. */
export function stringifyLosslessJson(v: JsonValue, indent = ''): string {
  if (v === null || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof JsonNumber) return v.text;
  const inner = indent + '  ';
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return `[\n${v.map((item) => inner + stringifyLosslessJson(item, inner)).join(',\n')}\n${indent}]`;
  }
  if (v.size === 0) return '{}';
  const entries = [...v].map(([key, item]) => `${inner}${JSON.stringify(key)}: ${stringifyLosslessJson(item, inner)}`);
  return `{\n${entries.join(',\n')}\n${indent}}`;
}
