import test from 'ava';
import { bytesToHex } from '../../crypto/bytes.ts';
import { LOGGER_CONTRACT } from '../../../sim/genesis-builder.ts';
import { BESU_TEST_ACCOUNTS } from '../../../sim/keys.ts';
import { sign1559, startCluster, type Cluster } from '../methods/test-kit.ts';
import { createGraphqlHandler } from './handler.ts';

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

test.serial('parse error -> 400; validation error -> 400; unsupported field -> error', async (t) => {
  const parseErr = await post('{ block { number ');
  t.is(parseErr.status, 400);
  t.truthy(parseErr.json.errors[0].message);
  const invalid = await post('{ block { nope } }');
  t.is(invalid.status, 400);
  const unsupported = await post('{ block { raw } }');
  t.is(unsupported.status, 400);
  t.regex(unsupported.json.errors[0].message, /not supported/);
  const badJson = await gql({ method: 'POST', contentType: 'application/json', body: '{' });
  t.is(badJson.status, 400);
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
