/**
 * Besu's JSON-RPC (210) and GraphQL (61) spec cases on the spec chain, imported with
 * `blocks import` (Frontier through Cancun, ommers, a withdrawal and a blob transaction, every
 * state root checked). Pass counts and every failure's reason are printed; the floors below only
 * ever go up.
 */
import test from 'ava';
import { createNodeRpc } from '../node/rpc/node-rpc.ts';
import { formatResults, runEthCases, runGraphqlCases, startSpecNode } from './conformance/besu-spec.ts';

const ETH_FLOOR = 200;
const GRAPHQL_FLOOR = 57;

test('Besu JSON-RPC spec cases pass on the imported spec chain', async (t) => {
  const live = await startSpecNode();
  try {
    t.is(live.node.head().number, 34);
    t.is(live.node.head().hash, '0x4859ea10d276f6df988eabd48a02e0696cfd3deb769d2a5e0e416a5f3191028a');
    const eth = await runEthCases(live.servers.httpPort!);
    t.log(formatResults(eth));
    t.is(eth.length, 210);
    t.true(eth.filter((r) => r.pass).length >= ETH_FLOOR);
  } finally {
    await live.close();
  }
});

test('Besu GraphQL spec cases pass on the imported spec chain', async (t) => {
  const live = await startSpecNode();
  try {
    const graphql = await runGraphqlCases(live.graphqlPort!);
    t.log(formatResults(graphql));
    t.is(graphql.length, 61);
    t.true(graphql.filter((r) => r.pass).length >= GRAPHQL_FLOOR);
  } finally {
    await live.close();
  }
});

test('a node on a chain without a BFT section runs no consensus and registers no qbft_ method', async (t) => {
  const live = await startSpecNode();
  const rpc = createNodeRpc(live.node);
  try {
    t.false(live.node.bft);
    t.is((live.node as { qbft?: unknown }).qbft, undefined);
    const names = rpc.methods.map((m) => m.name);
    t.true(names.includes('eth_blockNumber'));
    t.false(names.some((n) => n.startsWith('qbft_')));
  } finally {
    rpc.close();
    await live.close();
  }
});
