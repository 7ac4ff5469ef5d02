import test from 'ava';
import { getOperationAST, GraphQLError, parse } from 'graphql';
import { buildEthSchema } from './schema.ts';
import { checkVariables, coercedVariables, queryComplexity, syntaxError, validateDocument } from './validation.ts';

const schema = buildEthSchema();
const messages = (query: string) => validateDocument(schema, parse(query)).map((e) => e.message);
const complexity = (query: string, variables: Record<string, unknown> = {}) => {
  const doc = parse(query);
  const op = getOperationAST(doc)!;
  return queryComplexity(schema, doc, op, coercedVariables(schema, op, variables));
};

test('complexity: 1 per field plus children, Transaction.block and __Type.fields 100, __typename 0', (t) => {
  // Besu's graphql_tooComplex and graphql_tooComplexSchema: both 204
  t.is(complexity('{ block { transactions { block { transactions { block { number }}}}}}'), 204);
  t.is(complexity('{ __schema { types { fields { type { fields { name }}}}}}'), 204);
  t.is(complexity('{ block { number hash } }'), 3);
  t.is(complexity('{ block { __typename number } }'), 2);
  t.is(complexity('{ block { ...F } } fragment F on Block { number parent { number } }'), 4);
  t.is(complexity('{ block { ... on Block { number } } }'), 2);
  t.is(complexity('query($s: Boolean!) { block { number hash @skip(if: $s) parent @include(if: false) { number } } }', { s: true }), 2);
});

test('WrongType: the argument path, graphql-java\'s literal and the scalar\'s message', (t) => {
  t.deepEqual(messages('{block(number :"0x8") {number call (data : {from : "0xa94f5374fce5edbc8e2a8697c15331677e6ebf0b", data :"12a7b914"}){data status}}}'), [
    "Validation error (WrongType@[block/call]) : argument 'data.data' with value 'StringValue{value='12a7b914'}' is not a valid 'Bytes' - Bytes value '12a7b914' is not prefixed with 0x",
  ]);
  const [e] = validateDocument(schema, parse('{block (hash : "c8df") {number } }'));
  t.deepEqual(e, {
    message: "Validation error (WrongType@[block]) : argument 'hash' with value 'StringValue{value='c8df'}' is not a valid 'Hash' - Hash value 'c8df' is not prefixed with 0x",
    locations: [{ line: 1, column: 9 }],
    extensions: { classification: 'ValidationError' },
  });
  t.deepEqual(messages('{ logs(filter: { topics: [[], ["0x1", "x"]] }) { index } }'), [
    "Validation error (WrongType@[logs]) : argument 'filter.topics[1][1]' with value 'StringValue{value='x'}' is not a valid 'LogTopic' - LogTopic value 'x' is not prefixed with 0x",
  ]);
  t.deepEqual(messages('{ block { call(data: { nope: 1 }) { status } } }'), [
    "Validation error (WrongType@[block/call]) : argument 'data' with value 'ObjectValue{objectFields=[ObjectField{name='nope', value=IntValue{value=1}}]}' contains a field not in 'CallData': 'nope'",
  ]);
  t.deepEqual(messages('{ block { call(data: 5) { status } } }'), [
    "Validation error (WrongType@[block/call]) : argument 'data' with value 'IntValue{value=5}' must be an object type",
  ]);
});

test('required arguments, unknown fields and arguments, sub-selections', (t) => {
  const [e] = validateDocument(schema, parse('{ pending { account { balance } } }'));
  t.deepEqual(e, {
    message: "Validation error (MissingFieldArgument@[pending/account]) : Missing field argument 'address'",
    locations: [{ line: 1, column: 13 }],
    extensions: { classification: 'ValidationError' },
  });
  t.deepEqual(messages('{ transaction(hash: null) { nonce } }'), [
    "Validation error (NullValueForNonNullArgument@[transaction]) : Null value for non-null field argument 'hash'",
    "Validation error (WrongType@[transaction]) : argument 'hash' with value 'NullValue{}' must not be null",
  ]);
  t.deepEqual(messages('{ block { nope size: number(x: 1) } }'), [
    "Validation error (FieldUndefined@[block/nope]) : Field 'nope' in type 'Block' is undefined",
    "Validation error (UnknownArgument@[block/number]) : Unknown field argument 'x'",
  ]);
  t.deepEqual(messages('{ block { number { x } parent } }'), [
    "Validation error (SubselectionNotAllowed@[block/number]) : Subselection not allowed on leaf type 'Long!' of field 'number'",
    "Validation error (SubselectionRequired@[block/parent]) : Subselection required for type 'Block' of field 'parent'",
  ]);
});

test('variables and types: undefined, unused, mismatched, unknown, bad defaults', (t) => {
  t.deepEqual(messages('{ block(number: $n) { number } }'), ["Validation error (UndefinedVariable@[block]) : Undefined variable 'n'"]);
  t.deepEqual(messages('query($n: Long) { block { number } }'), ["Validation error (UnusedVariable) : Unused variable 'n'"]);
  t.deepEqual(messages('query($h: Bytes32!) { block(hash: $h) { number } }'), [
    "Validation error (VariableTypeMismatch@[block]) : Variable 'h' of type 'Bytes32!' used in position expecting type 'Hash'",
  ]);
  t.deepEqual(messages('query($h: Nope) { block(hash: $h) { number } }').slice(0, 1), ["Validation error (UnknownType) : Unknown type 'Nope'"]);
  t.deepEqual(messages('query($n: Long = "x") { block(number: $n) { number } }'), [
    "Validation error (BadValueForDefaultArg) : Bad default value 'StringValue{value='x'}' for type 'Long'",
  ]);
  t.deepEqual(messages('query getBlock($hash :Hash!) { block(hash:$hash) { number } }'), []);
});

test('variable coercion: the first bad variable, as graphql-java words it', (t) => {
  const op = getOperationAST(parse('query($h: Hash!, $n: Long, $a: Address) { block(hash: $h) { number account(address: $a) { balance } } blocks(from: $n) { number } }'))!;
  t.is(checkVariables(schema, op, { h: '0x' + '11'.repeat(32), n: '0x1d' }), undefined);
  t.deepEqual(checkVariables(schema, op, {}), {
    message: "Variable 'h' has coerced Null value for NonNull type 'Hash!'",
    locations: [{ line: 1, column: 7 }],
    extensions: { classification: 'ValidationError' },
  });
  t.is(checkVariables(schema, op, { h: 'abc' })?.message, "Variable 'h' has an invalid value: Hash value 'abc' is not prefixed with 0x");
  t.is(checkVariables(schema, op, { h: '0x01', n: true })?.message, "Variable 'n' has an invalid value: Unable to parse variable value true as an Long");
  t.is(checkVariables(schema, op, { h: '0x01', a: 5 })?.message, "Variable 'a' has an invalid value: Unable to parse variable value 5 as an Address");
});

test('syntax errors name the offending token and its position', (t) => {
  const at = (query: string) => {
    try {
      parse(query);
    } catch (e) {
      return syntaxError(e as GraphQLError, query);
    }
    throw new Error('parsed');
  };
  t.deepEqual(at('{ block { number '), {
    message: "Invalid syntax with offending token '<EOF>' at line 1 column 18",
    locations: [{ line: 1, column: 18 }],
    extensions: { classification: 'InvalidSyntax' },
  });
  t.is(at('{ block(number: ) { number } }').message, "Invalid syntax with offending token ')' at line 1 column 17");
});
