import test from 'ava';
import { readFileSync } from 'node:fs';
import { bytesToHex } from '../crypto/bytes.ts';
import { decodeExtraData } from './extra-data.ts';
import { GenesisError, parseGenesis, readGenesis } from './genesis.ts';
import { loadGenesisFile } from '../cli/genesis-file.ts';

const DOCS_FILE = new URL('./testdata/besu-docs-qbft-genesis.json', import.meta.url).pathname;
const docsJson = () => JSON.parse(readFileSync(DOCS_FILE, 'utf8')) as Record<string, any>;

/** besu:app/.../RLPSubCommandTest canEncodeToQbftExtraData output (2 validators). */
const TWO_VALIDATOR_EXTRA =
  '0xf84fa0' + '00'.repeat(32) + 'ea94be068f726a13c8d46c44be6ce9d275600e1735a4945ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193c080c0';

/** besu:acceptance-tests/tests/src/acceptanceTest/resources/qbft/qbft.json with %extraData% filled in. */
const acceptanceJson = () => ({
  config: {
    chainId: 4,
    berlinBlock: 0,
    qbft: { blockperiodseconds: 1, epochlength: 30000, requesttimeoutseconds: 5, blockreward: '5000000000000000000' },
  },
  nonce: '0x0',
  timestamp: '0x58ee40ba',
  extraData: TWO_VALIDATOR_EXTRA,
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
    '627306090abaB3A6e1400e9345bC60c78a8BEf57': {
      privateKey: 'c87509a1c067bbde78beb793e6fa76530b6382a4c0241e5e4a9ec0a0f44dc0d3',
      comment: 'private key and this comment are ignored.  In a real chain, the private key should NOT be stored',
      balance: '90000000000000000000000',
    },
    f17f52151EbEF6C7334FAD080c5704D77216b732: {
      privateKey: 'ae6ae8e5ccbfb04590405997ee2d52d2b330726137b875053c36d94e974d162f',
      comment: 'private key and this comment are ignored.  In a real chain, the private key should NOT be stored',
      balance: '90000000000000000000000',
    },
  },
  number: '0x0',
  gasUsed: '0x0',
  parentHash: '0x0000000000000000000000000000000000000000000000000000000000000000',
});

test('docs example genesis (besu-docs qbft.md, block header selection)', (t) => {
  const g = loadGenesisFile(DOCS_FILE);
  t.is(g.chainId, 1337n);
  t.is(g.consensus, 'qbft');
  t.deepEqual(g.forkBlocks, { berlin: 0 });
  t.deepEqual(g.forkTimestamps, {});
  t.is(g.qbft.blockPeriodSeconds, 5);
  t.is(g.qbft.epochLength, 30000);
  t.is(g.qbft.requestTimeoutSeconds, 10);
  t.is(g.qbft.blockReward, 0n);
  t.is(g.qbft.validatorSelectionMode, 'blockheader');
  t.is(g.qbft.emptyBlockPeriodSeconds, 0);
  t.is(g.qbft.blockPeriodMilliseconds, undefined);
  t.like(g.qbft, { messageQueueLimit: 1000, duplicateMessageLimit: 100, futureMessagesLimit: 1000, futureMessagesMaxDistance: 10, gossipedHistoryLimit: 1000, startBlock: 0 });
  t.deepEqual(g.transitions, []);
  t.is(g.timestamp, 0x5b3d92d7);
  t.is(g.gasLimit, 0x29b92700n);
  t.is(g.difficulty, 1n);
  t.is(bytesToHex(g.mixHash), '0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365');
  t.is(bytesToHex(g.nonce), '0x0000000000000000');
  t.is(g.coinbase, '0x0000000000000000000000000000000000000000');
  t.is<string, string>(bytesToHex(g.parentHash), '0x' + '00'.repeat(32));
  t.is(g.baseFeePerGas, undefined);
  t.is(g.number, 0);
  t.is(g.alloc.size, 4);
  t.is(g.alloc.get('0x64d9be4177f418bcf4e56adad85f33e3a64efe22')?.balance, 0x446c3b15f9926687d2c40534fdb564000000000000n);
  t.deepEqual(decodeExtraData(g.extraData).validators, [
    '0x64a702e6263b7297a96638cac6ae65e6541f4169',
    '0x3923390ad55e90c237593b3b0e401f3b08a03185',
    '0xaefdb9a738c9f433e5b6b212a6d62f6370c2f692',
    '0xc7eeb9a4e00ce683cf93039b212648e01c6c6b78',
  ]);
});

test("Besu's acceptance-test qbft.json: block reward, decimal and hex balances, mixed-case alloc keys, ignored privateKey/comment", (t) => {
  const g = parseGenesis(JSON.stringify(acceptanceJson()));
  t.is(g.chainId, 4n);
  t.is(g.qbft.blockReward, 5_000_000_000_000_000_000n);
  t.is(g.qbft.requestTimeoutSeconds, 5);
  t.deepEqual([...g.alloc.keys()], [
    '0xfe3b557e8fb62b89f4916b721be55ceb828dbd73',
    '0x627306090abab3a6e1400e9345bc60c78a8bef57',
    '0xf17f52151ebef6c7334fad080c5704d77216b732',
  ]);
  t.is(g.alloc.get('0xfe3b557e8fb62b89f4916b721be55ceb828dbd73')?.balance, 0xad78ebc5ac6200000n);
  t.is(g.alloc.get('0x627306090abab3a6e1400e9345bc60c78a8bef57')?.balance, 90000000000000000000000n);
  t.deepEqual(decodeExtraData(g.extraData).validators, ['0xbe068f726a13c8d46c44be6ce9d275600e1735a4', '0x5ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193']);
});

test('keys are case-insensitive at every level', (t) => {
  const g = parseGenesis({
    CONFIG: {
      ChainID: '2018',
      BerlinBlock: 0,
      LONDONBLOCK: 0,
      QBFT: { BlockPeriodSeconds: '3', EpochLength: 100, RequestTimeoutSeconds: 4, BlockReward: '0x10', MiningBeneficiary: '0x00000000000000000000000000000000000000AA', XEmptyBlockPeriodSeconds: 7 },
      Transitions: { QBFT: [{ Block: 5, BlockPeriodSeconds: 2, ValidatorSelectionMode: 'CONTRACT', ValidatorContractAddress: '0x0000000000000000000000000000000000007777' }] },
    },
    GasLimit: '0x1000',
    Difficulty: '0x1',
    ExtraData: '0x',
    Alloc: { '0xABCDEF0000000000000000000000000000000001': { Balance: '10', Nonce: '0x2', Code: '0x6000', Storage: { '0x01': '0x02' } } },
    BaseFeePerGas: '0x7',
    TimeStamp: '0x10',
  });
  t.is(g.chainId, 2018n);
  t.deepEqual(g.forkBlocks, { berlin: 0, london: 0 });
  t.like(g.qbft, { blockPeriodSeconds: 3, epochLength: 100, requestTimeoutSeconds: 4, blockReward: 16n, miningBeneficiary: '0x00000000000000000000000000000000000000aa', emptyBlockPeriodSeconds: 7 });
  t.deepEqual(g.transitions, [{ block: 5, blockPeriodSeconds: 2, validatorSelectionMode: 'contract', validatorContractAddress: '0x0000000000000000000000000000000000007777' }]);
  t.is(g.gasLimit, 0x1000n);
  t.is(g.timestamp, 16);
  t.is(g.baseFeePerGas, 7n);
  const account = g.alloc.get('0xabcdef0000000000000000000000000000000001')!;
  t.is(account.balance, 10n);
  t.is(account.nonce, 2n);
  t.is(bytesToHex(account.code!), '0x6000');
  t.deepEqual(account.storage.map(([k, v]) => [bytesToHex(k), bytesToHex(v)]), [['0x' + '00'.repeat(31) + '01', '0x' + '00'.repeat(31) + '02']]);
  t.is((g.config.qbft as Record<string, unknown>).blockperiodseconds, '3', 'config keeps the normalized (lower-cased) keys');
});

test('Besu defaults: qbft omitted, chain id 1, empty extraData, zero coinbase/mixHash/parentHash, ethash consensus', (t) => {
  const g = parseGenesis({ config: {}, gasLimit: 100, difficulty: '0x0' });
  t.is(g.chainId, 1n);
  t.is(g.consensus, 'ethash');
  t.like(g.qbft, { blockPeriodSeconds: 1, epochLength: 30000, requestTimeoutSeconds: 1, blockReward: 0n, validatorSelectionMode: 'blockheader', emptyBlockPeriodSeconds: 0, startBlock: 0 });
  t.is(g.extraData.length, 0);
  t.is(g.timestamp, 0);
  t.is(g.gasLimit, 100n);
  t.is(g.alloc.size, 0);
  t.is<string, string>(bytesToHex(g.mixHash), '0x' + '00'.repeat(32));
});

test('contract selection mode from config.qbft.validatorcontractaddress (docs contract-mode genesis)', (t) => {
  const json = docsJson();
  json.config.qbft.validatorcontractaddress = '0x0000000000000000000000000000000000007777';
  json.extraData = '0xe5a00000000000000000000000000000000000000000000000000000000000000000c0c080c0';
  json.alloc['0x0000000000000000000000000000000000007777'] = { comment: 'validator smart contract', balance: '0', code: '0x6000', storage: { '0000000000000000000000000000000000000000000000000000000000000000': '0000000000000000000000000000000000000000000000000000000000000002' }, version: '0x01' };
  const g = parseGenesis(json);
  t.is(g.qbft.validatorSelectionMode, 'contract');
  t.is(g.qbft.validatorContractAddress, '0x0000000000000000000000000000000000007777');
  t.deepEqual(decodeExtraData(g.extraData).validators, []);
  t.is(g.alloc.get('0x0000000000000000000000000000000000007777')?.storage.length, 1);
});

test('Besu value quirks: nonce is always hex, Long.decode for gasLimit/timestamp, lenient short addresses, gasTarget alias', (t) => {
  const g = parseGenesis({
    config: {},
    gasTarget: '010', // Long.decode: octal
    timestamp: 12,
    difficulty: '10', // UInt256.fromHexString: hex
    nonce: 66, // parseUnsignedLong: hex digits
    alloc: { '0x1': { balance: '+5', nonce: '10' }, '2': { balance: 7 } },
  });
  t.is(g.gasLimit, 8n);
  t.is(g.timestamp, 12);
  t.is(g.difficulty, 16n);
  t.is(bytesToHex(g.nonce), '0x0000000000000066');
  t.is(g.alloc.get('0x0000000000000000000000000000000000000001')?.nonce, 16n);
  t.is(g.alloc.get('0x0000000000000000000000000000000000000001')?.balance, 5n);
  t.is(g.alloc.get('0x0000000000000000000000000000000000000002')?.balance, 7n);
});

test('fork blocks and times are collected by @ethereumjs name', (t) => {
  const g = parseGenesis({
    config: { homesteadBlock: 0, eip150Block: 0, eip155Block: 0, eip158Block: 0, byzantiumBlock: 0, constantinopleBlock: 0, constantinopleFixBlock: 0, istanbulBlock: 0, muirGlacierBlock: 0, berlinBlock: 0, londonBlock: 5, arrowGlacierBlock: 6, grayGlacierBlock: 7, mergeNetSplitBlock: 8, shanghaiTime: 100, cancunTime: 200, pragueTime: 300, daoForkBlock: 0 },
    gasLimit: 1,
    difficulty: '0x1',
  });
  t.deepEqual(g.forkBlocks, { homestead: 0, tangerineWhistle: 0, spuriousDragon: 0, byzantium: 0, constantinople: 0, petersburg: 0, istanbul: 0, muirGlacier: 0, berlin: 0, london: 5, arrowGlacier: 6, grayGlacier: 7, paris: 8 });
  t.deepEqual(g.forkTimestamps, { shanghai: 100, cancun: 200, prague: 300 });
});

test('transitions are parsed, sorted by block and cleared beneficiary is null', (t) => {
  const json = docsJson();
  json.config.transitions = {
    qbft: [
      { block: 20000, miningbeneficiary: '' },
      { block: 10, blockreward: '6000000000000000', xblockperiodmilliseconds: 500 },
      { block: 10000, miningbeneficiary: '0x0000000000000000000000000000000000000002' },
      { block: 300, validatorselectionmode: 'blockheader', validators: ['0x1', '0x00000000000000000000000000000000000000Ab'] },
    ],
  };
  const g = parseGenesis(json);
  t.deepEqual(g.transitions, [
    { block: 10, blockReward: 6000000000000000n, blockPeriodMilliseconds: 500 },
    { block: 300, validatorSelectionMode: 'blockheader', validators: ['0x0000000000000000000000000000000000000001', '0x00000000000000000000000000000000000000ab'] },
    { block: 10000, miningBeneficiary: '0x0000000000000000000000000000000000000002' },
    { block: 20000, miningBeneficiary: null },
  ]);
});

type Mutation = (g: Record<string, any>) => void;
const bad: Array<[string, Mutation, string]> = [
  ['blockperiodseconds 0', (g) => (g.config.qbft.blockperiodseconds = 0), 'config.qbft.blockperiodseconds'],
  ['blockperiodseconds negative', (g) => (g.config.qbft.blockperiodseconds = -5), 'config.qbft.blockperiodseconds'],
  ['blockperiodseconds non-number', (g) => (g.config.qbft.blockperiodseconds = 'five'), 'config.qbft.blockperiodseconds'],
  ['blockperiodseconds fraction', (g) => (g.config.qbft.blockperiodseconds = 1.5), 'config.qbft.blockperiodseconds'],
  ['epochlength 0', (g) => (g.config.qbft.epochlength = 0), 'config.qbft.epochlength'],
  ['epochlength string', (g) => (g.config.qbft.epochlength = '100'), 'config.qbft.epochlength'],
  ['requesttimeoutseconds 0', (g) => (g.config.qbft.requesttimeoutseconds = 0), 'config.qbft.requesttimeoutseconds'],
  ['negative blockreward', (g) => (g.config.qbft.blockreward = '-1'), 'config.qbft.blockreward'],
  ['bad blockreward', (g) => (g.config.qbft.blockreward = '0xzz'), 'config.qbft.blockreward'],
  ['short miningbeneficiary', (g) => (g.config.qbft.miningbeneficiary = '0x1234'), 'config.qbft.miningbeneficiary'],
  ['bad validatorcontractaddress', (g) => (g.config.qbft.validatorcontractaddress = '0x7777'), 'config.qbft.validatorcontractaddress'],
  ['negative futuremessageslimit', (g) => (g.config.qbft.futuremessageslimit = -1), 'config.qbft.futuremessageslimit'],
  ['bad chain id', (g) => (g.config.chainid = 'abc'), 'config.chainid'],
  ['fork block as string', (g) => (g.config.berlinblock = '0'), 'config.berlinblock'],
  ['forks out of order', (g) => ((g.config.berlinblock = 20), (g.config.londonblock = 10)), 'config.londonblock'],
  ['time fork before block fork', (g) => ((g.config.londonblock = 100), (g.config.shanghaitime = 0)), 'config.shanghaitime'],
  ['unsupported fork', (g) => (g.config.amsterdamtime = 5), 'config.amsterdamtime'],
  ['blob schedule for a fork without blobs', (g) => (g.config.blobschedule = { shanghai: { target: 1, max: 2, basefeeupdatefraction: 3 } }), 'config.blobSchedule.shanghai'],
  ['blob schedule entry without max', (g) => (g.config.blobschedule = { bpo1: { target: 1, basefeeupdatefraction: 3 } }), 'config.blobSchedule.bpo1.max'],
  ['blob schedule target above max', (g) => (g.config.blobschedule = { prague: { target: 10, max: 9, basefeeupdatefraction: 3 } }), 'config.blobSchedule.prague.target'],
  ['blob schedule zero update fraction', (g) => (g.config.blobschedule = { osaka: { target: 1, max: 2, basefeeupdatefraction: 0 } }), 'config.blobSchedule.osaka.baseFeeUpdateFraction'],
  ['two consensus sections', (g) => (g.config.clique = {}), 'config.clique'],
  ['bad alloc balance', (g) => (g.alloc['64d9be4177f418bcf4e56adad85f33e3a64efe22'].balance = '12abc'), 'alloc.64d9be4177f418bcf4e56adad85f33e3a64efe22.balance'],
  ['negative alloc balance', (g) => (g.alloc['64d9be4177f418bcf4e56adad85f33e3a64efe22'].balance = '-1'), 'alloc.64d9be4177f418bcf4e56adad85f33e3a64efe22.balance'],
  ['alloc balance object', (g) => (g.alloc['64d9be4177f418bcf4e56adad85f33e3a64efe22'].balance = {}), 'alloc.64d9be4177f418bcf4e56adad85f33e3a64efe22.balance'],
  ['bad alloc address', (g) => (g.alloc['0xnotanaddress'] = { balance: '1' }), 'alloc.0xnotanaddress'],
  ['too long alloc address', (g) => (g.alloc['0x' + '1'.repeat(42)] = { balance: '1' }), 'alloc.0x' + '1'.repeat(42)],
  ['duplicate alloc address', (g) => (g.alloc['0x64d9be4177f418bcf4e56adad85f33e3a64efe22'] = { balance: '1' }), 'alloc.0x64d9be4177f418bcf4e56adad85f33e3a64efe22'],
  ['bad alloc code', (g) => (g.alloc['64d9be4177f418bcf4e56adad85f33e3a64efe22'].code = '0x123'), 'alloc.64d9be4177f418bcf4e56adad85f33e3a64efe22.code'],
  ['bad alloc nonce', (g) => (g.alloc['64d9be4177f418bcf4e56adad85f33e3a64efe22'].nonce = '0xg'), 'alloc.64d9be4177f418bcf4e56adad85f33e3a64efe22.nonce'],
  ['bad storage value', (g) => (g.alloc['64d9be4177f418bcf4e56adad85f33e3a64efe22'].storage = { '0x01': '0x' + '1'.repeat(66) }), 'alloc.64d9be4177f418bcf4e56adad85f33e3a64efe22.storage.0x01'],
  ['bad extraData hex', (g) => (g.extraData = '0xf87zz0'), 'extraData'],
  ['odd extraData hex', (g) => (g.extraData = '0xf87'), 'extraData'],
  ['bad gasLimit', (g) => (g.gasLimit = '0xnope'), 'gasLimit'],
  ['missing gasLimit', (g) => delete g.gasLimit, 'gasLimit'],
  ['missing difficulty', (g) => delete g.difficulty, 'difficulty'],
  ['bad timestamp', (g) => (g.timestamp = '-1'), 'timestamp'],
  ['bad mixHash', (g) => (g.mixHash = '0x' + '11'.repeat(33)), 'mixHash'],
  ['bad coinbase', (g) => (g.coinbase = 'zz'), 'coinbase'],
  ['bad nonce', (g) => (g.nonce = '0x' + 'f'.repeat(17)), 'nonce'],
  ['transitions not an array', (g) => (g.config.transitions = { qbft: {} }), 'config.transitions.qbft'],
  ['transition without block', (g) => (g.config.transitions = { qbft: [{ blockperiodseconds: 2 }] }), 'config.transitions.qbft[0].block'],
  ['transition at block 0', (g) => (g.config.transitions = { qbft: [{ block: 0, blockperiodseconds: 2 }] }), 'config.transitions.qbft[0].block'],
  ['duplicate transition blocks', (g) => (g.config.transitions = { qbft: [{ block: 5 }, { block: 7 }, { block: 5 }] }), 'config.transitions.qbft[2].block'],
  ['transition blockperiodseconds 0', (g) => (g.config.transitions = { qbft: [{ block: 5, blockperiodseconds: 0 }] }), 'config.transitions.qbft[0].blockperiodseconds'],
  ['contract mode without address', (g) => (g.config.transitions = { qbft: [{ block: 5, validatorselectionmode: 'contract' }] }), 'config.transitions.qbft[0].validatorcontractaddress'],
  ['blockheader mode without validators', (g) => (g.config.transitions = { qbft: [{ block: 5, validatorselectionmode: 'blockheader' }] }), 'config.transitions.qbft[0].validators'],
  ['blockheader mode with empty validators', (g) => (g.config.transitions = { qbft: [{ block: 5, validatorselectionmode: 'blockheader', validators: [] }] }), 'config.transitions.qbft[0].validators'],
  ['unknown selection mode', (g) => (g.config.transitions = { qbft: [{ block: 5, validatorselectionmode: 'votes' }] }), 'config.transitions.qbft[0].validatorselectionmode'],
  ['bad transition validator', (g) => (g.config.transitions = { qbft: [{ block: 5, validators: ['0x01', 42] }] }), 'config.transitions.qbft[0].validators[1]'],
  ['bad transition beneficiary', (g) => (g.config.transitions = { qbft: [{ block: 5, miningbeneficiary: '0x12' }] }), 'config.transitions.qbft[0].miningbeneficiary'],
];

for (const [name, mutate, field] of bad) {
  test(`GenesisError names the field: ${name}`, (t) => {
    const json = docsJson();
    mutate(json);
    const err = t.throws(() => parseGenesis(json), { instanceOf: GenesisError });
    t.is(err?.field, field);
    t.true(err?.message.startsWith(`genesis: ${field} `), err?.message);
  });
}

test('not JSON / not an object', (t) => {
  t.is(t.throws(() => parseGenesis('{nope'), { instanceOf: GenesisError })?.field, '(file)');
  t.is(t.throws(() => parseGenesis([1, 2]), { instanceOf: GenesisError })?.field, '(root)');
  t.is(t.throws(() => loadGenesisFile('/nonexistent/genesis.json'), { instanceOf: GenesisError })?.field, '(file)');
});

test('example message', (t) => {
  const json = docsJson();
  json.config.qbft.blockperiodseconds = 0;
  t.throws(() => parseGenesis(json), { message: 'genesis: config.qbft.blockperiodseconds must be a positive integer, got 0' });
});

test("empty-block period: Besu's name emptyblockperiodseconds, its older xemptyblockperiodseconds, the newer winning when both are set (genesis and transitions), with a warning for the older", (t) => {
  const read = (qbft: Record<string, number>, transition: Record<string, number> = {}) => {
    const json = docsJson();
    Object.assign(json.config.qbft, qbft);
    json.config.transitions = { qbft: [{ block: 5, ...transition }] };
    const { genesis, warnings } = readGenesis(json);
    return { at0: genesis.qbft.emptyBlockPeriodSeconds, at5: genesis.transitions[0]!.emptyBlockPeriodSeconds, warnings };
  };
  t.deepEqual(read({ emptyblockperiodseconds: 30 }, { emptyblockperiodseconds: 60 }), { at0: 30, at5: 60, warnings: [] });
  const old = read({ xemptyblockperiodseconds: 30 }, { xemptyblockperiodseconds: 60 });
  t.like(old, { at0: 30, at5: 60 });
  t.deepEqual(old.warnings, [
    "genesis: config.qbft.xemptyblockperiodseconds is Besu's deprecated name (since 26.5; Besu's main branch no longer reads it): rename it emptyblockperiodseconds",
    "genesis: config.transitions.qbft[0].xemptyblockperiodseconds is Besu's deprecated name (since 26.5; Besu's main branch no longer reads it): rename it emptyblockperiodseconds",
  ]);
  const both = read({ emptyblockperiodseconds: 30, xemptyblockperiodseconds: 7 }, { emptyblockperiodseconds: 0, xemptyblockperiodseconds: 9 });
  t.like(both, { at0: 30, at5: 0 });
  t.regex(both.warnings[0]!, /config\.qbft\.xemptyblockperiodseconds is ignored: emptyblockperiodseconds is set too/);
  t.is(read({}).at0, 0);
  t.is(read({}).at5, undefined);
  t.throws(() => read({ emptyblockperiodseconds: -1 }), { instanceOf: GenesisError, message: /config\.qbft\.emptyblockperiodseconds/ });
});
