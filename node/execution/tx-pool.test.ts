import test from 'ava';
import { createFeeMarket1559Tx, createLegacyTx, createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import { Mainnet, createCustomCommon, type Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, concatBytes, hexToBytes, type Hex } from '../crypto/bytes.ts';
import { privateKeyToAddress } from '../crypto/secp256k1.ts';
import { customCrypto } from '../crypto/ethereumjs-crypto.ts';
import { TX_POOL_RPC_ERRORS, TxPool, shouldReplace, type PoolAccount, type TxPoolOptions } from './tx-pool.ts';
import { CHAIN_ID, recipient, testKey } from './test-fixtures.ts';

const common = createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet, { hardfork: 'shanghai', customCrypto });
const GWEI = 1_000_000_000n;
const keys = [1, 2, 3, 4, 5].map((i) => testKey(i));
const addr = (k: Uint8Array) => privateKeyToAddress(k);

function eip1559(key: Uint8Array, nonce: bigint, maxFee: bigint, tip: bigint, c: Common = common, gasLimit = 21_000n): TypedTransaction {
  return createFeeMarket1559Tx(
    { chainId: c.chainId(), nonce, to: recipient(Number(nonce % 50n)), value: 1n, gasLimit, maxFeePerGas: maxFee, maxPriorityFeePerGas: tip },
    { common: c },
  ).sign(key);
}

function legacy(key: Uint8Array, nonce: bigint, gasPrice: bigint, c: Common = common): TypedTransaction {
  return createLegacyTx({ nonce, to: recipient(1), value: 1n, gasLimit: 21_000n, gasPrice }, { common: c }).sign(key);
}

function makePool(opts: Partial<TxPoolOptions> = {}, accounts = new Map<Hex, PoolAccount>(), baseFeeOrNull: bigint | null = GWEI) {
  const baseFee = baseFeeOrNull ?? undefined;
  const pool = new TxPool(opts, {
    getAccount: async (a) => accounts.get(a) ?? { nonce: 0n, balance: 10n ** 20n },
    chainId: CHAIN_ID,
    baseFee: () => baseFee,
    common,
    blockGasLimit: () => 30_000_000n,
  });
  const events: string[] = [];
  pool.on('added', (tx) => events.push(`added ${tx.nonce}`));
  pool.on('dropped', (tx, reason) => events.push(`dropped ${tx.nonce} ${reason}`));
  return { pool, events, accounts };
}

test('defaults are Besu’s', (t) => {
  const { pool } = makePool();
  t.deepEqual(pool.options, { maxSize: 4096, maxPerSender: 200, priceBumpPercent: 10, minGasPrice: 1000n, balanceCheck: false });
  t.is(TX_POOL_RPC_ERRORS.NONCE_TOO_LOW.code, -32001);
});

test('add: raw and object, duplicates, chain id, signature, price, nonce, intrinsic gas, block gas limit', async (t) => {
  const { pool, accounts } = makePool();
  const tx = eip1559(keys[0], 0n, 2n * GWEI, GWEI);
  const r = await pool.add(tx.serialize());
  t.deepEqual(r, { ok: true, hash: bytesToHex(tx.hash()) });
  t.like(await pool.add(tx), { ok: false, error: 'TRANSACTION_ALREADY_KNOWN' });
  // wrong chain, raw and object, typed and legacy
  const other = createCustomCommon({ chainId: 999 }, Mainnet, { hardfork: 'shanghai' });
  t.like(await pool.add(eip1559(keys[0], 1n, 2n * GWEI, GWEI, other).serialize()), { ok: false, error: 'WRONG_CHAIN_ID' });
  t.like(await pool.add(eip1559(keys[0], 1n, 2n * GWEI, GWEI, other)), { ok: false, error: 'WRONG_CHAIN_ID' });
  t.like(await pool.add(legacy(keys[0], 1n, 2n * GWEI, other).serialize()), { ok: false, error: 'WRONG_CHAIN_ID' });
  // garbage, bad signature
  t.like(await pool.add(new Uint8Array([1, 2, 3])), { ok: false, error: 'INVALID_TRANSACTION_FORMAT' });
  // high-s signature (malleated): refused as Besu refuses it
  const good = eip1559(keys[0], 1n, 2n * GWEI, GWEI);
  const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const fields = good.raw() as Uint8Array[];
  fields[9] = good.v === 0n ? Uint8Array.of(1) : new Uint8Array(0);
  fields[11] = hexToBytes((N - good.s!).toString(16));
  const malleated = concatBytes(Uint8Array.of(2), RLP.encode(fields));
  t.like(await pool.add(malleated), { ok: false, error: 'INVALID_SIGNATURE' });
  const unsigned = createFeeMarket1559Tx({ chainId: CHAIN_ID, nonce: 1n, gasLimit: 21_000n, maxFeePerGas: GWEI, maxPriorityFeePerGas: 1n }, { common });
  t.like(await pool.add(unsigned), { ok: false, error: 'INVALID_SIGNATURE' });
  // remote below --min-gas-price; a local transaction only needs the floor
  t.like(await pool.add(legacy(keys[1], 0n, 999n)), { ok: false, error: 'GAS_PRICE_TOO_LOW' });
  t.like(await pool.add(legacy(keys[1], 0n, 999n), { local: true }), { ok: true });
  t.like(await pool.add(legacy(keys[1], 1n, 6n), { local: true }), { ok: false, error: 'GAS_PRICE_TOO_LOW' });
  // nonce too low, too far
  accounts.set(addr(keys[2]), { nonce: 5n, balance: 10n ** 20n });
  t.like(await pool.add(eip1559(keys[2], 4n, 2n * GWEI, GWEI)), { ok: false, error: 'NONCE_TOO_LOW' });
  t.like(await pool.add(eip1559(keys[2], 205n, 2n * GWEI, GWEI)), { ok: false, error: 'NONCE_TOO_FAR_IN_FUTURE_FOR_SENDER' });
  t.like(await pool.add(eip1559(keys[2], 204n, 2n * GWEI, GWEI)), { ok: true });
  // intrinsic gas, block gas limit
  t.like(await pool.add(eip1559(keys[3], 0n, 2n * GWEI, GWEI, common, 20_000n)), { ok: false, error: 'INTRINSIC_GAS_EXCEEDS_GAS_LIMIT' });
  t.like(await pool.add(eip1559(keys[3], 0n, 2n * GWEI, GWEI, common, 30_000_001n)), { ok: false, error: 'EXCEEDS_BLOCK_GAS_LIMIT' });
  t.is(pool.size(), 3);
});

test('balance: admitted by default (Besu), rejected with balanceCheck', async (t) => {
  const accounts = new Map<Hex, PoolAccount>([[addr(keys[0]), { nonce: 0n, balance: 1000n }]]);
  const loose = makePool({}, accounts);
  t.like(await loose.pool.add(eip1559(keys[0], 0n, 2n * GWEI, GWEI)), { ok: true });
  const strict = makePool({ balanceCheck: true }, accounts);
  t.like(await strict.pool.add(eip1559(keys[0], 0n, 2n * GWEI, GWEI)), { ok: false, error: 'UPFRONT_COST_EXCEEDS_BALANCE' });
});

test('replacement: underpriced below a 10% bump, replaced at 10%, legacy and 1559 rules', async (t) => {
  const { pool, events } = makePool();
  const a = eip1559(keys[0], 0n, 100n * GWEI, 10n * GWEI);
  await pool.add(a);
  // +9%: underpriced
  t.like(await pool.add(eip1559(keys[0], 0n, 109n * GWEI, 10n * GWEI + 9n * GWEI / 10n)), { ok: false, error: 'TRANSACTION_REPLACEMENT_UNDERPRICED' });
  // fee cap bumped but tip not: effective price at base fee 1 gwei is 1 + 10 in both: equal price, tip not bumped
  t.like(await pool.add(eip1559(keys[0], 0n, 200n * GWEI, 10n * GWEI)), { ok: false, error: 'TRANSACTION_REPLACEMENT_UNDERPRICED' });
  // +10% on both: replaced
  // +10% on both caps is not enough: at base fee 1 gwei the effective price goes 11 -> 12 gwei (+9%)
  t.like(await pool.add(eip1559(keys[0], 0n, 110n * GWEI, 11n * GWEI)), { ok: false, error: 'TRANSACTION_REPLACEMENT_UNDERPRICED' });
  // effective price 11 -> 13 (+18%) and tip 10 -> 12: replaced
  const b = eip1559(keys[0], 0n, 110n * GWEI, 12n * GWEI);
  t.like(await pool.add(b), { ok: true });
  t.is(pool.size(), 1);
  t.is(pool.get(bytesToHex(b.hash())), b);
  t.is(pool.get(a.hash()), undefined);
  t.deepEqual(events, ['added 0', 'dropped 0 REPLACED', 'added 0']);
  // legacy: threshold = floor(old * 110 / 100)
  const { pool: p2 } = makePool({}, new Map(), null);
  await p2.add(legacy(keys[1], 0n, 1000n));
  t.like(await p2.add(legacy(keys[1], 0n, 1099n)), { ok: false, error: 'TRANSACTION_REPLACEMENT_UNDERPRICED' });
  t.like(await p2.add(legacy(keys[1], 0n, 1100n)), { ok: true });
  // unit: Besu's fee-market rule
  t.true(shouldReplace(eip1559(keys[0], 0n, 100n, 10n), eip1559(keys[0], 0n, 110n, 11n), 0n, 10));
  t.false(shouldReplace(eip1559(keys[0], 0n, 100n, 10n), eip1559(keys[0], 0n, 110n, 11n), 1n, 10));
  t.false(shouldReplace(eip1559(keys[0], 0n, 100n, 10n), eip1559(keys[0], 0n, 110n, 10n), 1n, 10));
});

test('selectForBlock: nonce order per sender, priority fee across senders, arrival for ties, gaps wait', async (t) => {
  const { pool } = makePool();
  const A = keys[0], B = keys[1], C = keys[2];
  // A: nonces 0,1,2 at tip 1 gwei; B: 0 at tip 5 gwei, 1 at tip 0.5; C: 0 and 2 (gap) at tip 3
  await pool.add(eip1559(A, 2n, 10n * GWEI, GWEI));
  await pool.add(eip1559(A, 0n, 10n * GWEI, GWEI));
  await pool.add(eip1559(A, 1n, 10n * GWEI, GWEI));
  await pool.add(eip1559(B, 1n, 10n * GWEI, GWEI / 2n));
  await pool.add(eip1559(B, 0n, 10n * GWEI, 5n * GWEI));
  await pool.add(eip1559(C, 0n, 10n * GWEI, 3n * GWEI));
  await pool.add(eip1559(C, 2n, 10n * GWEI, 3n * GWEI));
  const nonces = new Map<Hex, bigint>();
  const picked = pool.selectForBlock(GWEI, 30_000_000n, (s) => nonces.get(s) ?? 0n);
  const label = (tx: TypedTransaction) => {
    const s = tx.getSenderAddress().toString();
    return `${s === addr(A) ? 'A' : s === addr(B) ? 'B' : 'C'}${tx.nonce}`;
  };
  t.deepEqual(picked.map(label), ['B0', 'C0', 'A0', 'A1', 'A2', 'B1']);
  // gas bound: room for two transfers only
  t.deepEqual(pool.selectForBlock(GWEI, 50_000n, () => 0n).map(label), ['B0', 'C0']);
  // a base fee above A's cap: A is skipped entirely
  await pool.add(eip1559(keys[3], 0n, 2n * GWEI, 2n * GWEI));
  const high = pool.selectForBlock(3n * GWEI, 30_000_000n, () => 0n);
  t.is(high.length, 6); // keys[3]'s tx (cap 2 gwei) cannot pay a 3 gwei base fee
  t.false(high.some((tx) => tx.getSenderAddress().toString() === addr(keys[3])));
  // pending nonce: contiguous from the account nonce
  t.is(pool.pendingNonce(addr(A)), 3n);
  t.is(pool.pendingNonce(addr(C)), 1n);
  t.is(pool.pendingNonce(addr(C), 1n), 1n);
});

test('onBlockImported removes included and stale transactions; readd after a reorg', async (t) => {
  const { pool, events, accounts } = makePool();
  const txs = [0n, 1n, 2n, 3n].map((n) => eip1559(keys[0], n, 10n * GWEI, GWEI));
  for (const tx of txs) await pool.add(tx);
  const other = eip1559(keys[1], 0n, 10n * GWEI, GWEI);
  await pool.add(other);
  events.length = 0;
  // block included A0 and A1 (A2 was replaced on chain by another tx with nonce 2: account nonce 3)
  pool.onBlockImported([txs[0].hash(), bytesToHex(txs[1].hash())], [[addr(keys[0]), 3n]]);
  t.deepEqual(events, ['dropped 2 NONCE_TOO_LOW']);
  t.is(pool.size(), 2);
  t.deepEqual(pool.pending(), [txs[3], other]);
  t.is(pool.pendingNonce(addr(keys[0])), 4n);
  // reorg: the block is undone, its transactions come back (account nonce back to 0)
  accounts.set(addr(keys[0]), { nonce: 0n, balance: 10n ** 20n });
  const res = await pool.readd([txs[0], txs[1]]);
  t.true(res.every((r) => r.ok));
  t.is(pool.size(), 4);
  t.deepEqual(pool.selectForBlock(GWEI, 30_000_000n, () => 0n).length, 3); // A0, A1, B0 (A3 waits for A2)
});

test('senderOf and shareSenders: another object of a pooled transaction gets its sender without a second recovery', async (t) => {
  const { pool } = makePool();
  const pooled = eip1559(keys[0], 0n, 2n * GWEI, GWEI);
  const stranger = eip1559(keys[1], 0n, 2n * GWEI, GWEI);
  const sender = (k: Uint8Array) => addr(k).toLowerCase() as Hex;
  t.like(await pool.add(pooled.serialize()), { ok: true });
  t.is(pool.senderOf(pooled.hash()), sender(keys[0]));
  t.is(pool.senderOf(`0x${bytesToHex(pooled.hash()).slice(2).toUpperCase()}`), sender(keys[0]));
  t.is(pool.senderOf(stranger.hash()), undefined);
  // The same transactions decoded again (as a block from the wire is), counting recoveries.
  let recoveries = 0;
  const counting = createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet, {
    hardfork: 'shanghai',
    customCrypto: { ...customCrypto, ecrecover: (...args: Parameters<NonNullable<typeof customCrypto.ecrecover>>) => (recoveries++, customCrypto.ecrecover!(...args)) },
  });
  const copy = createTxFromRLP(pooled.serialize(), { common: counting });
  const strangerCopy = createTxFromRLP(stranger.serialize(), { common: counting });
  const unfrozen = createTxFromRLP(pooled.serialize(), { common: counting, freeze: false });
  const unsigned = createFeeMarket1559Tx({ chainId: CHAIN_ID, nonce: 0n, gasLimit: 21_000n, maxFeePerGas: GWEI, maxPriorityFeePerGas: 1n }, { common: counting });
  pool.shareSenders([copy, strangerCopy, unfrozen, unsigned]);
  t.is(copy.getSenderAddress().toString(), sender(keys[0]));
  t.is(recoveries, 0, 'the pooled transaction’s copy was not recovered again');
  t.is(strangerCopy.getSenderAddress().toString(), sender(keys[1]));
  t.is(recoveries, 1, 'a transaction the pool does not hold is recovered as usual');
  t.is(unfrozen.cache.senderPubKey, undefined, 'unfrozen transactions are left alone');
  // Once included and dropped from the pool, nothing is shared any more.
  pool.onBlockImported([pooled.hash()], [[addr(keys[0]), 1n]]);
  t.is(pool.senderOf(pooled.hash()), undefined);
  const later = createTxFromRLP(pooled.serialize(), { common: counting });
  pool.shareSenders([later]);
  t.is(later.cache.senderPubKey, undefined);
});

test('bounded: evicts the least valuable transaction and its sender’s higher nonces, with dropped events', async (t) => {
  const { pool, events } = makePool({ maxSize: 5 });
  await pool.add(eip1559(keys[0], 0n, 10n * GWEI, 3n * GWEI));
  await pool.add(eip1559(keys[1], 0n, 10n * GWEI, GWEI)); // cheapest sender
  await pool.add(eip1559(keys[1], 1n, 10n * GWEI, 2n * GWEI));
  await pool.add(eip1559(keys[2], 0n, 10n * GWEI, 4n * GWEI));
  await pool.add(eip1559(keys[3], 0n, 10n * GWEI, 5n * GWEI));
  t.is(pool.size(), 5);
  events.length = 0;
  const r = await pool.add(eip1559(keys[4], 0n, 10n * GWEI, 6n * GWEI));
  t.true(r.ok);
  // keys[1] nonce 0 (tip 1) is the least valuable: it goes with nonce 1 (no gaps), highest first
  t.deepEqual(events, ['added 0', 'dropped 1 EVICTED', 'dropped 0 EVICTED']);
  t.is(pool.size(), 4);
  // local transactions outrank remote ones for eviction
  const { pool: p2, events: e2 } = makePool({ maxSize: 2 });
  await p2.add(eip1559(keys[0], 0n, 10n * GWEI, GWEI), { local: true });
  await p2.add(eip1559(keys[1], 0n, 10n * GWEI, 9n * GWEI));
  await p2.add(eip1559(keys[2], 0n, 10n * GWEI, 8n * GWEI));
  t.deepEqual(e2.slice(-1), ['dropped 0 EVICTED']);
  t.is(p2.size(), 2);
  t.truthy(p2.pending().find((tx) => tx.getSenderAddress().toString() === addr(keys[0])));
});

test('pre-London pool: 1559 transactions are refused, legacy ordering by gas price', async (t) => {
  const { pool } = makePool({}, new Map(), null);
  t.like(await pool.add(eip1559(keys[0], 0n, 10n * GWEI, GWEI)), { ok: false, error: 'INVALID_TRANSACTION_FORMAT' });
  await pool.add(legacy(keys[0], 0n, 2000n));
  await pool.add(legacy(keys[1], 0n, 3000n));
  const picked = pool.selectForBlock(undefined, 30_000_000n, () => 0n);
  t.deepEqual(picked.map((tx) => tx.getSenderAddress().toString()), [addr(keys[1]), addr(keys[0])]);
});

test('raw transactions decode under the fork of the next block, not the fork the chain started with', async (t) => {
  // A chain that starts at Berlin and reaches London later (mainnet's schedule): EIP-1559 transactions
  // are undecodable before London and welcome after it.
  const berlin = createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet, { hardfork: 'berlin', customCrypto });
  const london = createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet, { hardfork: 'london', customCrypto });
  let position = { blockNumber: 12_000_000n, timestamp: 1_600_000_000n };
  const pool = new TxPool({ minGasPrice: 0n }, {
    getAccount: async () => ({ nonce: 0n, balance: 10n ** 20n }),
    chainId: CHAIN_ID,
    baseFee: () => GWEI,
    common: berlin,
    nextBlockPosition: () => position,
  });
  const raw = eip1559(keys[0], 0n, 2n * GWEI, GWEI, london).serialize();
  t.like(await pool.add(raw), { ok: false, error: 'INVALID_TRANSACTION_FORMAT' });
  position = { blockNumber: 13_000_000n, timestamp: 1_630_000_000n };
  t.like(await pool.add(raw), { ok: true });
});

test('local account permissioning: a sender off the accounts allowlist is refused before the nonce check, and not picked for a block', async (t) => {
  const { AccountAllowlist } = await import('../permissioning/account-allowlist.ts');
  const { MemoryAllowlistStore } = await import('../permissioning/allowlist-store.ts');
  const allowlist = new AccountAllowlist(new MemoryAllowlistStore());
  allowlist.load([addr(keys[0])]);
  const accounts = new Map<Hex, PoolAccount>([[addr(keys[1]).toLowerCase() as Hex, { nonce: 5n, balance: 10n ** 20n }]]);
  const deps = {
    getAccount: async (a: Hex) => accounts.get(a) ?? { nonce: 0n, balance: 10n ** 20n },
    chainId: CHAIN_ID,
    baseFee: () => GWEI,
    common,
  };
  const pool = new TxPool({}, { ...deps, isSenderPermitted: (a) => allowlist.contains(a) });
  t.like(await pool.add(eip1559(keys[0], 0n, 2n * GWEI, GWEI)), { ok: true });
  const refused = await pool.add(eip1559(keys[1], 0n, 2n * GWEI, GWEI));
  // Nonce 0 is below keys[1]'s account nonce 5: the allowlist is judged first, as Besu's validateForSender.
  t.deepEqual(refused, { ok: false, error: 'TX_SENDER_NOT_AUTHORIZED', message: `Sender ${addr(keys[1]).toLowerCase()} is not on the Account Allowlist` });
  t.deepEqual(TX_POOL_RPC_ERRORS.TX_SENDER_NOT_AUTHORIZED, { code: -32007, message: 'Sender account not authorized to send transactions' });
  t.is(pool.size(), 1);
  // The same transaction with the allowlist ignored would be judged on its nonce: the check above is what refused it.
  const open = new TxPool({}, deps);
  t.like(await open.add(eip1559(keys[1], 0n, 2n * GWEI, GWEI)), { ok: false, error: 'NONCE_TOO_LOW' });
  t.like(await open.add(eip1559(keys[1], 5n, 2n * GWEI, GWEI)), { ok: true });
  // Once listed, the sender is welcome; once removed again, its pooled transaction is left out of blocks.
  t.is(allowlist.add([addr(keys[1])]), 'SUCCESS');
  t.like(await pool.add(eip1559(keys[1], 5n, 2n * GWEI, GWEI)), { ok: true });
  const nonces = (s: Hex) => (s === addr(keys[1]).toLowerCase() ? 5n : 0n);
  t.is(pool.selectForBlock(GWEI, 30_000_000n, nonces).length, 2);
  t.is(allowlist.remove([addr(keys[1])]), 'SUCCESS');
  const picked = pool.selectForBlock(GWEI, 30_000_000n, nonces);
  t.deepEqual(picked.map((tx) => tx.getSenderAddress().toString()), [addr(keys[0])]);
  t.is(pool.size(), 2, 'still pooled');
});
