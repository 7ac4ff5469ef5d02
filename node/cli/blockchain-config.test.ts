import test from 'ava';
import { bytesToHex, concatBytes, intToBytes, utf8ToBytes } from '../crypto/bytes.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { decodeExtraData } from '../chain/extra-data.ts';
import { BlockchainConfigError, buildBlockchainConfig, MAX_GENERATED_KEYS, parseBlockchainConfig } from './blockchain-config.ts';
import type { RandomBytes } from './validator-keys.ts';

/** Deterministic bytes for content checks; the command itself draws from node:crypto. */
function seeded(seed: string): RandomBytes {
  let counter = 0;
  return (byteCount) => keccak256(concatBytes(utf8ToBytes(seed), intToBytes(++counter))).slice(0, byteCount);
}
const noRandom: RandomBytes = () => {
  throw new Error('imported keys need no randomness');
};

/** The genesis object of besu:app/src/test/resources/operator/config_*.json (Apache-2.0), with `consensus` as its BFT section. */
function besuTestGenesis(consensus: 'qbft' | 'ibft2') {
  return {
    config: { chainId: 2017, petersburgBlock: 0, [consensus]: { blockperiodseconds: 2, epochlength: 30000, requesttimeoutseconds: 10 } },
    nonce: '0x0',
    timestamp: '0x5b3c3d18',
    number: '0x0',
    gasUsed: '0x0',
    parentHash: '0x0000000000000000000000000000000000000000000000000000000000000000',
    gasLimit: '0x47b760',
    difficulty: '0x1',
    mixHash: '0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365',
    coinbase: '0x0000000000000000000000000000000000000000',
    alloc: {
      '24defc2d149861d3d245749b81fe0e6b28e04f31': { balance: '0x446c3b15f9926687d2c40534fdb564000000000000' },
      '2a813d7db3de19b07f92268b6d4125ed295cbe00': { balance: '0x446c3b15f9926687d2c40534fdb542000000000000' },
    },
  };
}
const BESU_KEYS = [
  '0x9481ee2b34196827e8c4807ae29c2675c15d3641e482ab81cc0bc3ef535755b426b9f5c474213df28a563fab0bf0830b455ee8955b3faac93075422a6abf160d',
  '0xf9dff57fc0bae7cba6577d82caf40cf6d266afc2a212775eb45c2188ab30aeed01e724daf4203649d4aa7e30717bfeeaf0b4c30b5d651bad39bcae8429759889',
];
/** besu:OperatorSubCommandTest shouldCreateQbftExtraData / shouldCreateIbft2ExtraData. */
const BESU_QBFT_EXTRA = '0xf84fa00000000000000000000000000000000000000000000000000000000000000000ea94d5feb0fc5a54a89f97aeb34c3df15397c19f6dd294d6a9a4c886eb008ac307abdc1f38745c1dd13a88c080c0';
const BESU_IBFT_EXTRA = '0xf853a00000000000000000000000000000000000000000000000000000000000000000ea94d5feb0fc5a54a89f97aeb34c3df15397c19f6dd294d6a9a4c886eb008ac307abdc1f38745c1dd13a88808400000000c0';

/** The qbftConfigFile.json of Besu's tutorial "Create a private network using QBFT" (besu-docs, Apache-2.0). */
const TUTORIAL_CONFIG = `{
  "genesis": {
    "config": {
      "chainId": 1337,
      "berlinBlock": 0,
      "qbft": { "blockperiodseconds": 2, "epochlength": 30000, "requesttimeoutseconds": 4 }
    },
    "nonce": "0x0",
    "timestamp": "0x58ee40ba",
    "gasLimit": "0x47b760",
    "difficulty": "0x1",
    "mixHash": "0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365",
    "coinbase": "0x0000000000000000000000000000000000000000",
    "alloc": {
      "fe3b557e8fb62b89f4916b721be55ceb828dbd73": {
        "privateKey": "8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63",
        "comment": "private key and this comment are ignored.  In a real chain, the private key should NOT be stored",
        "balance": "0xad78ebc5ac6200000"
      },
      "627306090abaB3A6e1400e9345bC60c78a8BEf57": {
        "privateKey": "c87509a1c067bbde78beb793e6fa76530b6382a4c0241e5e4a9ec0a0f44dc0d3",
        "comment": "private key and this comment are ignored.  In a real chain, the private key should NOT be stored",
        "balance": "90000000000000000000000"
      },
      "f17f52151EbEF6C7334FAD080c5704D77216b732": {
        "privateKey": "ae6ae8e5ccbfb04590405997ee2d52d2b330726137b875053c36d94e974d162f",
        "comment": "private key and this comment are ignored.  In a real chain, the private key should NOT be stored",
        "balance": "90000000000000000000000"
      }
    }
  },
  "blockchain": { "nodes": { "generate": true, "count": 4 } }
}`;

const importing = (genesis: object, keys: unknown[] = BESU_KEYS) => JSON.stringify({ genesis, blockchain: { nodes: { keys } } });
const build = (text: string, random: RandomBytes = noRandom) => buildBlockchainConfig(parseBlockchainConfig(text), random);

test('imported public keys give the extraData Besu writes, for QBFT and for IBFT 2.0', (t) => {
  const qbft = build(importing(besuTestGenesis('qbft')));
  t.is(JSON.parse(qbft.genesisText).extraData, BESU_QBFT_EXTRA);
  t.is(qbft.consensus, 'qbft');
  t.deepEqual(qbft.nodes.map((n) => n.address), ['0xd5feb0fc5a54a89f97aeb34c3df15397c19f6dd2', '0xd6a9a4c886eb008ac307abdc1f38745c1dd13a88']);
  t.true(qbft.nodes.every((n) => n.privateKey === undefined));
  const ibft = build(importing(besuTestGenesis('ibft2')));
  t.is(JSON.parse(ibft.genesisText).extraData, BESU_IBFT_EXTRA);
  t.is(ibft.genesis.consensus, 'ibft2');
});

test('every other genesis field is written back unchanged (Besu: ...ContainAllOriginalFieldsExcludingExtraData)', (t) => {
  const original = besuTestGenesis('qbft');
  const { extraData, ...rest } = JSON.parse(build(importing(original)).genesisText);
  t.is(typeof extraData, 'string');
  t.deepEqual(rest, original);
  t.deepEqual(Object.keys(rest), Object.keys(original), 'key order kept; extraData appended');
});

test('validators stay in the order the keys come in, as Besu writes them (the node sorts on reading)', (t) => {
  const reversed = build(importing(besuTestGenesis('qbft'), [...BESU_KEYS].reverse()));
  t.deepEqual(decodeExtraData(reversed.genesis.extraData).validators, ['0xd6a9a4c886eb008ac307abdc1f38745c1dd13a88', '0xd5feb0fc5a54a89f97aeb34c3df15397c19f6dd2']);
});

test("the tutorial's qbftConfigFile.json: four generated keys, and a genesis the node's parser loads with them as validators", (t) => {
  const config = build(TUTORIAL_CONFIG, seeded('tutorial'));
  t.is(config.nodes.length, 4);
  t.true(config.nodes.every((n) => n.privateKey?.length === 32 && n.publicKey.length === 64));
  t.is(new Set(config.nodes.map((n) => n.address)).size, 4);
  const g = config.genesis;
  t.is(g.consensus, 'qbft');
  t.is(g.chainId, 1337n);
  t.is(g.qbft.blockPeriodSeconds, 2);
  t.is(g.qbft.requestTimeoutSeconds, 4);
  t.is(g.alloc.get('0x627306090abab3a6e1400e9345bc60c78a8bef57')?.balance, 90000000000000000000000n);
  const extra = decodeExtraData(g.extraData);
  t.deepEqual(extra.validators, config.nodes.map((n) => n.address));
  t.deepEqual(extra, { vanity: new Uint8Array(32), validators: extra.validators, round: 0, seals: [] });
  t.not(build(TUTORIAL_CONFIG, seeded('other')).nodes[0].address, config.nodes[0].address, 'keys come from the random source');
});

test('numbers are written back with their exact text, and an existing extraData is replaced where it stood', (t) => {
  const text = `{"genesis": {"config": {"chainId": 5, "qbft": {}}, "extradata": "0x00", "gasLimit": 4700000, "difficulty": "0x1",
    "gasUsed": 12345678901234567890123, "timestamp": 1.0e0, "extraData": "0x01"},
    "blockchain": {"nodes": {"keys": ["${BESU_KEYS[0]}"]}}}`;
  const built = build(text);
  t.regex(built.genesisText, /"gasUsed": 12345678901234567890123,\n\s+"timestamp": 1\.0e0\n/);
  t.deepEqual(Object.keys(JSON.parse(built.genesisText)), ['config', 'extraData', 'gasLimit', 'difficulty', 'gasUsed', 'timestamp']);
  t.deepEqual(decodeExtraData(built.genesis.extraData).validators, ['0xd5feb0fc5a54a89f97aeb34c3df15397c19f6dd2']);
  // The node's parser reads JSON numbers as doubles, so a balance past 2^53 written as a number is refused, not rounded.
  const bigBalance = text.replace('"gasUsed"', '"alloc": {"fe3b557e8fb62b89f4916b721be55ceb828dbd73": {"balance": 90000000000000000000000}}, "gasUsed"');
  t.throws(() => build(bigBalance), { instanceOf: BlockchainConfigError, message: /would not load: genesis: alloc\.fe3b.*\.balance/ });
});

test("configuration mistakes are refused with Besu's message or one naming the field", (t) => {
  const genesis = besuTestGenesis('qbft');
  const { config: _config, ...withoutConfig } = genesis;
  const cases: Array<[string, RegExp | string]> = [
    ['{"genesis": ', /^is not valid JSON: unexpected end of input at line 1/],
    ['[]', 'Expected object value but got array'],
    [JSON.stringify({ blockchain: { nodes: { generate: true, count: 4 } } }), /^Missing config section in config file/],
    [importing(withoutConfig), /^Missing config section in config file/],
    [JSON.stringify({ genesis: [] }), 'genesis: Expected object value but got array'],
    [importing({ ...genesis, config: { chainId: 1, clique: {} } }), /has no qbft \(or ibft2\) section/],
    [importing({ ...genesis, config: { chainId: 1 } }), /has no qbft \(or ibft2\) section/],
    [importing({ ...genesis, config: { ...genesis.config, ecCurve: 'abcd' } }), 'Invalid parameter for ecCurve in genesis config: abcd is not in the list of valid elliptic curves [secp256k1, secp256r1]'],
    [importing({ ...genesis, config: { ...genesis.config, ecCurve: 'secp256r1' } }), /ecCurve: secp256r1 is not supported/],
    [importing({ ...genesis, config: { ...genesis.config, ecCurve: 1 } }), /ecCurve: Expected string value but got number/],
    [JSON.stringify({ genesis }), /^blockchain.nodes: no validators/],
    [JSON.stringify({ genesis, blockchain: { nodes: { generate: false } } }), /^blockchain.nodes: no validators/],
    [JSON.stringify({ genesis, blockchain: [] }), 'blockchain: Expected object value but got array'],
    [JSON.stringify({ genesis, blockchain: { nodes: { generate: 'true', count: 4 } } }), 'blockchain.nodes.generate: Expected boolean value but got string'],
    [JSON.stringify({ genesis, blockchain: { nodes: { generate: true } } }), /^blockchain.nodes.count is missing/],
    [JSON.stringify({ genesis, blockchain: { nodes: { generate: true, count: '4' } } }), 'blockchain.nodes.count: Expected number value but got string'],
    [JSON.stringify({ genesis, blockchain: { nodes: { generate: true, count: 1.5 } } }), 'blockchain.nodes.count: Cannot convert value to integer: 1.5'],
    [JSON.stringify({ genesis, blockchain: { nodes: { generate: true, count: 0 } } }), `blockchain.nodes.count: 0 is not between 1 and ${MAX_GENERATED_KEYS}`],
    [JSON.stringify({ genesis, blockchain: { nodes: { generate: true, count: MAX_GENERATED_KEYS + 1 } } }), /is not between 1 and/],
    [JSON.stringify({ genesis, blockchain: { nodes: { keys: {} } } }), 'blockchain.nodes.keys: Expected array value but got object'],
    [importing(genesis, []), /keys is empty/],
    [importing(genesis, [{ invalidObj: BESU_KEYS[0] }, BESU_KEYS[1]]), 'blockchain.nodes.keys[0]: Invalid key json of type: OBJECT'],
    [importing(genesis, [BESU_KEYS[0], '0x1234']), 'blockchain.nodes.keys[1]: 0x1234 is not a public key: encoding must be 64 bytes long, got 2'],
    [importing(genesis, [BESU_KEYS[0], BESU_KEYS[1], BESU_KEYS[0]]), 'blockchain.nodes.keys[2] repeats keys[0] (address 0xd5feb0fc5a54a89f97aeb34c3df15397c19f6dd2)'],
    [importing({ ...genesis, gasLimit: undefined }), 'the generated genesis would not load: genesis: gasLimit is missing'],
    [importing({ ...genesis, config: { ...genesis.config, ibft2: {} } }), /would not load: genesis: config.ibft2 cannot be combined with config.qbft/],
  ];
  for (const [text, message] of cases) t.throws(() => build(text, seeded('x')), { instanceOf: BlockchainConfigError, message }, text.slice(0, 120));
});

test('a configuration file may spell config and qbft in any case, as the genesis parser reads them', (t) => {
  const { config, ...rest } = besuTestGenesis('qbft');
  const built = build(importing({ Config: { chainId: config.chainId, QBFT: config.qbft }, ...rest }));
  t.is(built.genesis.consensus, 'qbft');
  t.is(bytesToHex(built.genesis.extraData), BESU_QBFT_EXTRA);
});
