/** `sim` flags turned into a scenario. */
import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HOSTILE_BEHAVIOURS } from '../sim/byzantine/names.ts';
import { buildSimGenesis } from '../sim/genesis-builder.ts';
import { captureIo } from './capture-io.ts';
import { main } from './main.ts';
import { simScenario } from './sim-scenario.ts';

test('--byzantine takes every hostile behaviour, and twin', (t) => {
  for (const behaviour of HOSTILE_BEHAVIOURS) {
    const s = simScenario({ validators: '4', byzantine: [`v3:${behaviour}`] });
    t.deepEqual(s.steps.filter((st) => st.do === 'byzantine'), [{ atMs: 0, do: 'byzantine', node: 'v3', behaviour }], behaviour);
  }
  t.deepEqual(simScenario({ validators: '4', byzantine: ['v1:twin'] }).twins, ['v1']);
});

test('--byzantine refuses an unknown behaviour and none, naming the choices', (t) => {
  for (const spec of ['v1:evil', 'v1:none', 'v1']) {
    t.throws(() => simScenario({ validators: '4', byzantine: [spec] }), { message: /--byzantine: .* must be vI:BEHAVIOUR with BEHAVIOUR one of equivocate, .*round-change-flood.* or twin/ }, spec);
  }
});

test('a --crash, --pause or --partition past the end of the run is refused, naming the flag and the run length', (t) => {
  const cases: Array<[Record<string, string[]>, RegExp]> = [
    [{ crash: ['v1@90s'] }, /^--crash: 'v1@90s' reaches 90 s, past the end of the run \(--duration 60 s\)$/],
    [{ crash: ['v1@10s..70s'] }, /^--crash: 'v1@10s\.\.70s' reaches 70 s/],
    [{ pause: ['v2@50s..61s'] }, /^--pause: .* reaches 61 s/],
    [{ partition: ['59s..2m:v0,v1|v2,v3'] }, /^--partition: .* reaches 120 s/],
  ];
  for (const [flags, message] of cases) t.throws(() => simScenario({ validators: '4', duration: '60s', ...flags }), { message }, JSON.stringify(flags));
  t.is(simScenario({ validators: '4', duration: '60s', crash: ['v1@10s..60s'] }).steps.length, 2);
});

function genesisFile(qbft: Record<string, unknown>): string {
  const genesis = buildSimGenesis({ validators: [], startTimeSeconds: 0 });
  Object.assign((genesis.config as { qbft: Record<string, unknown> }).qbft, qbft);
  const file = join(mkdtempSync(join(tmpdir(), 'qbft-lab-dml-')), 'genesis.json');
  writeFileSync(file, JSON.stringify(genesis));
  return file;
}

async function sendsOf(args: string[]): Promise<number> {
  const io = captureIo();
  const code = await main(['sim', '--validators', '16', '--duration', '1500ms', '--json', ...args], io);
  if (code !== 0) throw new Error(`sim ${args.join(' ')} exited ${code}: ${io.stderr}`);
  const r = JSON.parse(io.stdout) as { height: number; messages: { sent: number } };
  if (r.height < 1) throw new Error(`sim ${args.join(' ')} made no block`);
  return r.messages.sent;
}

test('--duplicate-message-limit sets the genesis duplicatemessagelimit, and is unset by default', (t) => {
  t.is(simScenario({ validators: '4', 'duplicate-message-limit': '20' }).genesis?.duplicateMessageLimit, 20);
  t.is(simScenario({ validators: '4' }).genesis?.duplicateMessageLimit, undefined);
});

test('--duplicate-message-limit refuses values that are not an integer from 1 to 2^31-1', async (t) => {
  for (const bad of ['0', '-1', '1.5', 'many', '', '2147483648']) {
    t.throws(() => simScenario({ validators: '4', 'duplicate-message-limit': bad }), { message: /--duplicate-message-limit: '.*' must be an integer from 1 to 2147483647/ }, bad);
    const io = captureIo();
    t.is(await main(['sim', '--duplicate-message-limit', bad], io), 2, bad);
    t.regex(io.stderr, /--duplicate-message-limit/, bad);
  }
});

test('--duplicate-message-limit overrides the one in --genesis-file, whatever its key case', (t) => {
  const file = genesisFile({ duplicateMessageLimit: 20 });
  const s = simScenario({ validators: '4', 'genesis-file': file, 'duplicate-message-limit': '1000' });
  const qbft = (s.baseGenesis?.config as { qbft: Record<string, unknown> }).qbft;
  t.deepEqual(Object.entries(qbft).filter(([k]) => k.toLowerCase() === 'duplicatemessagelimit'), [['duplicateMessageLimit', 1000]]);
  t.is((simScenario({ validators: '4', 'genesis-file': file }).baseGenesis?.config as { qbft: Record<string, unknown> }).qbft.duplicateMessageLimit, 20);
});

// 16 validators send 33 distinct QBFT messages a height: a filter of 20 forgets some before their
// last copies arrive, and each one accepted again is gossiped again.
test('a smaller duplicate filter gives more sends, from the flag and from the genesis file', async (t) => {
  // With a short gossip history too, copies that left both filters are gossiped again (Besu's
  // UniqueMessageMulticaster would otherwise stop them): the duplicate limit shows in the sends.
  const history = genesisFile({ gossipedhistorylimit: 20 });
  const small = await sendsOf(['--genesis-file', history, '--duplicate-message-limit', '20']);
  const large = await sendsOf(['--genesis-file', history, '--duplicate-message-limit', '1000']);
  t.true(small > large, `limit 20: ${small} sends, limit 1000: ${large}`);
  t.is(await sendsOf(['--genesis-file', genesisFile({ gossipedhistorylimit: 20, duplicatemessagelimit: 20 })]), small);
  t.is(await sendsOf(['--genesis-file', genesisFile({ gossipedhistorylimit: 20, duplicatemessagelimit: 20 }), '--duplicate-message-limit', '1000']), large);
});
