import test from 'ava';
import { RLP } from '@ethereumjs/rlp';
import { GraphQLError, isObjectType } from 'graphql';
import { bytesToHex, hexToBytes } from '../../crypto/bytes.ts';
import { LOGGER_CONTRACT } from '../../../sim/genesis-builder.ts';
import { BESU_TEST_ACCOUNTS } from '../../../sim/keys.ts';
import { sign1559, signLegacy, startCluster, storeInitCode, type Cluster } from '../methods/test-kit.ts';
import type { NodeApi } from '../node-api.ts';
import { createGraphqlHandler, executionError, MAX_QUERY_CHARACTERS, parseWithLimits } from './handler.ts';
import { buildResolvers } from './resolvers.ts';
import { buildEthSchema } from './schema.ts';

let c: Cluster;
let gql: ReturnType<typeof createGraphqlHandler>;

test.before(async () => {
  c = await startCluster();
  gql = createGraphqlHandler(c.api);
});

async function post(query: string, variables?: Record<string, unknown>) {
  const r = await gql({ method: 'POST', contentType: 'application/json', body: JSON.stringify({ query, variables }) });
  return { status: r.status, json: JSON.parse(r.body) };
}

test.serial('block: head number and QBFT hash', async (t) => {
  const { status, json } = await post('{ block { number hash } }');
  t.is(status, 200);
  const head = c.api.head();
  t.deepEqual(json.data.block, { number: '0x' + head.number.toString(16), hash: head.hash });
});

test.serial('block(number) transactionCount and blocks range', async (t) => {
  const { json } = await post('{ block(number: 1) { transactionCount } blocks(from: 0, to: 2) { number } }');
  t.is(json.data.block.transactionCount, '0x' + c.api.byNumber(1)!.block.transactions.length.toString(16));
  t.deepEqual(json.data.blocks.map((b: any) => b.number), ['0x0', '0x1', '0x2']);
});

test.serial('account balance of a funded account', async (t) => {
  const address = BESU_TEST_ACCOUNTS[2].address;
  const { status, json } = await post('query($a: Address!) { block { account(address: $a) { address balance transactionCount } } }', { a: address });
  t.is(status, 200);
  const info = await c.api.account(c.api.head(), address);
  t.true(info!.balance > 0n);
  t.is(json.data.block.account.balance, '0x' + info!.balance.toString(16));
  t.is(json.data.block.account.address, address.toLowerCase());
});

test.serial('transaction(hash) of a transfer', async (t) => {
  const { status, json } = await post(`{ transaction(hash: "${c.txs.legacy}") { hash from { address } to { address } value status gasUsed block { number } } }`);
  t.is(status, 200);
  const tx = json.data.transaction;
  t.is(tx.hash, c.txs.legacy);
  t.is(tx.from.address, BESU_TEST_ACCOUNTS[0].address.toLowerCase());
  t.is(tx.to.address, BESU_TEST_ACCOUNTS[1].address.toLowerCase());
  t.is(tx.value, '0x3e8');
  t.is(tx.status, '0x1');
  t.is(tx.gasUsed, '0x5208');
});

test.serial('logs over more blocks than --rpc-max-logs-range are refused (a bound Besu leaves out)', async (t) => {
  const to = c.api.maxLogsRange + 1;
  const { status, json } = await post(`{ logs(filter: { fromBlock: 0, toBlock: ${to} }) { index } }`);
  t.is(status, 400); // fetcher exceptions answer 400, as Besu's do
  t.regex(json.errors[0].message, /Requested range exceeds maximum RPC range limit/);
});

test.serial('logs of the logger contract', async (t) => {
  const { status, json } = await post(`{ logs(filter: { fromBlock: 0, addresses: ["${LOGGER_CONTRACT}"] }) { index topics transaction { hash } } }`);
  t.is(status, 200);
  t.is(json.data.logs.length, 1);
  t.is(json.data.logs[0].transaction.hash, c.txs.logger);
  t.is(json.data.logs[0].topics[0], '0x' + '00'.repeat(31) + '01');
});

test.serial('gasPrice, chainID, syncing', async (t) => {
  const { json } = await post('{ gasPrice chainID syncing { currentBlock } }');
  t.is(json.data.chainID, '0x' + c.api.chainId.toString(16));
  t.is(json.data.gasPrice, '0x' + c.api.gasPrice().toString(16));
  t.is(json.data.syncing, null);
});

test.serial('call and estimateGas', async (t) => {
  const { status, json } = await post(`{ block { call(data: { to: "${c.contract}", data: "0x${'00'.repeat(32)}" }) { data status gasUsed } estimateGas(data: { from: "${BESU_TEST_ACCOUNTS[2].address}", to: "${BESU_TEST_ACCOUNTS[0].address}", value: "0x1" }) } }`);
  t.is(status, 200, JSON.stringify(json));
  t.is(json.data.block.call.status, '0x1');
  t.is(json.data.block.call.data, '0x' + '00'.repeat(31) + '2a');
  t.is(json.data.block.estimateGas, '0x5208');
});

test.serial('sendRawTransaction rejections map to Besu\'s GraphQL errors', async (t) => {
  const low = signLegacy(c.node, 0, { nonce: 0n, to: BESU_TEST_ACCOUNTS[1].address, value: 1n });
  const tooLow = await post('mutation($d: Bytes!) { sendRawTransaction(data: $d) }', { d: bytesToHex(low.serialize()) });
  t.is(tooLow.status, 400);
  t.deepEqual(tooLow.json, {
    errors: [
      {
        message: 'Exception while fetching data (/sendRawTransaction) : Nonce too low',
        locations: [{ line: 1, column: 24 }],
        path: ['sendRawTransaction'],
        extensions: { errorCode: -32001, errorMessage: 'Nonce too low', classification: 'DataFetchingException' },
      },
    ],
    data: null,
  });
  const garbage = await post('mutation { sendRawTransaction(data: "0x1234") }');
  t.is(garbage.json.errors[0].extensions.errorCode, -32602);
});

test.serial('pooled transactions: in pending, not found by transaction(hash)', async (t) => {
  const tx = sign1559(c.node, 1, { nonce: 1n, to: BESU_TEST_ACCOUNTS[0].address, value: 7n });
  const hash = bytesToHex(tx.hash());
  t.true((await c.node.submitTransaction(tx.serialize())).ok);
  const { json } = await post(`{ transaction(hash: "${hash}") { hash } pending { transactionCount transactions { hash index block { number } status from { address } } } }`);
  t.is(json.data.transaction, null);
  t.is(json.data.pending.transactionCount, '0x1');
  t.deepEqual(json.data.pending.transactions, [{ hash, index: null, block: null, status: null, from: { address: BESU_TEST_ACCOUNTS[1].address.toLowerCase() } }]);
  await c.world.runFor(c.world.elapsedMs() + 3_000);
  t.is((await post(`{ transaction(hash: "${hash}") { status } }`)).json.data.transaction.status, '0x1');
});

test.serial('sendRawTransaction mutation', async (t) => {
  const tx = sign1559(c.node, 2, { nonce: 1n, to: BESU_TEST_ACCOUNTS[0].address, value: 5n });
  const { status, json } = await post('mutation($d: Bytes!) { sendRawTransaction(data: $d) }', { d: bytesToHex(tx.serialize()) });
  t.is(status, 200, JSON.stringify(json));
  t.is(json.data.sendRawTransaction, bytesToHex(tx.hash()));
  const pending = await post('{ pending { transactionCount } }');
  t.is(pending.json.data.pending.transactionCount, '0x1');
  await c.world.runFor(c.world.elapsedMs() + 3_000);
  const mined = await post(`{ transaction(hash: "${bytesToHex(tx.hash())}") { status block { number } } }`);
  t.is(mined.json.data.transaction.status, '0x1');
});

test.serial('parse error -> 400; validation error -> 400; bad JSON -> 400', async (t) => {
  const parseErr = await post('{ block { number ');
  t.is(parseErr.status, 400);
  t.deepEqual(parseErr.json.errors[0].extensions, { classification: 'InvalidSyntax' });
  const invalid = await post('{ block { nope } }');
  t.is(invalid.status, 400);
  t.is(invalid.json.errors[0].message, "Validation error (FieldUndefined@[block/nope]) : Field 'nope' in type 'Block' is undefined");
  t.false('data' in invalid.json);
  const badJson = await gql({ method: 'POST', contentType: 'application/json', body: '{' });
  t.is(badJson.status, 400);
});

test.serial('fetcher exceptions: "Exception while fetching data (<path>) : <message>", Besu GraphQLException codes', async (t) => {
  const missing = await post('{ block(number: 100000) { number } }');
  t.is(missing.status, 400);
  t.deepEqual(missing.json, {
    errors: [
      {
        message: 'Exception while fetching data (/block) : Block number 100000 was not found',
        locations: [{ line: 1, column: 3 }],
        path: ['block'],
        extensions: { classification: 'DataFetchingException' },
      },
    ],
    data: { block: null },
  });
  const unknownHash = await post(`{ block(hash: "0x${'12'.repeat(32)}") { number } }`);
  t.is(unknownHash.json.errors[0].message, `Exception while fetching data (/block) : Block hash 0x${'12'.repeat(32)} was not found`);
  const both = await post(`{ block(number: 1, hash: "${c.api.byNumber(1)!.hash}") { number } }`);
  t.deepEqual(both.json.errors[0].extensions, { errorCode: -32602, errorMessage: 'Invalid params', classification: 'DataFetchingException' });
  t.is(both.json.errors[0].message, 'Exception while fetching data (/block) : Invalid params');
  const range = await post('{ blocks(from: 3, to: 1) { number } }');
  t.is(range.status, 400);
  t.is(range.json.data, null);
  t.is(range.json.errors[0].message, 'Exception while fetching data (/blocks) : Invalid params');
});

test.serial('a null in a non-null field is graphql-java\'s NonNullableFieldWasNullError', (t) => {
  const schema = buildEthSchema();
  const e = new GraphQLError('Cannot return null for non-nullable field Account.address.', { path: ['block', 'account', 'address'] });
  t.deepEqual(executionError(schema, e), {
    message:
      "The field at path '/block/account/address' was declared as a non null type, but the code involved in retrieving data has wrongly returned a null value.  " +
      'The graphql specification requires that the parent field be set to null, or if that is non nullable that it bubble up null to its parent and so on. ' +
      "The non-nullable type is 'Address' within parent type 'Account'",
    path: ['block', 'account', 'address'],
    extensions: { classification: 'NullValueInNonNullableField' },
  });
});

test.serial('transaction fields as Besu answers them (gasPrice of a 1559 transaction is 0, v, raw encodings)', async (t) => {
  const q = (hash: string) => post(`{ transaction(hash: "${hash}") { type gasPrice maxFeePerGas effectiveGasPrice effectiveTip v yParity accessList { address } raw rawReceipt index } }`);
  const dynamic = (await q(c.txs.dynamic)).json.data.transaction;
  const mined = c.api.minedTransaction(c.txs.dynamic)!;
  const tx = mined.tx;
  t.is(dynamic.type, '0x2');
  t.is(dynamic.gasPrice, '0x0');
  t.is(dynamic.maxFeePerGas, '0x' + (100n * 1_000_000_000n).toString(16));
  t.is(dynamic.v, dynamic.yParity);
  t.deepEqual(dynamic.accessList, []);
  // typed transactions: an RLP byte string around type || payload
  t.is(dynamic.raw, bytesToHex(RLP.encode(tx.serialize())));
  const typedReceipt = RLP.decode(hexToBytes(dynamic.rawReceipt)) as Uint8Array;
  t.is(typedReceipt[0], 2);
  t.deepEqual((RLP.decode(typedReceipt.subarray(1)) as Uint8Array[])[0], Uint8Array.of(1));
  const legacy = (await q(c.txs.legacy)).json.data.transaction;
  t.is(legacy.type, '0x0');
  t.is(legacy.yParity, null);
  t.is(legacy.v, '0x' + c.api.minedTransaction(c.txs.legacy)!.tx.v!.toString(16));
  t.is(legacy.raw, bytesToHex(c.api.minedTransaction(c.txs.legacy)!.tx.serialize()));
  t.deepEqual(legacy.accessList, []);
  const fields = RLP.decode(hexToBytes(legacy.rawReceipt)) as Uint8Array[];
  t.deepEqual(fields[0], Uint8Array.of(1));
  t.is(fields[2].length, 256);
});

test.serial('block raw is the body, rawHeader the header; nextBaseFeePerGas null; withdrawals as the block has them', async (t) => {
  const { status, json } = await post('{ block(number: 2) { raw rawHeader nextBaseFeePerGas withdrawalsRoot withdrawals { index } blobGasUsed } }');
  t.is(status, 200, JSON.stringify(json));
  const block = c.api.byNumber(2)!.block;
  t.is(json.data.block.raw, bytesToHex(RLP.encode(block.raw().slice(1, block.withdrawals ? 4 : 3))));
  t.is(json.data.block.rawHeader, bytesToHex(block.header.serialize()));
  t.is(json.data.block.nextBaseFeePerGas, null);
  t.deepEqual(json.data.block.withdrawals, block.withdrawals ? block.withdrawals.map((w) => ({ index: '0x' + w.index.toString(16) })) : null);
  t.is(json.data.block.withdrawalsRoot, block.header.withdrawalsRoot ? bytesToHex(block.header.withdrawalsRoot) : null);
});

test.serial('estimateGas is one simulation\'s gas used (no search); a rejected call: status 0, gas + 1', async (t) => {
  const deploy = bytesToHex(storeInitCode());
  const from = BESU_TEST_ACCOUNTS[0].address;
  const { json } = await post(`{ block { call(data: { from: "${from}", data: "${deploy}" }) { status gasUsed } estimateGas(data: { from: "${from}", data: "${deploy}" }) } pending { estimateGas(data: {}) } }`);
  t.is(json.data.block.call.status, '0x1');
  t.is(json.data.block.estimateGas, json.data.block.call.gasUsed);
  t.is(json.data.pending.estimateGas, '0xcf08'); // an empty creation: 21000 + 32000
  const low = await post(`{ block { call(data: { from: "${from}", to: "${from}", gas: 100 }) { status gasUsed data } } }`);
  t.deepEqual(low.json.data.block.call, { status: '0x0', gasUsed: '0x65', data: '0x' });
});

test.serial('complexity above 200 is aborted before execution', async (t) => {
  const r = await post('{ block { transactions { block { transactions { block { number }}}}}}');
  t.is(r.status, 400);
  t.deepEqual(r.json, { errors: [{ message: 'maximum query complexity exceeded 204 > 200', extensions: { classification: 'ExecutionAborted' } }] });
});

test.serial('application/graphql body and GET ?query=', async (t) => {
  const raw = await gql({ method: 'POST', contentType: 'application/graphql', body: '{ chainID }' });
  t.is(raw.status, 200);
  t.deepEqual(JSON.parse(raw.body), { data: { chainID: '0x' + c.api.chainId.toString(16) } });
  const get = await gql({ method: 'GET', query: { query: '{ block(number: 0) { number } }' } });
  t.deepEqual(JSON.parse(get.body), { data: { block: { number: '0x0' } } });
});

test.serial('complexity limit', async (t) => {
  const small = createGraphqlHandler(c.api, { maxQueryComplexity: 3 });
  const ok = await small({ method: 'POST', contentType: 'application/graphql', body: '{ block { number hash } }' });
  t.is(ok.status, 200);
  const over = await small({ method: 'POST', contentType: 'application/graphql', body: '{ block { number hash parent { number } } }' });
  t.is(over.status, 400);
  t.regex(JSON.parse(over.body).errors[0].message, /complexity/);
});

test.serial('every field of the schema has a resolver', (t) => {
  const schema = buildEthSchema();
  const resolvers = buildResolvers(c.api);
  const missing: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !isObjectType(type)) continue;
    for (const field of Object.keys(type.getFields())) if (!resolvers[type.name]?.[field]) missing.push(`${type.name}.${field}`);
  }
  t.deepEqual(missing, []);
});

// ---- graphql-java's parser limits (Besu keeps ParserOptions' defaults) -------------------------

/** A handler over a NodeApi that records any use: a refused query must touch nothing. */
function untouchableHandler(): { handle: ReturnType<typeof createGraphqlHandler>; touched: string[] } {
  const touched: string[] = [];
  const api = new Proxy({} as NodeApi, {
    get: (_target, key) => {
      touched.push(String(key));
      throw new Error(`NodeApi.${String(key)} used`);
    },
  });
  return { handle: createGraphqlHandler(api), touched };
}

const cancelled = (what: string): string => `More than ${what} have been presented. To prevent Denial Of Service attacks, parsing has been cancelled.`;
const invalidSyntax = (message: string, line?: number, column?: number) => ({
  errors: [{ message, locations: line === undefined ? [] : [{ line, column }], extensions: { classification: 'InvalidSyntax' } }],
});

test.serial('20,000 aliases: refused 400 at the 15,001st token, quickly, nothing executed', async (t) => {
  const { handle, touched } = untouchableHandler();
  const aliases = Array.from({ length: 20_000 }, (_, i) => `a${i}: chainID`);
  const query = `{ ${aliases.join(' ')} }`;
  // Tokens: "{" then 3 per alias (name, ':', field); the 15,001st is the 5,000th alias's field.
  const column = query.indexOf('a4999: chainID') + 1 + 'a4999: '.length;
  const started = performance.now();
  const r = await handle({ method: 'POST', contentType: 'application/json', body: JSON.stringify({ query }) });
  const elapsedMs = performance.now() - started;
  t.is(r.status, 400);
  t.deepEqual(JSON.parse(r.body), invalidSyntax(cancelled("15,000 'grammar' tokens"), 1, column));
  t.deepEqual(touched, []);
  t.true(elapsedMs < 1000, `${elapsedMs} ms`);
});

test.serial('token limit boundary: EOF counts as graphql-java\'s 15,001st token', (t) => {
  // "{" + names + "}" + EOF
  const at = (names: number) => parseWithLimits(`{${' a'.repeat(names)} }`);
  t.is((at(14_997) as { kind?: string }).kind, 'Document');
  const over = at(14_998);
  t.deepEqual({ errors: [over] }, invalidSyntax(cancelled("15,000 'grammar' tokens"), 1, 2 + 2 * 14_998 + 2));
});

test.serial('characters, whitespace and comments limits', async (t) => {
  const { handle, touched } = untouchableHandler();
  const answer = async (query: string) => {
    const r = await handle({ method: 'POST', contentType: 'application/graphql', body: query });
    return { status: r.status, json: JSON.parse(r.body) };
  };
  const chars = await answer('{ chainID ' + '#'.repeat(MAX_QUERY_CHARACTERS) + '\n}');
  t.is(chars.status, 400);
  t.deepEqual(chars.json, invalidSyntax(cancelled('1,048,576 characters')));
  // Each space is one whitespace token: the one after "{" and 200,000 more; the 200,001st (the
  // run's last, column 10 + 199,999) is refused where it stands.
  t.deepEqual((await answer('{ chainID' + ' '.repeat(200_000) + '}')).json, invalidSyntax(cancelled("200,000 'whitespace' tokens"), 1, 10 + 199_999));
  // Just under it: parsed (and here refused by validation, for an unknown field).
  const under = await answer('{ unknownField' + ','.repeat(199_990) + '}');
  t.is(under.json.errors[0].extensions.classification, 'ValidationError');
  t.deepEqual((await answer('{ chainID\n' + '# c\n'.repeat(15_001) + '}')).json, invalidSyntax(cancelled("15,000 'comments' tokens"), 15_002, 1));
  t.deepEqual(touched, []);
});

test.serial('rules nested more than 500 deep: refused at the first rule past it (ANTLR rule depth)', (t) => {
  const deep = (n: number) => `{${'a{'.repeat(n)}b${'}'.repeat(n)}}`;
  // document 1, definition 2, operationDefinition 3, then per level: selectionSet, selection,
  // field (6 at the first level), name, baseName: the field 165 levels down is the 501st rule.
  t.is((parseWithLimits(deep(164)) as { kind?: string }).kind, 'Document');
  const tooDeep = invalidSyntax("More than 500 deep 'grammar' rules have been entered. To prevent Denial Of Service attacks, parsing has been cancelled.", 1, 2 + 2 * 165);
  t.deepEqual({ errors: [parseWithLimits(deep(165))] }, tooDeep);
  // Deeper than graphql-js could parse at all (it would run out of stack): the same answer.
  t.deepEqual({ errors: [parseWithLimits(deep(5000))] }, tooDeep);
  // Values: argument 8, valueWithVariable 9, then objectValue, objectField, name...: the name at
  // the 164th field is rule 501.
  const objects = `{a(x:${'{y:'.repeat(600)}1${'}'.repeat(600)})}`;
  t.deepEqual({ errors: [parseWithLimits(objects)] }, { errors: [{ ...tooDeep.errors[0]!, locations: [{ line: 1, column: 7 + 3 * 163 }] }] });
  // A syntax error before the limit is the answer.
  const early = parseWithLimits(`{ a ) ${'{'.repeat(600)}`) as { message: string };
  t.regex(early.message, /^Invalid syntax with offending token '\)' at line 1 column 5/);
});
