/** `qbft-lab operator generate-blockchain-config`, run as the QBFT tutorial runs it, and its refusals. */
import test from 'ava';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { bytesToHex, concatBytes, hexToBytes, intToBytes, utf8ToBytes } from '../node/crypto/bytes.ts';
import { keccak256 } from '../node/crypto/keccak.ts';
import { privateKeyToAddress, publicKeyOf } from '../node/crypto/secp256k1.ts';
import { decodeExtraData } from '../node/chain/extra-data.ts';
import { loadGenesisFile } from '../node/cli/genesis-file.ts';
import { parseNodeOptions } from '../node/cli/node-options.ts';
import { loadOrCreateNodeKey, openLiveNodeCore } from '../node/cli/live-node.ts';
import { UsageError } from '../node/cli/usage-error.ts';
import type { RandomBytes } from '../node/cli/validator-keys.ts';
import { captureIo } from './capture-io.ts';
import { main } from './main.ts';
import { operatorCommand } from './operator-command.ts';

/** The tutorial's qbftConfigFile.json (besu-docs "Create a private network using QBFT", Apache-2.0), alloc shortened. */
const TUTORIAL_CONFIG = {
  genesis: {
    config: { chainId: 1337, berlinBlock: 0, qbft: { blockperiodseconds: 2, epochlength: 30000, requesttimeoutseconds: 4 } },
    nonce: '0x0',
    timestamp: '0x58ee40ba',
    gasLimit: '0x47b760',
    difficulty: '0x1',
    mixHash: '0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365',
    coinbase: '0x0000000000000000000000000000000000000000',
    alloc: {
      fe3b557e8fb62b89f4916b721be55ceb828dbd73: {
        privateKey: '8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63',
        comment: 'private key and this comment are ignored.  In a real chain, the private key should NOT be stored',
        balance: '0xad78ebc5ac6200000',
      },
    },
  },
  blockchain: { nodes: { generate: true, count: 4 } },
};
const BESU_PUBLIC_KEY = '0x9481ee2b34196827e8c4807ae29c2675c15d3641e482ab81cc0bc3ef535755b426b9f5c474213df28a563fab0bf0830b455ee8955b3faac93075422a6abf160d';

const root = mkdtempSync(join(tmpdir(), 'qbft-lab-operator-'));
let nextDir = 0;
const freshDir = () => join(root, `case-${nextDir++}`);

function configFile(config: unknown = TUTORIAL_CONFIG): string {
  const file = join(root, `config-${nextDir++}.json`);
  writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config, null, 2));
  return file;
}

async function generate(args: string[]) {
  const io = captureIo();
  const code = await main(['operator', 'generate-blockchain-config', ...args], io);
  return { code, io };
}

async function refused(t: import('ava').ExecutionContext, args: string[], message: RegExp): Promise<void> {
  const { code, io } = await generate(args);
  t.is(code, 2, args.join(' '));
  t.regex(io.stderr, message);
  t.is(io.stderr.trim().split('\n').length, 1, `one line: ${io.stderr}`);
  t.is(io.stdout, '');
}

/** The tutorial's step 3: `--config-file=qbftConfigFile.json --to=networkFiles --private-key-file-name=key`. */
async function tutorialNetworkFiles(): Promise<{ dir: string; addresses: string[]; stdout: string }> {
  const dir = freshDir();
  const { code, io } = await generate([`--config-file=${configFile()}`, `--to=${dir}`, '--private-key-file-name=key']);
  if (code !== 0) throw new Error(io.stderr);
  return { dir, addresses: readdirSync(join(dir, 'keys')), stdout: io.stdout };
}

test("the tutorial's layout: genesis.json and keys/<address>/{key, key.pub}, each key belonging to its directory", async (t) => {
  const { dir, addresses } = await tutorialNetworkFiles();
  t.deepEqual(readdirSync(dir).sort(), ['genesis.json', 'keys']);
  t.is(addresses.length, 4);
  for (const address of addresses) {
    t.regex(address, /^0x[0-9a-f]{40}$/);
    const nodeDir = join(dir, 'keys', address);
    t.deepEqual(readdirSync(nodeDir).sort(), ['key', 'key.pub']);
    const privateKey = readFileSync(join(nodeDir, 'key'), 'utf8');
    const publicKey = readFileSync(join(nodeDir, 'key.pub'), 'utf8');
    t.regex(privateKey, /^0x[0-9a-f]{64}$/, 'Besu writes 0x and lower-case hex, no newline');
    t.regex(publicKey, /^0x[0-9a-f]{128}$/);
    t.is<string, string>(privateKeyToAddress(hexToBytes(privateKey)), address);
    t.is<string, string>(bytesToHex(publicKeyOf(hexToBytes(privateKey))), publicKey);
    if (process.platform !== 'win32') t.is(statSync(join(nodeDir, 'key')).mode & 0o777, 0o600);
  }
});

test("the generated genesis loads with the node's parser and its extraData names the generated keys' addresses", async (t) => {
  const { dir, addresses, stdout } = await tutorialNetworkFiles();
  const genesis = loadGenesisFile(join(dir, 'genesis.json'));
  t.is(genesis.consensus, 'qbft');
  t.is(genesis.chainId, 1337n);
  const validators = decodeExtraData(genesis.extraData).validators;
  t.deepEqual([...validators].sort(), [...addresses].sort());
  t.deepEqual(
    stdout.trim().split('\n').slice(1).map((line) => line.trim().split(/\s+/)[0]),
    validators,
    'the output lists the validators in extraData order',
  );
  t.regex(stdout, /QBFT genesis with 4 validators in extraData/);
});

test('the node reads a generated key with --node-private-key-file, and as <data-path>/key after the tutorial copies it there', async (t) => {
  const { dir, addresses } = await tutorialNetworkFiles();
  const keyFile = join(dir, 'keys', addresses[0], 'key');
  const expected = hexToBytes(readFileSync(keyFile, 'utf8'));
  t.deepEqual(loadOrCreateNodeKey(parseNodeOptions(['--node-private-key-file', keyFile])), expected);
  const dataPath = join(freshDir(), 'Node-1', 'data');
  mkdirSync(dataPath, { recursive: true });
  copyFileSync(keyFile, join(dataPath, 'key'));
  t.deepEqual(loadOrCreateNodeKey(parseNodeOptions(['--data-path', dataPath])), expected);
  t.is(readFileSync(join(dataPath, 'key'), 'utf8'), readFileSync(keyFile, 'utf8'), 'the key was read, not replaced');
});

test('a node started from the generated genesis and key is one of the four validators', async (t) => {
  const { dir, addresses } = await tutorialNetworkFiles();
  const opts = parseNodeOptions(['--genesis-file', join(dir, 'genesis.json'), '--data-path', freshDir(), '--node-private-key-file', join(dir, 'keys', addresses[2], 'key')]);
  const core = await openLiveNodeCore(opts, { p2pEnabled: false });
  try {
    t.is<string, string>(core.node.address, addresses[2]);
    t.deepEqual(await core.node.validatorsAfter(core.node.head()), [...addresses].sort());
  } finally {
    await core.close();
  }
});

test('keys come from a secure random source: two runs share no key', async (t) => {
  const a = await tutorialNetworkFiles();
  const b = await tutorialNetworkFiles();
  t.is(new Set([...a.addresses, ...b.addresses]).size, 8);
});

test("Besu's default file names (key.priv, key.pub, genesis.json) and the options that change them", async (t) => {
  const plain = freshDir();
  t.is((await generate(['--config-file', configFile(), '--to', plain])).code, 0);
  const [first] = readdirSync(join(plain, 'keys'));
  t.deepEqual(readdirSync(join(plain, 'keys', first)).sort(), ['key.priv', 'key.pub']);
  const renamed = freshDir();
  t.is((await generate(['--config-file', configFile(), '--to', renamed, '--genesis-file-name', 'option.json', '--public-key-file-name', 'pub.test', '--private-key-file-name', 'priv.test'])).code, 0);
  t.deepEqual(readdirSync(renamed).sort(), ['keys', 'option.json']);
  t.deepEqual(readdirSync(join(renamed, 'keys', readdirSync(join(renamed, 'keys'))[0])).sort(), ['priv.test', 'pub.test']);
});

test('imported public keys get only a public key file; an IBFT 2.0 genesis is written with a note', async (t) => {
  const dir = freshDir();
  const ibft = { genesis: { ...TUTORIAL_CONFIG.genesis, config: { chainId: 1337, ibft2: {} } }, blockchain: { nodes: { keys: [BESU_PUBLIC_KEY] } } };
  const { code, io } = await generate(['--config-file', configFile(ibft), '--to', dir]);
  t.is(code, 0);
  t.deepEqual(readdirSync(join(dir, 'keys')), ['0xd5feb0fc5a54a89f97aeb34c3df15397c19f6dd2']);
  t.deepEqual(readdirSync(join(dir, 'keys', '0xd5feb0fc5a54a89f97aeb34c3df15397c19f6dd2')), ['key.pub']);
  t.is(readFileSync(join(dir, 'keys', '0xd5feb0fc5a54a89f97aeb34c3df15397c19f6dd2', 'key.pub'), 'utf8'), BESU_PUBLIC_KEY);
  t.regex(io.stdout, /IBFT 2\.0 genesis with 1 validator in extraData/);
  t.regex(io.stdout, /note: .*runs QBFT only/);
});

test('an injected random source decides the key files exactly', async (t) => {
  let counter = 0;
  const seeded: RandomBytes = (n) => keccak256(concatBytes(utf8ToBytes('operator'), intToBytes(++counter))).slice(0, n);
  const parse = (args: string[], options: Record<string, { type: 'string' | 'boolean' }>) => {
    try {
      return parseArgs({ args, options, allowPositionals: true, strict: true });
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  };
  const dir = freshDir();
  const oneNode = { ...TUTORIAL_CONFIG, blockchain: { nodes: { generate: true, count: 1 } } };
  t.is(await operatorCommand(['generate-blockchain-config', '--config-file', configFile(oneNode), '--to', dir], captureIo(), parse, seeded), 0);
  const expectedKey = keccak256(concatBytes(utf8ToBytes('operator'), intToBytes(1)));
  const address = privateKeyToAddress(expectedKey);
  t.is(readFileSync(join(dir, 'keys', address, 'key.priv'), 'utf8'), bytesToHex(expectedKey));
  t.is(readFileSync(join(dir, 'genesis.json'), 'utf8'), JSON.stringify({ ...oneNode.genesis, extraData: JSON.parse(readFileSync(join(dir, 'genesis.json'), 'utf8')).extraData }, null, 2) + '\n');
  t.deepEqual(decodeExtraData(loadGenesisFile(join(dir, 'genesis.json')).extraData).validators, [address]);
});

test('an empty --to directory is used; one with anything in it is refused and left as it was', async (t) => {
  const empty = freshDir();
  mkdirSync(empty);
  t.is((await generate(['--config-file', configFile(), '--to', empty])).code, 0);
  const taken = freshDir();
  mkdirSync(taken);
  writeFileSync(join(taken, 'notes.txt'), 'mine');
  await refused(t, ['--config-file', configFile(), '--to', taken], /--to .*: Output directory already exists \(and is not empty\)/);
  t.deepEqual(readdirSync(taken), ['notes.txt']);
  const file = join(root, 'a-file');
  writeFileSync(file, '');
  await refused(t, ['--config-file', configFile(), '--to', file], /exists and is not a directory/);
});

test('usage mistakes: one line, exit 2, and nothing written', async (t) => {
  const dir = freshDir();
  const config = configFile();
  await refused(t, [], /Missing required options: '--config-file=<FILE>', '--to=<DIRECTORY>'/);
  await refused(t, ['--config-file', config], /Missing required option: '--to=<DIRECTORY>'/);
  await refused(t, ['--config-file', config, '--to', dir, '--private-key-file-name', 'dup.test', '--public-key-file-name', 'dup.test'], /Output file paths must be unique\./);
  await refused(t, ['--config-file', config, '--to', dir, '--genesis-file-name', 'key.pub'], /Output file paths must be unique\./);
  await refused(t, ['--config-file', config, '--to', dir, '--private-key-file-name', '../key'], /--private-key-file-name: '\.\.\/key' must be a file name/);
  await refused(t, ['--config-file', config, '--to', dir, '--genesis-file-name', 'keys'], /keys directory/);
  await refused(t, ['--config-file', config, '--to', dir, '--count', '4'], /Unknown option '--count'/);
  await refused(t, ['--config-file', config, '--to', dir, 'extra'], /unexpected argument 'extra'/);
  await refused(t, ['--config-file', join(root, 'missing.json'), '--to', dir], /--config-file .*missing\.json: cannot be read/);
  await refused(t, ['--config-file', configFile('{"genesis": {'), '--to', dir], /--config-file .*: is not valid JSON/);
  await refused(t, ['--config-file', configFile({ genesis: TUTORIAL_CONFIG.genesis }), '--to', dir], /blockchain\.nodes: no validators/);
  t.false(existsSync(dir), 'a refused run creates nothing');
  const io = captureIo();
  t.is(await main(['operator', 'build'], io), 2);
  t.regex(io.stderr, /operator: expected 'generate-blockchain-config', got 'build'/);
});

test('operator --help shows its usage', async (t) => {
  const io = captureIo();
  t.is(await main(['operator', '--help'], io), 0);
  t.regex(io.stdout, /^Usage:\n {2}qbft-lab operator generate-blockchain-config --config-file F --to DIR/);
  t.regex(io.stdout, /--private-key-file-name N\] \[--public-key-file-name N\]/);
});
