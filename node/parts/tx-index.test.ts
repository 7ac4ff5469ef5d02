import test from 'ava';
import type { TypedTransaction } from '@ethereumjs/tx';
import { hexToBytes, type Hex } from '../crypto/bytes.ts';
import type { Chain, ChainEntry } from '../chain/chain.ts';
import type { TxPool } from '../execution/tx-pool.ts';
import { TxIndex } from './tx-index.ts';

const tx = (n: number) => ({ hash: () => hexToBytes(`0x${n.toString(16).padStart(64, '0')}`) }) as unknown as TypedTransaction;
const hashOf = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex;

function entry(number: number, txs: number[]): ChainEntry {
  return { number, hash: `0x${'b'.repeat(62)}${number.toString(16).padStart(2, '0')}` as Hex, block: { transactions: txs.map(tx) } } as unknown as ChainEntry;
}

test('a reorg takes the transactions of removed blocks out of the index and puts those of added blocks in', (t) => {
  const index = new TxIndex();
  const a = entry(1, [1, 2]);
  const b = entry(1, [2, 0xab]);
  index.indexReorg({ removed: [], added: [a] });
  t.deepEqual(index.transactionLocation(hashOf(2)), { blockHash: a.hash, blockNumber: 1, index: 1 });
  index.indexReorg({ removed: [a], added: [b] });
  t.is(index.transactionLocation(hashOf(1)), undefined, 'only in the removed block');
  t.deepEqual(index.transactionLocation(hashOf(2)), { blockHash: b.hash, blockNumber: 1, index: 0 }, 'moved to the added block');
  t.deepEqual(index.transactionLocation(`0x${hashOf(0xab).slice(2).toUpperCase()}` as Hex), { blockHash: b.hash, blockNumber: 1, index: 1 }, 'looked up in any case');
});

test('the index is rebuilt from the stored canonical chain above its history', (t) => {
  const blocks = [entry(0, []), entry(1, [7]), entry(2, [8, 9])];
  const chain = { head: () => blocks[2], historyHeight: 0, canonicalAt: (n: number) => blocks[n] } as unknown as Chain;
  const index = new TxIndex();
  index.indexReorg({ removed: [], added: [entry(5, [42])] });
  index.rebuild(chain);
  t.is(index.transactionLocation(hashOf(42)), undefined, 'what was indexed before is gone');
  t.deepEqual(index.transactionLocation(hashOf(9)), { blockHash: blocks[2].hash, blockNumber: 2, index: 1 });
  t.is(index.transactionLocation(hashOf(7))?.blockNumber, 1);
});

test('pooled transactions: arrival time on the clock, remote until marked local, forgotten when dropped', (t) => {
  const listeners: Record<string, (tx: TypedTransaction) => void> = {};
  const pool = { options: { maxSize: 10 }, on: (event: string, l: (tx: TypedTransaction) => void) => (listeners[event] = l), get: () => undefined } as unknown as TxPool;
  let nowMs = 1_000;
  const index = new TxIndex();
  index.followPool(pool, { nowMs: () => nowMs });
  listeners.added(tx(1));
  nowMs = 2_000;
  listeners.added(tx(2));
  index.markLocal(hashOf(2));
  t.deepEqual(index.pooledTransactionMeta(hashOf(1)), { addedAtMs: 1_000, local: false });
  t.deepEqual(index.pooledTransactionMeta(hashOf(2)), { addedAtMs: 2_000, local: true });
  listeners.dropped(tx(1));
  t.is(index.pooledTransactionMeta(hashOf(1)), undefined);
});
