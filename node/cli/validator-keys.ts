/**
 * Node key pairs for `operator generate-blockchain-config`: fresh secp256k1 keys drawn from a
 * random source, or public keys given in the configuration file (which then have no private key).
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hexToBytes, type Hex } from '../crypto/bytes.ts';
import { publicKeyOf, publicKeyToAddress } from '../crypto/secp256k1.ts';

/** Fills `byteCount` bytes; the live command passes node:crypto's randomBytes. */
export type RandomBytes = (byteCount: number) => Uint8Array;

export interface NodeKeyPair {
  address: Hex;
  /** 64 bytes, the uncompressed point without its 0x04 prefix (Besu's SECPPublicKey encoding). */
  publicKey: Uint8Array;
  /** 32 bytes; absent for a key imported from the configuration file. */
  privateKey?: Uint8Array;
}

export class KeyImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyImportError';
  }
}

// A 32-byte draw is outside [1, n-1] with probability below 2^-127; a source that keeps
// failing is broken, not unlucky.
const MAX_DRAWS = 64;

export function generateKeyPair(random: RandomBytes): NodeKeyPair {
  for (let draw = 0; draw < MAX_DRAWS; draw++) {
    const candidate = random(32);
    if (candidate.length !== 32) throw new Error(`random source returned ${candidate.length} bytes instead of 32`);
    if (!secp256k1.utils.isValidSecretKey(candidate)) continue;
    const privateKey = Uint8Array.from(candidate);
    const publicKey = publicKeyOf(privateKey);
    return { address: publicKeyToAddress(publicKey), publicKey, privateKey };
  }
  throw new Error(`random source gave no valid secp256k1 private key in ${MAX_DRAWS} draws`);
}

/** A public key as Besu reads it (Bytes.fromHexString: optional 0x, even digits), checked on the curve. */
export function importPublicKey(text: string): NodeKeyPair {
  const digits = /^0[xX]/.test(text) ? text.slice(2) : text;
  if (!/^[0-9a-fA-F]*$/.test(digits) || digits.length % 2 !== 0) throw new KeyImportError(`${text} is not a hex string`);
  const bytes = hexToBytes(digits);
  if (bytes.length !== 64) throw new KeyImportError(`${text} is not a public key: encoding must be 64 bytes long, got ${bytes.length}`);
  const sec1 = new Uint8Array(65);
  sec1[0] = 0x04;
  sec1.set(bytes, 1);
  if (!secp256k1.utils.isValidPublicKey(sec1, false)) throw new KeyImportError(`${text} is not a valid public key for elliptic curve secp256k1`);
  return { address: publicKeyToAddress(bytes), publicKey: bytes };
}
