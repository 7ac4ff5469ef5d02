import test from 'ava';
import { junitXml, type JUnitSuite } from './junit.ts';

interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** The element's own character data, decoded, with the children's left out. */
  text: string;
}

const XML_CHAR = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;
const NAME = /^[A-Za-z_][\w.-]*/;
const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Decodes entity and character references; anything else after '&' is not well-formed. */
function decodeReferences(raw: string): string {
  return raw.replace(/&([^;]*);?/g, (whole, body: string) => {
    if (!whole.endsWith(';')) throw new Error(`bare '&' in ${JSON.stringify(raw)}`);
    if (body in PREDEFINED) return PREDEFINED[body];
    const m = /^#(?:x([0-9a-fA-F]+)|([0-9]+))$/.exec(body);
    if (!m) throw new Error(`unknown reference &${body};`);
    const c = String.fromCodePoint(m[1] ? parseInt(m[1], 16) : Number(m[2]));
    if (!XML_CHAR.test(c)) throw new Error(`reference &${body}; is not an XML character`);
    return c;
  });
}

/**
 * A small, strict XML 1.0 reader for what junitXml writes: elements, attributes in quotes,
 * character data and one XML declaration; no comments, CDATA, DTD or processing instructions.
 * Throws on anything not well-formed (illegal characters, unbalanced or crossed tags, raw '<' or
 * '&', duplicate attributes, text outside the root). Line ends and attribute whitespace are
 * normalised as XML parsers do, so a round trip through it shows what a CI server would read.
 */
function parseXml(xml: string): XmlElement {
  if (!XML_CHAR.test(xml)) throw new Error('a character XML 1.0 does not allow');
  let pos = 0;
  const decl = /^<\?xml version="1\.0" encoding="UTF-8"\?>/.exec(xml);
  if (decl) pos = decl[0].length;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  while (pos < xml.length) {
    const lt = xml.indexOf('<', pos);
    const rawText = xml.slice(pos, lt === -1 ? xml.length : lt);
    if (rawText.includes(']]>')) throw new Error("']]>' in character data");
    const text = decodeReferences(rawText.replace(/\r\n?/g, '\n'));
    if (stack.length > 0) stack[stack.length - 1].text += text;
    else if (text.trim() !== '') throw new Error(`text outside the root element: ${JSON.stringify(text)}`);
    if (lt === -1) break;
    pos = lt + 1;
    if (xml[pos] === '/') {
      const name = NAME.exec(xml.slice(pos + 1))?.[0];
      const open = stack.pop();
      if (!name || !open || open.name !== name) throw new Error(`end tag </${name}> does not close <${open?.name}>`);
      pos += 1 + name.length;
      const close = /^\s*>/.exec(xml.slice(pos));
      if (!close) throw new Error(`bad end tag </${name}`);
      pos += close[0].length;
      continue;
    }
    const name = NAME.exec(xml.slice(pos))?.[0];
    if (!name) throw new Error(`'<' not followed by a name at ${pos}`);
    if (stack.length === 0 && root) throw new Error(`second root element <${name}>`);
    pos += name.length;
    const element: XmlElement = { name, attributes: {}, children: [], text: '' };
    for (;;) {
      const end = /^\s*(\/?)>/.exec(xml.slice(pos));
      if (end) {
        pos += end[0].length;
        if (stack.length > 0) stack[stack.length - 1].children.push(element);
        else root = element;
        if (end[1] !== '/') stack.push(element);
        break;
      }
      const attribute = /^\s+([A-Za-z_][\w.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/.exec(xml.slice(pos));
      if (!attribute) throw new Error(`bad attribute syntax in <${name}> at ${pos}`);
      const raw = attribute[2] ?? attribute[3];
      if (raw.includes('<')) throw new Error(`raw '<' in attribute ${attribute[1]}`);
      if (attribute[1] in element.attributes) throw new Error(`duplicate attribute ${attribute[1]} in <${name}>`);
      element.attributes[attribute[1]] = decodeReferences(raw.replace(/\r\n|[\t\n\r]/g, ' '));
      pos += attribute[0].length;
    }
  }
  if (stack.length > 0) throw new Error(`<${stack[stack.length - 1].name}> is never closed`);
  if (!root) throw new Error('no root element');
  return root;
}

const child = (e: XmlElement, name: string) => e.children.filter((c) => c.name === name);

test('the reader rejects what is not well-formed, so the tests below can fail', (t) => {
  for (const bad of [
    '<a><b></a></b>',
    '<a>',
    '<a></a><b/>',
    '<a>x & y</a>',
    '<a>x < y</a>',
    '<a x="1<2"/>',
    '<a x="1" x="2"/>',
    '<a x=1/>',
    '<a>\u0001</a>',
    '<a>&#1;</a>',
    '<a>&nbsp;</a>',
    '<a>]]></a>',
    'text<a/>',
  ]) {
    t.throws(() => parseXml(bad), undefined, bad);
  }
  t.deepEqual(parseXml('<a x="&lt;&#10;"> t&amp;<b/></a>'), { name: 'a', attributes: { x: '<\n' }, children: [{ name: 'b', attributes: {}, children: [], text: '' }], text: ' t&' });
});

test('names, messages and output with <>&"\' read back exactly as given', (t) => {
  const tricky = `a<b>&c "quoted" 'single' ]]> &amp; \t tab\nline two\r\nCRLF`;
  const xml = junitXml([{ name: tricky, cases: [{ name: tricky, classname: 'x.y', timeSeconds: 1, failure: { message: tricky, details: tricky }, systemOut: tricky }] }]);
  const root = parseXml(xml);
  const suite = child(root, 'testsuite')[0];
  const testcase = child(suite, 'testcase')[0];
  t.is(suite.attributes.name, tricky);
  t.is(testcase.attributes.name, tricky);
  t.is(child(testcase, 'failure')[0].attributes.message, tricky);
  t.is(child(testcase, 'failure')[0].text, tricky);
  t.is(child(testcase, 'system-out')[0].text, tricky);
  t.false(xml.includes('a<b>'));
  t.true(xml.includes(`name="a&lt;b&gt;&amp;c &quot;quoted&quot; &apos;single&apos; ]]&gt; &amp;amp; &#9; tab&#10;line two&#13;&#10;CRLF"`));
});

test('characters XML 1.0 forbids are written as \\uXXXX text; tab, newline and CR stay', (t) => {
  const text = 'nul\u0000 bell\u0007 esc\u001b[31mred\u001b[0m vt\u000b ff\u000c fffe\ufffe ffff\uffff lone\ud800 pair\u{1f600} ok\t\n\r!';
  const xml = junitXml([{ name: 's', cases: [{ name: text, classname: 'c', timeSeconds: 0, skipped: text, systemOut: text }] }]);
  const testcase = child(child(parseXml(xml), 'testsuite')[0], 'testcase')[0];
  const expected = 'nul\\u0000 bell\\u0007 esc\\u001b[31mred\\u001b[0m vt\\u000b ff\\u000c fffe\\ufffe ffff\\uffff lone\\ud800 pair\u{1f600} ok\t\n\r!';
  t.is(testcase.attributes.name, expected);
  t.is(child(testcase, 'skipped')[0].attributes.message, expected);
  t.is(child(testcase, 'system-out')[0].text, expected);
});

test('tests, failures, skipped and time are counted per suite and in total', (t) => {
  const suites: JUnitSuite[] = [
    {
      name: 'first',
      cases: [
        { name: 'ok', classname: 'c', timeSeconds: 0.25 },
        { name: 'bad', classname: 'c', timeSeconds: 1.5, failure: { message: 'm', details: 'd' } },
        { name: 'later', classname: 'c', timeSeconds: 0, skipped: 'not run' },
      ],
    },
    { name: 'second', cases: [{ name: 'bad and skipped counts as failed', classname: 'c', timeSeconds: 2.0004, failure: { message: 'm', details: '' }, skipped: 'ignored' }] },
    { name: 'empty', cases: [] },
  ];
  const root = parseXml(junitXml(suites));
  t.is(root.name, 'testsuites');
  t.deepEqual(root.attributes, { tests: '4', failures: '2', errors: '0', skipped: '1', time: '3.750' });
  const [first, second, empty] = child(root, 'testsuite');
  t.deepEqual(first.attributes, { name: 'first', tests: '3', failures: '1', errors: '0', skipped: '1', time: '1.750' });
  t.deepEqual(second.attributes, { name: 'second', tests: '1', failures: '1', errors: '0', skipped: '0', time: '2.000' });
  t.deepEqual(empty.attributes, { name: 'empty', tests: '0', failures: '0', errors: '0', skipped: '0', time: '0.000' });
  t.deepEqual(child(second, 'testcase')[0].children.map((c) => c.name), ['failure'], 'a failure wins over skipped');
  t.deepEqual(parseXml(junitXml([])).attributes, { tests: '0', failures: '0', errors: '0', skipped: '0', time: '0.000' });
});

test('a failing case renders <failure message=...> with the details as its text; a passing one has no failure', (t) => {
  const xml = junitXml([
    {
      name: 's',
      cases: [
        { name: 'fails', classname: 'qbft-lab.scenario', timeSeconds: 0.1234, failure: { message: 'agreement: two heads at height 3', details: 'line 1\nline 2' }, systemOut: 'seed 7' },
        { name: 'passes', classname: 'qbft-lab.scenario', timeSeconds: 0 },
      ],
    },
  ]);
  t.true(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites '));
  t.regex(xml, /<testcase name="fails" classname="qbft-lab\.scenario" time="0\.123">\n\s*<failure message="agreement: two heads at height 3">line 1\nline 2<\/failure>/);
  const [fails, passes] = child(child(parseXml(xml), 'testsuite')[0], 'testcase');
  t.deepEqual(fails.children.map((c) => c.name), ['failure', 'system-out']);
  t.is(child(fails, 'system-out')[0].text, 'seed 7');
  t.deepEqual(passes.children, []);
  t.regex(xml, /<testcase name="passes" classname="qbft-lab\.scenario" time="0\.000"\/>/);
});

test('a time that is not a finite number of seconds >= 0 is refused', (t) => {
  for (const timeSeconds of [NaN, -1, Infinity]) {
    t.throws(() => junitXml([{ name: 's', cases: [{ name: 'c', classname: 'c', timeSeconds }] }]), { instanceOf: RangeError });
  }
});
