import test from 'ava';
import { createBlock, type Block } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import { bytesToHex, hexToBytes, type Hex } from '../crypto/bytes.ts';
import { blockFromWire, blockToWire, bodyMatchesHeader, bodyToWire, headerFromWire } from './eth-blocks.ts';
import { decodeEthMessage, encodeEthMessage, EthCode, EthLimits, type EthMessage, toWireMessage } from './eth-messages.ts';
import { WireFormatError } from './rlp-shape.ts';
import { common, genesis, makeBlock } from './sync-test-kit.ts';

const key = hexToBytes('0x' + '42'.repeat(32));
const legacyTx = createLegacyTx({ nonce: 1n, gasPrice: 10n, gasLimit: 21000n, to: `0x${'11'.repeat(20)}`, value: 5n }, { common }).sign(key);
const typedTx = createFeeMarket1559Tx(
  { chainId: 1n, nonce: 2n, maxFeePerGas: 10n, maxPriorityFeePerGas: 1n, gasLimit: 21000n, to: `0x${'22'.repeat(20)}`, value: 7n },
  { common },
).sign(key);

async function blockWithTxs(): Promise<Block> {
  const draft = makeBlock(genesis, 'txs');
  const withTxs = createBlock({ header: draft.header, transactions: [legacyTx, typedTx] }, { common, skipConsensusFormatValidation: true });
  const root = await withTxs.genTxTrie();
  return createBlock(
    { header: { ...draft.header.toJSON(), transactionsTrie: root }, transactions: [legacyTx, typedTx] },
    { common, skipConsensusFormatValidation: true },
  );
}

const h = (b: number): Hex => bytesToHex(new Uint8Array(32).fill(b));

function roundTrip(t: import('ava').ExecutionContext, m: EthMessage) {
  const data = encodeEthMessage(m);
  const back = decodeEthMessage(m.code, data);
  t.deepEqual(back, m);
  t.deepEqual(encodeEthMessage(back), data);
  t.deepEqual(toWireMessage(m), { protocol: 'eth', code: m.code, data });
}

test('every eth/68 message round-trips', async (t) => {
  const block = await blockWithTxs();
  const wire = blockToWire(block);
  roundTrip(t, {
    code: EthCode.Status,
    version: 68,
    networkId: 1337n,
    td: 12345n,
    bestHash: h(1),
    genesisHash: h(2),
    forkId: { hash: Uint8Array.of(1, 2, 3, 4), next: 0n },
  });
  roundTrip(t, { code: EthCode.NewBlockHashes, entries: [{ hash: h(3), number: 0 }, { hash: h(4), number: 99 }] });
  roundTrip(t, { code: EthCode.Transactions, txs: [legacyTx.serialize(), typedTx.serialize()] });
  roundTrip(t, { code: EthCode.Transactions, txs: [] });
  roundTrip(t, { code: EthCode.GetBlockHeaders, requestId: 7n, origin: { number: 0 }, amount: 128, skip: 0, reverse: false });
  roundTrip(t, { code: EthCode.GetBlockHeaders, requestId: 2n ** 64n - 1n, origin: { hash: h(5) }, amount: 1, skip: 3, reverse: true });
  roundTrip(t, { code: EthCode.BlockHeaders, requestId: 8n, headers: [wire.header, genesis.header.raw()] });
  roundTrip(t, { code: EthCode.GetBlockBodies, requestId: 9n, hashes: [h(6), h(7)] });
  roundTrip(t, { code: EthCode.BlockBodies, requestId: 10n, bodies: [bodyToWire(block), bodyToWire(genesis)] });
  roundTrip(t, {
    code: EthCode.BlockBodies,
    requestId: 11n,
    bodies: [{ transactions: [], ommers: [], withdrawals: [[Uint8Array.of(1), Uint8Array.of(2), new Uint8Array(20).fill(3), Uint8Array.of(4)]] }],
  });
  roundTrip(t, { code: EthCode.NewBlock, block: wire, td: 2n });
  roundTrip(t, { code: EthCode.NewPooledTransactionHashes, types: Uint8Array.of(0, 2), sizes: [110, 120], hashes: [h(8), h(9)] });
  roundTrip(t, { code: EthCode.GetPooledTransactions, requestId: 12n, hashes: [h(10)] });
  roundTrip(t, { code: EthCode.PooledTransactions, requestId: 13n, txs: [typedTx.serialize(), legacyTx.serialize()] });
});

test('the wire layout is the eth/68 one', (t) => {
  // Transactions: legacy as an RLP list, typed as a byte string.
  const data = encodeEthMessage({ code: EthCode.Transactions, txs: [legacyTx.serialize(), typedTx.serialize()] });
  const items = RLP.decode(data) as unknown[];
  t.true(Array.isArray(items[0]));
  t.true(items[1] instanceof Uint8Array);
  t.deepEqual(items[1], typedTx.serialize());
  // GetBlockHeaders: [requestId, [origin, amount, skip, reverse]]
  t.deepEqual(
    encodeEthMessage({ code: EthCode.GetBlockHeaders, requestId: 1n, origin: { number: 5 }, amount: 2, skip: 0, reverse: true }),
    RLP.encode([1, [5, 2, 0, 1]]),
  );
  // Status carries [version, networkId, td, bestHash, genesisHash, [forkHash, forkNext]].
  const status = RLP.decode(
    encodeEthMessage({ code: EthCode.Status, version: 68, networkId: 1n, td: 1n, bestHash: h(1), genesisHash: h(1), forkId: { hash: Uint8Array.of(0xfc, 0x64, 0xec, 0x04), next: 1150000n } }),
  ) as unknown[];
  t.is(status.length, 6);
  t.deepEqual(status[0], Uint8Array.of(68));
});

test('a block survives header + body -> wire -> Block, and the body must match the header', async (t) => {
  const block = await blockWithTxs();
  const wire = blockToWire(block);
  const back = blockFromWire(wire.header, wire, common);
  t.deepEqual(back.serialize(), block.serialize());
  t.true(await bodyMatchesHeader(back));
  t.deepEqual(headerFromWire(wire.header, common).serialize(), block.header.serialize());
  const swapped = blockFromWire(wire.header, { transactions: [wire.transactions[0]], ommers: [] }, common);
  t.false(await bodyMatchesHeader(swapped));
});

function rejects(t: import('ava').ExecutionContext, code: number, data: Uint8Array, pattern: RegExp) {
  const err = t.throws(() => decodeEthMessage(code, data), { instanceOf: WireFormatError });
  t.regex(err?.message ?? '', pattern);
}

test('malformed messages are rejected with a clear error', (t) => {
  const statusFields = [68, 1, 1, hexToBytes(h(1)), hexToBytes(h(2)), [Uint8Array.of(1, 2, 3, 4), 0]];
  rejects(t, EthCode.Status, new Uint8Array(0), /empty payload/);
  rejects(t, EthCode.Status, Uint8Array.of(0xc1), /invalid RLP/);
  rejects(t, EthCode.Status, RLP.encode(statusFields.slice(0, 5)), /Status: expected 6 items, got 5/);
  rejects(t, EthCode.Status, RLP.encode([...statusFields.slice(0, 3), new Uint8Array(31), ...statusFields.slice(4)]), /bestHash: expected 32 bytes/);
  rejects(t, EthCode.Status, RLP.encode([...statusFields.slice(0, 5), [Uint8Array.of(1, 2, 3), 0]]), /forkId.hash: expected 4 bytes/);
  rejects(t, EthCode.Status, RLP.encode([68, Uint8Array.of(0, 1), ...statusFields.slice(2)]), /networkId: integer with a leading zero/);
  rejects(t, EthCode.Status, RLP.encode([[68], ...statusFields.slice(1)]), /version: expected a byte string/);
  const okStatus = RLP.encode(statusFields);
  rejects(t, EthCode.Status, Uint8Array.from([...okStatus, 0x80]), /invalid RLP/);
  rejects(t, EthCode.NewBlockHashes, RLP.encode([[hexToBytes(h(1))]]), /NewBlockHashes\[0\]: expected 2 items/);
  rejects(t, EthCode.GetBlockHeaders, RLP.encode([1, [new Uint8Array(20), 1, 0, 0]]), /origin: expected a 32-byte hash or a number/);
  rejects(t, EthCode.GetBlockHeaders, RLP.encode([1, [5, 1, 0, 2]]), /reverse: expected 0 or 1/);
  rejects(t, EthCode.GetBlockHeaders, RLP.encode([new Uint8Array(9).fill(1), [5, 1, 0, 0]]), /requestId: integer wider than 8 bytes/);
  rejects(t, EthCode.GetBlockHeaders, RLP.encode([1, [5, 1, 0]]), /query: expected 4 items/);
  rejects(t, EthCode.BlockHeaders, RLP.encode([1, [[Uint8Array.of(1), Uint8Array.of(2)]]]), /headers\[0\]: expected 15\.\.24 items, got 2/);
  rejects(t, EthCode.BlockHeaders, RLP.encode([1, [[...genesis.header.raw().slice(0, 14), [Uint8Array.of(1)]]]]), /headers\[0\]\[14\]: expected a byte string/);
  const tooMany = Array.from({ length: EthLimits.maxHeaders + 1 }, () => genesis.header.raw());
  rejects(t, EthCode.BlockHeaders, RLP.encode([1, tooMany]), /expected 0\.\.1024 items, got 1025/);
  rejects(t, EthCode.GetBlockBodies, RLP.encode([1, [new Uint8Array(31)]]), /hashes\[0\]: expected 32 bytes/);
  rejects(t, EthCode.BlockBodies, RLP.encode([1, [[[], [], [], []]]]), /bodies\[0\]: expected 2\.\.3 items, got 4/);
  rejects(t, EthCode.BlockBodies, RLP.encode([1, [[[legacyTx.raw().slice(0, 8)], []]]]), /transactions\[0\] \(legacy\): expected 9 items/);
  rejects(t, EthCode.BlockBodies, RLP.encode([1, [[[Uint8Array.of(0x85, 0xc0)], []]]]), /invalid transaction type 0x85/);
  rejects(t, EthCode.BlockBodies, RLP.encode([1, [[[], [], [[Uint8Array.of(1)]]]]]), /withdrawals\[0\]: expected 4 items/);
  rejects(t, EthCode.Transactions, RLP.encode([Uint8Array.of(0x02)]), /typed transaction too short/);
  rejects(t, EthCode.Transactions, RLP.encode([Uint8Array.of(0x02, 0x05)]), /payload is not an RLP list/);
  rejects(t, EthCode.Transactions, RLP.encode(Uint8Array.of(1, 2)), /expected a list/);
  rejects(t, EthCode.NewBlock, RLP.encode([[genesis.header.raw(), []], 1]), /NewBlock.block: expected 3\.\.4 items, got 2/);
  rejects(t, EthCode.NewBlock, RLP.encode([[genesis.header.raw(), [], []]]), /NewBlock: expected 2 items, got 1/);
  rejects(t, EthCode.NewPooledTransactionHashes, RLP.encode([Uint8Array.of(2, 2), [100], [hexToBytes(h(1)), hexToBytes(h(2))]]), /differ in length/);
  rejects(t, EthCode.GetPooledTransactions, RLP.encode([1, hexToBytes(h(1))]), /hashes: expected a list/);
  rejects(t, EthCode.PooledTransactions, RLP.encode([1, [[1, 2]]]), /txs\[0\] \(legacy\): expected 9 items/);
  rejects(t, 0x0b, RLP.encode([]), /unknown eth message code 0xb/);
  rejects(t, EthCode.Transactions, new Uint8Array(EthLimits.maxMessageBytes + 1), /exceeds the limit/);
});

test('encoding refuses what it could not decode', (t) => {
  t.throws(() => encodeEthMessage({ code: EthCode.GetBlockBodies, requestId: 1n, hashes: ['0x1234'] }), { message: /32-byte hash/ });
  t.throws(() => encodeEthMessage({ code: EthCode.Transactions, txs: [Uint8Array.of(0x80)] }), { message: /not a legacy or typed/ });
  t.throws(
    () => encodeEthMessage({ code: EthCode.NewPooledTransactionHashes, types: Uint8Array.of(2), sizes: [], hashes: [h(1)] }),
    { message: /differ in length/ },
  );
  t.throws(() => encodeEthMessage({ code: EthCode.GetBlockBodies, requestId: 1n, hashes: Array(EthLimits.maxHashes + 1).fill(h(1)) }), {
    message: /exceeds the limit/,
  });
});
