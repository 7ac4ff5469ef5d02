/**
 * JUnit XML, the test report format CI servers read (GitLab `artifacts:reports:junit`, Jenkins
 * `junit`, GitHub test-report actions): <testsuites> of <testsuite> of <testcase>, each suite and
 * the root carrying `tests`, `failures`, `errors`, `skipped` and `time` (seconds) attributes.
 * No dependency: the writer escapes every value itself and keeps the text within XML 1.0.
 */

export interface JUnitCase {
  name: string;
  /** Reporters group cases by it (dotted, e.g. `qbft-lab.scenario`). */
  classname: string;
  timeSeconds: number;
  /** A failed case; a case with a failure counts as failed even when `skipped` is set too. */
  failure?: { message: string; details: string };
  /** A skipped case, with the reason. */
  skipped?: string;
  systemOut?: string;
}

export interface JUnitSuite {
  name: string;
  cases: JUnitCase[];
}

interface Counts {
  tests: number;
  failures: number;
  skipped: number;
  timeSeconds: number;
}

/**
 * Characters XML 1.0 forbids (section 2.2: C0 controls other than tab, LF and CR, lone
 * surrogates, U+FFFE and U+FFFF); a parser rejects the whole document for one of them. They are
 * written as the text `\uXXXX`, so an ANSI colour code in a message stays readable.
 */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

function legalChars(text: string): string {
  return text.replace(NOT_XML_CHAR, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}

/** Character data. CR is a reference, or the parser's line-end normalisation would turn it into LF. */
export function escapeXmlText(text: string): string {
  return legalChars(text).replace(/[&<>\r]/g, (c) => TEXT_ESCAPES[c]);
}

/** An attribute value in double quotes; tab, LF and CR as references, or the parser turns them into spaces. */
export function escapeXmlAttribute(text: string): string {
  return legalChars(text).replace(/[&<>"'\t\n\r]/g, (c) => ATTRIBUTE_ESCAPES[c]);
}

const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' };
const ATTRIBUTE_ESCAPES: Record<string, string> = { ...TEXT_ESCAPES, '"': '&quot;', "'": '&apos;', '\t': '&#9;', '\n': '&#10;' };

function seconds(timeSeconds: number): string {
  return timeSeconds.toFixed(3);
}

function countsOf(cases: readonly JUnitCase[]): Counts {
  let failures = 0;
  let skipped = 0;
  let timeSeconds = 0;
  for (const c of cases) {
    if (!Number.isFinite(c.timeSeconds) || c.timeSeconds < 0) throw new RangeError(`junit: case '${c.name}' has time ${c.timeSeconds} s (need a finite number >= 0)`);
    if (c.failure) failures++;
    else if (c.skipped !== undefined) skipped++;
    timeSeconds += c.timeSeconds;
  }
  return { tests: cases.length, failures, skipped, timeSeconds };
}

function countAttributes(c: Counts): string {
  return `tests="${c.tests}" failures="${c.failures}" errors="0" skipped="${c.skipped}" time="${seconds(c.timeSeconds)}"`;
}

function caseXml(c: JUnitCase): string {
  const open = `    <testcase name="${escapeXmlAttribute(c.name)}" classname="${escapeXmlAttribute(c.classname)}" time="${seconds(c.timeSeconds)}"`;
  const children: string[] = [];
  if (c.failure) children.push(`      <failure message="${escapeXmlAttribute(c.failure.message)}">${escapeXmlText(c.failure.details)}</failure>`);
  else if (c.skipped !== undefined) children.push(`      <skipped message="${escapeXmlAttribute(c.skipped)}"/>`);
  if (c.systemOut !== undefined) children.push(`      <system-out>${escapeXmlText(c.systemOut)}</system-out>`);
  return children.length === 0 ? `${open}/>` : `${open}>\n${children.join('\n')}\n    </testcase>`;
}

/** The whole report: an XML declaration and one <testsuites> root. */
export function junitXml(suites: readonly JUnitSuite[]): string {
  const total: Counts = { tests: 0, failures: 0, skipped: 0, timeSeconds: 0 };
  const body: string[] = [];
  for (const suite of suites) {
    const counts = countsOf(suite.cases);
    total.tests += counts.tests;
    total.failures += counts.failures;
    total.skipped += counts.skipped;
    total.timeSeconds += counts.timeSeconds;
    body.push(`  <testsuite name="${escapeXmlAttribute(suite.name)}" ${countAttributes(counts)}>`);
    for (const c of suite.cases) body.push(caseXml(c));
    body.push('  </testsuite>');
  }
  return ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites ${countAttributes(total)}>`, ...body, '</testsuites>', ''].join('\n');
}
