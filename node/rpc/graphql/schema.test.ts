import test from 'ava';
import { GraphQLScalarType, parseValue, type ValueNode } from 'graphql';
import { buildEthSchema, javaLiteral, ScalarInputError } from './schema.ts';

const schema = buildEthSchema();
const scalar = (name: string) => schema.getType(name) as GraphQLScalarType;
const literal = (name: string, source: string) => scalar(name).parseLiteral(parseValue(source) as ValueNode, undefined);
const literalError = (name: string, source: string) => {
  try {
    literal(name, source);
  } catch (e) {
    if (e instanceof ScalarInputError) return e.message;
    throw e;
  }
  return undefined;
};

test('schema has Besu\'s shape: Hash, LogTopic, VersionedHash scalars, withdrawals and blob fields, no protocolVersion', (t) => {
  for (const name of ['Hash', 'LogTopic', 'VersionedHash', 'Withdrawal']) t.truthy(schema.getType(name), name);
  const block = schema.getQueryType()!.getFields().block;
  t.deepEqual(block.args.map((a) => `${a.name}: ${String(a.type)}`), ['number: Long', 'hash: Hash']);
  t.is(String(schema.getQueryType()!.getFields().transaction.args[0].type), 'Hash!');
  t.false('protocolVersion' in schema.getQueryType()!.getFields());
  const blockFields = (schema.getType('Block') as any).getFields();
  for (const f of ['withdrawalsRoot', 'withdrawals', 'blobGasUsed', 'excessBlobGas', 'nextBaseFeePerGas']) t.truthy(blockFields[f], f);
  const txFields = (schema.getType('Transaction') as any).getFields();
  t.is(String(txFields.v.type), 'BigInt');
  for (const f of ['blobGasUsed', 'blobGasPrice', 'revertReason']) t.truthy(txFields[f], f);
  t.is(String((schema.getType('FilterCriteria') as any).getFields().topics.type), '[[LogTopic!]!]');
});

test('byte strings: 0x prefix required, lenient hex, 32-byte kinds left-padded', (t) => {
  t.is(literal('Bytes', '"0x12a7b914"'), '0x12a7b914');
  t.is(literal('Bytes', '"0xABC"'), '0x0abc');
  t.is(literal('Bytes', '"0x"'), '0x');
  t.is(literalError('Bytes', '"12a7b914"'), "Bytes value '12a7b914' is not prefixed with 0x");
  t.is(literalError('Bytes', '"0xzz"'), "Value is not any Bytes : 'StringValue{value='0xzz'}'");
  t.is(literalError('Bytes', '12'), "Value is not any Bytes : 'IntValue{value=12}'");
  // a 16-byte storage slot is slot 4, not an error (eth_getStorageAt)
  t.is(literal('Bytes32', '"0x00000000000000000000000000000004"'), '0x' + '00'.repeat(31) + '04');
  t.is(literalError('Hash', '"c8df1f06"'), "Hash value 'c8df1f06' is not prefixed with 0x");
  t.is(literalError('Hash', `"0x${'11'.repeat(33)}"`), `Value is not any Hash : 'StringValue{value='0x${'11'.repeat(33)}'}'`);
  t.is(literal('LogTopic', '"0x1"'), '0x' + '00'.repeat(31) + '01');
  t.is(scalar('Bytes32').serialize('0x04'), '0x' + '00'.repeat(31) + '04');
  t.is(scalar('Bytes').serialize(Uint8Array.of(1, 2)), '0x0102');
});

test('Address: exactly 20 bytes, 0x optional', (t) => {
  const a = '6295ee1b4f6dd65047762f924ecd367c17eabf8f';
  t.is(literal('Address', `"0x${a.toUpperCase()}"`), `0x${a}`);
  t.is(literal('Address', `"${a}"`), `0x${a}`);
  t.is(literalError('Address', '"0x12"'), "Value is not any Address : 'StringValue{value='0x12'}'");
  t.throws(() => scalar('Address').parseValue(12), { message: 'Unable to parse variable value 12 as an Address' });
});

test('Long: Java long from an integer, 0x-hex of at most 8 bytes, or a decimal string', (t) => {
  t.is(literal('Long', '88888888'), 88888888n);
  t.is(literal('Long', '"0x220"'), 0x220n);
  t.is(literal('Long', '"0X1E"'), 0x1en);
  t.is(literal('Long', '"0xffffffffffffffff"'), -1n);
  t.is(literal('Long', '"-5"'), -5n);
  t.is(literal('Long', '18446744073709551617'), 1n);
  t.is(literalError('Long', '"0x1ffffffffffffffff"'), "Value is not any Long : 'StringValue{value='0x1ffffffffffffffff'}'");
  t.is(literalError('Long', '"9223372036854775808"'), "Value is not any Long : 'StringValue{value='9223372036854775808'}'");
  t.is(literalError('Long', '1.5'), "Value is not any Long : 'FloatValue{value=1.5}'");
  t.is(scalar('Long').parseValue('0x1d'), 0x1dn);
  t.is(scalar('Long').parseValue(30), 30n);
  t.throws(() => scalar('Long').parseValue(true), { message: 'Unable to parse variable value true as an Long' });
  t.is(scalar('Long').serialize(0n), '0x0');
  t.is(scalar('Long').serialize(544n), '0x220');
});

test('BigInt: integers, 0x-hex and decimal strings within 256 bits', (t) => {
  t.is(literal('BigInt', '10'), 10n);
  t.is(literal('BigInt', '"0x10"'), 16n);
  t.is(literal('BigInt', '"10"'), 10n);
  t.is(literalError('BigInt', '-1'), "Value is not any BigInt : 'IntValue{value=-1}'");
  t.is(literalError('BigInt', `"0x1${'00'.repeat(32)}"`), `Value is not any BigInt : 'StringValue{value='0x1${'00'.repeat(32)}'}'`);
  t.is(scalar('BigInt').serialize(0n), '0x0');
  t.is(scalar('BigInt').serialize(320n), '0x140');
});

test('javaLiteral prints literals as graphql-java\'s Node.toString()', (t) => {
  const p = (s: string) => javaLiteral(parseValue(s));
  t.is(p('"x"'), "StringValue{value='x'}");
  t.is(p('null'), 'NullValue{}');
  t.is(p('[1, true]'), 'ArrayValue{values=[IntValue{value=1}, BooleanValue{value=true}]}');
  t.is(p('{a: $v}'), "ObjectValue{objectFields=[ObjectField{name='a', value=VariableReference{name='v'}}]}");
});
