/** What a node refuses or warns about in its genesis at start (genesis-checks.ts and readGenesis). */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex } from '../crypto/bytes.ts';
import { encodeExtraDataFromAddresses } from './extra-data.ts';
import { GenesisError, parseGenesis, readGenesis } from './genesis.ts';
import { checkedForStart } from './genesis-checks.ts';

const DOCS_FILE = new URL('./testdata/besu-docs-qbft-genesis.json', import.meta.url).pathname;
const docsJson = () => JSON.parse(readFileSync(DOCS_FILE, 'utf8')) as Record<string, any>;
const A = '0x' + 'aa'.repeat(20);
const B = '0x' + 'bb'.repeat(20);
const CONTRACT = '0x0000000000000000000000000000000000008888';

function warningsOf(json: unknown): string[] {
  return checkedForStart(readGenesis(json)).warnings;
}

function extraDataWith(validators: Uint8Array[]): string {
  return bytesToHex(RLP.encode([new Uint8Array(32), validators, [], new Uint8Array(0), []]));
}

test("Besu's documented QBFT genesis starts without a warning", (t) => {
  t.deepEqual(warningsOf(docsJson()), []);
});

test('a 19-byte validator in extraData is refused in one line naming extraData (Besu: RLPException in QbftBesuControllerBuilder.validateContext)', (t) => {
  const json = docsJson();
  json.extraData = extraDataWith([new Uint8Array(20).fill(0xaa), new Uint8Array(19).fill(0xbb)]);
  t.notThrows(() => parseGenesis(json), 'parsing alone accepts it: the start-up check is what refuses it');
  const err = t.throws(() => warningsOf(json), { instanceOf: GenesisError });
  t.is(err?.field, 'extraData');
  t.is(err?.message, 'genesis: extraData is not QBFT extraData: validator 1 must be 20 bytes, got 19');
});

test('empty or non-RLP extraData is refused (Besu: QbftExtraDataCodec.decodeRaw)', (t) => {
  const empty = docsJson();
  empty.extraData = '0x';
  t.regex(t.throws(() => warningsOf(empty), { instanceOf: GenesisError })?.message ?? '', /^genesis: extraData is empty: a QBFT genesis lists its validators there/);
  const notRlp = docsJson();
  notRlp.extraData = '0xf8';
  t.regex(t.throws(() => warningsOf(notRlp), { instanceOf: GenesisError })?.message ?? '', /^genesis: extraData is not QBFT extraData: invalid RLP/);
});

test('no validators in extraData: a warning that the chain will not progress (Besu logs the same and starts)', (t) => {
  const json = docsJson();
  json.extraData = bytesToHex(encodeExtraDataFromAddresses([]));
  t.deepEqual(warningsOf(json), ['genesis: extraData lists no validators: no validator can propose block 1, so the chain will not progress']);
  json.config.transitions = { qbft: [{ block: 1, validators: [A] }] };
  t.deepEqual(warningsOf(json), [], 'a transition at block 1 supplies the validators');
  json.config.transitions = { qbft: [{ block: 1, validatorselectionmode: 'contract', validatorcontractaddress: CONTRACT }] };
  t.deepEqual(warningsOf(json), [], 'contract mode from block 1');
});

test('validators in extraData under contract mode: a warning that they are not used (Besu logs the same)', (t) => {
  const json = docsJson();
  json.config.qbft.validatorcontractaddress = CONTRACT;
  t.deepEqual(warningsOf(json), ['genesis: extraData lists validators, but config.qbft.validatorcontractaddress selects contract mode: they are not used']);
  json.extraData = bytesToHex(encodeExtraDataFromAddresses([]));
  t.deepEqual(warningsOf(json), []);
});

test('a validator repeated in extraData: a warning that it counts once (Besu: VoteTally keeps a set)', (t) => {
  const json = docsJson();
  json.extraData = bytesToHex(encodeExtraDataFromAddresses([A as `0x${string}`, B as `0x${string}`, A as `0x${string}`, A as `0x${string}`]));
  t.deepEqual(warningsOf(json), [`genesis: extraData lists validator ${A} more than once: it counts as one validator`]);
});

test("a validator repeated in a transition's list: a warning (in block-header mode only: contract mode does not read the list)", (t) => {
  const json = docsJson();
  json.config.transitions = { qbft: [{ block: 5, validators: [A, B, A.toUpperCase().replace('0X', '0x')] }] };
  t.deepEqual(warningsOf(json), [`genesis: config.transitions.qbft[0].validators lists ${A} more than once: it counts as one validator`]);
  json.config.transitions = { qbft: [{ block: 5, validatorselectionmode: 'contract', validatorcontractaddress: CONTRACT, validators: [A, A] }] };
  t.deepEqual(warningsOf(json), []);
});

test('`validators: []` in a transition: a warning naming where the chain stops; refused with blockheader mode named (QbftForksSchedulesFactory)', (t) => {
  const json = docsJson();
  json.config.transitions = { qbft: [{ block: 7, blockreward: '1' }, { block: 5, validators: [] }] };
  t.true(warningsOf(json).includes('genesis: config.transitions.qbft[1].validators is empty: block 5 has no validator to propose it, so the chain stops at block 4'));
  json.config.transitions = { qbft: [{ block: 3, validatorselectionmode: 'contract', validatorcontractaddress: CONTRACT }, { block: 5, validators: [] }] };
  t.deepEqual(warningsOf(json), [], 'in contract mode the list is not read');
  json.config.transitions = { qbft: [{ block: 5, validatorselectionmode: 'blockheader', validators: [] }] };
  t.is(t.throws(() => warningsOf(json), { instanceOf: GenesisError })?.field, 'config.transitions.qbft[0].validators');
});

test('a short alloc key: a warning naming the address it becomes (Besu: Address.fromHexString left-pads it)', (t) => {
  const json = docsJson();
  const key = '0x' + '11'.repeat(19);
  json.alloc[key] = { balance: '1' };
  t.deepEqual(warningsOf(json), [`genesis: alloc.${key} is not a 20-byte address (38 hex digits, not 40): it is read as 0x00${'11'.repeat(19)}`]);
  t.true(parseGenesis(json).alloc.has(`0x00${'11'.repeat(19)}`));
});

test('a short transition validator: a warning naming the address it becomes (Besu: convertBftForks uses Address.fromHexString)', (t) => {
  const json = docsJson();
  json.config.transitions = { qbft: [{ block: 5, validators: [A, '0x' + 'cc'.repeat(19)] }] };
  t.deepEqual(warningsOf(json), [`genesis: config.transitions.qbft[0].validators[1] is not a 20-byte address (38 hex digits, not 40): it is read as 0x00${'cc'.repeat(19)}`]);
});

test('transitions out of block order: a warning, and they still apply in block order (Besu: ForksScheduleFactory sorts them)', (t) => {
  const json = docsJson();
  json.config.transitions = { qbft: [{ block: 10, blockreward: '5' }, { block: 5, blockreward: '3' }, { block: 20, blockreward: '7' }] };
  t.deepEqual(warningsOf(json), ['genesis: config.transitions.qbft[1].block (5) is below the block of transition 0 (10): transitions apply in block order, not in the order written']);
  t.deepEqual(parseGenesis(json).transitions.map((tr) => tr.block), [5, 10, 20]);
  json.config.transitions.qbft.sort((a: { block: number }, b: { block: number }) => a.block - b.block);
  t.deepEqual(warningsOf(json), []);
});

test('no qbft section: a warning that the node runs no consensus (Besu: "No consensus mechanism detected"); none with config.ethash', (t) => {
  const json = docsJson();
  delete json.config.qbft;
  t.deepEqual(warningsOf(json), ['genesis: config has no qbft section: the node runs no consensus and produces no blocks, it only imports and serves them']);
  json.config.ethash = {};
  t.deepEqual(warningsOf(json), []);
});
