/** `qbft-lab rehearse` and `qbft-lab check` as commands: exit codes, the text and JSON outputs, reports, usage errors. */
import test from 'ava';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../node/cli/usage-error.ts';
import { captureIo } from './capture-io.ts';
import { checkCommand } from './check-command.ts';
import { rehearseCommand } from './rehearse-command.ts';

const FIXTURES = fileURLToPath(new URL('../test/fixtures/operator/', import.meta.url));
const f = (name: string) => join(FIXTURES, name);
/** The message of the UsageError a command throws (main prints it and exits 2). */
async function usageError(run: Promise<number>): Promise<string> {
  try {
    await run;
  } catch (err) {
    if (err instanceof UsageError) return err.message;
    throw err;
  }
  throw new Error('expected a usage error');
}

test('rehearse: a safe change exits 0 with verdict ok, the table and the timeline', async (t) => {
  const io = captureIo();
  const code = await rehearseCommand(['--genesis-file', f('old.json'), '--new-genesis', f('new-reward-at-20.json'), '--restart-window', '6s'], io);
  t.is(code, 0, io.stdout);
  t.regex(io.stdout, /^verdict: ok$/m);
  t.regex(io.stdout, /transition at 20 added: blockreward 1000000000000000000 \(rules from block 20\)/);
  t.regex(io.stdout, /every node is stopped at block 10/);
  t.regex(io.stdout, /^v3 +0xfee1d2bb6cd6d7205f95af816de142d4df091ab5 +new +on time/m);
});

test('rehearse: one node left on the old genesis exits 1, forked off; --json and --report-dir', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rehearse-'));
  const io = captureIo();
  const code = await rehearseCommand(['--genesis-file', f('old.json'), '--new-genesis', f('new-reward-at-20.json'), '--left-behind', 'v3', '--restart-window', '6s', '--json', '--report-dir', dir], io);
  t.is(code, 1);
  const r = JSON.parse(io.stdout);
  t.is(r.verdict, 'forked-off');
  t.is(r.block, 20);
  t.deepEqual(r.nodes, ['v3']);
  t.true(Array.isArray(r.timeline) && r.timeline.length > 5);
  const html = readdirSync(dir).find((n) => n.endsWith('.html'))!;
  t.truthy(html);
  t.regex(io.stderr, /rehearsal report: .*\.html/);
  t.true(readFileSync(join(dir, html), 'utf8').includes('<html'));
  t.true(existsSync(join(dir, html.replace(/\.html$/, '.jsonl'))));
});

test('rehearse: a transition already passed exits 1 with fork (stall with --node-checks qbft-lab), a set without a quorum with stall, a split with fork', async (t) => {
  const run = async (...args: string[]) => {
    const io = captureIo();
    const code = await rehearseCommand(['--genesis-file', f('old.json'), '--restart-window', '4s', '--json', ...args], io);
    return { code, r: JSON.parse(io.stdout) };
  };
  const passed = await run('--new-genesis', f('new-reward-at-5.json'));
  t.deepEqual([passed.code, passed.r.verdict, passed.r.block, passed.r.nodes], [1, 'fork', 5, ['o0']]);
  const refused = await run('--new-genesis', f('new-reward-at-5.json'), '--node-checks', 'qbft-lab');
  t.deepEqual([refused.code, refused.r.verdict, refused.r.block], [1, 'stall', 11]);
  const noQuorum = await run('--new-genesis', f('new-validators-no-quorum.json'));
  t.deepEqual([noQuorum.code, noQuorum.r.verdict, noQuorum.r.block], [1, 'stall', 20]);
  const split = await run('--new-genesis', f('new-single-validator.json'), '--left-behind', 'v0,v1,v3');
  t.deepEqual([split.code, split.r.verdict, split.r.block], [1, 'fork', 20]);
});

test('rehearse: at block 100,000 the run starts from a history made without the message exchange, and says so', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rehearse-high-'));
  const next = JSON.parse(readFileSync(f('new-reward-at-20.json'), 'utf8'));
  next.config.transitions.qbft[0].block = 100_010;
  writeFileSync(join(dir, 'new.json'), JSON.stringify(next));
  const io = captureIo();
  const code = await rehearseCommand(['--genesis-file', f('old.json'), '--new-genesis', join(dir, 'new.json'), '--at-block', '100000', '--restart-window', '6s'], io);
  t.is(code, 0, io.stdout);
  t.regex(io.stdout, /^history: blocks 1\.\.99995 made under .*old\.json without the message exchange \(\d+ built by the node's block creator, the others copies of them with their own parent hash, coinbase, number and timestamp\), imported under each genesis \(\d+ through the node's import, the others by its header rules, \d+ with their seals recovered\); [\d.]+ MB, shared by the nodes$/m);
  t.regex(io.stdout, /^verdict: ok$/m);
  t.regex(io.stdout, /^ +0 s {2}the network starts on .*old\.json at block 99995 \(its history, blocks 1\.\.99995, made without the message exchange\)$/m);
  t.regex(io.stdout, /every node is stopped at block 100000$/m);
  t.regex(io.stdout, /block 100010, the first under: transition at 100010 added/);
  t.regex(io.stdout, /^v3 +0xfee1d2bb6cd6d7205f95af816de142d4df091ab5 +new +on time +[\d.]+ s +100000 +1000\d\d +up$/m);
  // Only the blocks after the history are simulated: about a minute of virtual time, not 100,000 seconds.
  const end = /^ +([\d.]+) s {2}end of the rehearsal$/m.exec(io.stdout);
  t.truthy(end, io.stdout);
  t.true(Number(end![1]) < 120, end![1]);
});

test('rehearse: with shanghaiTime in the genesis, a transition read as a timestamp is said so in the change list', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rehearse-time-'));
  const write = (source: string, name: string) => {
    const g = JSON.parse(readFileSync(f(source), 'utf8'));
    Object.assign(g.config, { londonBlock: 0, shanghaiTime: 0 });
    writeFileSync(join(dir, name), JSON.stringify(g));
    return join(dir, name);
  };
  const io = captureIo();
  const code = await rehearseCommand(['--genesis-file', write('old.json', 'old.json'), '--new-genesis', write('new-reward-at-20.json', 'new.json'), '--restart-window', '4s'], io);
  t.is(code, 1, io.stdout);
  t.regex(io.stdout, /^ {2}transition at 20 added: blockreward 1000000000000000000 \(from timestamp 20 \(read as a time, because the hardfork in force at 20 is shanghaiTime 0, a time-based one, and Besu then compares a transition's block with block timestamps\): a time before the genesis block's, so the rules of every block from block 1\)$/m);
  t.notRegex(io.stdout, /\(rules from block 1\)/);
  t.regex(io.stdout, /^verdict: fork at block 1 \(o0\)$/m);
});

test('rehearse: a new chain, bad options and unreadable files are usage errors of one line', async (t) => {
  const base = ['--genesis-file', f('old.json'), '--new-genesis', f('new-reward-at-20.json')];
  const messages = [
    await usageError(rehearseCommand(['--genesis-file', f('old.json'), '--new-genesis', f('new-chain-id.json')], captureIo())),
    await usageError(rehearseCommand(['--genesis-file', f('old.json')], captureIo())),
    await usageError(rehearseCommand([...base, '--stragglers', 'x'], captureIo())),
    await usageError(rehearseCommand([...base, '--stragglers', '4', '--left-behind', '1'], captureIo())),
    await usageError(rehearseCommand([...base, '--left-behind', 'v9'], captureIo())),
    await usageError(rehearseCommand([...base, '--at-block', '0'], captureIo())),
    await usageError(rehearseCommand([...base, '--restart-window', 'soon'], captureIo())),
    await usageError(rehearseCommand([...base, '--bogus'], captureIo())),
    await usageError(rehearseCommand([...base, 'extra'], captureIo())),
    await usageError(rehearseCommand(['--genesis-file', f('missing.json'), '--new-genesis', f('new-reward-at-20.json')], captureIo())),
    await usageError(rehearseCommand([...base, '--node-checks', 'geth'], captureIo())),
  ];
  t.regex(messages[0], /new-chain-id\.json: not a transitions change: a new genesis means a new chain/);
  t.regex(messages[1], /--genesis-file and --new-genesis are required/);
  t.regex(messages[2], /--stragglers: 'x' must be a whole number/);
  t.regex(messages[3], /--stragglers: 4 must be from 0 to 3/);
  t.regex(messages[4], /--left-behind: 'v9' is neither a node/);
  t.regex(messages[5], /--at-block: '0' must be a whole number of at least 1/);
  t.regex(messages[6], /--restart-window: 'soon' is not a duration/);
  t.regex(messages[7], /Unknown option '--bogus'/);
  t.regex(messages[8], /unexpected argument 'extra'/);
  t.regex(messages[9], /--genesis-file .*missing\.json: cannot be read/);
  t.regex(messages[10], /--node-checks: 'geth' must be besu .* or qbft-lab/);
  for (const m of messages) t.false(m.includes('\n'), m);
});

test('check: every case passes on a sound genesis (exit 0); --json', async (t) => {
  const io = captureIo();
  t.is(await checkCommand(['--genesis-file', f('check-transitions.json'), '--json'], io), 0);
  const r = JSON.parse(io.stdout);
  t.true(r.ok);
  t.deepEqual(r.cases.map((c: { case: string; verdict: string }) => `${c.case} ${c.verdict}`), [
    'crash-f pass',
    'proposer-crash pass',
    'partition pass',
    'wiped-restart pass',
    'votes pass',
    'transition-12 pass',
    'transition-20 pass',
  ]);
});

test('check: a failing case exits 1, shows in the table, and gets a report with --report-dir', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'check-'));
  const io = captureIo();
  t.is(await checkCommand(['--genesis-file', f('check-no-quorum-transition.json'), '--report-dir', dir, '--duration', '30s', '--seed', '3'], io), 1);
  t.regex(io.stdout, /^case +verdict +height +detail$/m);
  t.regex(io.stdout, /^transition-10 +FAIL +9 +expected: /m);
  t.regex(io.stdout, /^votes +skipped +- +a transition sets the validators at block 10/m);
  t.regex(io.stdout, /^0 passed, 5 failed, 1 skipped$/m);
  t.true(readdirSync(dir).includes('check-transition-10-seed-3.html'));
  t.regex(io.stderr, /check-transition-10 \(seed 3\) failed: report/);
});

test('check: a genesis that cannot be simulated, or bad options, are one-line usage errors', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'check-bad-'));
  const ibft = join(dir, 'ibft.json');
  writeFileSync(ibft, JSON.stringify({ config: { ibft2: {} }, gasLimit: '0x1', difficulty: '0x1' }));
  const broken = join(dir, 'broken.json');
  writeFileSync(broken, '{"config": {');
  const messages = [
    await usageError(checkCommand(['--genesis-file', ibft], captureIo())),
    await usageError(checkCommand(['--genesis-file', broken], captureIo())),
    await usageError(checkCommand([], captureIo())),
    await usageError(checkCommand(['--genesis-file', f('old.json'), '--duration', '0s'], captureIo())),
    await usageError(checkCommand(['--genesis-file', f('old.json'), '--seed', 'abc'], captureIo())),
  ];
  t.regex(messages[0], /^--genesis-file .*ibft\.json: not a QBFT genesis/);
  t.regex(messages[1], /^--genesis-file .*broken\.json: is not valid JSON/);
  t.regex(messages[2], /--genesis-file is required/);
  t.regex(messages[3], /--duration: '0s' must be more than 0/);
  t.regex(messages[4], /--seed: 'abc' must be an integer/);
  for (const m of messages) t.false(m.includes('\n'), m);
});
