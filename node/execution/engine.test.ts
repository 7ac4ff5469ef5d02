import test from 'ava';
import { Block, createBlockHeader } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import { bytesToHex, equalBytes, hexToBytes, type Hex } from '../crypto/bytes.ts';
import { writeGenesisState } from '../chain/genesis-state.ts';
import { ExecutionEngine, ExecutionError, computeBaseFee, type BuildRequest } from './engine.ts';
import { TrieNodeStore } from './state-db.ts';
import { ExecutionMemo } from './execution-memo.ts';
import {
  CHAIN_ID,
  FUNDED,
  FUNDED_KEY,
  LOG_TOPIC,
  PROPOSER,
  QBFT_MIX_HASH,
  VALIDATOR,
  VALIDATOR_CONTRACT,
  buildRequest,
  contractCall,
  createAddress,
  legacyTransfer,
  logEmitterInitCode,
  makeChain,
  parentHashOf,
  recipient,
  testKey,
  transfer,
  type TestChain,
} from './test-fixtures.ts';

const req = (_chain: TestChain, parent: Block, txs: TypedTransaction[], extra: Partial<BuildRequest> = {}): BuildRequest => buildRequest(parent, txs, extra);

/** Replaces header fields, keeping the body (a tampered block as a peer could send it). */
function tamper(block: Block, fields: Record<string, unknown>, txs = block.transactions): Block {
  const h = block.header;
  const header = createBlockHeader({ ...h.toJSON(), ...fields } as never, { common: h.common, skipConsensusFormatValidation: true });
  return new Block(header, txs, [], block.withdrawals, { common: h.common, skipConsensusFormatValidation: true });
}

async function fiftyTransfersPlusContract(chain: TestChain) {
  const txs: TypedTransaction[] = [];
  for (let i = 0; i < 50; i++) txs.push(transfer(chain.common, FUNDED_KEY, BigInt(i), recipient(i), 1000n + BigInt(i)));
  txs.push(contractCall(chain.common, FUNDED_KEY, 50n, undefined, logEmitterInitCode(), 200_000n));
  const emitter = createAddress(FUNDED, 50n);
  txs.push(contractCall(chain.common, FUNDED_KEY, 51n, emitter, new Uint8Array(0), 100_000n));
  return { txs, emitter };
}

test('builds 50 transfers + deploy + LOG call; a second engine reproduces every root', async (t) => {
  const a = await makeChain();
  const b = await makeChain();
  t.deepEqual(a.engine.genesisStateRoot, b.engine.genesisStateRoot);
  const { txs, emitter } = await fiftyTransfersPlusContract(a);
  const built = await a.engine.buildBlock(req(a, a.genesisBlock, txs));
  const h = built.block.header;
  t.is(built.skipped.length, 0, JSON.stringify(built.skipped.map((s) => s.message)));
  t.is(built.block.transactions.length, 52);
  t.is(built.receipts.length, 52);
  t.is(h.difficulty, 1n);
  t.deepEqual(h.nonce, new Uint8Array(8));
  t.deepEqual(h.mixHash, QBFT_MIX_HASH);
  t.deepEqual(h.withdrawalsRoot, hexToBytes('0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421'));
  t.is(built.block.withdrawals?.length, 0);
  t.is(h.baseFeePerGas, computeBaseFee(a.genesisBlock.header.baseFeePerGas!, 0n, a.genesisBlock.header.gasLimit));
  t.is(h.gasLimit, a.genesisBlock.header.gasLimit);
  t.deepEqual(h.parentHash, parentHashOf(a.genesisBlock));
  t.true(h.gasUsed > 50n * 21_000n);
  // the LOG
  const last = built.receipts[51];
  t.is(last.logs.length, 1);
  t.is(bytesToHex(last.logs[0][0]), emitter);
  t.deepEqual(last.logs[0][1][0], LOG_TOPIC);
  t.is(BigInt(bytesToHex(last.logs[0][2])), 42n);
  t.false(h.logsBloom.every((x) => x === 0));
  t.is(last.cumulativeBlockGasUsed, h.gasUsed);

  // re-execute on another engine from the same genesis
  const imported = await b.engine.executeBlock(built.block, b.engine.genesisStateRoot);
  t.deepEqual(imported.stateRoot, h.stateRoot);
  t.is(imported.gasUsed, h.gasUsed);
  t.is(imported.receipts.length, 52);
  // and from RLP, as a peer would receive it
  const c = await makeChain();
  const { createBlockFromRLP } = await import('@ethereumjs/block');
  const decoded = createBlockFromRLP(built.block.serialize(), { common: c.common, setHardfork: true, skipConsensusFormatValidation: true });
  const again = await c.engine.executeBlock(decoded, c.engine.genesisStateRoot);
  t.deepEqual(again.stateRoot, h.stateRoot);

  // state visible through the read API
  const acct = await b.engine.getAccount(h.stateRoot, recipient(7));
  t.is(acct?.balance, 1007n);
  t.is((await b.engine.getAccount(h.stateRoot, FUNDED))?.nonce, 52n);
  t.true((await b.engine.getCode(h.stateRoot, emitter)).length > 0);
  // the genesis state is still there
  t.is(await b.engine.getAccount(b.engine.genesisStateRoot, recipient(7)), undefined);
});

test('a tampered block is rejected and the engine stays usable', async (t) => {
  const a = await makeChain();
  const b = await makeChain();
  const { txs } = await fiftyTransfersPlusContract(a);
  const built = await a.engine.buildBlock(req(a, a.genesisBlock, txs.slice(0, 10)));
  const root = b.engine.genesisStateRoot;
  const bad = async (block: Block, reason: ExecutionError['reason']) => {
    const e = await t.throwsAsync(b.engine.executeBlock(block, root));
    t.true(e instanceof ExecutionError, String(e));
    t.is((e as ExecutionError).reason, reason, e?.message);
  };
  await bad(tamper(built.block, { stateRoot: new Uint8Array(32).fill(7) }), 'INVALID_STATE_ROOT');
  await bad(tamper(built.block, { receiptTrie: new Uint8Array(32).fill(7) }), 'INVALID_RECEIPTS_ROOT');
  await bad(tamper(built.block, { gasUsed: built.block.header.gasUsed + 1n }), 'INVALID_GAS_USED');
  await bad(tamper(built.block, { logsBloom: new Uint8Array(256).fill(1) }), 'INVALID_LOGS_BLOOM');
  // a transaction dropped from the body
  await bad(tamper(built.block, {}, built.block.transactions.slice(1)), 'INVALID_TRANSACTIONS_ROOT');
  // an invalid transaction (nonce gap) with a consistent transactions root
  const gap = [transfer(a.common, FUNDED_KEY, 5n, recipient(1), 1n)];
  const { genTransactionsTrieRoot } = await import('@ethereumjs/block');
  const txRoot = await genTransactionsTrieRoot(gap);
  await bad(tamper(built.block, { transactionsTrie: txRoot }, gap), 'INVALID_TRANSACTION');
  // a fee recipient that differs from the builder's changes the state root
  const e = await t.throwsAsync(b.engine.executeBlock(built.block, root, undefined, { feeRecipient: VALIDATOR }));
  t.is((e as ExecutionError).reason, 'INVALID_STATE_ROOT');
  // unknown parent state
  const e2 = await t.throwsAsync(b.engine.executeBlock(built.block, new Uint8Array(32).fill(9)));
  t.is((e2 as ExecutionError).reason, 'UNKNOWN_PARENT_STATE');
  // the untampered block still imports
  const ok = await b.engine.executeBlock(built.block, root);
  t.deepEqual(ok.stateRoot, built.block.header.stateRoot);
});

test('QBFT reward goes to the named address; no library PoW reward, fees to the fee recipient', async (t) => {
  const a = await makeChain();
  const b = await makeChain();
  const beneficiary = recipient(999);
  const reward = { to: beneficiary, amountWei: 5n * 10n ** 18n };
  // empty block + reward: the state changes, the VM path is used, the reward is credited
  const r1 = await a.engine.buildBlock(req(a, a.genesisBlock, [], { reward }));
  t.notDeepEqual(r1.block.header.stateRoot, a.genesisBlock.header.stateRoot);
  t.is((await a.engine.getAccount(r1.block.header.stateRoot, beneficiary))?.balance, reward.amountWei);
  t.is(await a.engine.getAccount(r1.block.header.stateRoot, PROPOSER), undefined);
  await t.throwsAsync(b.engine.executeBlock(r1.block, b.engine.genesisStateRoot)); // without the reward: mismatch
  t.deepEqual((await b.engine.executeBlock(r1.block, b.engine.genesisStateRoot, reward)).stateRoot, r1.block.header.stateRoot);

  // one transfer, zero reward: the coinbase gets exactly the priority fee and nothing else
  const tip = 2_000_000_000n;
  const tx = transfer(a.common, FUNDED_KEY, 0n, recipient(1), 1n, { tip, maxFee: 100_000_000_000n });
  const r2 = await a.engine.buildBlock(req(a, r1.block, [tx], { reward: { to: PROPOSER, amountWei: 0n } }));
  t.is(r2.skipped.length, 0);
  const after = r2.block.header.stateRoot;
  t.is((await a.engine.getAccount(after, PROPOSER))?.balance, 21_000n * tip);
  t.is((await a.engine.getAccount(after, beneficiary))?.balance, reward.amountWei);
  const fundedBefore = (await a.engine.getAccount(r1.block.header.stateRoot, FUNDED))!.balance;
  const fundedAfter = (await a.engine.getAccount(after, FUNDED))!.balance;
  t.is(fundedBefore - fundedAfter, 1n + 21_000n * (r2.block.header.baseFeePerGas! + tip));

  // miningbeneficiary: fees go to the fee recipient, not the coinbase
  const tx2 = transfer(a.common, FUNDED_KEY, 1n, recipient(1), 1n, { tip });
  const r3 = await a.engine.buildBlock(req(a, r2.block, [tx2], { feeRecipient: beneficiary, reward }));
  t.is((await a.engine.getAccount(r3.block.header.stateRoot, PROPOSER))?.balance, 21_000n * tip);
  t.is((await a.engine.getAccount(r3.block.header.stateRoot, beneficiary))?.balance, 2n * reward.amountWei + 21_000n * tip);
  await b.engine.executeBlock(r2.block, r1.block.header.stateRoot);
  const imported = await b.engine.executeBlock(r3.block, r2.block.header.stateRoot, reward, { feeRecipient: beneficiary });
  t.deepEqual(imported.stateRoot, r3.block.header.stateRoot);
});

test('empty blocks without a reward take the fast path on both sides', async (t) => {
  const a = await makeChain();
  const b = await makeChain();
  let parent = a.genesisBlock;
  for (let i = 0; i < 20; i++) {
    const { block } = await a.engine.buildBlock(req(a, parent, []));
    t.deepEqual(block.header.stateRoot, a.engine.genesisStateRoot);
    t.is(block.header.gasUsed, 0n);
    const r = await b.engine.executeBlock(block, parent.header.stateRoot, { to: PROPOSER, amountWei: 0n });
    t.deepEqual(r.stateRoot, a.engine.genesisStateRoot);
    parent = block;
  }
  t.is(a.engine.stats.fastPath, 20);
  t.is(b.engine.stats.fastPath, 20);
  t.is(a.engine.stats.txsRun, 0);
  // base fee decays over empty blocks, as in Besu
  t.true(parent.header.baseFeePerGas! < a.genesisBlock.header.baseFeePerGas!);
  // a tampered empty block is still caught
  const { block } = await a.engine.buildBlock(req(a, parent, []));
  const e = await t.throwsAsync(b.engine.executeBlock(tamper(block, { stateRoot: new Uint8Array(32).fill(3) }), parent.header.stateRoot));
  t.is((e as ExecutionError).reason, 'INVALID_STATE_ROOT');
});

test('invalid candidates are skipped with Besu-like reasons; the rest is built', async (t) => {
  const a = await makeChain();
  const poor = testKey(55);
  const { createCustomCommon, Mainnet } = await import('@ethereumjs/common');
  const otherChain = createCustomCommon({ chainId: 999 }, Mainnet, { hardfork: 'shanghai' });
  const txs = [
    transfer(a.common, FUNDED_KEY, 0n, recipient(1), 1n),
    transfer(a.common, FUNDED_KEY, 0n, recipient(2), 1n), // nonce reused
    transfer(a.common, FUNDED_KEY, 5n, recipient(3), 1n), // gap
    transfer(a.common, poor, 0n, recipient(4), 1n), // no funds
    transfer(a.common, FUNDED_KEY, 1n, recipient(5), 1n, { maxFee: 1n, tip: 1n }), // below base fee
    transfer(a.common, FUNDED_KEY, 1n, recipient(6), 1n, { gasLimit: 40_000_000n }), // over block gas
    legacyTransfer(otherChain, FUNDED_KEY, 1n, recipient(8), 1n, 10_000_000_000n), // chain 999
    legacyTransfer(a.common, FUNDED_KEY, 1n, recipient(7), 1n, 10_000_000_000n),
  ];
  const built = await a.engine.buildBlock(req(a, a.genesisBlock, txs));
  t.is(built.block.transactions.length, 2);
  t.deepEqual(
    built.skipped.map((s) => s.reason),
    ['NONCE_TOO_LOW', 'NONCE_TOO_HIGH', 'UPFRONT_COST_EXCEEDS_BALANCE', 'GAS_PRICE_BELOW_CURRENT_BASE_FEE', 'EXCEEDS_BLOCK_GAS_LIMIT', 'WRONG_CHAIN_ID'],
  );
  const b = await makeChain();
  t.deepEqual((await b.engine.executeBlock(built.block, b.engine.genesisStateRoot)).stateRoot, built.block.header.stateRoot);
});

test('call(): getValidators() of a contract on the parent state, ABI-decoded; reverts reported', async (t) => {
  const a = await makeChain();
  const res = await a.engine.call(a.engine.genesisStateRoot, a.genesisBlock.header, VALIDATOR_CONTRACT, hexToBytes('0xb7ab4db5'));
  t.is(res.error, undefined);
  t.is(res.returnValue.length, 32 * 4);
  const word = (i: number) => res.returnValue.subarray(i * 32, i * 32 + 32);
  t.is(BigInt(bytesToHex(word(0))), 32n);
  const n = Number(BigInt(bytesToHex(word(1))));
  const addrs: Hex[] = [];
  for (let i = 0; i < n; i++) addrs.push(bytesToHex(word(2 + i).subarray(12)));
  t.deepEqual(addrs, [VALIDATOR, FUNDED]);
  t.true(res.gasUsed > 21_000n);
  const bad = await a.engine.call(a.engine.genesisStateRoot, { number: 1n, timestamp: 1 }, VALIDATOR_CONTRACT, hexToBytes('0x12345678'));
  t.is(bad.error, 'revert');
  // a call leaves no trace in the state
  const after = await a.engine.getAccount(a.engine.genesisStateRoot, VALIDATOR_CONTRACT);
  t.is(after?.nonce, 0n);
  // call on a state built later, with a contract deployed in a block
  const { txs } = await fiftyTransfersPlusContract(a);
  const built = await a.engine.buildBlock(req(a, a.genesisBlock, txs));
  const emitter = createAddress(FUNDED, 50n);
  const logged = await a.engine.call(built.block.header.stateRoot, built.block.header, emitter, new Uint8Array(0));
  t.is(logged.error, undefined);
  t.is(logged.logs?.length, 1);
});

test('BLOCKHASH answers with the QBFT parent hash given as a parameter', async (t) => {
  const a = await makeChain();
  const b = await makeChain();
  // contract: SSTORE(0, BLOCKHASH(NUMBER - 1))
  const runtime = Uint8Array.from([0x60, 0x01, 0x43, 0x03, 0x40, 0x60, 0x00, 0x55, 0x00]);
  const init = Uint8Array.from([0x60, runtime.length, 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, runtime.length, 0x60, 0x00, 0xf3, ...runtime]);
  const deploy = contractCall(a.common, FUNDED_KEY, 0n, undefined, init);
  const r1 = await a.engine.buildBlock(req(a, a.genesisBlock, [deploy]));
  const addr = createAddress(FUNDED, 0n);
  const poke = contractCall(a.common, FUNDED_KEY, 1n, addr, new Uint8Array(0));
  const qbftHash = new Uint8Array(32).fill(0xab);
  const r2 = await a.engine.buildBlock({ ...req(a, r1.block, [poke]), parentHash: qbftHash });
  t.deepEqual(await a.engine.getStorage(r2.block.header.stateRoot, addr, 0n), qbftHash);
  await b.engine.executeBlock(r1.block, b.engine.genesisStateRoot);
  const imported = await b.engine.executeBlock(r2.block, r1.block.header.stateRoot);
  t.deepEqual(imported.stateRoot, r2.block.header.stateRoot);
});

test('old state roots stay re-openable within the retention window; the store is swept', async (t) => {
  const store = new TrieNodeStore({ pruneFloor: 200, growthFactor: 2 });
  const a = await makeChain({ fundedCount: 1 }, { store, retainRoots: 8 });
  let parent = a.genesisBlock;
  const roots: Uint8Array[] = [];
  let maxSize = 0;
  for (let i = 0; i < 60; i++) {
    const txs = [transfer(a.common, FUNDED_KEY, BigInt(2 * i), recipient(i % 40), 1n), transfer(a.common, FUNDED_KEY, BigInt(2 * i + 1), recipient((i * 7) % 40), 1n)];
    const { block, skipped } = await a.engine.buildBlock(req(a, parent, txs));
    t.is(skipped.length, 0);
    roots.push(block.header.stateRoot);
    parent = block;
    maxSize = Math.max(maxSize, store.size);
  }
  t.true(store.stats.prunes > 0, 'pruned at least once');
  t.true(store.stats.removed > 0);
  t.true(maxSize < 2 * 200 + 200, `store stayed bounded (max ${maxSize})`);
  // the last 8 roots and genesis open; old ones are gone (unless not swept yet)
  for (const r of roots.slice(-8)) t.truthy(await a.engine.getAccount(r, FUNDED));
  t.truthy(await a.engine.getAccount(a.engine.genesisStateRoot, FUNDED));
  a.engine.prune();
  t.false(a.engine.hasState(roots[0]));
  const e = await t.throwsAsync(a.engine.getAccount(roots[0], FUNDED));
  t.is((e as ExecutionError).reason, 'UNKNOWN_PARENT_STATE');
  // a pinned root survives
  a.engine.pin(roots[55]);
  let p2 = parent;
  const chain: Block[] = [];
  for (let i = 60; i < 80; i++) {
    const { block } = await a.engine.buildBlock(req(a, p2, [transfer(a.common, FUNDED_KEY, BigInt(60 + i), recipient(i % 40), 1n)]));
    chain.push(block);
    p2 = block;
  }
  a.engine.prune();
  t.truthy(await a.engine.getAccount(roots[55], FUNDED));
  t.false(a.engine.hasState(roots[56]));
  // building on a recent non-head parent still works after sweeping (a competing proposal)
  const older = chain[chain.length - 3];
  const nonce = (await a.engine.getAccount(older.header.stateRoot, FUNDED))!.nonce;
  const fork = await a.engine.buildBlock(req(a, older, [transfer(a.common, FUNDED_KEY, nonce, recipient(1), 5n)]));
  t.is(fork.skipped.length, 0);
  t.notDeepEqual(fork.block.header.stateRoot, chain[chain.length - 2].header.stateRoot);
});

test('two engines may share one store (one world); genesis written once is fine', async (t) => {
  const store = new TrieNodeStore({ pruneFloor: 100 });
  const a = await makeChain({}, { store, retainRoots: 4 });
  const b = await makeChain({}, { store, retainRoots: 4 });
  let parent = a.genesisBlock;
  for (let i = 0; i < 30; i++) {
    const built = await a.engine.buildBlock(req(a, parent, [transfer(a.common, FUNDED_KEY, BigInt(i), recipient(i), 1n)]));
    const imp = await b.engine.executeBlock(built.block, parent.header.stateRoot);
    t.deepEqual(imp.stateRoot, built.block.header.stateRoot);
    parent = built.block;
  }
  t.true(store.stats.prunes > 0);
  a.engine.close();
  b.engine.close();
});

test('computeBaseFee follows Besu LondonFeeMarket', (t) => {
  const gl = 30_000_000n;
  t.is(computeBaseFee(1_000_000_000n, gl / 2n, gl), 1_000_000_000n);
  t.is(computeBaseFee(1_000_000_000n, gl, gl), 1_125_000_000n);
  t.is(computeBaseFee(1_000_000_000n, 0n, gl), 875_000_000n);
  t.is(computeBaseFee(7n, gl / 2n + 1n, gl), 8n); // at least +1
  t.is(computeBaseFee(0n, gl, gl), 1n);
});

test('engine creation checks the expected genesis root', async (t) => {
  const a = await makeChain();
  await t.throwsAsync(
    ExecutionEngine.create({ common: a.common, writeGenesis: (sm) => writeGenesisState(sm, a.genesis), genesisStateRoot: new Uint8Array(32) }),
    { message: /genesis state root mismatch/ },
  );
  const ok = await ExecutionEngine.create({ common: a.common, writeGenesis: (sm) => writeGenesisState(sm, a.genesis), genesisStateRoot: a.engine.genesisStateRoot });
  t.true(equalBytes(ok.genesisStateRoot, a.engine.genesisStateRoot));
  t.is(CHAIN_ID, a.common.chainId());
});

test('independent check: the stock runBlock and BlockBuilder agree with the linear builder', async (t) => {
  const a = await makeChain();
  const { txs } = await fiftyTransfersPlusContract(a);
  const some = txs.slice(45); // 5 transfers, the deployment, the LOG call (nonces 45..51)
  const lead = txs.slice(0, 45);
  const first = await a.engine.buildBlock(req(a, a.genesisBlock, lead));
  const built = await a.engine.buildBlock(req(a, first.block, some));
  const { createVM, runBlock, buildBlock } = await import('@ethereumjs/vm');
  const { MerkleStateManager } = await import('@ethereumjs/statemanager');
  const fresh = async () => {
    const common = a.common.copy();
    const sm = new MerkleStateManager({ common });
    await writeGenesisState(sm, a.genesis);
    const vm = await createVM({ common, stateManager: sm });
    return vm;
  };
  // runBlock over both blocks
  const vm = await fresh();
  const opts = { skipHeaderValidation: true, skipBlockValidation: true, setHardfork: true } as const;
  const r1 = await runBlock(vm, { block: first.block, ...opts });
  t.deepEqual(r1.stateRoot, first.block.header.stateRoot);
  const r2 = await runBlock(vm, { block: built.block, ...opts });
  t.deepEqual(r2.stateRoot, built.block.header.stateRoot);
  t.deepEqual(r2.receiptsRoot, built.block.header.receiptTrie);
  t.deepEqual(r2.logsBloom, built.block.header.logsBloom);
  t.is(r2.gasUsed, built.block.header.gasUsed);
  // the stock (quadratic) BlockBuilder on the same parent state
  const vm2 = await fresh();
  await runBlock(vm2, { block: first.block, ...opts });
  const h = built.block.header;
  const builder = await buildBlock(vm2, {
    parentBlock: first.block,
    headerData: { parentHash: h.parentHash, number: h.number, timestamp: h.timestamp, coinbase: h.coinbase, gasLimit: h.gasLimit, baseFeePerGas: h.baseFeePerGas, extraData: h.extraData, mixHash: h.mixHash, difficulty: 1n },
    blockOpts: { putBlockIntoBlockchain: false, skipConsensusFormatValidation: true, common: vm2.common },
  });
  for (const tx of some) await builder.addTransaction(tx);
  const { block: stock } = await builder.build();
  t.deepEqual(stock.header.stateRoot, h.stateRoot);
  t.deepEqual(stock.header.receiptTrie, h.receiptTrie);
  t.deepEqual(stock.header.transactionsTrie, h.transactionsTrie);
  t.deepEqual(stock.header.logsBloom, h.logsBloom);
  t.is(stock.header.gasUsed, h.gasUsed);
});

test('London-only and Cancun genesis files work too', async (t) => {
  for (const [shanghai, cancun] of [[false, false], [true, false], [true, true]]) {
    const a = await makeChain({ shanghai, cancun });
    const b = await makeChain({ shanghai, cancun });
    const built = await a.engine.buildBlock(req(a, a.genesisBlock, [transfer(a.common, FUNDED_KEY, 0n, recipient(1), 1n)]));
    t.is(built.block.withdrawals === undefined, !shanghai);
    t.is(built.block.header.excessBlobGas === undefined, !cancun);
    t.is(built.skipped.length, 0);
    t.deepEqual((await b.engine.executeBlock(built.block, b.engine.genesisStateRoot)).stateRoot, built.block.header.stateRoot);
  }
});

test('concurrent use: reads, base-fee questions and imports interleave safely (FIFO per VM)', async (t) => {
  const a = await makeChain();
  const b = await makeChain();
  const { txs } = await fiftyTransfersPlusContract(a);
  const built = await a.engine.buildBlock(req(a, a.genesisBlock, txs));
  const second = await a.engine.buildBlock(req(a, built.block, [transfer(a.common, FUNDED_KEY, 52n, recipient(3), 9n)]));
  // fire everything at once
  const p1 = b.engine.executeBlock(built.block, b.engine.genesisStateRoot);
  const fees = [0, 1, 2].map(() => b.engine.nextBaseFee(built.block.header, 2n, 2));
  const reads = [b.engine.getAccount(b.engine.genesisStateRoot, FUNDED), b.engine.call(b.engine.genesisStateRoot, a.genesisBlock.header, VALIDATOR_CONTRACT, hexToBytes('0xb7ab4db5'))];
  const p2 = b.engine.executeBlock(second.block, built.block.header.stateRoot);
  const [r1, r2, acct, call] = await Promise.all([p1, p2, ...reads]);
  t.deepEqual((r1 as { stateRoot: Uint8Array }).stateRoot, built.block.header.stateRoot);
  t.deepEqual((r2 as { stateRoot: Uint8Array }).stateRoot, second.block.header.stateRoot);
  t.is((acct as { nonce: bigint }).nonce, 0n);
  t.is((call as { error?: string }).error, undefined);
  t.true(fees.every((f) => f === second.block.header.baseFeePerGas));
});

test('engines sharing a store and a memo execute a built block once; every root is still checked', async (t) => {
  const store = new TrieNodeStore();
  const memo = new ExecutionMemo();
  const a = await makeChain({}, { store, memo });
  const b = await makeChain({}, { store, memo });
  const txs = Array.from({ length: 20 }, (_, i) => transfer(a.common, FUNDED_KEY, BigInt(i), recipient(i), 1_000n));
  const built = await a.engine.buildBlock(req(a, a.genesisBlock, txs));
  t.is(built.block.transactions.length, 20);
  const runBefore = b.engine.stats.txsRun;
  const imported = await b.engine.executeBlock(built.block, b.engine.genesisStateRoot);
  t.is(b.engine.stats.memoHits, 1);
  t.is(b.engine.stats.txsRun, runBefore, 'no transaction re-run');
  t.true(equalBytes(imported.stateRoot, built.block.header.stateRoot));
  t.is(imported.receipts.length, 20);
  // Another claimed outcome is another key: executed for real, and refused.
  const lying = tamper(built.block, { stateRoot: new Uint8Array(32).fill(7) });
  const e = await t.throwsAsync(b.engine.executeBlock(lying, b.engine.genesisStateRoot));
  t.regex(e!.message, /INVALID_STATE_ROOT/);
  t.true(b.engine.stats.txsRun > runBefore);
  // Other rewards are other inputs: no memo hit.
  const hits = b.engine.stats.memoHits;
  await t.throwsAsync(b.engine.executeBlock(built.block, b.engine.genesisStateRoot, { to: PROPOSER, amountWei: 1n }));
  t.is(b.engine.stats.memoHits, hits);
});
