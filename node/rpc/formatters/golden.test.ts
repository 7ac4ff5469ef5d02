/**
 * Golden tests: Besu's own spec cases (test/vectors/besu-spec/eth, request/response pairs
 * from hyperledger/besu's ethereum/api tests) reproduced by the formatters on Besu's test chain
 * (blocks 0..33 of testBlockchain.blocks; block 34 carries a blob transaction, which needs KZG).
 * Chain entries are built by hand: this chain is proof-of-work, so its hashes are ethereumjs'.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { RLP } from '@ethereumjs/rlp';
import { createBlockFromBytesArray, type Block } from '@ethereumjs/block';
import { parseGenesis } from '../../chain/genesis.ts';
import { createCommonFromGenesis } from '../../chain/common.ts';
import type { ChainEntry } from '../../chain/chain.ts';
import { bytesToHex, type Hex } from '../../crypto/bytes.ts';
import { formatBlock } from './block.ts';
import { formatTransactionComplete } from './transaction.ts';

const VECTORS = new URL('../../../test/vectors/besu-spec/', import.meta.url);

function loadChain(): ChainEntry[] {
  const genesis = parseGenesis(readFileSync(new URL('chain/testGenesis.json', VECTORS), 'utf8'));
  const common = createCommonFromGenesis(genesis);
  let buf: Uint8Array = Uint8Array.from(readFileSync(new URL('chain/testBlockchain.blocks', VECTORS)));
  const entries: ChainEntry[] = [];
  let td = 0n;
  while (buf.length > 0 && entries.length < 34) {
    const { data, remainder } = RLP.decode(buf, true) as unknown as { data: Uint8Array[][]; remainder: Uint8Array };
    buf = remainder;
    const block: Block = createBlockFromBytesArray(data as never, { common, setHardfork: true, skipConsensusFormatValidation: true } as never);
    td += block.header.difficulty;
    entries.push({
      hash: bytesToHex(block.hash()),
      number: Number(block.header.number),
      parentHash: bytesToHex(block.header.parentHash),
      td,
      timestamp: Number(block.header.timestamp),
      coinbase: block.header.coinbase.toString() as Hex,
      block,
      extra: undefined as never,
    });
  }
  return entries;
}

const chain = loadChain();

function vector(name: string): { request: { params: unknown[] }; response: { result: unknown } } {
  return JSON.parse(readFileSync(new URL(`eth/${name}.json`, VECTORS), 'utf8'));
}

function json(x: unknown): unknown {
  return JSON.parse(JSON.stringify(x));
}

function byHash(hash: string): ChainEntry | undefined {
  return chain.find((e) => e.hash === hash.toLowerCase());
}

function txByHash(hash: string) {
  for (const e of chain)
    for (const [i, tx] of e.block.transactions.entries())
      if (bytesToHex(tx.hash()) === hash.toLowerCase())
        return formatTransactionComplete(tx, { blockHash: e.hash, blockNumber: e.number, blockTimestamp: e.timestamp, baseFee: e.block.header.baseFeePerGas, index: i });
  return null;
}

test('the test chain loads with Besu hashes', (t) => {
  t.is(chain[0].hash, '0xf8f01382f5636d02edac7fff679a6feb7a572d37a395daaab77938feb6fe217f');
  t.is(chain[32].hash, '0x71d59849ddd98543bdfbe8548f5eed559b07b8aaf196369f39134500eab68e53');
});

for (const name of ['eth_getBlockByNumber_complete', 'eth_getBlockByNumber_hashes', 'eth_getBlockByNumber_complete_shanghai']) {
  test(`BlockResult: ${name}`, (t) => {
    const v = vector(name);
    const [num, full] = v.request.params as [string, boolean];
    const got = formatBlock(chain[Number(num)], full);
    t.deepEqual(json(got), v.response.result);
    // property order as Besu writes it
    t.deepEqual(Object.keys(got), Object.keys(v.response.result as object));
  });
}

for (const name of ['eth_getTransactionByBlockHashAndIndex_00', 'eth_getTransactionByBlockHashAndIndex_01', 'eth_getTransactionByBlockHashAndIndex_02']) {
  test(`TransactionCompleteResult: ${name}`, (t) => {
    const v = vector(name);
    const [hash, index] = v.request.params as [string, string];
    const e = byHash(hash);
    const tx = e?.block.transactions[Number(index)];
    const got = e && tx ? formatTransactionComplete(tx, { blockHash: e.hash, blockNumber: e.number, blockTimestamp: e.timestamp, baseFee: e.block.header.baseFeePerGas, index: Number(index) }) : null;
    t.deepEqual(json(got), v.response.result);
  });
}

for (const name of ['eth_getTransactionByHash_contractCreation', 'eth_getTransactionByHash_addressReceiver', 'eth_getTransactionByBlockNumberAndIndex_00', 'eth_getTransactionByBlockNumberAndIndex_01']) {
  test(`TransactionCompleteResult: ${name}`, (t) => {
    const v = vector(name);
    const p = v.request.params as string[];
    const got = p.length === 1 ? txByHash(p[0]) : (() => {
      const e = chain[Number(p[0])];
      const tx = e?.block.transactions[Number(p[1])];
      return e && tx ? formatTransactionComplete(tx, { blockHash: e.hash, blockNumber: e.number, blockTimestamp: e.timestamp, baseFee: e.block.header.baseFeePerGas, index: Number(p[1]) }) : null;
    })();
    t.deepEqual(json(got), v.response.result);
    if (got) t.deepEqual(Object.keys(got), Object.keys(v.response.result as object));
  });
}
