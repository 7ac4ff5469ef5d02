/** Configuration mistakes of `qbft-lab node`: one line naming the option or file, exit 2, no stack trace; --help everywhere. */
import test from 'ava';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSimGenesis } from '../sim/genesis-builder.ts';
import { validatorKeys } from '../sim/keys.ts';
import { LevelStore } from '../node/runtime/live-store.ts';
import { LiveLog } from '../node/runtime/live-log.ts';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex } from '../node/crypto/bytes.ts';
import { encodeExtraDataFromAddresses } from '../node/chain/extra-data.ts';
import { captureIo } from './capture-io.ts';
import { main } from './main.ts';

const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-config-'));
const genesisFile = join(dir, 'genesis.json');
writeFileSync(genesisFile, JSON.stringify(buildSimGenesis({ validators: validatorKeys(1).map((k) => k.address), startTimeSeconds: 1_700_000_000 })));

async function fails(t: import('ava').ExecutionContext, args: string[], pattern: RegExp): Promise<void> {
  const io = captureIo();
  t.is(await main(args, io), 2, args.join(' '));
  t.regex(io.stderr, pattern);
  t.is(io.stderr.trim().split('\n').length, 1, `one line: ${io.stderr}`);
  t.notRegex(io.stderr, /\n\s+at /, 'no stack trace');
}

test('every command answers --help with its usage, exit 0', async (t) => {
  for (const command of ['node', 'network', 'sim', 'scenario', 'fuzz', 'bugs', 'report', 'tui', 'teach', 'genesis', 'blocks', 'rlp', 'operator']) {
    const io = captureIo();
    t.is(await main([command, '--help'], io), 0, command);
    t.regex(io.stdout, new RegExp(`^Usage:\\n {2}qbft-lab ${command}`), command);
  }
  const node = captureIo();
  await main(['node', '-h'], node);
  t.regex(node.stdout, /--rpc-http-port N \(default: 8545\)/);
  t.regex(node.stdout, /--rpc-http-api A,B,\.\.\. \(default: ETH,NET,WEB3\)/);
});

test('a missing or invalid genesis names --genesis-file and the file', async (t) => {
  await fails(t, ['node'], /--genesis-file is required/);
  await fails(t, ['node', '--p2p-enabled=false', '--genesis-file', join(dir, 'none.json'), '--data-path', join(dir, 'd0')], /--genesis-file .*none\.json: genesis: \(file\) cannot be read/);
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, '{}');
  await fails(t, ['node', '--p2p-enabled=false', '--genesis-file', bad, '--data-path', join(dir, 'd1')], /--genesis-file .*bad\.json: genesis: gasLimit is missing/);
  const ibft = join(dir, 'ibft.json');
  const qbftGenesis = JSON.parse(readFileSync(genesisFile, 'utf8')) as { config: Record<string, unknown> };
  const { qbft, ...rest } = qbftGenesis.config;
  writeFileSync(ibft, JSON.stringify({ ...qbftGenesis, config: { ...rest, ibft2: qbft } }));
  await fails(t, ['node', '--p2p-enabled=false', '--genesis-file', ibft, '--data-path', join(dir, 'd6')], /--genesis-file .*ibft\.json: genesis: config\.ibft2 names IBFT 2\.0: qbft-lab runs QBFT/);
});

/** QBFT extraData whose only validator is 19 bytes long. */
const SHORT_VALIDATOR_EXTRA = bytesToHex(RLP.encode([new Uint8Array(32), [new Uint8Array(19).fill(0x11)], [], new Uint8Array(0), []]));

test('a genesis whose extraData does not decode is refused in one line naming extraData, by `node` and by `network`', async (t) => {
  const base = JSON.parse(readFileSync(genesisFile, 'utf8')) as Record<string, unknown>;
  const short = join(dir, 'short-validator.json');
  writeFileSync(short, JSON.stringify({ ...base, extraData: SHORT_VALIDATOR_EXTRA }));
  await fails(t, ['node', '--p2p-enabled=false', '--genesis-file', short, '--data-path', join(dir, 'd7')], /--genesis-file .*short-validator\.json: genesis: extraData is not QBFT extraData: validator 0 must be 20 bytes, got 19/);
  const empty = join(dir, 'empty-extra.json');
  writeFileSync(empty, JSON.stringify({ ...base, extraData: '0x' }));
  await fails(t, ['node', '--p2p-enabled=false', '--genesis-file', empty, '--data-path', join(dir, 'd8')], /--genesis-file .*empty-extra\.json: genesis: extraData is empty/);
  // `network` keeps its genesis in the data path; a hand-edited one is held to the same check.
  const networkPath = join(dir, 'network');
  mkdirSync(networkPath, { recursive: true });
  writeFileSync(join(networkPath, 'genesis.json'), JSON.stringify({ ...base, extraData: SHORT_VALIDATOR_EXTRA }));
  await fails(t, ['network', '--validators', '1', '--base-port', '0', '--data-path', networkPath], /network.genesis\.json: genesis: extraData is not QBFT extraData: validator 0 must be 20 bytes, got 19/);
});

test('genesis problems Besu starts with anyway: the node starts and its log warns about each, naming the field', async (t) => {
  const { parseNodeOptions } = await import('../node/cli/node-options.ts');
  const { startLiveNode } = await import('../node/cli/live-node.ts');
  const base = JSON.parse(readFileSync(genesisFile, 'utf8')) as { config: Record<string, unknown>; alloc: Record<string, unknown> };
  const [a] = validatorKeys(1).map((k) => k.address);
  const shortAddress = '0x' + '22'.repeat(19);
  const problems = join(dir, 'problems.json');
  writeFileSync(
    problems,
    JSON.stringify({
      ...base,
      extraData: bytesToHex(encodeExtraDataFromAddresses([])),
      alloc: { ...base.alloc, [shortAddress]: { balance: '0x1' } },
      config: { ...base.config, transitions: { qbft: [{ block: 10, validators: [a, a] }, { block: 5, validators: [] }, { block: 20, validators: [shortAddress] }] } },
    }),
  );
  const noQbft = join(dir, 'no-qbft.json');
  const { qbft: _qbft, ...withoutQbft } = base.config;
  writeFileSync(noQbft, JSON.stringify({ ...base, config: withoutQbft }));
  const start = async (file: string, dataPath: string) => {
    const lines: string[] = [];
    const live = await startLiveNode(parseNodeOptions(['--p2p-enabled=false', '--genesis-file', file, '--data-path', join(dir, dataPath)]), { log: new LiveLog({ write: (line) => lines.push(line) }) });
    t.is(live.node.head().number, 0, 'started');
    await live.close();
    return lines.filter((line) => / WARN {2}genesis: /.test(line)).map((line) => line.replace(/^.* WARN {2}/, '').trim());
  };
  t.deepEqual((await start(problems, 'd9')).sort(), [
    'genesis: extraData lists no validators: no validator can propose block 1, so the chain will not progress',
    `genesis: config.transitions.qbft[1].block (5) is below the block of transition 0 (10): transitions apply in block order, not in the order written`,
    `genesis: config.transitions.qbft[2].validators[0] is not a 20-byte address (38 hex digits, not 40): it is read as 0x00${'22'.repeat(19)}`,
    `genesis: config.transitions.qbft[1].validators is empty: block 5 has no validator to propose it, so the chain stops at block 4`,
    `genesis: config.transitions.qbft[0].validators lists ${a} more than once: it counts as one validator`,
    `genesis: alloc.${shortAddress} is not a 20-byte address (38 hex digits, not 40): it is read as 0x00${'22'.repeat(19)}`,
  ].sort());
  t.deepEqual(await start(noQbft, 'd10'), ['genesis: config has no qbft section: the node runs no consensus and produces no blocks, it only imports and serves them']);
  t.deepEqual(await start(genesisFile, 'd11'), [], 'a sound genesis: no warning');
});

test('an unknown API group is refused with Besu\'s wording', async (t) => {
  await fails(t, ['node', '--p2p-enabled=false', '--genesis-file', genesisFile, '--rpc-http-api', 'ETH,FOO,BAR'], /Invalid value for option '--rpc-http-api': invalid entries found \[FOO, BAR\]/);
  await fails(t, ['node', '--p2p-enabled=false', '--genesis-file', genesisFile, '--rpc-ws-api', 'NOPE'], /--rpc-ws-api': invalid entries found \[NOPE\]/);
});

test('a port in use names the option', async (t) => {
  const busy = createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
  const port = (busy.address() as AddressInfo).port;
  try {
    await fails(t, ['node', '--p2p-enabled=false', '--genesis-file', genesisFile, '--data-path', join(dir, 'd2'), '--rpc-http-enabled', '--rpc-http-port', String(port)], new RegExp(`--rpc-http-port: Failed to bind Ethereum JSON-RPC listener to 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
    await fails(t, ['node', '--p2p-enabled=false', '--genesis-file', genesisFile, '--data-path', join(dir, 'd3'), '--rpc-ws-enabled', '--rpc-ws-port', String(port)], /--rpc-ws-port: Failed to bind Websocket listener/);
    await fails(t, ['node', '--p2p-enabled=false', '--genesis-file', genesisFile, '--data-path', join(dir, 'd4'), '--graphql-http-enabled', '--graphql-http-port', String(port)], /--graphql-http-port: Failed to bind GraphQL HTTP listener/);
    await fails(t, ['node', '--genesis-file', genesisFile, '--data-path', join(dir, 'd5'), '--p2p-interface', '127.0.0.1', '--p2p-port', String(port)], new RegExp(`--p2p-port: Failed to bind P2P listener to 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
  } finally {
    busy.close();
  }
});

test('a data path whose database another node holds names --data-path', async (t) => {
  const dataPath = join(dir, 'held');
  const store = await LevelStore.open(join(dataPath, 'database'));
  try {
    await fails(t, ['node', '--p2p-enabled=false', '--genesis-file', genesisFile, '--data-path', dataPath], /--data-path .*held: cannot open the node's database .*another node/);
  } finally {
    await store.close();
  }
});

test('a restart with transitions at stored blocks is refused, naming the block, the change and the head; one above the head starts', async (t) => {
  const { parseNodeOptions } = await import('../node/cli/node-options.ts');
  const { startLiveNode } = await import('../node/cli/live-node.ts');
  const key = validatorKeys(1)[0];
  const dataPath = join(dir, 'history');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(dataPath, { recursive: true });
  writeFileSync(join(dataPath, 'key'), Buffer.from(key.privateKey).toString('hex'));
  const base = buildSimGenesis({ validators: [key.address], startTimeSeconds: Math.floor(Date.now() / 1000) }) as { config: Record<string, unknown> };
  const file = (name: string, qbft: unknown[]) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify({ ...base, config: { ...base.config, transitions: { qbft } } }));
    return path;
  };
  const start = async (genesis: string) => startLiveNode(parseNodeOptions(['--p2p-enabled=false', '--genesis-file', genesis, '--data-path', dataPath]), { p2pEnabled: false });
  const first = await start(file('g0.json', []));
  while (first.node.head().number < 3) await new Promise((r) => setTimeout(r, 100));
  await first.close();

  await fails(t, ['node', '--p2p-enabled=false', '--genesis-file', file('g1.json', [{ block: 2, blockreward: '1000' }]), '--data-path', dataPath], /--genesis-file .*g1\.json: the genesis configuration changes the rules of stored block 2 \(blockReward 0 -> 1000\) and the chain head is \d+/);
  await fails(t, ['node', '--p2p-enabled=false', '--genesis-file', file('g2.json', [{ block: 1, validatorselectionmode: 'contract', validatorcontractaddress: '0x0000000000000000000000000000000000008888' }]), '--data-path', dataPath], /stored block 1 \(validatorSelectionMode blockheader -> contract/);

  const later = await start(file('g3.json', [{ block: 100_000, blockreward: '1000' }]));
  t.true(later.node.head().number >= 3, 'the stored chain is kept');
  await later.close();
  // The configuration that started last is what stored blocks are now held to: dropping the future transition is fine.
  const again = await start(file('g4.json', []));
  await again.close();
  t.pass();
});
