import test, { type ExecutionContext } from 'ava';
import type { Hex } from '../crypto/bytes.ts';
import { RpcError, type RpcErrorTypeName, RpcErrorType } from './errors.ts';
import {
  dataHex,
  javaDecode,
  optional,
  paramLength,
  parseAddress,
  parseBlockParam,
  parseBlockParamOrHash,
  parseBoolean,
  parseCallObject,
  parseData,
  parseFilterObject,
  parseHash32,
  parseQuantity,
  parseTopics,
  parseUnsignedInt,
  parseUnsignedLong,
  quantity,
  requireParams,
  topicsMatch,
} from './params.ts';

function rejects(t: ExecutionContext, f: () => unknown, type: RpcErrorTypeName, label = ''): void {
  const e = t.throws(f, { instanceOf: RpcError }, label);
  if (e) {
    t.is(e.code, RpcErrorType[type][0], label);
    t.is(e.message, RpcErrorType[type][1], label);
  }
}

const H32 = `0x${'ab'.repeat(32)}` as Hex;

test('parseAddress: lenient like Address.fromHexString', (t) => {
  t.is(parseAddress('0x627306090abaB3A6e1400e9345bC60c78a8BEf57'), '0x627306090abab3a6e1400e9345bc60c78a8bef57');
  t.is(parseAddress('627306090abaB3A6e1400e9345bC60c78a8BEf57'), '0x627306090abab3a6e1400e9345bc60c78a8bef57');
  t.is(parseAddress('0x1'), '0x0000000000000000000000000000000000000001');
  t.is(parseAddress('0x'), '0x0000000000000000000000000000000000000000');
  for (const bad of [undefined, null, 5, {}, [], '', '0x' + '11'.repeat(21), '0xzz', '0X1234', 'hello']) {
    rejects(t, () => parseAddress(bad), 'INVALID_ADDRESS_PARAMS', JSON.stringify(bad));
  }
  rejects(t, () => parseAddress('nope', 'INVALID_ACCOUNT_PARAMS'), 'INVALID_ACCOUNT_PARAMS');
});

test('parseHash32: strict 32 bytes', (t) => {
  t.is(parseHash32(H32), H32);
  t.is(parseHash32(H32.toUpperCase().replace('0X', '0x')), H32);
  t.is(parseHash32('ab'.repeat(32)), H32);
  // JsonRpcHttpServiceTest: "0xe" (odd) and "0xe670" (short) are INVALID_BLOCK_HASH_PARAMS
  for (const bad of ['0xe', '0xe670', H32 + '00', '0x' + 'g'.repeat(64), 7, null, undefined]) {
    rejects(t, () => parseHash32(bad, 'INVALID_BLOCK_HASH_PARAMS'), 'INVALID_BLOCK_HASH_PARAMS', String(bad));
  }
  rejects(t, () => parseHash32('0x12'), 'INVALID_PARAMS');
});

test('parseQuantity: UInt256 leniency (leading zeros, odd digits, optional 0x)', (t) => {
  t.is(parseQuantity('0x0'), 0n);
  t.is(parseQuantity('0x'), 0n);
  t.is(parseQuantity('0x0001'), 1n);
  t.is(parseQuantity('0xabc'), 0xabcn);
  t.is(parseQuantity('ff'), 255n);
  t.is(parseQuantity('0x' + 'f'.repeat(64)), (1n << 256n) - 1n);
  for (const bad of ['', '0x' + '1'.repeat(65), '0xg', 12, '-0x1', null, '0X1']) {
    rejects(t, () => parseQuantity(bad, 'INVALID_POSITION_PARAMS'), 'INVALID_POSITION_PARAMS', String(bad));
  }
});

test('parseUnsignedLong / parseUnsignedInt', (t) => {
  t.is(parseUnsignedLong('0x10'), 16n);
  t.is(parseUnsignedLong('10'), 16n); // hex even without 0x (Long.parseUnsignedLong(s, 16))
  t.is(parseUnsignedLong('0xffffffffffffffff'), (1n << 64n) - 1n);
  t.is(parseUnsignedLong('0x00000000000000000001'), 1n);
  t.is(parseUnsignedLong(42), 42n);
  for (const bad of ['0x', '', '0x10000000000000000', '-1', 1.5, -1, {}]) rejects(t, () => parseUnsignedLong(bad), 'INVALID_PARAMS', String(bad));
  t.is(parseUnsignedInt('0x10'), 16);
  t.is(parseUnsignedInt('10'), 10);
  t.is(parseUnsignedInt('010'), 8); // Integer.decode octal
  t.is(parseUnsignedInt(3), 3);
  for (const bad of ['-1', '0x80000000', 'abc', -1, 2 ** 31, 1.5, null]) {
    rejects(t, () => parseUnsignedInt(bad, 'INVALID_TRANSACTION_INDEX_PARAMS'), 'INVALID_TRANSACTION_INDEX_PARAMS', String(bad));
  }
});

test('parseData: strict even hex', (t) => {
  t.deepEqual(parseData('0x'), new Uint8Array(0));
  t.deepEqual(parseData('0x00ff'), Uint8Array.from([0, 255]));
  t.deepEqual(parseData('00FF'), Uint8Array.from([0, 255]));
  for (const bad of ['0x0', '0xzz', 5, null]) rejects(t, () => parseData(bad), 'INVALID_PARAMS', String(bad));
});

test('parseBoolean: booleans and Jackson text forms', (t) => {
  t.true(parseBoolean(true));
  t.false(parseBoolean(false));
  t.true(parseBoolean('true'));
  t.true(parseBoolean('TRUE'));
  t.false(parseBoolean(' False '));
  for (const bad of [{}, [], null, undefined, 'yes', '1', 'tRUE']) {
    rejects(t, () => parseBoolean(bad, 'INVALID_RETURN_COMPLETE_TRANSACTION_PARAMS'), 'INVALID_RETURN_COMPLETE_TRANSACTION_PARAMS', String(bad));
  }
});

test('javaDecode follows Long.decode', (t) => {
  const ok: Array<[string, bigint]> = [
    ['0', 0n], ['12', 12n], ['0x1f', 31n], ['0X1F', 31n], ['#1f', 31n], ['017', 15n], ['00', 0n],
    ['-1', -1n], ['+5', 5n], ['-0x10', -16n], ['0x0001', 1n], ['9223372036854775807', (1n << 63n) - 1n],
    ['-0x8000000000000000', -(1n << 63n)],
  ];
  for (const [s, v] of ok) t.is(javaDecode(s), v, s);
  for (const s of ['', '0x', '-', '08', '0x-1', '--1', '1e3', ' 1', '9223372036854775808', '0x8000000000000000', 'latest', '1.0']) {
    t.is(javaDecode(s), undefined, s);
  }
  t.is(javaDecode('2147483647', 32), 2147483647n);
  t.is(javaDecode('2147483648', 32), undefined);
});

test('parseBlockParam: tags (any case), hex and decimal numbers, leading zeros (Besu BlockParameter)', (t) => {
  for (const tag of ['latest', 'earliest', 'pending', 'finalized', 'safe'] as const) {
    t.deepEqual(parseBlockParam(tag), { kind: 'tag', tag });
    t.deepEqual(parseBlockParam(tag.toUpperCase()), { kind: 'tag', tag });
  }
  t.deepEqual(parseBlockParam('0x10'), { kind: 'number', number: 16n });
  t.deepEqual(parseBlockParam('16'), { kind: 'number', number: 16n });
  t.deepEqual(parseBlockParam('0x0010'), { kind: 'number', number: 16n });
  t.deepEqual(parseBlockParam('0'), { kind: 'number', number: 0n });
  t.deepEqual(parseBlockParam('-1'), { kind: 'number', number: -1n });
  // JsonRpcHttpServiceTest.getBlockByNumberForInvalidBlockParameter: "bla" -> INVALID_BLOCK_NUMBER_PARAMS
  rejects(t, () => parseBlockParam('bla', 'INVALID_BLOCK_NUMBER_PARAMS'), 'INVALID_BLOCK_NUMBER_PARAMS');
  for (const bad of [16, null, undefined, {}, '0x', '0xg', 'Latest!', '0x10000000000000000']) {
    rejects(t, () => parseBlockParam(bad), 'INVALID_BLOCK_PARAMS', String(bad));
  }
});

test('parseBlockParamOrHash: EIP-1898 objects, hashes, Besu length rules', (t) => {
  t.deepEqual(parseBlockParamOrHash('SAFE'), { kind: 'tag', tag: 'safe' });
  t.deepEqual(parseBlockParamOrHash('0x1b4'), { kind: 'number', number: 436n });
  t.deepEqual(parseBlockParamOrHash('436'), { kind: 'number', number: 436n });
  t.deepEqual(parseBlockParamOrHash(H32), { kind: 'hash', hash: H32, requireCanonical: false });
  t.deepEqual(parseBlockParamOrHash({ blockHash: H32 }), { kind: 'hash', hash: H32, requireCanonical: false });
  t.deepEqual(parseBlockParamOrHash({ blockHash: H32, requireCanonical: true }), { kind: 'hash', hash: H32, requireCanonical: true });
  t.deepEqual(parseBlockParamOrHash({ blockHash: H32, requireCanonical: 'true' }), { kind: 'hash', hash: H32, requireCanonical: true });
  t.deepEqual(parseBlockParamOrHash({ blockNumber: '0x10' }), { kind: 'number', number: 16n });
  t.deepEqual(parseBlockParamOrHash({ blockNumber: 16 }), { kind: 'number', number: 16n });
  // 17 characters ("0x" + 15 digits) is refused although it fits in 64 bits (Besu: "hex number > 64 bits")
  rejects(t, () => parseBlockParamOrHash('0x100000000000000'), 'INVALID_BLOCK_PARAMS');
  t.deepEqual(parseBlockParamOrHash('0x10000000000000'), { kind: 'number', number: 0x10000000000000n });
  // a hash without 0x is 64 characters: not a hash and too long for a number
  rejects(t, () => parseBlockParamOrHash('ab'.repeat(32)), 'INVALID_BLOCK_PARAMS');
  for (const bad of [5, null, [], {}, { blockHash: null }, { blockNumber: 'latest' }, { blockHash: '0xzz' + '0'.repeat(62) }, true]) {
    rejects(t, () => parseBlockParamOrHash(bad), 'INVALID_BLOCK_PARAMS', JSON.stringify(bad));
  }
});

test('requireParams and paramLength follow JsonRpcRequest.getParamLength', (t) => {
  t.is(paramLength([]), 0);
  t.is(paramLength([null, 1]), 0);
  t.is(paramLength(['a', null]), 2);
  t.notThrows(() => requireParams(['0x1'], 1, 1));
  rejects(t, () => requireParams([], 1, 1), 'INVALID_PARAM_COUNT');
  rejects(t, () => requireParams(['a', 'b'], 1, 1), 'INVALID_PARAM_COUNT');
  rejects(t, () => requireParams([null], 1), 'INVALID_PARAM_COUNT');
  t.is(optional(null, parseBoolean), undefined);
  t.is(optional(undefined, parseBoolean), undefined);
  t.true(optional(true, parseBoolean));
});

test('parseCallObject: Besu CallParameter members, input/data', (t) => {
  const c = parseCallObject({
    from: '0x627306090abaB3A6e1400e9345bC60c78a8BEf57',
    to: '0x1',
    gas: '0x5208',
    gasPrice: '0x01',
    maxFeePerGas: '0x10',
    maxPriorityFeePerGas: '0x0',
    value: '0xde0b6b3a7640000',
    data: '0x60fe',
    nonce: '0x3',
    chainId: '0x539',
    accessList: [{ address: '0x2', storageKeys: ['0x01'] }],
    unknownMember: 1,
  });
  t.is(c.from, '0x627306090abab3a6e1400e9345bc60c78a8bef57');
  t.is(c.to, '0x0000000000000000000000000000000000000001');
  t.is(c.gas, 21000n);
  t.is(c.gasPrice, 1n);
  t.is(c.maxFeePerGas, 16n);
  t.is(c.maxPriorityFeePerGas, 0n);
  t.is(c.value, 10n ** 18n);
  t.deepEqual(c.data, Uint8Array.from([0x60, 0xfe]));
  t.is(c.nonce, 3n);
  t.is(c.chainId, 1337n);
  t.deepEqual(c.accessList, [{ address: '0x0000000000000000000000000000000000000002', storageKeys: ['0x' + '0'.repeat(62) + '01'] }]);
  t.deepEqual(parseCallObject({ input: '0x01' }).data, Uint8Array.from([1]));
  t.deepEqual(parseCallObject({ input: '0x01', data: '0x01' }).data, Uint8Array.from([1]));
  t.deepEqual(parseCallObject({ to: null, data: null }), {});
  t.is(parseCallObject({ gas: '0xffffffffffffffff' }).gas, (1n << 63n) - 1n); // capped at Long.MAX_VALUE
  rejects(t, () => parseCallObject({ input: '0x01', data: '0x02' }), 'INVALID_CALL_PARAMS');
  for (const bad of [null, 'x', [], { to: 'zz' }, { gas: 21000 }, { value: '0x' + '1'.repeat(65) }, { data: '0x1' }, { accessList: [{ address: '0x1' }] }, { gas: '0x1' + '0'.repeat(16) }]) {
    rejects(t, () => parseCallObject(bad), 'INVALID_CALL_PARAMS', JSON.stringify(bad));
  }
});

test('parseFilterObject: addresses, topics with nulls and OR lists, blockHash rules', (t) => {
  const T1 = '0x' + '11'.repeat(32);
  const T2 = '0x' + '22'.repeat(32);
  const f = parseFilterObject({ fromBlock: '0x1', toBlock: 'latest', address: '0x1', topics: [T1, null, [T1, T2], [null, T2]] });
  t.deepEqual(f.fromBlock, { kind: 'number', number: 1n });
  t.deepEqual(f.toBlock, { kind: 'tag', tag: 'latest' });
  t.true(f.fromBlockGiven);
  t.deepEqual(f.addresses, ['0x0000000000000000000000000000000000000001']);
  t.deepEqual(f.topics, [[T1], [null], [T1, T2], [null, T2]]);
  const g = parseFilterObject({ address: ['0x1', '0x2'], blockHash: H32 });
  t.is(g.addresses.length, 2);
  t.is(g.blockHash, H32);
  t.deepEqual(g.fromBlock, { kind: 'tag', tag: 'latest' });
  t.false(g.fromBlockGiven);
  t.is(parseFilterObject({ blockhash: H32 }).blockHash, H32);
  t.deepEqual(parseFilterObject({}).topics, []);
  t.deepEqual(parseTopics(T1), [[T1]]);
  t.deepEqual(parseTopics([5, [true]]), [[null], [null]]); // non-strings read as null (any)
  t.deepEqual(parseTopics(['0x01']), [['0x' + '0'.repeat(62) + '01']]);
  rejects(t, () => parseFilterObject({ blockHash: H32, fromBlock: '0x1' }), 'INVALID_FILTER_PARAMS');
  for (const bad of [null, 'x', { address: 'zz' }, { topics: ['0x1'] }, { fromBlock: 1 }, { blockHash: '0x12' }, { address: [null] }]) {
    rejects(t, () => parseFilterObject(bad), 'INVALID_FILTER_PARAMS', JSON.stringify(bad));
  }
});

test('topicsMatch follows LogsQuery.matchesTopics', (t) => {
  const A = `0x${'aa'.repeat(32)}` as Hex;
  const B = `0x${'bb'.repeat(32)}` as Hex;
  t.true(topicsMatch([], []));
  t.true(topicsMatch([[A]], [A, B]));
  t.false(topicsMatch([[A]], [B]));
  t.true(topicsMatch([[null], [B]], [A, B]));
  t.false(topicsMatch([[null], [null]], [A])); // needs as many topics as positions
  t.true(topicsMatch([[], [A, B]], [A, B]));
  t.true(topicsMatch([[A]], [A.toUpperCase().replace('0X', '0x')]));
});

test('quantity and dataHex formatting', (t) => {
  t.is(quantity(0), '0x0');
  t.is(quantity(0n), '0x0');
  t.is(quantity(255), '0xff');
  t.is(quantity(1n << 64n), '0x10000000000000000');
  t.throws(() => quantity(-1));
  t.throws(() => quantity(1.5));
  t.is(dataHex(new Uint8Array(0)), '0x');
  t.is(dataHex(Uint8Array.from([0, 1, 255])), '0x0001ff');
});
