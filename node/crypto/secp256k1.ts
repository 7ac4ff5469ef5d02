/**
 * secp256k1 signing and recovery as Besu uses them: RFC 6979 deterministic nonces, low-s,
 * 65-byte signatures r(32) || s(32) || recId(1, 0 or 1), over a 32-byte hash without prefix.
 * The native libsecp256k1 binding is used when it loads; @noble/curves is the portable fallback.
 */
import { secp256k1 as noble } from '@noble/curves/secp256k1.js';
import { createRequire } from 'node:module';
import { keccak256 } from './keccak.ts';
import { bytesToHex, type Hex } from './bytes.ts';

export interface Secp256k1Provider {
  name: string;
  /** Returns 65 bytes r || s || recId. */
  sign(hash: Uint8Array, privateKey: Uint8Array): Uint8Array;
  /** Returns the 64-byte uncompressed public key (without the 0x04 prefix). */
  recover(hash: Uint8Array, signature: Uint8Array): Uint8Array;
  publicKey(privateKey: Uint8Array): Uint8Array;
}

const SECP_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HALF_N = SECP_N / 2n;

function readS(signature: Uint8Array): bigint {
  let s = 0n;
  for (let i = 32; i < 64; i++) s = (s << 8n) | BigInt(signature[i]);
  return s;
}

function checkSignatureShape(signature: Uint8Array): void {
  if (signature.length !== 65) throw new Error(`signature must be 65 bytes, got ${signature.length}`);
  if (signature[64] > 1) throw new Error(`invalid recovery id ${signature[64]}`);
  const s = readS(signature);
  if (s === 0n || s > HALF_N) throw new Error('signature s value is not in the lower half of the curve order');
}

export const nobleProvider: Secp256k1Provider = {
  name: 'noble',
  sign(hash, privateKey) {
    // 'recovered' format: recovery byte first, then r || s.
    const sig = noble.sign(hash, privateKey, { prehash: false, lowS: true, format: 'recovered' });
    const out = new Uint8Array(65);
    out.set(sig.subarray(1, 65), 0);
    out[64] = sig[0];
    return out;
  },
  recover(hash, signature) {
    const recovered = new Uint8Array(65);
    recovered[0] = signature[64];
    recovered.set(signature.subarray(0, 64), 1);
    const pub = noble.recoverPublicKey(recovered, hash, { prehash: false });
    return noble.Point.fromBytes(pub).toBytes(false).subarray(1);
  },
  publicKey(privateKey) {
    return noble.getPublicKey(privateKey, false).subarray(1);
  },
};

function loadNativeProvider(): Secp256k1Provider | undefined {
  try {
    const require = createRequire(import.meta.url);
    const native = require('secp256k1/bindings') as typeof import('secp256k1');
    const provider: Secp256k1Provider = {
      name: 'native',
      sign(hash, privateKey) {
        const { signature, recid } = native.ecdsaSign(hash, privateKey);
        const out = new Uint8Array(65);
        out.set(signature, 0);
        out[64] = recid;
        return out;
      },
      recover(hash, signature) {
        return native.ecdsaRecover(signature.subarray(0, 64), signature[64], hash, false).subarray(1);
      },
      publicKey(privateKey) {
        return native.publicKeyCreate(privateKey, false).subarray(1);
      },
    };
    provider.publicKey(new Uint8Array(32).fill(1));
    return provider;
  } catch {
    return undefined;
  }
}

let provider: Secp256k1Provider = loadNativeProvider() ?? nobleProvider;

export function useSecp256k1Provider(kind: 'native' | 'noble'): void {
  provider = kind === 'native' ? (loadNativeProvider() ?? nobleProvider) : nobleProvider;
}

export function activeSecp256k1Provider(): string {
  return provider.name;
}

export function sign(hash: Uint8Array, privateKey: Uint8Array): Uint8Array {
  if (hash.length !== 32) throw new Error('can only sign a 32-byte hash');
  return provider.sign(hash, privateKey);
}

/** Recovers the signer's public key; throws on a malformed or high-s signature. */
export function recoverPublicKey(hash: Uint8Array, signature: Uint8Array): Uint8Array {
  checkSignatureShape(signature);
  return provider.recover(hash, signature);
}

export function publicKeyToAddress(publicKey: Uint8Array): Hex {
  return bytesToHex(keccak256(publicKey).subarray(12));
}

export function privateKeyToAddress(privateKey: Uint8Array): Hex {
  return publicKeyToAddress(provider.publicKey(privateKey));
}

export function publicKeyOf(privateKey: Uint8Array): Uint8Array {
  return provider.publicKey(privateKey);
}

/** Recovers the 0x address that signed `hash`. */
export function recoverAddress(hash: Uint8Array, signature: Uint8Array): Hex {
  return publicKeyToAddress(recoverPublicKey(hash, signature));
}
