/**
 * Prague's system calls on a chain without a BFT section (EIP-2935 history, EIP-7002 withdrawal
 * requests, EIP-7251 consolidations) and EIP-6110 deposit logs, judged with an independent sha256
 * (noble) and the request layouts of the EIPs. The system contracts' code is the one of the
 * vendored execution-apis genesis (test/vectors/execution-apis).
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { SHA256_NULL } from '@ethereumjs/util';
import { bytesToHex, concatBytes, hexToBytes, type Hex } from '../crypto/bytes.ts';
import { customCrypto } from '../crypto/ethereumjs-crypto.ts';
import { privateKeyToAddress } from '../crypto/secp256k1.ts';
import { parseGenesis } from '../chain/genesis.ts';
import { createCommonFromGenesis } from '../chain/common.ts';
import { createGenesisBlock } from '../chain/genesis-state.ts';
import { writeGenesisState } from '../chain/genesis-state.ts';
import { ExecutionEngine, type ExecutionError } from './engine.ts';
import { depositRequests, requestsHash } from './system-calls.ts';
import { TransactionSimulator } from './calls/transaction-simulator.ts';
import { replayOneBlock } from './calls/replay.ts';
import { FUNDED_KEY, PROPOSER, buildRequest, contractCall, testGenesisJson } from './test-fixtures.ts';

const HIVE_GENESIS = JSON.parse(readFileSync(new URL('../../test/vectors/execution-apis/genesis.json', import.meta.url), 'utf8')) as { alloc: Record<string, { code?: string; balance: string }> };
const HISTORY = '0000f90827f1c53a10cb7a02335b175320002935';
const WITHDRAWALS = '00000961ef480eb55e80d19ad83579a64c007002';
const CONSOLIDATIONS = '0000bbddc7ce488642fb579f8b00f3a590007251';

async function ethashPragueChain(contracts: string[]) {
  const json = testGenesisJson({ prague: true, extraAlloc: Object.fromEntries(contracts.map((a) => [a, HIVE_GENESIS.alloc[a]])) }) as { config: Record<string, unknown> };
  delete json.config.qbft;
  json.config.ethash = {};
  json.config.terminalTotalDifficulty = 0;
  const genesis = parseGenesis(json);
  const common = createCommonFromGenesis(genesis, { customCrypto });
  const engine = await ExecutionEngine.create({ common, writeGenesis: (sm) => writeGenesisState(sm, genesis) });
  return { engine, genesisBlock: await createGenesisBlock(genesis, common, engine.genesisStateRoot), common };
}

const sha = (...parts: Uint8Array[]) => nobleSha256(concatBytes(...parts));

test('a Prague block of a non-BFT chain stores its parent hash (EIP-2935) and commits to a withdrawal request (EIP-7002); another engine agrees', async (t) => {
  const a = await ethashPragueChain([HISTORY, WITHDRAWALS, CONSOLIDATIONS]);
  const pubkey = new Uint8Array(48).fill(0xab);
  const amount = hexToBytes('0x0000000000000007');
  const request = contractCall(a.common, FUNDED_KEY, 0n, `0x${WITHDRAWALS}`, concatBytes(pubkey, amount), 300_000n);
  const withValue = (await import('@ethereumjs/tx')).createFeeMarket1559Tx({ ...request.toJSON(), value: 1n } as never, { common: a.common }).sign(FUNDED_KEY);
  const req = buildRequest(a.genesisBlock, [withValue]);
  const built = await a.engine.buildBlock(req);
  t.is(built.skipped.length, 0, JSON.stringify(built.skipped.map((s) => s.message)));
  t.is((built.receipts[0] as { status?: number }).status, 1);

  // The queue takes the amount big-endian and hands it on little-endian (EIP-7002's request layout).
  const requestData = concatBytes(hexToBytes(privateKeyToAddress(FUNDED_KEY)), pubkey, amount.slice().reverse());
  t.is(bytesToHex(built.block.header.requestsHash!), bytesToHex(sha(sha(new Uint8Array([1]), requestData))));
  const slot0 = await a.engine.getStorage(built.block.header.stateRoot, `0x${HISTORY}`, 0n);
  t.is(bytesToHex(slot0), bytesToHex(req.parentHash));

  const b = await ethashPragueChain([HISTORY, WITHDRAWALS, CONSOLIDATIONS]);
  const executed = await b.engine.executeBlock(built.block, b.engine.genesisStateRoot, undefined, { allowWithdrawalsAndBlobs: true });
  t.deepEqual(executed.stateRoot, built.block.header.stateRoot);

  // An empty block still makes the calls: the history slot of block 2 is written, and no requests.
  const next = await a.engine.buildBlock(buildRequest(built.block, []));
  t.deepEqual(next.block.header.requestsHash, SHA256_NULL);
  t.notDeepEqual(next.block.header.stateRoot, built.block.header.stateRoot);
});

test('without the EIP-7002 contract a Prague block of a non-BFT chain is invalid; without the history contract the call is skipped', async (t) => {
  const noQueue = await ethashPragueChain([HISTORY, CONSOLIDATIONS]);
  const e = await t.throwsAsync(noQueue.engine.buildBlock(buildRequest(noQueue.genesisBlock, [])));
  t.is((e as ExecutionError).reason, 'INVALID_SYSTEM_CALL');
  t.regex(e!.message, /withdrawal request \(EIP-7002\) contract 0x00000961ef480eb55e80d19ad83579a64c007002 has no code/);
  const noHistory = await ethashPragueChain([WITHDRAWALS, CONSOLIDATIONS]);
  const built = await noHistory.engine.buildBlock(buildRequest(noHistory.genesisBlock, []));
  t.deepEqual(built.block.header.requestsHash, SHA256_NULL);
});

/** A DepositEvent's data as the deposit contract ABI-encodes it. */
function depositLogData(fields: Uint8Array[], corrupt?: { field: number; size: number }): Uint8Array {
  const offsets = [160, 256, 320, 384, 512];
  const out = new Uint8Array(576);
  const view = new DataView(out.buffer);
  fields.forEach((f, i) => {
    view.setUint32(i * 32 + 28, offsets[i]);
    view.setUint32(offsets[i] + 28, corrupt?.field === i ? corrupt.size : f.length);
    out.set(f, offsets[i] + 32);
  });
  return out;
}

test('EIP-6110: deposit requests are the deposit contract\'s DepositEvent fields in block order; another layout is invalid', (t) => {
  const contract: Hex = '0x00000000219ab540356cbb839cbe05303d7705fa';
  const topic = hexToBytes('0x649bbc62d0e31342afea4e5cd82d4049e7e1ee912fc0889aa790803be39038c5');
  const fields = (n: number) => [new Uint8Array(48).fill(n), new Uint8Array(32).fill(n + 1), new Uint8Array(8).fill(n + 2), new Uint8Array(96).fill(n + 3), new Uint8Array(8).fill(n + 4)];
  const log = (address: Hex, data: Uint8Array, t0 = topic) => [hexToBytes(address), [t0], data] as [Uint8Array, Uint8Array[], Uint8Array];
  const receipt = (logs: ReturnType<typeof log>[]) => ({ cumulativeBlockGasUsed: 0n, bitvector: new Uint8Array(256), logs, status: 1 as const });
  const receipts = [
    receipt([log(contract, depositLogData(fields(1))), log('0x1111111111111111111111111111111111111111', depositLogData(fields(9)))]),
    receipt([log(contract, depositLogData(fields(20)), new Uint8Array(32)), log(contract, depositLogData(fields(40)))]),
  ];
  t.is(bytesToHex(depositRequests(receipts, contract)), bytesToHex(concatBytes(...fields(1), ...fields(40))));
  const bad = [receipt([log(contract, depositLogData(fields(1), { field: 0, size: 47 }))])];
  t.throws(() => depositRequests(bad, contract), { message: /INVALID_DEPOSIT_LOG: DepositEvent field 0 is not 48 bytes/ });
  t.throws(() => depositRequests([receipt([log(contract, new Uint8Array(575))])], contract), { message: /575 bytes/ });
});

test('EIP-7685: requestsHash leaves out empty requests and hashes the rest in order', (t) => {
  t.deepEqual(requestsHash([new Uint8Array([0]), new Uint8Array([1]), new Uint8Array([2])]), SHA256_NULL);
  const w = new Uint8Array([1, 5, 6]);
  const c = new Uint8Array([2, 7]);
  t.is(bytesToHex(requestsHash([new Uint8Array([0]), w, c])), bytesToHex(sha(sha(w), sha(c))));
});

test('a trace replay of a non-BFT Prague block makes the block\'s system calls first: a call reading the history contract sees the parent hash', async (t) => {
  const a = await ethashPragueChain([HISTORY, WITHDRAWALS, CONSOLIDATIONS]);
  // EIP-2935's get: 32 bytes of block number in, that block's hash out (block 0 is the parent of block 1).
  const read = contractCall(a.common, FUNDED_KEY, 0n, `0x${HISTORY}`, new Uint8Array(32), 100_000n);
  const req = buildRequest(a.genesisBlock, [read]);
  const built = await a.engine.buildBlock(req);
  t.is((built.receipts[0] as { status?: number }).status, 1);
  const simulator = new TransactionSimulator(a.common, a.engine.store, () => undefined);
  const replays = await replayOneBlock(simulator, built.block.header, a.engine.genesisStateRoot, req.parentHash, PROPOSER, [...built.block.transactions], () => true);
  t.is(bytesToHex(replays[0]!.frame.output!), bytesToHex(req.parentHash), 'without the replayed system call the history slot would be empty');
});
