import test from 'ava';
import { createBlock, type Block } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { createLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { Address } from '@ethereumjs/util';
import { createVM, runBlock } from '@ethereumjs/vm';
import { readFileSync } from 'node:fs';
import { bytesToHex, hexToBytes, type Hex } from '../crypto/bytes.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { createCommonFromGenesis } from './common.ts';
import { GenesisError, parseGenesis, type Genesis } from './genesis.ts';
import { loadGenesisFile } from '../cli/genesis-file.ts';
import { formatGenesisReport, inspectGenesis } from './genesis-inspect.ts';
import { createGenesisBlock, createGenesisStateManager, genesisBlockHash, genesisStateRoot, writeGenesisState } from './genesis-state.ts';

const DOCS_FILE = new URL('./testdata/besu-docs-qbft-genesis.json', import.meta.url).pathname;
const SPEC_DIR = new URL('../../test/vectors/besu-spec/chain', import.meta.url).pathname;
const docsJson = () => JSON.parse(readFileSync(DOCS_FILE, 'utf8')) as Record<string, any>;
const hash = async (g: Genesis) => bytesToHex(await genesisBlockHash(g));

test("besu-spec chain: our genesis block is byte-identical to block 0 and its hash is block 1's parentHash", async (t) => {
  const genesis = loadGenesisFile(`${SPEC_DIR}/testGenesis.json`);
  let rest: Uint8Array = new Uint8Array(readFileSync(`${SPEC_DIR}/testBlockchain.blocks`));
  const first = RLP.decode(rest, true) as unknown as { data: Uint8Array[][]; remainder: Uint8Array };
  rest = first.remainder;
  const second = RLP.decode(rest, true) as unknown as { data: Uint8Array[][] };
  const block1ParentHash = bytesToHex(second.data[0][0]);

  const block = await createGenesisBlock(genesis, createCommonFromGenesis(genesis));
  t.is(bytesToHex(block.header.serialize()), bytesToHex(RLP.encode(first.data[0])));
  t.is(await hash(genesis), block1ParentHash);
  t.is(block1ParentHash, '0xf8f01382f5636d02edac7fff679a6feb7a572d37a395daaab77938feb6fe217f');
  t.is(bytesToHex(await genesisStateRoot(genesis)), bytesToHex(first.data[0][3]));
});

// Vectors from besu:ethereum/core/src/test/java/org/hyperledger/besu/ethereum/chain/GenesisStateTest.java
// and its resources (genesis1.json, genesisNonce.json, genesis-olympic.json, genesis_{shanghai,cancun,prague}.json).

test('GenesisStateTest genesis1.json: state root with decimal balances', async (t) => {
  const g = parseGenesis({
    config: { chainId: 15, eip158Block: 0 },
    alloc: { '0x0000000000000000000000000000000000000001': { balance: '111111111' }, '0x0000000000000000000000000000000000000002': { balance: '222222222' } },
    coinbase: '0x0000000000000000000000000000000000000000',
    difficulty: '0x0000001',
    extraData: '',
    gasLimit: '0x2fefd8',
    nonce: '0x0000000000000107',
    mixhash: '0x0000000000000000000000000000000000000000000000000000000000000000',
    parentHash: '0x0000000000000000000000000000000000000000000000000000000000000000',
    timestamp: '0x00',
  });
  t.is(bytesToHex(await genesisStateRoot(g)), '0x92683e6af0f8a932e5fe08c870f2ae9d287e39d4518ec544b0be451f1035fd39');
});

test('GenesisStateTest genesisNonce.json: block hash with code and account nonce', async (t) => {
  const g = parseGenesis({
    config: { ethash: { fixeddifficulty: 0 }, homesteadBlock: 0, eip150Block: 0, eip158Block: 0, byzantiumBlock: 0, constantinopleBlock: 0 },
    coinbase: '0x8888f1f195afa192cfee860698584c030f4c9db1',
    difficulty: '0x020000',
    extraData: '0x42',
    gasLimit: '0x2fefd8',
    mixHash: '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421',
    nonce: '0x0102030405060708',
    timestamp: '0x54c98c81',
    alloc: {
      '0xa94f5374fce5edbc8e2a8697c15331677e6ebf0b': { balance: '0x0de0b6b3a7640000', code: '0x', nonce: '0x00', storage: {} },
      '0xec0e71ad0a90ffe1909d27dac207f7680abba42d': { balance: '0x01', code: '0x6010ff', nonce: '0x03', storage: {} },
    },
  });
  t.is(await hash(g), '0x36750291f1a8429aeb553a790dc2d149d04dbba0ca4cfc7fd5eb12d478117c9f');
});

test('GenesisStateTest genesis-olympic.json: exact RLP and hash of a Frontier genesis', async (t) => {
  const big = '1606938044258990275541962092341162602522202993782792835301376';
  const alloc: Record<string, { balance: string }> = {};
  for (const a of ['01', '02', '03', '04']) alloc['00000000000000000000000000000000000000' + a] = { balance: '01' };
  for (const a of ['dbdbdb2cbd23b783741e8d7fcf51e459b497e4a6', 'e6716f9544a56c530d868e4bfbacb172315bdead', 'b9c015918bdaba24b4ff057a92a3873d6eb201be', '1a26338f0d905e295fccb71fa9ea849ffa12aaf4', '2ef47100e0787b915105fd5e3f4ff6752079d5cb', 'cd2a3d9f938e13cd947ec05abc7fe734df8dd826', '6c386a4b26f73c802f34673f7248bb118f97424a', 'e4157b34ea9615cfbde6b4fda419828124b70c78']) {
    alloc[a] = { balance: big };
  }
  const g = parseGenesis({ alloc, nonce: '0x000000000000002a', difficulty: '0x020000', mixhash: '0x' + '00'.repeat(32), coinbase: '0x' + '00'.repeat(20), timestamp: '0x00', parentHash: '0x' + '00'.repeat(32), extraData: '0x', gasLimit: '0x2fefd8' });
  const block = await createGenesisBlock(g, createCommonFromGenesis(g));
  const OLYMPIC_RLP =
    'f901f8f901f3a00000000000000000000000000000000000000000000000000000000000000000a01dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347940000000000000000000000000000000000000000a09178d0f23c965d81f0834a4c72c6253ce6830f4022b1359aaebfc1ecba442d4ea056e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421a056e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421b9010000' +
    '00'.repeat(255) +
    '8302000080832fefd8808080a0000000000000000000000000000000000000000000000000000000000000000088000000000000002ac0c0';
  t.is<string, string>(bytesToHex(block.serialize()), '0x' + OLYMPIC_RLP);
  t.is(await hash(g), '0xfd4af92a79c7fc2fd8bf0d342f2e832e1d4f485c85b9152d2039e03bc604fdca');
});

/** genesis_{shanghai,cancun,prague}.json share this alloc: 1000 copies of one contract at 0x100.. and 14 funded accounts. */
function postMergeGenesis(extraConfig: Record<string, unknown>) {
  const alloc: Record<string, unknown> = {};
  for (let i = 0x100; i < 0x100 + 1000; i++) alloc[i.toString(16).padStart(40, '0')] = { code: '0x5f804955600180495560028049556003804955', balance: '0x0' };
  for (const a of ['0161e041aad467a890839d5b08b138c1e6373072', '0f830fc93e76c8d26ed1f65045e70f5f986da383', '2180290b54d5d9e38f85fdaf086bfe35b610f404', '763fc7d39ab4cfa496c39077542589819aea5c54', '87da6a8c6e9eff15d703fc2773e32f6af8dbe301', '9c09de85a373dc3486115cab94c72549029f1103', '9d2f18c852eb5b37292dfc9f68ac5ecbf0d22dd2', 'a995b3ebccfb2b8e8b1db15b7ca8cf2f11ed0310', 'aa82d35d5eaec5cf87c311a3af844ed682d5a247', 'b76ae96839fe445670262bce61144e6cda9099b8', 'b97de4b8c857e4f6bc354f226dc3249aaee49209', 'c5065c9eeebe6df2c2284d046bfc906501846c51', 'cf49fda3be353c69b41ed96333cd24302da4556f', 'fb289e2b2b65fb63299a682d000744671c50417b']) {
    alloc[a] = { balance: '0x123450000000000000000' };
  }
  return parseGenesis({
    config: { ethash: {}, chainID: 7, homesteadBlock: 0, eip150Block: 0, eip155Block: 0, eip158Block: 0, byzantiumBlock: 0, constantinopleBlock: 0, constantinopleFixBlock: 0, istanbulBlock: 0, muirGlacierBlock: 0, berlinBlock: 0, londonBlock: 0, parisBlock: 0, terminalTotalDifficulty: 0, shanghaiTime: 0, ...extraConfig },
    nonce: '0x0',
    timestamp: '0x1234',
    extraData: '0x',
    gasLimit: '0x2fefd8',
    difficulty: '0x0',
    mixHash: '0x' + '00'.repeat(32),
    coinbase: '0x' + '00'.repeat(20),
    number: '0x0',
    gasUsed: '0x0',
    parentHash: '0x' + '00'.repeat(32),
    baseFeePerGas: '0x3b9aca00',
    alloc,
  });
}

for (const [name, config, expected, hardfork] of [
  ['genesis_shanghai.json', { cancunTime: 4661 }, '0xfdc41f92053811b877be43e61cab6b0d9ee55501ae2443df0970c753747f12d8', 'shanghai'],
  ['genesis_cancun.json', { cancunTime: 4660 }, '0x87846b86c1026fa7d7be2da045716274231de1871065a320659c9b111287c688', 'cancun'],
  ['genesis_prague.json', { cancunTime: 0, pragueTime: 0 }, '0x5d2d02fce02d1b7ca635ec91a4fe6f7aa36f9b3997ec4304e8c68d8f6f15d266', 'prague'],
] as const) {
  test(`GenesisStateTest ${name}: fork fields at genesis (${hardfork})`, async (t) => {
    const g = postMergeGenesis(config);
    const block = await createGenesisBlock(g, createCommonFromGenesis(g));
    t.is(block.common.hardfork(), hardfork);
    t.is(bytesToHex(block.header.stateRoot), '0x7f5cfe1375a61009a22d24512d18035bc8f855129452fa9c6a6be2ef4e9da7db');
    t.is(bytesToHex(keccak256(block.header.serialize())), expected);
    t.deepEqual(block.withdrawals, []);
  });
}

test('QBFT docs genesis (Berlin only): no baseFee, Besu field values, deterministic hash', async (t) => {
  const g = loadGenesisFile(DOCS_FILE);
  const block = await createGenesisBlock(g, createCommonFromGenesis(g));
  const h = block.header;
  t.is(h.baseFeePerGas, undefined);
  t.is(h.withdrawalsRoot, undefined);
  t.is(h.difficulty, 1n);
  t.is(h.number, 0n);
  t.is(h.gasLimit, 0x29b92700n);
  t.is(bytesToHex(h.extraData), bytesToHex(g.extraData));
  t.is(RLP.decode(h.serialize()).length, 15);
  t.is(await hash(g), await hash(loadGenesisFile(DOCS_FILE)));
  t.is(await hash(g), bytesToHex(keccak256(h.serialize())));
});

test('baseFeePerGas: 1 gwei by default when London is active at genesis, the configured value otherwise', async (t) => {
  const json = docsJson();
  json.config.londonBlock = 0;
  const g = parseGenesis(json);
  t.is((await createGenesisBlock(g, createCommonFromGenesis(g))).header.baseFeePerGas, 1_000_000_000n);
  json.baseFeePerGas = '0x7';
  const g2 = parseGenesis(json);
  t.is((await createGenesisBlock(g2, createCommonFromGenesis(g2))).header.baseFeePerGas, 7n);
  const later = docsJson();
  later.config.londonBlock = 10;
  later.baseFeePerGas = '0x7';
  const g3 = parseGenesis(later);
  const err = await t.throwsAsync(createGenesisBlock(g3, createCommonFromGenesis(g3)), { instanceOf: GenesisError });
  t.is(err?.field, 'baseFeePerGas');
});

test('writeGenesisState writes balance, nonce, code and storage', async (t) => {
  const json = docsJson();
  json.alloc['0x0000000000000000000000000000000000007777'] = { balance: '0x10', nonce: '0x5', code: '0x6001600055', storage: { '0x01': '0x0a', '0x02': '0x00' } };
  const g = parseGenesis(json);
  const sm = createGenesisStateManager();
  const root = await writeGenesisState(sm, g);
  t.is(bytesToHex(root), bytesToHex(await genesisStateRoot(g)));
  const addr = new Address(hexToBytes('0x0000000000000000000000000000000000007777'));
  const account = await sm.getAccount(addr);
  t.is(account?.balance, 16n);
  t.is(account?.nonce, 5n);
  t.is(bytesToHex(await sm.getCode(addr)), '0x6001600055');
  t.is(bytesToHex(await sm.getStorage(addr, hexToBytes('0x' + '00'.repeat(31) + '01'))), '0x0a');
  t.is((await sm.getStorage(addr, hexToBytes('0x' + '00'.repeat(31) + '02'))).length, 0, 'zero values are not stored');
  t.not(bytesToHex(root), bytesToHex(await genesisStateRoot(loadGenesisFile(DOCS_FILE))));
});

// ---------------------------------------------------------------- Common and the VM

async function runChild(g: Genesis, coinbase: Hex, txs: TypedTransaction[] = []) {
  const common = createCommonFromGenesis(g);
  const stateManager = createGenesisStateManager(common);
  const root = await writeGenesisState(stateManager, g);
  const genesisBlock = await createGenesisBlock(g, common, root);
  const vm = await createVM({ common, stateManager });
  const block: Block = createBlock(
    {
      header: {
        number: 1n,
        parentHash: genesisBlock.hash(),
        coinbase: new Address(hexToBytes(coinbase)),
        timestamp: BigInt(g.timestamp + 5),
        gasLimit: g.gasLimit,
        difficulty: 1n,
        extraData: g.consensus === 'ethash' ? new Uint8Array(0) : g.extraData,
        mixHash: g.mixHash,
        baseFeePerGas: genesisBlock.header.baseFeePerGas,
      },
      transactions: txs,
    },
    { common, setHardfork: true, skipConsensusFormatValidation: true },
  );
  await runBlock(vm, { block, generate: true, skipHeaderValidation: true, skipBlockValidation: true });
  return (await stateManager.getAccount(new Address(hexToBytes(coinbase))))?.balance ?? 0n;
}

const PROPOSER: Hex = '0x64a702e6263b7297a96638cac6ae65e6541f4169';

test('QBFT Common: an empty block pays no block reward to the coinbase', async (t) => {
  const g = loadGenesisFile(DOCS_FILE);
  const common = createCommonFromGenesis(g);
  t.is(common.consensusType(), 'bft');
  t.is(common.consensusAlgorithm(), 'qbft');
  t.is(common.chainId(), 1337n);
  t.is(common.hardfork(), 'berlin');
  t.is(await runChild(g, PROPOSER), 0n);
});

test('ethash Common (same genesis without config.qbft): the library pays the proof-of-work reward', async (t) => {
  const json = docsJson();
  delete json.config.qbft;
  const g = parseGenesis(json);
  t.is(createCommonFromGenesis(g).consensusType(), 'pow');
  t.is(await runChild(g, PROPOSER), 2_000_000_000_000_000_000n);
});

test('QBFT Common: transaction fees go to header.coinbase (no Clique signer lookup)', async (t) => {
  const json = docsJson();
  const key = hexToBytes('0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63'); // fe3b557e… (Besu dev account)
  json.alloc['fe3b557e8fb62b89f4916b721be55ceb828dbd73'] = { balance: '0xad78ebc5ac6200000' };
  const g = parseGenesis(json);
  const common = createCommonFromGenesis(g);
  const tx = createLegacyTx({ nonce: 0n, gasPrice: 1000n, gasLimit: 21000n, to: new Address(hexToBytes(PROPOSER)), value: 1n }, { common }).sign(key);
  t.is(await runChild(g, PROPOSER, [tx]), 21000n * 1000n + 1n);
});

test('Shanghai at genesis on a QBFT chain: PREVRANDAO-era fork without proof of stake', async (t) => {
  const json = docsJson();
  Object.assign(json.config, { londonBlock: 0, shanghaiTime: 0 });
  const g = parseGenesis(json);
  const common = createCommonFromGenesis(g);
  t.is(common.hardfork(), 'shanghai');
  t.is(common.consensusType(), 'bft');
  t.true(common.isActivatedEIP(4399));
  t.true(common.isActivatedEIP(3855));
  t.is(await runChild(g, PROPOSER), 0n);
});

test('hardfork schedule: unconfigured forks come with the next configured one, later ones stay off', (t) => {
  const json = docsJson();
  json.config.londonBlock = 50;
  const common = createCommonFromGenesis(parseGenesis(json));
  const byName = Object.fromEntries(common.hardforks().map((h) => [h.name, h]));
  t.is(byName.homestead.block, 0);
  t.is(byName.berlin.block, 0);
  t.is(byName.london.block, 50);
  t.is(byName.arrowGlacier.block, null);
  t.false('shanghai' in byName);
  t.is(common.getHardforkBy({ blockNumber: 49n }), 'berlin');
  t.is(common.getHardforkBy({ blockNumber: 50n }), 'london');
  t.is(common.getHardforkBy({ blockNumber: 10_000n }), 'london');
});

// ---------------------------------------------------------------- inspect

test('inspectGenesis / formatGenesisReport on the docs genesis and a contract-mode genesis', async (t) => {
  const g = loadGenesisFile(DOCS_FILE);
  const report = await inspectGenesis(g);
  t.is(report.hash, await hash(g));
  t.is(report.stateRoot, bytesToHex(await genesisStateRoot(g)));
  t.is(report.chainId, '1337');
  t.deepEqual(report.validators, { mode: 'blockheader', validators: ['0x64a702e6263b7297a96638cac6ae65e6541f4169', '0x3923390ad55e90c237593b3b0e401f3b08a03185', '0xaefdb9a738c9f433e5b6b212a6d62f6370c2f692', '0xc7eeb9a4e00ce683cf93039b212648e01c6c6b78'] });
  t.is(report.qbft.blockPeriodSeconds, 5);
  t.is(report.qbft.blockReward, '0');
  t.is(report.hardforkAtGenesis, 'berlin');
  t.deepEqual(JSON.parse(JSON.stringify(report)), report, 'the report is plain JSON');
  const text = formatGenesisReport(report);
  t.true(text.includes(`genesis hash:    ${report.hash}`));
  t.true(text.includes('validators:      4 (block header)'));
  t.true(text.includes('berlin: block 0'));
  t.true(text.includes('london: not scheduled'));

  const json = docsJson();
  json.config.qbft.validatorcontractaddress = '0x0000000000000000000000000000000000007777';
  json.extraData = '0xe5a00000000000000000000000000000000000000000000000000000000000000000c0c080c0';
  json.config.transitions = { qbft: [{ block: 100, blockreward: '0x10', miningbeneficiary: '' }] };
  const contract = await inspectGenesis(parseGenesis(json));
  t.deepEqual(contract.validators, { mode: 'contract', contractAddress: '0x0000000000000000000000000000000000007777' });
  t.deepEqual(contract.transitions, [{ block: 100, blockReward: '16', miningBeneficiary: null }]);
  const contractText = formatGenesisReport(contract);
  t.true(contractText.includes('validators:      contract 0x0000000000000000000000000000000000007777'));
  t.true(contractText.includes('block 100: blockReward=16 miningBeneficiary=(cleared)'));
});
