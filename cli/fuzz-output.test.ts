/** What `fuzz` and `bugs list` print for people: progress lines, named checkers, replay commands, an aligned table. */
import test from 'ava';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from './main.ts';
import { captureIo } from './capture-io.ts';

const tempDir = () => mkdtempSync(join(tmpdir(), 'qbft-lab-fuzz-output-'));

// Campaign seed 192's case 0 is a short run (4 validators, 20 s) that passes.
test('fuzz in text mode prints progress lines, not a JSON line per case; --json keeps the JSON lines', async (t) => {
  const text = captureIo();
  t.is(await main(['fuzz', '--runs', '1', '--seed', '192', '--jobs', '1', '--failure-dir', tempDir()], text), 0, text.stderr);
  t.notRegex(text.stderr, /^\{/m);
  t.regex(text.stderr, /^fuzz: 1 of 1 cases run, 0 failed \(\d+ s\)$/m);
  t.regex(text.stdout, /^fuzz: 1 runs, 0 failures/);
  const json = captureIo();
  t.is(await main(['fuzz', '--runs', '1', '--seed', '192', '--jobs', '1', '--json', '--failure-dir', tempDir()], json), 0, json.stderr);
  const lines = json.stderr.trim().split('\n');
  t.is(lines.length, 1);
  t.like(JSON.parse(lines[0]!), { caseIndex: 0, ok: true });
  t.is(JSON.parse(json.stdout).runs, 1);
});

// What `fuzz --bug` prints for people is checked in junit.test.ts, on the same hunt as its JUnit report.

test('bugs list is a table with headers, each column aligned, the title last; links and stand-in reasons below', async (t) => {
  const io = captureIo();
  t.is(await main(['bugs', 'list'], io), 0);
  const lines = io.stdout.split('\n');
  const header = lines[0]!;
  t.regex(header, /^id +symptom +caught by +fixed in +release lines +fidelity +title$/);
  const rows = lines.slice(1, lines.indexOf(''));
  t.true(rows.length >= 10);
  for (const name of ['symptom', 'caught by', 'fixed in', 'release lines', 'fidelity', 'title']) {
    const at = header.indexOf(name);
    for (const row of rows) t.regex(row.slice(at - 2, at), /^ {2}$/, `${name} column: ${row}`);
  }
  const row1671 = rows.find((r) => r.startsWith('besu-1671 '))!;
  t.regex(row1671, /^besu-1671 +invalid message accepted +honest-messages, acceptance +21\.1\.0 +20\.10 +faithful +IBFT 2\.0 accepted prepared/);
  t.regex(rows.find((r) => r.startsWith('ghsa-23rh '))!, / 20\.10\.\.25\.4 +faithful /);
  t.regex(io.stdout, /^ {2}besu-1734 +https:\/\/github\.com\/hyperledger\/besu\/issues\/1734\n {14}stand-in: the switch hands/m);
});
