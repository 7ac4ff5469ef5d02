/** Configuration mistakes of `qbft-lab node`: one line naming the option or file, exit 2, no stack trace; --help everywhere. */
import test from 'ava';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSimGenesis } from '../sim/genesis-builder.ts';
import { validatorKeys } from '../sim/keys.ts';
import { LevelStore } from '../node/runtime/live-store.ts';
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
  while (first.node.chain.head().number < 3) await new Promise((r) => setTimeout(r, 100));
  await first.close();

  await fails(t, ['node', '--p2p-enabled=false', '--genesis-file', file('g1.json', [{ block: 2, blockreward: '1000' }]), '--data-path', dataPath], /--genesis-file .*g1\.json: the genesis configuration changes the rules of stored block 2 \(blockReward 0 -> 1000\) and the chain head is \d+/);
  await fails(t, ['node', '--p2p-enabled=false', '--genesis-file', file('g2.json', [{ block: 1, validatorselectionmode: 'contract', validatorcontractaddress: '0x0000000000000000000000000000000000008888' }]), '--data-path', dataPath], /stored block 1 \(validatorSelectionMode blockheader -> contract/);

  const later = await start(file('g3.json', [{ block: 100_000, blockreward: '1000' }]));
  t.true(later.node.chain.head().number >= 3, 'the stored chain is kept');
  await later.close();
  // The configuration that started last is what stored blocks are now held to: dropping the future transition is fine.
  const again = await start(file('g4.json', []));
  await again.close();
  t.pass();
});
