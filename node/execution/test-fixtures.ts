/**
 * Shared fixtures for the execution tests and the bench: a small QBFT genesis (London and
 * Shanghai at 0) through the chain layer's parseGenesis / createCommonFromGenesis /
 * writeGenesisState / createGenesisBlock, funded keys, hand-assembled contracts.
 * Not a test file itself (ava only runs *.test.ts).
 */
import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { createCommonFromGenesis } from '../chain/common.ts';
import { parseGenesis, type Genesis } from '../chain/genesis.ts';
import { createGenesisBlock, writeGenesisState } from '../chain/genesis-state.ts';
import { bytesToHex, concatBytes, hexToBytes, type Hex } from '../crypto/bytes.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { privateKeyToAddress } from '../crypto/secp256k1.ts';
import { customCrypto } from '../crypto/ethereumjs-crypto.ts';
import { ExecutionEngine, type BuildRequest, type ExecutionEngineOptions } from './engine.ts';

export const QBFT_MIX_HASH = hexToBytes('0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365');

/** Deterministic test keys: keccak("qbft-lab test key <i>"). */
export function testKey(i: number): Uint8Array {
  return keccak256(new TextEncoder().encode(`qbft-lab test key ${i}`));
}

export const FUNDED_KEY = testKey(0);
export const FUNDED = privateKeyToAddress(FUNDED_KEY);
export const VALIDATOR = privateKeyToAddress(testKey(100));
export const VALIDATOR_CONTRACT = '0x0000000000000000000000000000000000008888' as Hex;
export const CHAIN_ID = 1337n;

/** Runtime code of a contract whose getValidators() (0xb7ab4db5) returns `addresses`; other selectors revert. */
export function validatorContractCode(addresses: Hex[]): Uint8Array {
  const words: Uint8Array[] = [];
  const word = (v: bigint | Uint8Array) => {
    const w = new Uint8Array(32);
    if (typeof v === 'bigint') {
      for (let i = 31; i >= 0 && v > 0n; i--, v >>= 8n) w[i] = Number(v & 0xffn);
    } else w.set(v, 32 - v.length);
    return w;
  };
  words.push(word(32n), word(BigInt(addresses.length)));
  for (const a of addresses) words.push(word(hexToBytes(a)));
  const parts: number[] = [
    // dispatcher: if (calldata[0:4] == b7ab4db5) jump to 0x13 else revert
    0x60, 0x00, 0x35, 0x60, 0xe0, 0x1c, 0x63, 0xb7, 0xab, 0x4d, 0xb5, 0x14, 0x60, 0x13, 0x57, 0x60, 0x00, 0x80, 0xfd,
    0x5b,
  ];
  words.forEach((w, i) => {
    parts.push(0x7f, ...w, 0x61, ((i * 32) >> 8) & 0xff, (i * 32) & 0xff, 0x52); // PUSH32 w PUSH2 off MSTORE
  });
  const size = words.length * 32;
  parts.push(0x61, (size >> 8) & 0xff, size & 0xff, 0x60, 0x00, 0xf3); // PUSH2 size PUSH1 0 RETURN
  return Uint8Array.from(parts);
}

export const LOG_TOPIC = keccak256(new TextEncoder().encode('Ping(uint256)'));

/** Init code deploying a contract that, when called, emits LOG1(topic = LOG_TOPIC, data = 42). */
export function logEmitterInitCode(): Uint8Array {
  const runtime = concatBytes(
    Uint8Array.from([0x60, 0x2a, 0x60, 0x00, 0x52, 0x7f]), // PUSH1 42 PUSH1 0 MSTORE PUSH32
    LOG_TOPIC,
    Uint8Array.from([0x60, 0x20, 0x60, 0x00, 0xa1, 0x00]), // PUSH1 32 PUSH1 0 LOG1 STOP
  );
  const len = runtime.length;
  const init = Uint8Array.from([0x60, len, 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, len, 0x60, 0x00, 0xf3]);
  return concatBytes(init, runtime);
}

export interface GenesisOptions {
  shanghai?: boolean;
  cancun?: boolean;
  /** pragueTime 0 (and Cancun); osaka adds osakaTime 0. */
  prague?: boolean;
  osaka?: boolean;
  gasLimit?: bigint;
  baseFee?: bigint;
  extraAlloc?: Record<string, { balance?: string; code?: string; storage?: Record<string, string> }>;
  fundedCount?: number;
}

export function testGenesisJson(opts: GenesisOptions = {}): Record<string, unknown> {
  const alloc: Record<string, unknown> = {};
  const n = opts.fundedCount ?? 1;
  for (let i = 0; i < n; i++) alloc[privateKeyToAddress(testKey(i)).slice(2)] = { balance: '0x' + (10n ** 24n).toString(16) };
  alloc[VALIDATOR_CONTRACT.slice(2)] = { balance: '0x0', code: bytesToHex(validatorContractCode([VALIDATOR, FUNDED])) };
  Object.assign(alloc, opts.extraAlloc ?? {});
  return {
    config: {
      chainId: Number(CHAIN_ID),
      berlinBlock: 0,
      londonBlock: 0,
      ...(opts.shanghai === false ? {} : { shanghaiTime: 0 }),
      ...(opts.cancun || opts.prague || opts.osaka ? { cancunTime: 0 } : {}),
      ...(opts.prague || opts.osaka ? { pragueTime: 0 } : {}),
      ...(opts.osaka ? { osakaTime: 0 } : {}),
      qbft: { blockperiodseconds: 1, epochlength: 30000, requesttimeoutseconds: 4 },
    },
    nonce: '0x0',
    timestamp: '0x0',
    gasLimit: '0x' + (opts.gasLimit ?? 30_000_000n).toString(16),
    difficulty: '0x1',
    mixHash: bytesToHex(QBFT_MIX_HASH),
    coinbase: '0x0000000000000000000000000000000000000000',
    baseFeePerGas: '0x' + (opts.baseFee ?? 1_000_000_000n).toString(16),
    extraData: '0x',
    alloc,
  };
}

export interface TestChain {
  genesis: Genesis;
  common: Common;
  genesisBlock: Block;
  engine: ExecutionEngine;
}

export async function makeChain(opts: GenesisOptions = {}, engineOpts: Partial<ExecutionEngineOptions> = {}): Promise<TestChain> {
  const genesis = parseGenesis(testGenesisJson(opts));
  const common = createCommonFromGenesis(genesis, { customCrypto });
  const engine = await ExecutionEngine.create({ common, writeGenesis: (sm) => writeGenesisState(sm, genesis), ...engineOpts });
  return { genesis, common, genesisBlock: await createGenesisBlock(genesis, common, engine.genesisStateRoot), engine };
}

export function transfer(common: Common, key: Uint8Array, nonce: bigint, to: Hex, value: bigint, fees: { maxFee?: bigint; tip?: bigint; gasLimit?: bigint } = {}): TypedTransaction {
  return createFeeMarket1559Tx(
    {
      chainId: CHAIN_ID,
      nonce,
      to,
      value,
      gasLimit: fees.gasLimit ?? 21_000n,
      maxFeePerGas: fees.maxFee ?? 10_000_000_000n,
      maxPriorityFeePerGas: fees.tip ?? 1_000_000_000n,
    },
    { common },
  ).sign(key);
}

export function legacyTransfer(common: Common, key: Uint8Array, nonce: bigint, to: Hex, value: bigint, gasPrice: bigint): TypedTransaction {
  return createLegacyTx({ nonce, to, value, gasLimit: 21_000n, gasPrice }, { common }).sign(key);
}

export function contractCall(common: Common, key: Uint8Array, nonce: bigint, to: Hex | undefined, data: Uint8Array, gasLimit = 200_000n): TypedTransaction {
  return createFeeMarket1559Tx(
    { chainId: CHAIN_ID, nonce, to, data, value: 0n, gasLimit, maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n },
    { common },
  ).sign(key);
}

/** CREATE address = keccak(rlp([sender, nonce]))[12:] */
export function createAddress(sender: Hex, nonce: bigint): Hex {
  const a = hexToBytes(sender);
  const n = nonce === 0n ? new Uint8Array(0) : hexToBytes(nonce.toString(16));
  const nEnc = n.length === 1 && n[0] < 0x80 ? n : concatBytes(Uint8Array.from([0x80 + n.length]), n);
  const payload = concatBytes(Uint8Array.from([0x94]), a, nEnc);
  const rlp = concatBytes(Uint8Array.from([0xc0 + payload.length]), payload);
  return bytesToHex(keccak256(rlp).subarray(12));
}

export function recipient(i: number): Hex {
  return bytesToHex(keccak256(new TextEncoder().encode(`recipient ${i}`)).subarray(12));
}

/** The proposer the engine tests build blocks as. */
export const PROPOSER = privateKeyToAddress(testKey(200));

/** keccak of the header: a stand-in for the QBFT hash, enough for the engine. */
export const parentHashOf = (b: Block): Uint8Array => keccak256(b.header.serialize());

/** A build request for the child of `parent`, one second later, by PROPOSER. */
export function buildRequest(parent: Block, txs: TypedTransaction[], extra: Partial<BuildRequest> = {}): BuildRequest {
  return {
    parent,
    parentHash: parentHashOf(parent),
    number: parent.header.number + 1n,
    timestamp: Number(parent.header.timestamp) + 1,
    coinbase: PROPOSER,
    extraData: new Uint8Array(40).fill(1),
    mixHash: QBFT_MIX_HASH,
    transactions: txs,
    ...extra,
  };
}
