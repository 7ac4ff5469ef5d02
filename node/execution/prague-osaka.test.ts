/**
 * Prague and Osaka on a QBFT chain as Besu runs them: no system contract calls and no request
 * processors (PoA), a requestsHash of no requests in every header, EIP-7702 set-code transactions
 * and Osaka's CLZ opcode in the EVM. Non-BFT chains make the system calls: system-calls.test.ts.
 */
import test from 'ava';
import type { Block } from '@ethereumjs/block';
import { createEOACode7702Tx } from '@ethereumjs/tx';
import { SHA256_NULL } from '@ethereumjs/util';
import { bytesToHex, hexToBytes, type Hex } from '../crypto/bytes.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { privateKeyToAddress, sign } from '../crypto/secp256k1.ts';
import { RLP } from '@ethereumjs/rlp';
import { parseGenesis } from '../chain/genesis.ts';
import { createCommonFromGenesis } from '../chain/common.ts';
import { ExecutionEngine, ExecutionError, type BuildRequest } from './engine.ts';
import { writeGenesisState } from '../chain/genesis-state.ts';
import { CHAIN_ID, FUNDED_KEY, buildRequest, contractCall, makeChain, testGenesisJson, testKey, type TestChain } from './test-fixtures.ts';

const req = (parent: Block, txs: BuildRequest['transactions']): BuildRequest => buildRequest(parent, txs);

/** Init code deploying `runtime` as is. */
function deployCode(runtime: Uint8Array): Uint8Array {
  // PUSH1 len PUSH1 12 PUSH1 0 CODECOPY PUSH1 len PUSH1 0 RETURN ++ runtime
  return Uint8Array.from([0x60, runtime.length, 0x60, 12, 0x60, 0, 0x39, 0x60, runtime.length, 0x60, 0, 0xf3, ...runtime]);
}

test('a Prague block on QBFT carries the requestsHash of no requests and re-executes; a wrong one is refused', async (t) => {
  const a = await makeChain({ prague: true });
  const b = await makeChain({ prague: true });
  const built = await a.engine.buildBlock(req(a.genesisBlock, []));
  t.is(built.block.common.hardfork(), 'prague');
  t.deepEqual(built.block.header.requestsHash, SHA256_NULL);
  await b.engine.executeBlock(built.block, b.engine.genesisStateRoot);
  const { createBlockHeader, Block: BlockClass } = await import('@ethereumjs/block');
  const h = built.block.header;
  const header = createBlockHeader({ ...h.toJSON(), requestsHash: bytesToHex(new Uint8Array(32).fill(7)) } as never, { common: h.common, skipConsensusFormatValidation: true });
  const bad = new BlockClass(header, [], [], [], { common: h.common, skipConsensusFormatValidation: true });
  const e = await t.throwsAsync(b.engine.executeBlock(bad, b.engine.genesisStateRoot));
  t.is((e as ExecutionError).reason, 'INVALID_REQUESTS_HASH');
});

test('Osaka: CLZ (EIP-7939) runs; before Osaka the same code fails', async (t) => {
  // CLZ of 1 (= 255), stored at slot 0: PUSH1 1 CLZ PUSH1 0 SSTORE STOP
  const runtime = Uint8Array.from([0x60, 0x01, 0x1e, 0x60, 0x00, 0x55, 0x00]);
  for (const [fork, works] of [['osaka', true], ['prague', false]] as const) {
    const chain: TestChain = await makeChain({ prague: true, osaka: fork === 'osaka' });
    const deploy = contractCall(chain.common, FUNDED_KEY, 0n, undefined, deployCode(runtime), 200_000n);
    const contract = privateKeyToContractAddress(FUNDED_KEY, 0n);
    const call = contractCall(chain.common, FUNDED_KEY, 1n, contract, new Uint8Array(0), 100_000n);
    const built = await chain.engine.buildBlock(req(chain.genesisBlock, [deploy, call]));
    t.is((built.receipts[1] as { status?: number }).status, works ? 1 : 0, fork);
    const slot = await chain.engine.getStorage(built.block.header.stateRoot, contract, new Uint8Array(32));
    t.is(BigInt(bytesToHex(slot.length ? slot : new Uint8Array(1))), works ? 255n : 0n, fork);
  }
});

test('EIP-7702: a set-code transaction delegates an account to a contract, and calls to the account run its code', async (t) => {
  const chain = await makeChain({ prague: true, fundedCount: 2 });
  // The delegate stores CALLER at slot 0 of whoever runs it: CALLER PUSH1 0 SSTORE STOP
  const runtime = Uint8Array.from([0x33, 0x60, 0x00, 0x55, 0x00]);
  const deploy = contractCall(chain.common, FUNDED_KEY, 0n, undefined, deployCode(runtime), 200_000n);
  const delegate = privateKeyToContractAddress(FUNDED_KEY, 0n);
  const authority = testKey(1);
  const authorityAddress = privateKeyToAddress(authority);
  // authorization: [chainId, address, nonce, yParity, r, s] over keccak(0x05 || rlp([chainId, address, nonce]))
  const message = keccak256(Uint8Array.from([0x05, ...RLP.encode([bigintBytes(CHAIN_ID), hexToBytes(delegate), new Uint8Array(0)])]));
  const sig = sign(message, authority);
  const authorization = [bigintBytes(CHAIN_ID), hexToBytes(delegate), new Uint8Array(0), bigintBytes(BigInt(sig[64]!)), sig.subarray(0, 32), sig.subarray(32, 64)];
  const setCode = createEOACode7702Tx(
    { chainId: CHAIN_ID, nonce: 1n, to: authorityAddress, value: 0n, gasLimit: 200_000n, maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n, authorizationList: [authorization as never] },
    { common: chain.common },
  ).sign(FUNDED_KEY);
  const built = await chain.engine.buildBlock(req(chain.genesisBlock, [deploy, setCode]));
  t.is(built.skipped.length, 0, JSON.stringify(built.skipped.map((s) => s.message)));
  t.is((built.receipts[1] as { status?: number }).status, 1);
  const code = await chain.engine.getCode(built.block.header.stateRoot, authorityAddress);
  t.is(bytesToHex(code), `0xef0100${delegate.slice(2)}`);
  const stored = await chain.engine.getStorage(built.block.header.stateRoot, authorityAddress, new Uint8Array(32));
  t.is(bytesToHex(stored).slice(-40), privateKeyToAddress(FUNDED_KEY).slice(2).toLowerCase());
  const again = await makeChain({ prague: true, fundedCount: 2 });
  const imported = await again.engine.executeBlock(built.block, again.engine.genesisStateRoot);
  t.deepEqual(imported.stateRoot, built.block.header.stateRoot);
});

function bigintBytes(n: bigint): Uint8Array {
  return n === 0n ? new Uint8Array(0) : hexToBytes(('0x' + n.toString(16).padStart(2 * Math.ceil(n.toString(16).length / 2), '0')) as Hex);
}

function privateKeyToContractAddress(key: Uint8Array, nonce: bigint): Hex {
  const sender = hexToBytes(privateKeyToAddress(key));
  return bytesToHex(keccak256(RLP.encode([sender, bigintBytes(nonce)])).subarray(12));
}

test('EIP-4788 on a BFT chain: the beacon roots contract in alloc is not written to (Besu runs no pre-execution processor on PoA)', async (t) => {
  const beacon = '000f3df6d732807ef1319fb7b8bb8522d0beac02';
  // Any code: the system call would store the timestamp at slot timestamp % 8191 whatever it is.
  const chain = await makeChain({ cancun: true, extraAlloc: { [beacon]: { balance: '0x0', code: '0x00' } } });
  const transfer = contractCall(chain.common, FUNDED_KEY, 0n, ('0x' + '11'.repeat(20)) as Hex, new Uint8Array(0), 21_000n);
  const built = await chain.engine.buildBlock(req(chain.genesisBlock, [transfer]));
  const slot = new Uint8Array(32);
  const ts = BigInt(built.block.header.timestamp) % 8191n;
  slot.set(hexToBytes(('0x' + ts.toString(16).padStart(64, '0')) as Hex));
  const stored = await chain.engine.getStorage(built.block.header.stateRoot, ('0x' + beacon) as Hex, slot);
  t.true(stored.every((b) => b === 0), bytesToHex(stored));
});
