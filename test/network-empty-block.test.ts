/**
 * `network --empty-block-period S`: the generated genesis carries Besu's emptyblockperiodseconds,
 * the start-up text says how often blocks come, a kept genesis (an earlier start's) is named when
 * it overrides the flag, and a bad value is one line, exit 2. (The timing itself:
 * sim/empty-block-period.test.ts on the virtual clock, test/live-quick-start.test.ts live.)
 */
import test from 'ava';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureIo } from '../cli/capture-io.ts';
import { main } from '../cli/main.ts';

const network = (dataPath: string, ...flags: string[]) => ['network', '--single-process', '--validators', '1', '--base-port', '0', '--data-path', dataPath, '--duration', '1', ...flags];

test('the generated genesis has the empty-block period, and the start-up text says how often blocks come', async (t) => {
  t.timeout(60_000);
  const dataPath = mkdtempSync(join(tmpdir(), 'qbft-lab-empty-block-'));
  const io = captureIo();
  t.is(await main(network(dataPath, '--empty-block-period', '10'), io), 0, io.stderr);
  const genesis = JSON.parse(readFileSync(join(dataPath, 'genesis.json'), 'utf8')) as { config: { qbft: Record<string, number> } };
  t.is(genesis.config.qbft.emptyblockperiodseconds, 10);
  t.regex(io.stdout, /^Blocks every 1 s while transactions wait; with none waiting, every 10 s \(the empty-block period, --empty-block-period\)$/m);
  t.notRegex(io.stdout, /^note:/m);

  const again = captureIo();
  t.is(await main(network(dataPath, '--empty-block-period', '30'), again), 0, again.stderr);
  t.true(
    again.stdout.includes(`note: ${join(dataPath, 'genesis.json')} is kept from an earlier start, with an empty-block period of 10 s: --empty-block-period 30 applies to a new chain (another --data-path, or remove that directory)`),
    again.stdout,
  );
});

test('without the flag a block comes every block period, as in Besu (emptyblockperiodseconds 0)', async (t) => {
  t.timeout(60_000);
  const dataPath = mkdtempSync(join(tmpdir(), 'qbft-lab-empty-block-'));
  const io = captureIo();
  t.is(await main(network(dataPath), io), 0, io.stderr);
  t.is((JSON.parse(readFileSync(join(dataPath, 'genesis.json'), 'utf8')) as { config: { qbft: Record<string, number | undefined> } }).config.qbft.emptyblockperiodseconds, undefined);
  t.regex(io.stdout, /^Blocks every 1 s, with or without transactions \(--empty-block-period S: an idle chain makes a block every S s\)$/m);
});

test('a bad --empty-block-period: one line, exit 2', async (t) => {
  const io = captureIo();
  t.is(await main(network(mkdtempSync(join(tmpdir(), 'qbft-lab-empty-block-')), '--empty-block-period', 'soon'), io), 2);
  t.is(io.stderr.trim().split('\n').length, 1, io.stderr);
  t.regex(io.stderr, /--empty-block-period: 'soon' must be an integer from 0 to 86400/);
});
