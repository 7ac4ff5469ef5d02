/**
 * Signer recovery, memoized per process: the same signed bytes always give the same signer, so a
 * simulated world with many nodes recovers each distinct signature once, not once per receiver.
 * Signatures made here are remembered as they are made. Failures are cached too (as their
 * message). Bounded: the oldest entries are evicted past the cap.
 */
import { bytesToHex, hexToBytes, type Hex } from '../../crypto/bytes.ts';
import { privateKeyToAddress, recoverAddress, sign } from '../../crypto/secp256k1.ts';

const CAP = 100_000;
const recovered = new Map<string, Hex | string>();
const keyAddresses = new Map<string, Hex>();

function cacheKey(hash: Uint8Array, signature: Uint8Array): string {
  return bytesToHex(signature) + bytesToHex(hash).slice(2);
}

function remember(key: string, value: Hex | string): void {
  if (recovered.size >= CAP) recovered.delete(recovered.keys().next().value as string);
  recovered.set(key, value);
}

/** The signer's address; throws with the reason when the signature does not recover. */
export function recoverSigner(hash: Uint8Array, signature: Uint8Array): Hex {
  const key = cacheKey(hash, signature);
  let value = recovered.get(key);
  if (value === undefined) {
    try {
      value = recoverAddress(hash, signature);
    } catch (err) {
      value = `invalid signature: ${(err as Error).message}`;
    }
    remember(key, value);
  }
  if (!value.startsWith('0x')) throw new Error(value);
  return value as Hex;
}

/** As recoverAddressCached, for a hash already in hex: no conversion at all on a cache hit. */
export function recoverAddressForHexHash(hashHex: Hex, signature: Uint8Array): Hex | undefined {
  const value = recovered.get(bytesToHex(signature) + hashHex.slice(2));
  if (value !== undefined) return value.startsWith('0x') ? (value as Hex) : undefined;
  return recoverAddressCached(hexToBytes(hashHex), signature);
}

/** The signer's address, or undefined when the signature is malformed or does not recover. */
export function recoverAddressCached(hash: Uint8Array, signature: Uint8Array): Hex | undefined {
  try {
    return recoverSigner(hash, signature);
  } catch {
    return undefined;
  }
}

export function addressOfKey(privateKey: Uint8Array): Hex {
  const key = bytesToHex(privateKey);
  let address = keyAddresses.get(key);
  if (address === undefined) {
    if (keyAddresses.size >= 10_000) keyAddresses.clear();
    address = privateKeyToAddress(privateKey);
    keyAddresses.set(key, address);
  }
  return address;
}

/**
 * Signatures by (key, hash). Signing is deterministic (RFC 6979 nonces), so a second signature of
 * the same hash is the first again: a validator signs its commit seal when it accepts a proposal
 * and again when it becomes prepared (as Besu's QbftRound does), and pays for it once.
 */
const SIGNED_CAP = 10_000;
const signedBefore = new Map<string, Uint8Array>();
const signing = { signed: 0, reused: 0 };

/** Signatures made and signatures given again from memory, since the process started. */
export function signingCounts(): { signed: number; reused: number } {
  return { ...signing };
}

/** Signs a 32-byte hash and remembers who signed it, so nobody needs to recover it later. */
export function signRemembered(hash: Uint8Array, privateKey: Uint8Array): Uint8Array {
  const key = bytesToHex(privateKey) + bytesToHex(hash).slice(2);
  const earlier = signedBefore.get(key);
  if (earlier !== undefined) {
    signing.reused++;
    return earlier.slice();
  }
  signing.signed++;
  const signature = sign(hash, privateKey);
  remember(cacheKey(hash, signature), addressOfKey(privateKey));
  if (signedBefore.size >= SIGNED_CAP) signedBefore.delete(signedBefore.keys().next().value as string);
  signedBefore.set(key, signature.slice());
  return signature;
}
