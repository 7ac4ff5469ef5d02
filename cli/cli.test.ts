import test from 'ava';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from './main.ts';
import { captureIo } from './capture-io.ts';

const capture = captureIo;

const docsGenesis = new URL('../node/chain/testdata/besu-docs-qbft-genesis.json', import.meta.url).pathname;

test('scenario list names every built-in scenario', async (t) => {
  const io = capture();
  t.is(await main(['scenario', 'list'], io), 0);
  t.regex(io.stdout, /^happy-path\s/m);
  t.regex(io.stdout, /^twins-fork\s/m);
});

test('scenario run --json prints one object with the documented fields and exits 0', async (t) => {
  const io = capture();
  t.is(await main(['scenario', 'run', 'proposer-crash', '--json', '--seed', '3'], io), 0);
  const r = JSON.parse(io.stdout);
  for (const key of ['scenario', 'seed', 'ok', 'validators', 'simulatedMs', 'wallMs', 'height', 'nodes', 'roundChanges', 'maxRound', 'messages', 'traceHash', 'invariants', 'expectations'])
    t.true(key in r, key);
  t.is(r.seed, 3);
  t.true(r.ok);
  t.deepEqual(Object.keys(r.nodes[0]), ['name', 'address', 'height', 'head', 'status']);
  t.deepEqual(Object.keys(r.messages), ['sent', 'delivered', 'dropped']);
  t.deepEqual(Object.keys(r.invariants), ['agreement', 'validity', 'liveness']);
});

test('sim with a crash window and a partition runs and writes a trace whose hash matches', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-cli-'));
  const trace = join(dir, 'run.jsonl');
  const io = capture();
  const code = await main(['sim', '--validators', '4', '--duration', '40s', '--crash', 'v1@5s..15s', '--partition', '20s..25s:v0,v1,v2|v3', '--latency', '10-50ms', '--json', '--trace', trace], io);
  const r = JSON.parse(io.stdout);
  t.is(code, 0, io.stdout);
  t.true(r.height >= 25);
  const { createHash } = await import('node:crypto');
  t.truthy(createHash);
  const lines = readFileSync(trace, 'utf8');
  t.true(lines.split('\n').length > 100);
  const { keccak256 } = await import('../node/crypto/keccak.ts');
  const { bytesToHex } = await import('../node/crypto/bytes.ts');
  t.is(bytesToHex(keccak256(new TextEncoder().encode(lines))), r.traceHash);
});

test('bad flags and bad values are usage errors (exit 2) with a clear message', async (t) => {
  for (const [args, pattern] of [
    [['sim', '--bogus'], /Unknown option '--bogus'/],
    [['sim', '--duration', 'soon'], /--duration: 'soon' is not a duration/],
    [['sim', '--crash', 'v9@1s'], /--crash: 'v9' is not a validator/],
    [['sim', '--latency', '50-10ms'], /minimum above its maximum/],
    [['sim', '--loss', '2'], /--loss: '2' must be a probability/],
    [['sim', '--byzantine', 'v1:evil'], /--byzantine/],
    [['sim', '--pause', 'v1@5s'], /--pause: 'v1@5s' must look like vI@T1..T2/],
    [['scenario', 'run', 'no-such-scenario'], /no scenario named 'no-such-scenario'/],
    [['fuzz', '--shard', '3/2'], /--shard/],
    [['sim', '--besu-version', '24.4'], /--besu-version: '24\.4' is not a Besu release line qbft-lab models \(20\.10, 21\.1/],
    [['fuzz', '--besu-version', '24.3', '--bug', 'besu-6613'], /--bug and --besu-version/],
    [['scenario', 'run', 'happy-path', '--besu-version', 'latest'], /--besu-version/],
    [['frobnicate'], /unknown command 'frobnicate'/],
  ] as Array<[string[], RegExp]>) {
    const io = capture();
    t.is(await main(args, io), 2, args.join(' '));
    t.regex(io.stderr, pattern);
  }
});

test('a bad scenario file names the bad field', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-cli-'));
  const file = join(dir, 'bad.json');
  writeFileSync(file, JSON.stringify({ name: 'x', description: '', validators: 0, durationMs: 1000, steps: [], expect: [] }));
  const io = capture();
  t.is(await main(['scenario', 'run', file], io), 2);
  t.regex(io.stderr, /validators must be an integer from 1 to 200/);
});

test('a scenario file naming a node the network lacks exits 2 with one line, no stack trace', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-cli-'));
  const file = join(dir, 'crash-v9.json');
  writeFileSync(file, JSON.stringify({ name: 'x', description: '', validators: 4, durationMs: 1000, steps: [{ atMs: 100, do: 'crash', node: 'v9' }], expect: [] }));
  const io = capture();
  t.is(await main(['scenario', 'run', file], io), 2);
  t.is(io.stdout, '');
  t.is(io.stderr.trim().split('\n').length, 1, io.stderr);
  t.true(io.stderr.includes(`${file}: steps[0].node: unknown node 'v9' (this network has v0..v3)`), io.stderr);
  t.notRegex(io.stderr, /\bat .*\.ts:\d+/);
});

test('rlp encode and decode QBFT extraData as Besu does', async (t) => {
  const enc = capture('["be068f726a13c8d46c44be6ce9d275600e1735a4","5ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193"]');
  t.is(await main(['rlp', 'encode', '--type=QBFT_EXTRA_DATA'], enc), 0);
  t.is(enc.stdout.trim(), '0xf84fa0' + '00'.repeat(32) + 'ea94be068f726a13c8d46c44be6ce9d275600e1735a4945ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193c080c0');
  const dec = capture('0xf84fa0' + '00'.repeat(32) + 'ea94241f804efb46f71acaa5be94a62f7798e89c3724946cdf72da457453063ea92e7fa5ac30afbcec28cdc080c0');
  t.is(await main(['rlp', 'decode', '--type=QBFT_EXTRA_DATA'], dec), 0);
  t.is(dec.stdout.trim(), '[0x241f804efb46f71acaa5be94a62f7798e89c3724, 0x6cdf72da457453063ea92e7fa5ac30afbcec28cd]');
  const ibft = capture('["be068f726a13c8d46c44be6ce9d275600e1735a4"]');
  t.is(await main(['rlp', 'encode'], ibft), 0);
  t.true(ibft.stdout.trim().endsWith('808400000000c0'), 'IBFT 2.0 layout is the default type, with a 4-byte round');
  const bad = capture('[1,2]');
  t.is(await main(['rlp', 'encode', '--type=QBFT_EXTRA_DATA'], bad), 2);
  const badType = capture('[]');
  t.is(await main(['rlp', 'encode', '--type=CLIQUE'], badType), 2);
});

test('genesis inspect prints the hash, validators and options', async (t) => {
  const io = capture();
  t.is(await main(['genesis', 'inspect', '--genesis-file', docsGenesis, '--json'], io), 0);
  const report = JSON.parse(io.stdout);
  t.regex(report.hash, /^0x[0-9a-f]{64}$/);
  const text = capture();
  t.is(await main(['genesis', 'inspect', '--genesis-file', docsGenesis], text), 0);
  t.regex(text.stdout, /0x[0-9a-f]{64}/);
  const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-cli-'));
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ config: { chainId: 1, qbft: { blockperiodseconds: 0 } } }));
  const err = capture();
  t.is(await main(['genesis', 'inspect', '--genesis-file', bad], err), 2);
  t.regex(err.stderr, /blockperiodseconds/);
});

test('sim accepts an operator genesis file and keeps its validator count', async (t) => {
  const io = capture();
  t.is(await main(['sim', '--genesis-file', docsGenesis, '--duration', '20s', '--json'], io), 0, io.stderr);
  const r = JSON.parse(io.stdout);
  t.is(r.validators, 4);
  t.true(r.ok);
});

test('a network speaking the legacy (GoQuorum / Besu < 26.1) message layout makes blocks too', async (t) => {
  const io = capture();
  t.is(await main(['sim', '--duration', '15s', '--wire-layout', 'legacy', '--crash', 'v2@2500ms', '--json'], io), 0, io.stderr);
  const r = JSON.parse(io.stdout);
  t.true(r.height >= 8);
  t.true(r.roundChanges >= 1, 'a round change proves RoundChange and justified Proposal messages in the legacy layout');
  const bad = capture();
  t.is(await main(['sim', '--wire-layout', 'v1'], bad), 2);
});

test('sim --besu-version runs the nodes as that release line: its bugs on, named in the trace', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-version-'));
  const trace = join(dir, 'run.jsonl');
  const io = capture();
  t.is(await main(['sim', '--validators', '4', '--duration', '10s', '--besu-version', '25.2', '--json', '--trace', trace], io), 0, io.stderr);
  const first = JSON.parse(readFileSync(trace, 'utf8').split('\n')[0]!) as { besuVersion?: string; bugs?: string[] };
  t.is(first.besuVersion, '25.2');
  t.true(first.bugs?.includes('besu-8307'));
});

test('--version and -V print the package version and exit 0; node --version prints the client version as besu --version does', async (t) => {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  for (const flag of ['--version', '-V']) {
    const io = capture();
    t.is(await main([flag], io), 0);
    t.is(io.stdout, `qbft-lab ${version}\n`, 'QBFT_LAB_VERSION agrees with package.json');
    t.is(io.stderr, '');
  }
  const node = capture();
  t.is(await main(['node', '--version'], node), 0);
  t.regex(node.stdout, new RegExp(`^qbft-lab/v${version.replace(/\./g, '\\.')}/[\\w-]+/node-\\d+\\n$`));
});

test('a mistyped command or option answers one line with the nearest name, exit 2', async (t) => {
  for (const [args, line] of [
    [['scenaro', 'run', 'happy-path'], "qbft-lab: unknown command 'scenaro' (did you mean 'scenario'?)"],
    [['netwrok'], "qbft-lab: unknown command 'netwrok' (did you mean 'network'?)"],
    [['netwrok', '--help'], "qbft-lab: unknown command 'netwrok' (did you mean 'network'?)"],
    [['frobnicate'], "qbft-lab: unknown command 'frobnicate' (see 'qbft-lab --help')"],
    [['scenario', 'rnu', 'happy-path'], "qbft-lab: scenario: expected 'list' or 'run', got 'rnu' (did you mean 'run'?) (see 'qbft-lab scenario --help')"],
    [['sim', '--validatorz', '4'], "qbft-lab: Unknown option '--validatorz' (did you mean '--validators'?) (see 'qbft-lab sim --help')"],
    [['sim', '--frobnicate'], "qbft-lab: Unknown option '--frobnicate' (see 'qbft-lab sim --help')"],
    [['check', '--genesis-fle', 'g.json'], "qbft-lab: check: Unknown option '--genesis-fle' (did you mean '--genesis-file'?) (see 'qbft-lab check --help')"],
    [['node', '--rpc-http-prot', '1'], "qbft-lab: Unknown option '--rpc-http-prot' (did you mean '--rpc-http-port'?) (see 'qbft-lab node --help')"],
  ] as Array<[string[], string]>) {
    const io = capture();
    t.is(await main(args, io), 2, args.join(' '));
    t.is(io.stdout, '');
    t.is(io.stderr, `${line}\n`, args.join(' '));
  }
});

test('a scenario file with times on the absolute clock, a window backwards or a bad step argument exits 2 with one line naming the path', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-cli-'));
  const cases: Array<[unknown[], string]> = [
    [[{ atMs: 1_700_000_001_000, do: 'crash', node: 'v1' }], "steps[0].atMs 1700000001000 looks like an absolute virtual timestamp: times are milliseconds from the start of the run (1700000000000 on the simulator's clock), so write 1000 for 1 s in"],
    [[{ atMs: 3000, do: 'crash', node: 'v1' }, { atMs: 1000, do: 'restart', node: 'v1' }], 'steps[1] (restart at 1 s) restarts v1, which is running then; steps[0] (crash at 3 s) comes later: a restart must come after its crash'],
    [[{ atMs: 0, do: 'partition', groups: [['v0', 'v1'], ['v1', 'v2']] }], "steps[0].groups[1][0]: 'v1' is in groups 0 and 1 too (groups must not overlap)"],
  ];
  for (const [i, [steps, line]] of cases.entries()) {
    const file = join(dir, `bad-${i}.json`);
    writeFileSync(file, JSON.stringify({ name: 'x', description: '', validators: 4, durationMs: 5000, steps, expect: [] }));
    const io = capture();
    t.is(await main(['scenario', 'run', file], io), 2, line);
    t.is(io.stdout, '');
    t.is(io.stderr.trim().split('\n').length, 1, io.stderr);
    t.true(io.stderr.startsWith(`qbft-lab: ${file}: ${line}`), io.stderr);
  }
});
