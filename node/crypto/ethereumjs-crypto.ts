/**
 * `customCrypto` for @ethereumjs/common 10.1: keccak-256, sha-256, secp256k1 recovery and signing
 * backed by the native bindings (libsecp256k1 through the `secp256k1` package, the `keccak`
 * package) when their prebuilt binaries load, by @noble otherwise.
 *
 * Where the libraries use it (10.1.3): transaction hashing and sender recovery (`ecrecover`,
 * ~37% of block-import CPU in pure JS), tx signing (`ecsign`), block/header hashing, the state
 * trie's key hashing and node hashing, the KECCAK256 opcode, the ECRECOVER and SHA256
 * precompiles. `ecdsaRecover` is part of the interface but not called by 10.1.3.
 *
 * Public-key recovery is memoized (bounded, first-in-first-out): it is a pure function of its
 * input, and in a simulated world the same signed transaction is recovered by every node that
 * decodes it. Eviction order only depends on the sequence of calls, so it stays deterministic.
 */
import type { CustomCrypto } from '@ethereumjs/common';
import { secp256k1 as noble } from '@noble/curves/secp256k1.js';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { keccak256 as projectKeccak256 } from './keccak.ts';
import { lazyKzg } from './kzg.ts';

/** keccak-256 as node/crypto/keccak.ts provides it (native sponge, native API or noble). */
export const keccak256: (data: Uint8Array) => Uint8Array = projectKeccak256;

type NativeSecp = {
  ecdsaSign(msg32: Uint8Array, seckey: Uint8Array): { signature: Uint8Array; recid: number };
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed?: boolean): Uint8Array;
};

function loadNativeSecp(): NativeSecp | undefined {
  try {
    const require = createRequire(import.meta.url);
    const native = require('secp256k1/bindings') as NativeSecp;
    // smoke test: a known-good recovery must work
    const key = new Uint8Array(32).fill(7);
    const msg = new Uint8Array(32).fill(9);
    const { signature, recid } = native.ecdsaSign(msg, key);
    native.ecdsaRecover(signature, recid, msg, false);
    return native;
  } catch {
    return undefined;
  }
}

let native: NativeSecp | undefined = loadNativeSecp();

/** 'native' when libsecp256k1 is in use for recovery/signing, else 'noble'. */
export function cryptoPluginBackend(): 'native' | 'noble' {
  return native ? 'native' : 'noble';
}

/** Switches the secp256k1 backend (tests and benchmarks). Clears the recovery memo. */
export function useCryptoPluginBackend(kind: 'native' | 'noble'): void {
  native = kind === 'native' ? loadNativeSecp() : undefined;
  recoverMemo.clear();
}

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

function leftPad32(b: Uint8Array): Uint8Array {
  if (b.length === 32) return b;
  if (b.length > 32) return b.subarray(b.length - 32); // as util's setLengthLeft does
  const out = new Uint8Array(32);
  out.set(b, 32 - b.length);
  return out;
}

function bytesToBig(b: Uint8Array): bigint {
  let v = 0n;
  for (let i = 0; i < b.length; i++) v = (v << 8n) | BigInt(b[i]);
  return v;
}

/** Recovers the 64-byte public key (no 0x04 prefix). Throws on an invalid signature. */
function recoverRaw(hash: Uint8Array, sig64: Uint8Array, recId: number): Uint8Array {
  if (native) {
    return native.ecdsaRecover(sig64, recId, hash, false).subarray(1);
  }
  const sig = noble.Signature.fromBytes(sig64).addRecoveryBit(recId);
  return sig.recoverPublicKey(hash).toBytes(false).subarray(1);
}

// ---- memo --------------------------------------------------------------------------------------

const MEMO_LIMIT = 65_536;
const recoverMemo = new Map<string, Uint8Array | Error>();
let memoHits = 0;
let memoMisses = 0;

function memoKey(hash: Uint8Array, sig64: Uint8Array, recId: number): string {
  // latin1 string of the raw bytes: cheaper than hex and collision free
  let s = String.fromCharCode(recId);
  for (let i = 0; i < 32; i++) s += String.fromCharCode(hash[i]);
  for (let i = 0; i < 64; i++) s += String.fromCharCode(sig64[i]);
  return s;
}

function memoRecover(hash: Uint8Array, sig64: Uint8Array, recId: number): Uint8Array {
  if (hash.length !== 32) throw new Error('message hash must be 32 bytes');
  const key = memoKey(hash, sig64, recId);
  const hit = recoverMemo.get(key);
  if (hit !== undefined) {
    memoHits++;
    if (hit instanceof Error) throw hit;
    return hit.slice();
  }
  memoMisses++;
  let result: Uint8Array | Error;
  try {
    result = recoverRaw(hash, sig64, recId);
  } catch (e) {
    result = e instanceof Error ? e : new Error(String(e));
  }
  if (recoverMemo.size >= MEMO_LIMIT) {
    const oldest = recoverMemo.keys().next().value as string;
    recoverMemo.delete(oldest);
  }
  recoverMemo.set(key, result);
  if (result instanceof Error) throw result;
  return result.slice();
}

/** Empties the recovery memo (benchmarks measure cold recovery with it). */
export function clearRecoveryMemo(): void {
  recoverMemo.clear();
}

export function recoveryMemoStats(): { hits: number; misses: number; size: number } {
  return { hits: memoHits, misses: memoMisses, size: recoverMemo.size };
}

// ---- the CustomCrypto functions ------------------------------------------------------------------

/**
 * Same contract as @ethereumjs/util's `ecrecover`: v is 0/1, 27/28 or EIP-155 (chainId*2+35/36);
 * r and s are big-endian (any length up to 32); returns the 64-byte public key; throws when the
 * signature is invalid. High-s values are accepted here (the ECRECOVER precompile needs that; the
 * transaction layer rejects high s before calling this).
 */
export function ecrecover(msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint): Uint8Array {
  let recovery: bigint;
  if (v === 0n || v === 1n) recovery = v;
  else if (chainId === undefined) recovery = v - 27n;
  else recovery = v - (chainId * 2n + 35n);
  if (recovery !== 0n && recovery !== 1n) throw new Error('Invalid signature v value');
  const rr = leftPad32(r);
  const ss = leftPad32(s);
  // noble rejects r/s outside [1, n-1]; libsecp256k1 rejects overflow at parse and zero at recover.
  // Check explicitly so both backends agree.
  const rv = bytesToBig(rr);
  const sv = bytesToBig(ss);
  if (rv === 0n || rv >= SECP256K1_N || sv === 0n || sv >= SECP256K1_N) throw new Error('Invalid signature r or s');
  const sig64 = new Uint8Array(64);
  sig64.set(rr, 0);
  sig64.set(ss, 32);
  return memoRecover(msgHash, sig64, Number(recovery));
}

/** (sig = r||s, recId, hash) -> 65-byte uncompressed public key (0x04 prefix). */
export function ecdsaRecover(sig: Uint8Array, recId: number, hash: Uint8Array): Uint8Array {
  if (sig.length !== 64) throw new Error('signature must be 64 bytes');
  if (recId !== 0 && recId !== 1) throw new Error('invalid recovery id');
  const pub = memoRecover(hash, sig, recId);
  const out = new Uint8Array(65);
  out[0] = 4;
  out.set(pub, 1);
  return out;
}

/**
 * noble's `secp256k1.sign` signature. With the options ethereumjs uses for transactions
 * (prehash false, format 'recovered', no extra entropy) it signs with libsecp256k1 (RFC 6979,
 * low-s, byte-identical to noble's output); any other option set goes to noble.
 */
export const ecsign = ((message: Uint8Array, secretKey: Uint8Array, opts?: Record<string, unknown>): Uint8Array => {
  const o = opts ?? {};
  const plain =
    native !== undefined &&
    o.prehash === false &&
    o.format === 'recovered' &&
    (o.extraEntropy === undefined || o.extraEntropy === false) &&
    o.lowS !== false &&
    message.length === 32;
  if (plain) {
    const { signature, recid } = native!.ecdsaSign(message, secretKey);
    const out = new Uint8Array(65);
    out[0] = recid;
    out.set(signature, 1);
    return out;
  }
  return noble.sign(message, secretKey, o as Parameters<typeof noble.sign>[2]);
}) as unknown as NonNullable<CustomCrypto['ecsign']>;

export function sha256(msg: Uint8Array): Uint8Array {
  const d = createHash('sha256').update(msg).digest();
  return new Uint8Array(d.buffer, d.byteOffset, d.length);
}

/** Pass as `customCrypto` to every Common (genesis, chain, execution) of the node. */
export const customCrypto: CustomCrypto = {
  keccak256,
  sha256,
  ecrecover,
  ecsign,
  ecdsaRecover,
  kzg: lazyKzg,
};
