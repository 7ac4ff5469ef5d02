import test from 'ava';
import { main } from './main.ts';
import { captureIo } from './capture-io.ts';
import { teachCommand, type Advance } from './teach-command.ts';

const capture = captureIo;

/** Prose is wrapped at 78 columns: match it with single spaces. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

const parse = (args: string[]) => ({ values: { auto: args.includes('--auto') }, positionals: args.filter((a) => !a.startsWith('--')) });

test('teach round-timing --auto runs to the end and explains the run with its own numbers', async (t) => {
  const io = capture();
  t.is(await main(['teach', 'round-timing', '--auto'], io), 0);
  const out = flat(io.stdout);
  t.regex(out, /── 1\/\d+ · round-timing · timeout-doubling/);
  t.regex(out, /blockperiodseconds 1, requesttimeoutseconds 2/);
  t.regex(out, /quorum = ceil\(2 x 4 \/ 3\) = 3/);
  t.regex(out, /f = floor\(\(4 - 1\) \/ 3\) = 1/);
  for (const [r, x, secs] of [[0, 1, 2], [1, 2, 4], [2, 4, 8], [3, 8, 16], [4, 16, 32]]) t.regex(out, new RegExp(`requesttimeoutseconds x 2\\^${r} = 2 s x ${x} = ${secs} s`));
  // The arithmetic of each expiry, read from the trace: 2 + 2 = 4, 4 + 4 = 8, ... 32 + 32 = 64.
  for (const [start, len, end] of [['2.000', 2, '4.000'], ['4.000', 4, '8.000'], ['8.000', 8, '16.000'], ['16.000', 16, '32.000'], ['32.000', 32, '64.000']])
    t.regex(out, new RegExp(`it expired at ${start}s \\+ ${len} s = ${end}s`));
  t.regex(out, /Block 1 has no previous proposer \(the genesis coinbase is 0x0, not a validator\), so round 0 goes to the first validator after 0x0 in address order, v0/);
  t.regex(out, /Block 1 was proposed by v0; round-robin gives round 0 to the next one, v1; round 1 moves 1 further along: v2/);
  t.regex(out, /Its proposer v1 was down/);
  t.regex(out, /Block 2 committed in round 5/);
  t.regex(out, /Summary: height 2 took 6 rounds/);
  t.regex(out, /End of the lesson round-timing\. Other lessons: qbft-lab teach round-change/);
  const total = Number(/── 1\/(\d+) · round-timing/.exec(out)![1]);
  t.regex(out, new RegExp(`── ${total}/${total} · round-timing`));
  t.false(/\[Enter\/space\]/.test(out), '--auto never waits');
});

test('teach waits for keys when interactive: next, back and quit', async (t) => {
  const keys: Advance[] = ['next', 'next', 'back', 'quit'];
  const io = capture();
  const code = await teachCommand(['round-change'], io, parse, () => 0, { interactive: true, nextKey: async () => keys.shift()! });
  t.is(code, 0);
  t.deepEqual([...io.stdout.matchAll(/── (\d+)\/\d+ · round-change/g)].map((m) => Number(m[1])), [1, 2, 3, 2]);
  t.is(keys.length, 0);
  t.regex(flat(io.stdout), /v2 crashes at 2\.500s\. It is the proposer of height 3, round 0\./);
  t.regex(io.stdout, /\[Enter\/space\] next {2}\[b\] back {2}\[q\] quit/);
  t.notRegex(io.stdout, /End of the lesson/);
});

test('teach: the other lessons explain votes, the epoch reset and transitions with the runs numbers', async (t) => {
  const io = capture();
  t.is(await teachCommand(['votes'], io, parse, () => 0, { interactive: false, nextKey: async () => 'quit' }), 0);
  const out = flat(io.stdout);
  t.regex(out, /outstanding votes: add o0: v0 and v1 \(2 of 3\)/);
  t.regex(out, /That makes 3 votes, the threshold: o0 is added\. From block 4 the validators are v0 o0 v1 v2 v3 \(address order, n = 5\): quorum = ceil\(2 x 5 \/ 3\) = 4 \(was 3\)/);
  t.regex(out, /Block 5 was proposed by v0; round-robin gives round 0 to the next one, o0\./);
  t.regex(out, /Block 8, proposed by v3 in round 0, is an epoch block \(8 mod epochlength 4 = 0\)/);
  const tr = capture();
  t.is(await teachCommand(['transitions', '--auto'], tr, parse, () => 0, { interactive: true, nextKey: async () => 'quit' }), 0);
  t.regex(tr.stdout, /Block 6: validatorselectionmode = contract/);
  t.regex(flat(tr.stdout), /The quorum goes from 3 to quorum = ceil\(2 x 3 \/ 3\) = 2: block 6 carries 2 commit seals/);
  t.regex(tr.stdout, /0x00000000000000000000000000000000000000be +0 +5 ETH +5 ETH/);
});

test('teach usage errors exit 2', async (t) => {
  for (const [args, message] of [
    [['teach', 'nope'], /teach: no lesson 'nope'; lessons: round-timing/],
    [['teach', 'votes', 'round-timing'], /teach: give at most one lesson/],
    [['teach', '--fast'], /Unknown option '--fast'/],
  ] as const) {
    const io = capture();
    t.is(await main([...args], io), 2);
    t.regex(io.stderr, message);
  }
});
