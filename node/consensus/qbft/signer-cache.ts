/**
 * Signer recovery, memoized per process: the same signed bytes always give the same signer, so a
 * simulated world with many nodes recovers each distinct signature once, not once per receiver.
 * Bounded: the oldest entries are evicted past the cap.
 */
import { bytesToHex, type Hex } from '../../crypto/bytes.ts';
import { recoverAddress } from '../../crypto/secp256k1.ts';

const CAP = 100_000;
const cache = new Map<string, Hex | null>();

/** The signer's address, or undefined when the signature is malformed or does not recover. */
export function recoverAddressCached(hash: Uint8Array, signature: Uint8Array): Hex | undefined {
  const key = bytesToHex(signature) + bytesToHex(hash).slice(2);
  const hit = cache.get(key);
  if (hit !== undefined) return hit ?? undefined;
  let signer: Hex | null;
  try {
    signer = recoverAddress(hash, signature);
  } catch {
    signer = null;
  }
  if (cache.size >= CAP) cache.delete(cache.keys().next().value as string);
  cache.set(key, signer);
  return signer ?? undefined;
}
